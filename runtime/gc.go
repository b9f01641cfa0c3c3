package runtime

import (
	"os"
	"runtime/debug"
)

// The runtime's GC settings. Its live heap is small, a few dozen sessions,
// while ingest makes short-lived garbage for every event (net/http's
// request, the decoded JSON), so Go's default GOGC=100 collects far more
// often than memory requires and a burst of hooks pays for it in CPU.
// GOGC=400 lets the heap grow to five times the live data between
// collections, still a few tens of MiB. The soft limit makes the collector
// work harder instead should the live heap ever grow large, so a leak or a
// flood of sessions shows up as CPU before it shows up as memory.
const (
	gcPercent   = 400
	memoryLimit = 256 << 20
)

// TuneGC applies the runtime's GC settings to the process, leaving alone
// any a person set with GOGC or GOMEMLIMIT, and returns a func that puts
// back the previous ones.
func TuneGC() (restore func()) {
	var undo []func()
	if os.Getenv("GOGC") == "" {
		prev := debug.SetGCPercent(gcPercent)
		undo = append(undo, func() { debug.SetGCPercent(prev) })
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		prev := debug.SetMemoryLimit(memoryLimit)
		undo = append(undo, func() { debug.SetMemoryLimit(prev) })
	}
	return func() {
		for _, f := range undo {
			f()
		}
	}
}

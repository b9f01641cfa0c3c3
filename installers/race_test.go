package installers

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/clawdhq/clawd/internal/atomicfile"
)

// TestConcurrentWriterNeverLosesAWrite runs install and uninstall over and
// over while another program rewrites the settings file every few
// milliseconds the way editors and agents do (read, change, write a
// temporary file, rename it over). Each of its writes adds a key. clawd
// may refuse to write (ErrConcurrentChange) but must never replace a
// write it did not read.
//
// One window is left, and the test tells it apart: when the other program
// writes between clawd's check and its swap, clawd puts that write back
// at once, but for those microseconds clawd's file is in place, and a
// program that reads it then and writes after the swap back builds on it.
// The writer sees that happen (its own last keys are missing from what it
// read) and notes which of clawd's runs were under way; each such read
// must fall in a run clawd refused, and every key missing at the end must
// be one such a read missed, or be in a file clawd kept
// (atomicfile.DisplacedError). A clawd that overwrites what it did not
// read fails both: its runs succeed.
func TestConcurrentWriterNeverLosesAWrite(t *testing.T) {
	c := newTestClaude(t)
	writeSettings(t, c, "{\"keys\": {}}\n", 0o644)
	const installs = 200

	// run is the number of clawd's run under way (or last finished);
	// refused[i] is set when run i was refused.
	var run atomic.Int64
	var refused [installs + 1]atomic.Bool
	type sawClawds struct {
		missing  []string
		from, to int64 // clawd's runs under way around the read
	}
	var saw []sawClawds

	done := make(chan struct{})
	var wg sync.WaitGroup
	var written int
	var writerErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		tmp := filepath.Join(filepath.Dir(c.Path), "writer.tmp")
		mine := map[string]bool{}
		for written = 0; ; written++ {
			select {
			case <-done:
				return
			default:
			}
			from := run.Load()
			data, err := os.ReadFile(c.Path)
			to := run.Load()
			if err != nil {
				writerErr = err
				return
			}
			var doc map[string]any
			if err := json.Unmarshal(data, &doc); err != nil {
				writerErr = fmt.Errorf("the writer read a broken file: %v\n%s", err, data)
				return
			}
			keys, _ := doc["keys"].(map[string]any)
			var missing []string
			for k := range mine {
				if _, ok := keys[k]; !ok {
					missing = append(missing, k)
					delete(mine, k)
				}
			}
			if len(missing) > 0 {
				saw = append(saw, sawClawds{missing, from, to})
			}
			k := fmt.Sprintf("k%d", written)
			keys[k], mine[k] = true, true
			doc["keys"] = keys
			out, _ := json.MarshalIndent(doc, "", "  ")
			if err := os.WriteFile(tmp, out, 0o644); err != nil {
				writerErr = err
				return
			}
			if err := os.Rename(tmp, c.Path); err != nil {
				writerErr = err
				return
			}
		}
	}()

	nRefused := 0
	var kept []string
	for i := 1; i <= installs; i++ {
		run.Store(int64(i))
		var err error
		if i%2 == 1 {
			_, err = c.install(goldenBinary, Options{})
		} else {
			_, err = c.uninstall(Options{})
		}
		var displaced *atomicfile.DisplacedError
		if errors.As(err, &displaced) {
			kept = append(kept, displaced.Kept)
		}
		switch {
		case errors.Is(err, ErrConcurrentChange):
			refused[i].Store(true)
			nRefused++
		case err != nil:
			t.Fatalf("run %d: %v", i, err)
		}
	}
	close(done)
	wg.Wait()
	if writerErr != nil {
		t.Fatal(writerErr)
	}

	explained := map[string]bool{}
	for _, s := range saw {
		inRefused := false
		for i := s.from; i <= s.to; i++ {
			inRefused = inRefused || refused[i].Load()
		}
		if !inRefused {
			t.Errorf("the writer read a file without its keys %v during clawd's runs %d to %d, none of them refused: clawd replaced a write it did not read",
				s.missing, s.from, s.to)
		}
		for _, k := range s.missing {
			explained[k] = true
		}
	}
	have := map[string]bool{}
	for _, f := range append([]string{c.Path}, kept...) {
		var doc struct {
			Keys map[string]bool `json:"keys"`
		}
		if err := json.Unmarshal([]byte(readFile(t, f)), &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for k := range doc.Keys {
			have[k] = true
		}
	}
	var lost []string
	for k := 0; k < written; k++ {
		if key := fmt.Sprintf("k%d", k); !have[key] && !explained[key] {
			lost = append(lost, key)
		}
	}
	t.Logf("%d installs and uninstalls (%d refused, %d displaced files kept) against %d writes; the writer built on clawd's file in a swap back %d times",
		installs, nRefused, len(kept), written, len(saw))
	if len(lost) > 0 {
		t.Errorf("%d of the other program's %d writes were lost: %v", len(lost), written, lost)
	}
}

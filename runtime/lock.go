package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/clawdhq/clawd/internal/filelock"
)

// LockFile is the file in the clawd home that one `clawd serve` at a time
// holds locked (flock on Unix, LockFileEx on Windows) while it runs. It
// holds the runtime's pid, for the one that lost to say who runs.
const LockFile = "serve.lock"

// homeLock is a held LockFile.
type homeLock struct{ f *os.File }

// lockHome takes the clawd home's lock, or returns *ErrAlreadyRunning
// naming the runtime that holds it. The kernel drops the lock when the
// process ends, however it ends: no stale lock outlives a killed runtime.
func lockHome(home string) (*homeLock, error) {
	path := filepath.Join(home, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	held, err := filelock.TryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !held {
		f.Close()
		return nil, &ErrAlreadyRunning{PID: lockHolder(path)}
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &homeLock{f: f}, nil
}

// lockHolder reads the pid the runtime holding the lock wrote, waiting a
// moment for one that has just taken it to write it; 0 if none shows up.
func lockHolder(path string) int {
	for range 25 {
		b, _ := os.ReadFile(path)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	return 0
}

// release gives the lock up. The pid stays in the file: the next runtime
// overwrites it, and nobody reads it without failing to lock first.
func (l *homeLock) release() {
	filelock.Unlock(l.f)
	l.f.Close()
}

package runtime

import (
	"errors"
	"fmt"
	"io/fs"
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

// DefaultLockWait is how long a starting runtime waits for the lock of
// one that is stopping (Config.LockWait).
const DefaultLockWait = 5 * time.Second

// stoppingMark follows the pid in LockFile once its runtime stops: a
// runtime started meanwhile (a systemd restart, an upgrade) waits for the
// lock instead of failing.
const stoppingMark = "stopping"

// lockHome takes the clawd home's lock, or returns *ErrAlreadyRunning
// naming the runtime that holds it. While the holder says it is stopping
// it waits up to wait for it to let go; a runtime that is not stopping
// is a refusal at once. The kernel drops the lock when the process ends,
// however it ends: no stale lock outlives a killed runtime.
func lockHome(home string, wait time.Duration) (*homeLock, error) {
	path := filepath.Join(home, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	deadline := time.Now().Add(wait)
	for {
		held, err := filelock.TryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if held {
			break
		}
		pid, stopping := lockHolder(path)
		if !stopping || time.Now().After(deadline) {
			f.Close()
			return nil, &ErrAlreadyRunning{PID: pid}
		}
		lockPoll()
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &homeLock{f: f}, nil
}

// lockPoll is the pause between two tries for the lock of a stopping
// runtime; tests watch it.
var lockPoll = func() { time.Sleep(50 * time.Millisecond) }

// lockHolder reads the pid the runtime holding the lock wrote, and whether
// it said it is stopping, waiting a moment for one that has just taken it
// to write its pid; 0 if none shows up.
func lockHolder(path string) (pid int, stopping bool) {
	for range 25 {
		b, _ := os.ReadFile(path)
		first, rest, _ := strings.Cut(string(b), "\n")
		if pid, err := strconv.Atoi(strings.TrimSpace(first)); err == nil && pid > 0 {
			return pid, strings.TrimSpace(rest) == stoppingMark
		}
		time.Sleep(20 * time.Millisecond)
	}
	return 0, false
}

// stopping marks the lock's file: its runtime is on its way out.
func (l *homeLock) stopping() {
	l.f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"+stoppingMark+"\n"), 0)
}

// release gives the lock up. The pid stays in the file: the next runtime
// overwrites it, and nobody reads it without failing to lock first.
func (l *homeLock) release() {
	filelock.Unlock(l.f)
	l.f.Close()
}

// HomeInUse reports whether a `clawd serve` runs on the clawd home at
// home, and its pid (0 when it wrote none). It takes the lock for a moment
// to tell, so a serve starting at that very moment may lose to it and say
// so.
func HomeInUse(home string) (pid int, inUse bool, err error) {
	path := filepath.Join(home, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	held, err := filelock.TryLock(f)
	if err != nil {
		return 0, false, fmt.Errorf("lock %s: %w", path, err)
	}
	if held {
		filelock.Unlock(f)
		return 0, false, nil
	}
	pid, _ = lockHolder(path)
	return pid, true, nil
}

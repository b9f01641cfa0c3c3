// Package filelock takes exclusive advisory locks on files: flock on Unix,
// LockFileEx on Windows. The kernel drops a lock when its process ends,
// however it ends, so no stale lock outlives a killed process.
package filelock

import "os"

// TryLock takes an exclusive lock on f without waiting; false means
// another process (or another open file of this one) holds it.
func TryLock(f *os.File) (bool, error) { return lock(f, false) }

// Lock takes an exclusive lock on f, waiting for whoever holds it.
func Lock(f *os.File) error {
	_, err := lock(f, true)
	return err
}

// Unlock gives up the lock on f.
func Unlock(f *os.File) { unlock(f) }

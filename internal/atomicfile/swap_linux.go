package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// snapshot is what a file was when it was checked: its identity and last
// write, so that a later stat tells whether anyone replaced or wrote it.
// (Not ctime: renaming a file changes it.)
type snapshot struct {
	ino, dev uint64
	size     int64
	mtime    unix.Timespec
}

func snap(st *unix.Stat_t) snapshot {
	return snapshot{ino: st.Ino, dev: st.Dev, size: st.Size, mtime: st.Mtim}
}

// readSnapshot reads path and the snapshot of the file it read; exists is
// false when there is no file.
func readSnapshot(path string) (data []byte, s snapshot, exists bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, s, false, nil
	}
	if err != nil {
		return nil, s, false, err
	}
	defer f.Close()
	var before, after unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &before); err != nil {
		return nil, s, false, err
	}
	data, err = io.ReadAll(f)
	if err != nil {
		return nil, s, false, err
	}
	if err := unix.Fstat(int(f.Fd()), &after); err != nil {
		return nil, s, false, err
	}
	if snap(&before) != snap(&after) {
		return nil, s, false, fmt.Errorf("%s changed while it was read", path)
	}
	return data, snap(&after), true, nil
}

// swapIf puts tmp in path's place if expect accepts what path held. It
// reads and checks path, then swaps tmp in with renameat2
// (RENAME_EXCHANGE: one step, no moment without a file) and checks with
// one stat that what it displaced is the very file it checked, unwritten
// since; if not, it swaps back at once. Another program's write between
// the check and the swap is so never lost; it can only see clawd's file
// for the few microseconds the swap back takes. RENAME_NOREPLACE creates
// path only if nobody did meanwhile. File systems without renameat2 get
// checkThenRename.
func swapIf(tmp, path string, expect func([]byte, bool) error) error {
	cur, was, exists, err := readSnapshot(path)
	if err != nil {
		return fmt.Errorf("re-read %s: %w", path, err)
	}
	if err := expect(cur, exists); err != nil {
		return err
	}
	if !exists {
		err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_NOREPLACE)
		switch {
		case errors.Is(err, unix.EEXIST):
			now, rerr := os.ReadFile(path)
			if rerr != nil {
				return fmt.Errorf("re-read %s: %w", path, rerr)
			}
			if err := expect(now, true); err != nil {
				return err
			}
			return fmt.Errorf("%s was created while it was being written", path)
		case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP):
			return checkThenRename(tmp, path, expect)
		case err != nil:
			return fmt.Errorf("rename %s to %s: %w", tmp, path, err)
		}
		return nil
	}
	var ours unix.Stat_t
	if err := unix.Lstat(tmp, &ours); err != nil {
		return err
	}
	err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE)
	switch {
	case errors.Is(err, unix.ENOENT):
		// Removed since the check.
		return expect(nil, false)
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP):
		return checkThenRename(tmp, path, expect)
	case err != nil:
		return fmt.Errorf("rename %s to %s: %w", tmp, path, err)
	}
	var displaced unix.Stat_t
	if err := unix.Lstat(tmp, &displaced); err == nil && snap(&displaced) == was {
		os.Remove(tmp) // the file that was checked, now under the temporary name
		return nil
	}
	// Someone replaced or wrote the file between the check and the swap:
	// put theirs back, unless they have replaced clawd's meanwhile too.
	changed := expect(nil, false)
	if changed == nil {
		changed = fmt.Errorf("%s changed while it was being written", path)
	}
	var now unix.Stat_t
	if err := unix.Lstat(path, &now); err != nil || now.Ino != ours.Ino || now.Dev != ours.Dev {
		// Theirs is in place again, but it may have been made from
		// clawd's file, read in the microseconds it was there: the one
		// clawd displaced (in tmp) may hold a write that is nowhere
		// else.
		return keepDisplaced(tmp, path, changed)
	}
	if err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE); err != nil {
		return keepDisplaced(tmp, path, fmt.Errorf("%w; and putting it back failed: %v", changed, err))
	}
	// The swap back must have displaced clawd's file; if another program
	// wrote in between, its newer write is what tmp holds now.
	var back unix.Stat_t
	if err := unix.Lstat(tmp, &back); err != nil || back.Ino != ours.Ino || back.Dev != ours.Dev {
		return keepDisplaced(tmp, path, changed)
	}
	return changed
}

// keepDisplaced keeps the file at tmp, another program's write that is
// not in place, beside path under a name of its own, and returns a
// DisplacedError.
func keepDisplaced(tmp, path string, changed error) error {
	kept := fmt.Sprintf("%s.displaced-%s", path, time.Now().UTC().Format("20060102T150405.000000000"))
	if err := os.Rename(tmp, kept); err != nil {
		kept = tmp
	}
	return &DisplacedError{Err: changed, Kept: kept}
}

// removeIf moves path aside to a temporary name (a rename is atomic),
// checks what it moved, and moves it back with RENAME_NOREPLACE when
// expect refuses it: a file written by another program in the meantime
// is never removed.
func removeIf(path string, expect func([]byte, bool) error) error {
	aside := fmt.Sprintf("%s.%d.removing", path, os.Getpid())
	if err := os.Rename(path, aside); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return expect(nil, false)
		}
		return fmt.Errorf("remove %s: %w", path, err)
	}
	cur, err := os.ReadFile(aside)
	if err == nil {
		err = expect(cur, true)
	}
	if err == nil {
		os.Remove(aside)
		return nil
	}
	if rerr := unix.Renameat2(unix.AT_FDCWD, aside, unix.AT_FDCWD, path, unix.RENAME_NOREPLACE); rerr != nil {
		return fmt.Errorf("%w; and putting %s back failed: %v (it is in %s)", err, path, rerr, aside)
	}
	return err
}

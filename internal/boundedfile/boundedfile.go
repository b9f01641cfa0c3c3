// Package boundedfile reads a small file that a person or another program
// put in clawd's way (automations.toml, config.toml) without letting its
// kind or its size stall the reader: only a regular file is read, never a
// FIFO (whose open would wait for a writer), a device (/dev/zero has no
// end) or a folder, and never more than a cap. A symlink is followed to
// what it names, which must itself be a regular file.
package boundedfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// Sentinels of Read's refusals, checked with errors.Is. A missing file is
// neither: its error wraps os.ErrNotExist.
var (
	// ErrNotRegular: the path names a FIFO, a device, a socket or a folder.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file holds more than the cap.
	ErrTooLarge = errors.New("too large")
)

// Read returns the contents of the regular file at path, at most max
// bytes. The open never blocks (see open), a path that is not a regular
// file is refused with ErrNotRegular, and a file longer than max with
// ErrTooLarge, both before anything much is read: a file that grows while
// it is read is cut at max+1 bytes and refused too.
func Read(path string, max int64) ([]byte, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: %w (%s)", path, ErrNotRegular, kind(fi.Mode()))
	}
	if fi.Size() > max {
		return nil, tooLarge(path, max)
	}
	// The size is a hint (a file can grow, /proc reports 0): the limit is
	// what bounds the read.
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, tooLarge(path, max)
	}
	return data, nil
}

func tooLarge(path string, max int64) error {
	return fmt.Errorf("read %s: %w: more than %d bytes", path, ErrTooLarge, max)
}

// kind names what a non-regular file is, for the error.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file: " + m.Type().String()
}

// Package boundedfile reads small files that a person or another program
// may have replaced with something else (config.toml, automations.toml)
// without letting what they are stall the reader: only a regular file is
// read, never a FIFO (whose open waits for a writer, and whose read waits
// for data), a device (/dev/zero has no end) or a folder, and never more
// than a cap. A symlink is followed; what it names must be a regular file.
package boundedfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// Read's refusals, checked with errors.Is. A missing file is neither: its
// error wraps os.ErrNotExist.
var (
	// ErrNotRegular: the path names a FIFO, a device, a socket or a
	// folder.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file holds more than the cap.
	ErrTooLarge = errors.New("too large")
)

// Read returns the contents of the regular file at path, at most max
// bytes. Its open never blocks (see open); what is not a regular file is
// refused with ErrNotRegular, and a file over max bytes with ErrTooLarge,
// both before anything is read. A file that grows while it is read is
// refused too once max+1 bytes arrived: the cap, not the size stat
// reported, bounds the read.
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
		return nil, fmt.Errorf("read %s: %w: %d bytes, more than %d", path, ErrTooLarge, fi.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("read %s: %w: more than %d bytes", path, ErrTooLarge, max)
	}
	return data, nil
}

// kind names what a file that is not regular is, for a person.
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
	return "a special file"
}

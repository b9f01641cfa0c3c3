//go:build windows

package spool

import (
	"fmt"
	"syscall"
)

// appendOnce writes line at the end of the file at path in one WriteFile,
// unless the file already holds something and line would take it past
// half (errFull). The handle has FILE_APPEND_DATA alone, which makes
// every write land whole at the end, and shares delete, so that the
// runtime can rename the file aside while a hook holds it open.
func appendOnce(path string, line []byte, half int64) (size int64, err error) {
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return 0, err
	}
	const fileAppendData, fileReadAttributes = 0x0004, 0x0080
	h, err := syscall.CreateFile(p, fileAppendData|fileReadAttributes,
		syscall.FILE_SHARE_READ|syscall.FILE_SHARE_WRITE|syscall.FILE_SHARE_DELETE, nil,
		syscall.OPEN_ALWAYS, syscall.FILE_ATTRIBUTE_NORMAL|syscall.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return 0, fmt.Errorf("spool: open %s: %w", path, err)
	}
	defer syscall.CloseHandle(h)
	var fi syscall.ByHandleFileInformation
	if err := syscall.GetFileInformationByHandle(h, &fi); err != nil {
		return 0, fmt.Errorf("spool: stat %s: %w", path, err)
	}
	if fi.FileAttributes&(syscall.FILE_ATTRIBUTE_DIRECTORY|syscall.FILE_ATTRIBUTE_REPARSE_POINT) != 0 {
		return 0, fmt.Errorf("spool: %s: %w", path, ErrNotRegular)
	}
	size = int64(fi.FileSizeHigh)<<32 | int64(fi.FileSizeLow)
	if size > 0 && size+int64(len(line)) > half {
		return size, errFull
	}
	var n uint32
	if err := syscall.WriteFile(h, line, &n, nil); err != nil {
		return size, fmt.Errorf("spool: write %s: %w", path, err)
	}
	if int(n) != len(line) {
		return size, fmt.Errorf("spool: write %s: %d of %d bytes", path, n, len(line))
	}
	return size, nil
}

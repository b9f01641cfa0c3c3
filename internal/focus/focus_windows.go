package focus

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	user32                  = windows.NewLazySystemDLL("user32.dll")
	procGetWindow           = user32.NewProc("GetWindow")
	procGetWindowTextW      = user32.NewProc("GetWindowTextW")
	procIsIconic            = user32.NewProc("IsIconic")
	procShowWindowAsync     = user32.NewProc("ShowWindowAsync")
	procSetForegroundWindow = user32.NewProc("SetForegroundWindow")
)

const (
	gwOwner   = 4 // GetWindow: the owner window
	swRestore = 9 // ShowWindowAsync: un-minimize
)

var errNoProcess = errors.New("no such process")

// platformFocus raises the visible top-level window of the nearest
// ancestor of t.PID (a console window reports the pid of its shell; Windows
// Terminal's belongs to WindowsTerminal.exe up the tree), else a window
// with the session's title, else a terminal host's window.
func platformFocus(ctx context.Context, t Target, s system) error {
	procs, err := processes()
	if err != nil {
		return err
	}
	ancestors := ancestry(t.PID, func(pid int) (int, error) {
		p, ok := procs[pid]
		if !ok {
			return 0, errNoProcess
		}
		return p.ppid, nil
	})
	wins := topWindows()
	w, ok := pick(ancestors, wins, t.Title)
	if !ok {
		w, ok = hostWindow(wins, func(pid int) string { return procs[pid].exe })
	}
	if !ok {
		return fmt.Errorf("%w: no window of processes %v or titled %q", ErrNotFound, ancestors, t.Title)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	h, err := strconv.ParseUint(w.id, 10, 64)
	if err != nil {
		return fmt.Errorf("window id %q: %w", w.id, err)
	}
	hwnd := uintptr(h)
	if minimized, _, _ := procIsIconic.Call(hwnd); minimized != 0 {
		// Async: the window belongs to another process, which may hang.
		procShowWindowAsync.Call(hwnd, swRestore)
	}
	if ok, _, err := procSetForegroundWindow.Call(hwnd); ok == 0 {
		// Windows lets a process take the foreground only right after
		// the user worked with it, as after a click in its tray menu.
		return fmt.Errorf("bring window %q to the front: refused by Windows: %v", w.title, err)
	}
	return nil
}

type process struct {
	ppid int
	exe  string
}

// processes takes a snapshot of every process's parent and executable.
func processes() (map[int]process, error) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil, fmt.Errorf("process snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	procs := map[int]process{}
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		procs[int(e.ProcessID)] = process{ppid: int(e.ParentProcessID), exe: windows.UTF16ToString(e.ExeFile[:])}
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	return procs, nil
}

// The EnumWindows callback is made once: Windows callbacks are never freed
// and a process may make only so many. enumMu serializes its use.
var (
	enumMu       sync.Mutex
	enumFound    []window
	enumCallback = windows.NewCallback(func(hwnd windows.HWND, _ uintptr) uintptr {
		if !windows.IsWindowVisible(hwnd) {
			return 1
		}
		if owner, _, _ := procGetWindow.Call(uintptr(hwnd), gwOwner); owner != 0 {
			return 1 // dialogs and tool windows; their owner is listed too
		}
		var pid uint32
		if _, err := windows.GetWindowThreadProcessId(hwnd, &pid); err != nil {
			return 1
		}
		enumFound = append(enumFound, window{
			id:    strconv.FormatUint(uint64(hwnd), 10),
			pid:   int(pid),
			title: windowText(hwnd),
		})
		return 1
	})
)

// topWindows lists the visible, unowned top-level windows.
func topWindows() []window {
	enumMu.Lock()
	defer enumMu.Unlock()
	enumFound = nil
	windows.EnumWindows(enumCallback, nil)
	found := enumFound
	enumFound = nil
	return found
}

// windowText reads a window's title. For another process's window
// GetWindowText reads the stored caption without a message to the window,
// so a hung terminal cannot block it (GetWindowTextLength might).
func windowText(hwnd windows.HWND) string {
	buf := make([]uint16, 512)
	procGetWindowTextW.Call(uintptr(hwnd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	return windows.UTF16ToString(buf)
}

package fakedesktop

import "syscall"

// sysProcAttr makes the kernel kill a child when the test binary dies
// without running its cleanups (a panic, a -timeout), so no dbus-daemon or
// tray process outlives the test. Pdeathsig follows the thread that started
// the child; Go keeps that thread unless a goroutine exits while locked to
// it, which tests do not do.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

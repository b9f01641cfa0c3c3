//go:build !linux

package fakedesktop

import "syscall"

// sysProcAttr has nothing to add where there is no parent-death signal;
// t.Cleanup still kills and waits for every child.
func sysProcAttr() *syscall.SysProcAttr { return nil }

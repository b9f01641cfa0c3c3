package clawdhome

import (
	"fmt"
	"os"
)

// On Windows the clawd home lives in the person's profile folder, whose
// ACL already keeps other users out; mode bits mean nothing there.

func tighten(dir string) (bool, error) { return false, nil }

func checkPrivate(dir string) error { return nil }

func checkOwnFile(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", ErrNotPrivate, path)
	}
	return nil
}

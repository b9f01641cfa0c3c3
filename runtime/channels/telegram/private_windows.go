package telegram

import "fmt"

// checkPrivate checks that path is a regular file. On Windows the clawd
// home is in the person's profile, whose ACL keeps other users out; mode
// bits mean nothing there.
func checkPrivate(path string) error {
	fi, err := fileInfo(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", ErrTokenOpen, path)
	}
	return nil
}

package cmd

import (
	"os"
	"path/filepath"
)

// executablePath returns the running binary's absolute, symlink-free path.
func executablePath() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return filepath.Abs(p)
}

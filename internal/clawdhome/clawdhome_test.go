//go:build unix

package clawdhome

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestEnsure(t *testing.T) {
	root := t.TempDir()
	fresh := filepath.Join(root, "fresh", ".clawd")
	if changed, err := Ensure(fresh); err != nil || changed {
		t.Fatalf("Ensure(new) = %v, %v; want false, nil", changed, err)
	}
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("new home: %v, %v; want mode 0700", fi.Mode(), err)
	}

	loose := filepath.Join(root, "loose")
	if err := os.Mkdir(loose, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(loose, 0o777)
	if changed, err := Ensure(loose); err != nil || !changed {
		t.Fatalf("Ensure(0777) = %v, %v; want true, nil", changed, err)
	}
	if fi, _ := os.Stat(loose); fi.Mode().Perm() != 0o700 {
		t.Errorf("0777 home left %v, want 0700", fi.Mode().Perm())
	}
	if changed, err := Ensure(loose); err != nil || changed {
		t.Errorf("Ensure(0700) = %v, %v; want false, nil", changed, err)
	}

	// A home someone else owns is not tightened by us, even as root: it is
	// reported.
	foreign := filepath.Join(root, "foreign")
	if err := os.Mkdir(foreign, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(foreign, 0o777)
	if err := os.Chown(foreign, 65534, 65534); err != nil {
		t.Skipf("chown to nobody: %v (the test runs as root in CI)", err)
	}
	if _, err := Ensure(foreign); !errors.Is(err, ErrNotPrivate) {
		t.Errorf("Ensure(someone else's 0777 home) = %v, want ErrNotPrivate", err)
	}
	if err := CheckPrivate(foreign); !errors.Is(err, ErrNotPrivate) {
		t.Errorf("CheckPrivate(someone else's folder) = %v, want ErrNotPrivate", err)
	}
	if err := CheckPrivate(loose); err != nil {
		t.Errorf("CheckPrivate(own 0700 folder) = %v", err)
	}
	os.Chmod(loose, 0o770)
	if err := CheckPrivate(loose); !errors.Is(err, ErrNotPrivate) {
		t.Errorf("CheckPrivate(group-writable folder) = %v, want ErrNotPrivate", err)
	}
	file := filepath.Join(root, "file")
	os.WriteFile(file, nil, 0o600)
	if err := CheckPrivate(file); !errors.Is(err, ErrNotPrivate) {
		t.Errorf("CheckPrivate(a file) = %v, want ErrNotPrivate", err)
	}
}

package boundedfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.toml")
	if err := os.WriteFile(small, []byte("x = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	exact := filepath.Join(dir, "exact")
	if err := os.WriteFile(exact, bytes.Repeat([]byte("a"), 64), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, bytes.Repeat([]byte("a"), 65), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want []byte
		err  error
	}{
		{small, []byte("x = 1\n"), nil},
		{exact, bytes.Repeat([]byte("a"), 64), nil},
		{big, nil, ErrTooLarge},
		{filepath.Join(dir, "missing"), nil, os.ErrNotExist},
		{dir, nil, ErrNotRegular},
	} {
		got, err := Read(c.path, 64)
		if !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("Read(%s, 64) error = %v, want %v", filepath.Base(c.path), err, c.err)
		}
		if !bytes.Equal(got, c.want) {
			t.Errorf("Read(%s, 64) = %d bytes, want %d", filepath.Base(c.path), len(got), len(c.want))
		}
	}
}

// TestReadTooLargeSaysTheCap: the error names the file and the cap, for a
// person to act on.
func TestReadTooLargeSaysTheCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(path, make([]byte, 2048), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Read(path, 1024)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(path)) || !bytes.Contains([]byte(err.Error()), []byte("1024 bytes")) {
		t.Fatalf("Read = %v, want the path and the cap in the error", err)
	}
}

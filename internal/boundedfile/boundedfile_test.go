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
	write := func(name string, n int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), n), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	exact, over, empty := write("exact", 100), write("over", 101), write("empty", 0)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(exact, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path  string
		n     int
		err   error
		wantN int
	}{
		{exact, 100, nil, 100},
		{empty, 100, nil, 0},
		{link, 100, nil, 100},
		{over, 100, ErrTooLarge, 0},
		{dir, 100, ErrNotRegular, 0},
		{filepath.Join(dir, "missing"), 100, os.ErrNotExist, 0},
	}
	for _, tt := range tests {
		got, err := Read(tt.path, int64(tt.n))
		if tt.err == nil && (err != nil || len(got) != tt.wantN) {
			t.Errorf("Read(%s, %d) = %d bytes, %v; want %d bytes", tt.path, tt.n, len(got), err, tt.wantN)
		}
		if tt.err != nil && (!errors.Is(err, tt.err) || got != nil) {
			t.Errorf("Read(%s, %d) = %d bytes, %v; want %v", tt.path, tt.n, len(got), err, tt.err)
		}
	}
}

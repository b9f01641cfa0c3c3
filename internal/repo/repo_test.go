package repo

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRoot(t *testing.T) {
	top := t.TempDir()
	checkout := filepath.Join(top, "src", "clawd")
	worktree := filepath.Join(top, "wt")
	for _, d := range []string{filepath.Join(checkout, ".git"), filepath.Join(checkout, "runtime", "client"), worktree, filepath.Join(top, "plain")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A worktree's .git is a file.
	if err := os.WriteFile(filepath.Join(worktree, ".git"), []byte("gitdir: elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ dir, want string }{
		{checkout, checkout},
		{filepath.Join(checkout, "runtime", "client"), checkout},
		{filepath.Join(checkout, "runtime", "client") + "/", checkout},
		{filepath.Join(checkout, "gone", "deeper"), checkout}, // need not exist
		{worktree, worktree},
		{filepath.Join(top, "plain"), ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Root(tt.dir); got != tt.want {
			t.Errorf("Root(%q) = %q, want %q", tt.dir, got, tt.want)
		}
	}
}

func TestName(t *testing.T) {
	tests := []struct{ dir, root, want string }{
		{"/home/ann/src/clawd", "/home/ann/src/clawd", "clawd"},
		{"/home/ann/src/clawd/runtime/client", "/home/ann/src/clawd", "clawd/runtime/client"},
		{"/home/ann/src/clawd/runtime/", "/home/ann/src/clawd", "clawd/runtime"},
		{"/home/ann/notes", "", "notes"},
		// A root that is not above dir is not dir's.
		{"/home/ann/src/clawdette", "/home/ann/src/clawd", "clawdette"},
		{"/home/ann", "/home/ann/src/clawd", "ann"},
		{`C:\Users\ann\proj`, "", "proj"},
		{"/", "", ""},
		{"", "/x", ""},
	}
	for _, tt := range tests {
		if got := Name(tt.dir, tt.root); got != tt.want {
			t.Errorf("Name(%q, %q) = %q, want %q", tt.dir, tt.root, got, tt.want)
		}
	}
}

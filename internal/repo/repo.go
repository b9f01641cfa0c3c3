// Package repo finds the Git repository a folder is in and names the
// folder for people by it: "clawd/runtime" for the runtime folder of a
// checkout of clawd, wherever the checkout lives.
package repo

import (
	"os"
	"path/filepath"
	"strings"
)

// Root walks up from dir to the folder holding .git (a folder, or the
// file of a worktree or a submodule) and returns it; "" when no folder
// above dir has one. It only looks at names: it never reads .git.
func Root(dir string) string {
	if dir == "" {
		return ""
	}
	for d := filepath.Clean(dir); ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// Name names the folder dir for people: the name of its repository root
// with dir's path inside it ("clawd", "clawd/runtime/client") when root is
// dir or above it, else dir's own name. root is Root's answer ("" for
// none). It is pure: the caller decides whether dir is on this machine to
// look for.
func Name(dir, root string) string {
	dir = strings.TrimRight(dir, `/\`)
	if dir == "" {
		return ""
	}
	if root != "" {
		if rel, err := filepath.Rel(root, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			name := filepath.Base(root)
			if rel == "." {
				return name
			}
			return filepath.ToSlash(filepath.Join(name, rel))
		}
	}
	if i := strings.LastIndexAny(dir, `/\`); i >= 0 {
		return dir[i+1:]
	}
	return dir
}

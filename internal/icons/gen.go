//go:build ignore

// Gen draws the tray icons and writes them to assets/, where icons.go embeds
// them. Run it with `go generate ./internal/icons` after changing a drawing in
// internal/draw.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/clawdhq/clawd/internal/icons/internal/draw"
)

func main() {
	if err := run("assets"); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	files, err := draw.Assets()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// Drop assets of icons that no longer exist, so the embedded set is
	// exactly what the drawings make.
	old, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if _, keep := files[filepath.Base(f)]; !keep {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

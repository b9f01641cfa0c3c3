package remote

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/clawdhq/clawd/internal/clawdhome"
	"github.com/clawdhq/clawd/runtime/client"
)

// ErrLocalRuntime means the remote's clawd home is a runtime's own: a
// clawd serve there wrote its runtime.json, which remote mode would
// overwrite.
var ErrLocalRuntime = errors.New("a clawd runtime of this machine uses this clawd home")

// SetUp writes the runtime.json of remote mode into the clawd home at
// home, as the desktop's spec says, and returns the remote port: spec's,
// or one free on this machine's loopback now. It refuses a home whose
// runtime.json is a runtime's own, and one it cannot read.
func SetUp(home string, spec SetupSpec, now time.Time) (int, error) {
	if err := CheckName(spec.Profile); err != nil || spec.Token == "" || spec.Generation <= 0 || spec.Port < 0 || spec.Port > 65535 {
		return 0, fmt.Errorf("bad spec from the desktop: profile %q, generation %d, port %d", spec.Profile, spec.Generation, spec.Port)
	}
	if _, err := clawdhome.Ensure(home); err != nil {
		return 0, fmt.Errorf("clawd home: %w", err)
	}
	in, err := client.ReadInfo(home)
	switch {
	case errors.Is(err, client.ErrNoInfo):
	case err != nil:
		return 0, fmt.Errorf("%w; move it away and run clawd remote add again", err)
	case in.Mode != client.ModeRemote:
		return 0, fmt.Errorf("%w (%s, pid %d): stop it and move the file away, or keep this machine's own clawd",
			ErrLocalRuntime, filepath.Join(home, client.InfoFile), in.PID)
	}
	port := spec.Port
	if port == 0 {
		if port, err = freePort(); err != nil {
			return 0, err
		}
	}
	err = client.WriteInfo(home, client.Info{
		Mode: client.ModeRemote, Profile: spec.Profile, Generation: spec.Generation,
		Port: port, Token: spec.Token, Version: spec.Version, StartedAt: now.UTC(),
	})
	if err != nil {
		return 0, fmt.Errorf("write runtime.json: %w", err)
	}
	return port, nil
}

// TearDown deletes, under the remote's HOME userHome, what the spec says
// clawd created there (only paths of Tracked: the spec is never taken for
// more), deepest first, folders only when empty, and the half-copied
// binary an interrupted add may have left. runtime.json goes only while it
// is the remote mode of the spec's profile.
func TearDown(userHome, clawdHome string, spec TeardownSpec) (TeardownResult, error) {
	res := TeardownResult{Removed: []string{}}
	if userHome == "" {
		return res, errors.New("HOME is not set")
	}
	if rel, err := filepath.Rel(userHome, clawdHome); err != nil || filepath.ToSlash(rel) != ".clawd" {
		return res, fmt.Errorf("the clawd home %s is not ~/.clawd, which clawd remote set up", clawdHome)
	}
	if err := os.Remove(filepath.Join(clawdHome, "bin", ".clawd.new")); err == nil {
		res.Removed = append(res.Removed, ".clawd/bin/.clawd.new")
	}
	created := slices.DeleteFunc(slices.Clone(spec.Created), func(p string) bool { return !slices.Contains(Tracked, p) })
	// Deepest first: files before their folders.
	slices.SortStableFunc(created, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	for _, rel := range created {
		path := filepath.Join(userHome, filepath.FromSlash(rel))
		if rel == ".clawd/runtime.json" {
			if in, err := client.ReadInfo(clawdHome); err == nil && (in.Mode != client.ModeRemote || in.Profile != spec.Profile) {
				continue // someone else's by now
			}
		}
		err := os.Remove(path)
		switch {
		case err == nil:
			res.Removed = append(res.Removed, rel)
		case errors.Is(err, fs.ErrNotExist):
		case errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST):
			res.Kept = append(res.Kept, rel)
		default:
			return res, fmt.Errorf("remove ~/%s: %w", rel, err)
		}
	}
	return res, nil
}

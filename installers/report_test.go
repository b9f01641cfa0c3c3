package installers

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
)

// The tests of the one-file and two-file installers read their reports
// through these helpers.

// install and uninstall are Claude's Install and Uninstall with the one
// file's result.
func (c *Claude) install(binary string, opts Options) (*Result, error) {
	return onlyFile(c.Install(binary, opts))
}

func (c *Claude) uninstall(opts Options) (*Result, error) { return onlyFile(c.Uninstall(opts)) }

func onlyFile(rep *Report, err error) (*Result, error) {
	if err != nil {
		return nil, err
	}
	if len(rep.Files) != 1 || rep.Handlers != rep.Files[0].Path {
		panic("a one-file report with other files")
	}
	return &rep.Files[0], nil
}

// codexReport is a Codex report with its files named.
type codexReport struct {
	*Report
	Hooks, Config Result
	Trust         TrustChanges
}

func (c *Codex) install(binary string, opts Options) (*codexReport, error) {
	return codexFiles(c.Install(binary, opts))
}

func (c *Codex) uninstall(opts Options) (*codexReport, error) { return codexFiles(c.Uninstall(opts)) }

func codexFiles(rep *Report, err error) (*codexReport, error) {
	if err != nil {
		return nil, err
	}
	return &codexReport{Report: rep, Hooks: rep.Files[0], Config: rep.Files[1], Trust: rep.Files[1].Trust}, nil
}

// TestReports: every installer reports through one shape: the agent, the
// file with clawd's handlers, each file read with whether it changes.
func TestReports(t *testing.T) {
	home := t.TempDir()
	env := envMap(map[string]string{"HOME": home})
	for _, a := range agents.All() {
		inst, err := For(a, env)
		if a.Unsupported != "" {
			if !errors.Is(err, ErrUnsupported) {
				t.Errorf("For(%s), an agent clawd does not support = %v, want ErrUnsupported", a.ID, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("For(%s): %v", a.ID, err)
		}
		rep, err := inst.Install(goldenBinary, Options{})
		if err != nil {
			t.Fatalf("%s Install: %v", a.ID, err)
		}
		if rep.Agent != a.ID || !rep.Any() || len(rep.Files) == 0 || rep.Handlers != rep.Files[0].Path {
			t.Errorf("%s Install report = %+v, want the agent, changes, and the handlers' file first", a.ID, rep)
		}
		for _, f := range rep.Files {
			if f.Agent != a.ID || !f.Changed || !f.Written || f.Existed {
				t.Errorf("%s Install: file %+v, want a new file written", a.ID, f)
			}
		}
		again, err := inst.Install(goldenBinary, Options{})
		if err != nil || again.Any() {
			t.Errorf("%s second Install = %+v, %v; want nothing to do", a.ID, again, err)
		}
		rep, err = inst.Uninstall(Options{})
		if err != nil || !rep.Any() {
			t.Fatalf("%s Uninstall = %+v, %v", a.ID, rep, err)
		}
		for _, f := range rep.Files {
			if !f.Deleted {
				t.Errorf("%s Uninstall: file %+v, want deleted (clawd created it)", a.ID, f)
			}
		}
	}
}

// TestEveryAgentLeavesABadFileAlone: for every agent, each file its
// installer writes, found not parsing (or, for a file of clawd's own,
// written by someone else), stops the install with an error naming why;
// that file keeps its bytes and no other file is written.
func TestEveryAgentLeavesABadFileAlone(t *testing.T) {
	for _, a := range agents.All() {
		if a.Unsupported != "" {
			continue
		}
		t.Run(a.ID, func(t *testing.T) {
			home := t.TempDir()
			inst, err := For(a, envMap(map[string]string{"HOME": home}))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := inst.Install(goldenBinary, Options{})
			if err != nil {
				t.Fatalf("Install: %v", err)
			}
			if _, err := inst.Uninstall(Options{}); err != nil {
				t.Fatalf("Uninstall: %v", err)
			}
			for _, f := range rep.Files {
				bad := "{\n  \"hooks\": {},\n}\n"
				if strings.HasSuffix(f.Path, ".toml") {
					bad = "[hooks]\na = 1\n[hooks]\nb = 2\n"
				}
				if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(f.Path, []byte(bad), 0o644); err != nil {
					t.Fatal(err)
				}
				before := tree(t, home)
				_, err := inst.Install(goldenBinary, Options{})
				if !errors.Is(err, ErrUnparseable) && !errors.Is(err, ErrUnparseableTOML) && !errors.Is(err, ErrNotOurs) {
					t.Errorf("Install with %s not parsing = %v, want ErrUnparseable, ErrUnparseableTOML or ErrNotOurs", f.Path, err)
				}
				if after := tree(t, home); !maps.Equal(after, before) {
					t.Errorf("Install with %s not parsing changed the files:\nbefore %q\nafter  %q", f.Path, before, after)
				}
				if err := os.Remove(f.Path); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// tree returns every regular file under root with its content.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

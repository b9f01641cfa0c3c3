package doctor

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/clawdhq/clawd/agents"
)

// TestRunNotHere: without All, Run checks only the agents on this machine
// (a settings folder with something in it, or the command on PATH) and
// names the others in NotHere; an empty folder does not count. With All,
// or with agents named, every one is checked.
func TestRunNotHere(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "PATH": filepath.Join(home, "bin")}
	o := Options{Home: filepath.Join(home, ".clawd"), Getenv: func(k string) string { return env[k] },
		NoConnection: true, Ports: []int{}}
	mkdir := func(dir string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(home, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mkdir(".claude") // empty: not Claude Code
	mkdir(".codex")
	if err := os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte("model = \"o3\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	checked := func(r Report) []string {
		var out []string
		for _, c := range r.Checks {
			if c.Agent != "" && !slices.Contains(out, c.Agent) {
				out = append(out, c.Agent)
			}
		}
		return out
	}

	r := Run(context.Background(), o, nil)
	if got := checked(r); !slices.Equal(got, []string{"codex"}) {
		t.Errorf("Run checked agents %v, want [codex] (claude's folder is empty)", got)
	}
	if len(r.NotHere) != len(agents.All())-1 || !slices.Contains(r.NotHere, "claude") || slices.Contains(r.NotHere, "codex") {
		t.Errorf("Run's NotHere = %v, want every agent but codex", r.NotHere)
	}

	o.All = true
	r = Run(context.Background(), o, nil)
	if got := checked(r); len(got) != len(agents.All()) || len(r.NotHere) != 0 {
		t.Errorf("Run with All checked %d agents (NotHere %v), want all %d", len(got), r.NotHere, len(agents.All()))
	}

	o.All = false
	r = Run(context.Background(), o, []*agents.Agent{agents.Claude})
	if got := checked(r); !slices.Equal(got, []string{"claude"}) || len(r.NotHere) != 0 {
		t.Errorf("Run of claude named checked %v (NotHere %v), want [claude]", got, r.NotHere)
	}
}

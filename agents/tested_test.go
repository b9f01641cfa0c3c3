package agents

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// installAgentsScript is where the end-to-end tests' agent releases are
// pinned.
const installAgentsScript = "../scripts/install-agents.sh"

// scriptPin matches a pin of scripts/install-agents.sh: CLAUDE_VERSION=2.1.332.
var scriptPin = regexp.MustCompile(`(?m)^([A-Z][A-Z0-9]*)_VERSION=["']?([^"'\s]+)["']?\s*$`)

// readPins returns the pins of an install-agents.sh, by agent id.
func readPins(t *testing.T, script string) map[string]string {
	t.Helper()
	pins := map[string]string{}
	for _, m := range scriptPin.FindAllStringSubmatch(script, -1) {
		pins[strings.ToLower(m[1])] = m[2]
	}
	return pins
}

// pinProblems says where the pins of a script and the registry's Tested
// disagree.
func pinProblems(pins map[string]string, list []*Agent) []string {
	var out []string
	for id, v := range pins {
		a := Lookup(id)
		switch {
		case a == nil:
			out = append(out, "scripts/install-agents.sh pins "+id+" "+v+", an agent the registry does not know")
		case a.Pinned() != v:
			out = append(out, "scripts/install-agents.sh pins "+a.ID+" "+v+" but agents/"+a.ID+".go's Tested ends with "+a.Pinned()+": move both")
		}
	}
	for _, a := range list {
		if len(a.Tested) > 0 && pins[a.ID] == "" {
			out = append(out, "agents/"+a.ID+".go says it was tested with "+a.Pinned()+" but scripts/install-agents.sh pins no "+strings.ToUpper(a.ID)+"_VERSION")
		}
	}
	return out
}

// TestTestedMatchesPins holds the registry's Tested (what `clawd agents`
// and `clawd doctor` tell people) to the releases the end-to-end tests
// really install.
func TestTestedMatchesPins(t *testing.T) {
	b, err := os.ReadFile(installAgentsScript)
	if err != nil {
		t.Fatal(err)
	}
	pins := readPins(t, string(b))
	if len(pins) < 2 || pins["claude"] == "" || pins["codex"] == "" {
		t.Fatalf("read pins %v from %s: the pattern no longer matches its lines", pins, installAgentsScript)
	}
	for _, p := range pinProblems(pins, All()) {
		t.Error(p)
	}
}

// TestPinProblems proves the check above fires: a moved pin, a pin of no
// agent, and a tested agent without a pin.
func TestPinProblems(t *testing.T) {
	script := "CLAUDE_VERSION=9.9.9\nNOBODY_VERSION=1.0\n# CODEX_VERSION=0.1 in a comment\n  GEMINI_VERSION=0.1\n"
	got := pinProblems(readPins(t, script), []*Agent{Claude, Codex})
	want := []string{"pins claude 9.9.9 but", "pins nobody 1.0, an agent the registry does not know", "agents/codex.go says it was tested with"}
	if len(got) != len(want) {
		t.Fatalf("pinProblems = %q, want %d problems", got, len(want))
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || strings.Contains(g, w)
		}
		if !found {
			t.Errorf("pinProblems = %q, want one with %q", got, w)
		}
	}
	if p := pinProblems(map[string]string{"claude": Claude.Pinned(), "codex": Codex.Pinned()}, []*Agent{Claude, Codex}); len(p) != 0 {
		t.Errorf("pinProblems of matching pins = %q, want none", p)
	}
}

func TestCompareVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"2.1.332", "2.1.328", 1},
		{"2.1.328", "2.1.332", -1},
		{"2.1.332", "2.1.332", 0},
		{"0.171.0", "0.169.0", 1},
		{"1.10.0", "1.9.9", 1},
		{"v1.2", "1.2.0", 0},
		{"0.172.0-alpha.1", "0.172.0", -1},
		{"0.172.0", "0.172.0-alpha.1", 1},
		{"0.172.0-alpha.10", "0.172.0-alpha.9", 1},
		{"0.172.0-beta", "0.172.0-alpha", 1},
	} {
		if got := CompareVersions(c.a, c.b); got != c.want {
			t.Errorf("CompareVersions(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestNewerThanTested(t *testing.T) {
	a := &Agent{Tested: []string{"2.1.328", "2.1.332"}}
	for v, want := range map[string]bool{
		"2.1.333": true, "3.0.0": true, "2.1.332": false, "2.1.330": false, "2.1.100": false,
		"": false, "unknown": false, "2.1.333-rc.1": true,
	} {
		if got := a.NewerThanTested(v); got != want {
			t.Errorf("NewerThanTested(%q) with Tested %v = %v, want %v", v, a.Tested, got, want)
		}
	}
	if (&Agent{}).NewerThanTested("9.9.9") {
		t.Error("NewerThanTested of an agent never tested = true, want false")
	}
}

func TestHooksFor(t *testing.T) {
	a := &Agent{Hooks: []HookSpec{{Event: "Old"}, {Event: "New", Since: "2.1.332"}}}
	for _, c := range []struct{ version, hooks, keep, required string }{
		{"2.1.332", "Old New", "", "Old New"},
		{"2.1.333", "Old New", "", "Old New"},
		{"2.1.331", "Old", "", "Old"},
		// An unknown release: New is kept where it is, not added.
		{"", "Old New", "New", "Old"},
		{"dev", "Old New", "New", "Old"},
	} {
		hooks, keep := a.HooksFor(c.version)
		var got, req, kept []string
		for _, h := range hooks {
			got = append(got, h.Event)
		}
		for _, h := range a.Required(c.version) {
			req = append(req, h.Event)
		}
		for ev := range keep {
			kept = append(kept, ev)
		}
		if strings.Join(got, " ") != c.hooks || strings.Join(kept, " ") != c.keep || strings.Join(req, " ") != c.required {
			t.Errorf("HooksFor(%q) = %v keeping only %v, Required %v; want %s keeping only %q, Required %s", c.version, got, kept, req, c.hooks, c.keep, c.required)
		}
	}
}

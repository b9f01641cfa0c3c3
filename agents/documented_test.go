package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/golden"
)

// documentedRuns returns the payload files built from agent a's documented
// format: ../testdata/<agent>/documented-<scenario>/NN-<Event>.json.
func documentedRuns(t *testing.T, a *Agent) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", a.ID, "documented-*", "[0-9][0-9]-*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestDecodeDocumented decodes, for every agent verified from its
// documented format, each payload built from that format under the event
// its file names (the event the installed command passes), and lists the
// outcome one line each against testdata/<agent>-documented.golden
// (rewritten with -update). Every payload decodes into a valid event of
// an event clawd registers, or is one the agent's file says clawd drops;
// the agent's answers to every event are JSON objects or nothing, and a
// nil decision renders as no decision.
func TestDecodeDocumented(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, a := range All() {
		if a.Verified != VerifiedDocumented {
			continue
		}
		t.Run(a.ID, func(t *testing.T) {
			files := documentedRuns(t, a)
			if len(files) == 0 {
				t.Fatalf("no payloads built from %s's documented format in ../testdata/%s/documented-*", a.Name, a.ID)
			}
			var b strings.Builder
			for _, f := range files {
				rel, _ := filepath.Rel(filepath.Join("..", "testdata", a.ID), f)
				rel = filepath.ToSlash(rel)
				name := strings.TrimSuffix(filepath.Base(f)[3:], ".json")
				payload, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				e, err := a.Decode(payload, name, func(string) string { return "" }, now)
				if err != nil {
					if !errors.Is(err, ErrNothingToShow) {
						t.Errorf("Decode(%s, %s) = %v", rel, name, err)
					}
					fmt.Fprintf(&b, "%s: dropped: %v\n", rel, err)
					continue
				}
				if !a.Supports.Permissions && (e.Kind == KindPermissionRequest || e.Kind == KindQuestion) {
					t.Errorf("%s decodes to %s, but clawd answers no permission of %s's", rel, e.Kind, a.Name)
				}
				if verr := e.Validate(); verr != nil {
					t.Errorf("%s decodes to an invalid event: %v", rel, verr)
				}
				if _, ok := a.Hook(e.HookEvent); !ok || e.HookEvent != name {
					t.Errorf("%s decodes as %s, not the registered event %s", rel, e.HookEvent, name)
				}
				fmt.Fprintf(&b, "%s: %s", rel, e.Kind)
				for _, f := range []struct{ k, v string }{
					{"session", short(e.SessionID)}, {"tool", e.ToolName}, {"id", e.ToolUseID}, {"hash", e.InputHash},
					{"title", e.Title}, {"from", string(e.TitleSource)}, {"cwd", e.Cwd}, {"source", e.Source},
					{"reason", e.Reason}, {"error", e.ErrorKind}, {"notice", string(e.Notice)}, {"mode", e.PermissionMode},
					{"turn", e.TurnID},
				} {
					if f.v != "" {
						fmt.Fprintf(&b, " %s=%q", f.k, f.v)
					}
				}
				b.WriteString("\n")
			}
			checkAnswers(t, a)
			golden.Check(t, filepath.Join("testdata", a.ID+"-documented.golden"), []byte(b.String()))
		})
	}
}

// TestEveryAgentSaysHowItWasVerified: clawd agents prints, for each agent
// clawd supports, how that support was checked; an agent it knows but does
// not support says why instead, and has nothing to install or decode.
func TestEveryAgentSaysHowItWasVerified(t *testing.T) {
	for _, a := range All() {
		switch {
		case a.Unsupported != "":
			if a.Verified != "" || len(a.Hooks) > 0 || a.Decode != nil {
				t.Errorf("%s is not supported (%s) yet has a verification, hooks or a decoder", a.ID, a.Unsupported)
			}
		case a.Verified != VerifiedRealCLI && a.Verified != VerifiedDocumented:
			t.Errorf("%s.Verified = %q, want %q or %q", a.ID, a.Verified, VerifiedRealCLI, VerifiedDocumented)
		}
	}
}

// checkAnswers checks a's answers to each of its events; an agent whose
// permissions clawd does not answer has no event that waits for one.
func checkAnswers(t *testing.T, a *Agent) {
	t.Helper()
	for _, h := range a.Hooks {
		if h.Blocking && !a.Supports.Permissions {
			t.Errorf("%s registers %s as blocking, but clawd answers no permission of %s's", a.ID, h.Event, a.Name)
		}
		out := a.NoDecision(h.Event)
		if len(out) > 0 && !json.Valid(out) {
			t.Errorf("%s NoDecision(%s) = %q, not JSON", a.ID, h.Event, out)
		}
		if got := a.Render(h.Event, nil); string(got) != string(out) {
			t.Errorf("%s Render(%s, nil) = %q, want the no-decision %q", a.ID, h.Event, got, out)
		}
	}
}

package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// TestDocumentedPermissionsThroughBroker: for every agent tested from its
// documented format that has a blocking event (CodeBuddy's and ZCode's
// PermissionRequest), the payload built from that format goes through
// `clawd hook <agent> <Event>` into a real runtime: clawd permissions
// lists it, an answer there comes back in the agent's own format, and
// with nobody answering (do-not-disturb) the agent gets its no-decision.
func TestDocumentedPermissionsThroughBroker(t *testing.T) {
	n := 0
	for _, a := range agents.All() {
		if a.Verified != agents.VerifiedDocumented {
			continue
		}
		for _, h := range a.Hooks {
			if !h.Blocking {
				continue
			}
			files, _ := filepath.Glob(filepath.Join("..", "testdata", a.ID, "documented-*", "[0-9][0-9]-"+h.Event+".json"))
			if len(files) == 0 {
				t.Errorf("%s: no payload built from the documented format for its blocking %s", a.ID, h.Event)
				continue
			}
			n++
			payload, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			t.Run(a.ID, func(t *testing.T) { checkBrokered(t, a, h.Event, payload) })
		}
	}
	if n < 2 {
		t.Errorf("%d blocking events of documented agents tested, want CodeBuddy's and ZCode's", n)
	}
}

func checkBrokered(t *testing.T, a *agents.Agent, event string, payload []byte) {
	home := t.TempDir()
	startRuntime(t, home)
	shortWait(t, 30*time.Second)
	hook := func() chan string {
		out := make(chan string, 1)
		go func() {
			e, o, _ := testEnv(t, home, payload, nil)
			run(context.Background(), e, []string{"clawd", "hook", a.ID, event})
			out <- o.String()
		}()
		return out
	}
	for _, c := range []struct {
		verb string
		want *agents.Decision
	}{
		{"allow", &agents.Decision{Allow: true}},
		{"deny", &agents.Decision{}},
	} {
		out := hook()
		code, list, errb := runCLI(t, home, "permissions", "--wait", "--json")
		var views []client.PermissionView
		if err := json.Unmarshal([]byte(list), &views); code != 0 || err != nil || len(views) != 1 {
			t.Fatalf("permissions --wait --json = %d %v %q %q", code, err, list, errb)
		}
		if v := views[0]; v.Agent != a.ID || v.Tool == "" || v.State != "pending" {
			t.Errorf("pending request = %+v", v)
		}
		if code, _, errb := runCLI(t, home, "permissions", c.verb, views[0].ID); code != 0 {
			t.Fatalf("permissions %s = %d %q", c.verb, code, errb)
		}
		select {
		case got := <-out:
			if want := string(a.Render(event, c.want)); got != want || got == string(a.NoDecision(event)) {
				t.Errorf("%s: hook printed %q, want the agent's answer %q", c.verb, got, want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: the hook did not print the decision", c.verb)
		}
	}
	if code, _, _ := runCLI(t, home, "dnd", "on"); code != 0 {
		t.Fatal("dnd on failed")
	}
	select {
	case got := <-hook():
		if want := string(a.NoDecision(event)); got != want {
			t.Errorf("under do-not-disturb the hook printed %q, want the no-decision %q", got, want)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("under do-not-disturb the hook did not answer")
	}
}

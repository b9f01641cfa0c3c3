package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/clawdhq/clawd/internal/text"
)

// evilCwd and evilTool are what a payload may carry: escape sequences
// that clear and recolour a terminal, a bidi override that reverses what
// follows, and zero-width characters.
const (
	evilCwd   = "/tmp/\u001b[2J\u001b[31mred\u001b]0;pwned\u0007\u202eexe.txt"
	evilTool  = "Bash\u001b[1A\u001b[2K\u200b"
	evilTitle = "\u202eevil\u2066title\u2069\u200f"
)

// inert reports the first rune of out that could move the cursor, change
// colours or reorder text: anything Line hides, or whitespace other than a
// space or the newline that ends a line.
func inert(out string) (rune, bool) {
	for _, r := range out {
		if r == '\n' || r == ' ' {
			continue
		}
		if text.Hidden(r) || unicode.IsSpace(r) || r == 0xfffd {
			return r, false
		}
	}
	return 0, true
}

func evilPayload(t *testing.T, name string, edits map[string]string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(fixture(t, name), &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range edits {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHumanOutputIsInert: whatever a payload carries in its folder, tool
// name or prompt, `clawd status`, `clawd events` and `clawd permissions`
// print nothing that repaints, recolours or reverses the list a person
// acts on; their --json output spells such characters as escapes.
func TestHumanOutputIsInert(t *testing.T) {
	home := t.TempDir()
	startRuntime(t, home)
	shortWait(t, 30*time.Second)

	var events syncBuffer
	ev, _, _ := testEnv(t, home, nil, nil)
	ev.stdout = &events
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	evDone := make(chan int, 1)
	go func() { evDone <- run(ctx, ev, []string{"clawd", "events"}) }()
	var jsonEvents syncBuffer
	jev, _, _ := testEnv(t, home, nil, nil)
	jev.stdout = &jsonEvents
	jevDone := make(chan int, 1)
	go func() { jevDone <- run(ctx, jev, []string{"clawd", "events", "--json"}) }()

	vars := map[string]string{"CLAUDE_CODE_SESSION_ATTENDED": "1"}
	hook := func(name string, edits map[string]string) {
		t.Helper()
		e, _, _ := testEnv(t, home, evilPayload(t, name, edits), vars)
		if code := run(context.Background(), e, []string{"clawd", "hook", "claude"}); code != 0 {
			t.Fatalf("hook %s = %d", name, code)
		}
	}
	// Post until both streams show the first event: the subscriptions may
	// not be live yet when the first one goes out.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(events.String(), "session.start") ||
		!strings.Contains(jsonEvents.String(), "session.start"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no event on clawd events")
		}
		hook("SessionStart.json", map[string]string{"cwd": evilCwd})
	}
	hook("UserPromptSubmit.json", map[string]string{"cwd": evilCwd, "prompt": evilTitle})
	hook("PreToolUse.json", map[string]string{"cwd": evilCwd, "tool_name": evilTool})

	hookDone := make(chan struct{})
	go func() {
		defer close(hookDone)
		e, _, _ := testEnv(t, home, evilPayload(t, "PermissionRequest.json", map[string]string{"cwd": evilCwd, "tool_name": evilTool}), vars)
		run(ctx, e, []string{"clawd", "hook", "claude"})
	}()
	if code, out, errb := runCLI(t, home, "permissions", "--wait"); code != 0 {
		t.Fatalf("permissions --wait = %d %q %q", code, out, errb)
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(events.String(), "permission.request") ||
		!strings.Contains(jsonEvents.String(), "permission.request"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("permission.request never streamed:\n%s", events.String())
		}
	}

	outputs := map[string]string{"events": events.String(), "events --json": jsonEvents.String()}
	for _, args := range [][]string{{"status"}, {"status", "--json"}, {"permissions"}, {"permissions", "--json"}} {
		code, out, errb := runCLI(t, home, args...)
		if code != 0 {
			t.Fatalf("clawd %v = %d %q", args, code, errb)
		}
		outputs[strings.Join(args, " ")] = out
	}
	for name, out := range outputs {
		if r, ok := inert(out); !ok {
			t.Errorf("clawd %s printed %U:\n%q", name, r, out)
		}
		if !strings.Contains(name, "json") {
			continue
		}
		// The JSON still carries the values, escaped.
		dec := json.NewDecoder(strings.NewReader(out))
		found := false
		for {
			var v any
			if err := dec.Decode(&v); err != nil {
				break
			}
			found = found || strings.Contains(fmt.Sprint(v), evilCwd)
		}
		if !found {
			t.Errorf("clawd %s lost the folder's value:\n%s", name, out)
		}
	}
	// What a person reads still says what happened.
	for _, want := range []string{"/tmp/[2J[31mred", "Bash[1A[2K"} {
		if !strings.Contains(outputs["status"]+outputs["permissions"], want) && !strings.Contains(outputs["events"], want) {
			t.Errorf("human output lacks %q:\n%s\n%s\n%s", want, outputs["status"], outputs["permissions"], outputs["events"])
		}
	}
	cancel()
	<-hookDone
	<-evDone
	<-jevDone
}

package tray

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/config"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/tray/notify"
)

// evil is what a payload may carry into a title, a folder, a tool name or
// a command: a bidi override that reverses what follows, escape sequences
// that clear and recolour a terminal, zero-width characters and lines.
const evil = "\u202eevil\u2066\x1b[2J\u200b\nline"

// visible reports the first rune of s that could reorder, hide or break
// the text a person reads.
func visible(s string) (rune, bool) {
	for _, r := range s {
		if r != ' ' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r)) {
			return r, false
		}
	}
	return 0, true
}

// TestOutputsInertThroughTheRuntime: whatever the agents' payloads carry,
// the menu, its tooltip and the notifications the runtime's changes turn
// into are one inert line each, taken the whole way: hook, runtime, View,
// Build; feed, notifier, note.
func TestOutputsInertThroughTheRuntime(t *testing.T) {
	env := startTray(t)
	rec := &recordSender{got: make(chan struct{}, 1)}
	cfg := config.DefaultNotifications()
	cfg.DoneGrace = 0
	n := NewNotifier(NotifierOptions{Runtime: env.srv, Config: cfg, Sender: rec})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { n.Run(ctx) })
	defer func() {
		cancel()
		wg.Wait()
	}()

	withEvil := func(e *agents.Event) { e.Title, e.Cwd, e.ToolName = evil, "/tmp/"+evil, evil }
	env.srv.Ingest(ev(agents.KindPromptSubmit, "s1", withEvil))
	env.srv.Ingest(ev(agents.KindTurnEnd, "s1", withEvil))
	env.srv.Ingest(ev(agents.KindTurnFailure, "s2", withEvil, func(e *agents.Event) { e.ErrorKind = evil }))
	in, _ := json.Marshal(map[string]string{"command": evil})
	body, _ := json.Marshal(client.RequestBody{
		Event:       agents.Event{Agent: "claude", Kind: agents.KindPermissionRequest, SessionID: "s3", ToolName: evil, Cwd: "/tmp/" + evil, Time: time.Now()},
		Request:     agents.Request{ToolInput: in, Summary: evil, SuggestionLabels: []string{evil}},
		WaitSeconds: 60,
	})
	go client.AskPermission(ctx, env.sock, body)

	m := env.ui.waitMenu(t, "the request", func(m Menu) bool { return hasKey(m, "pending-header") })
	if _, ok := visible(m.Tooltip); !ok {
		t.Errorf("tooltip %q", m.Tooltip)
	}
	var walk func([]Item)
	walk = func(items []Item) {
		for _, it := range items {
			for _, s := range []string{it.Label, it.Tooltip} {
				if r, ok := visible(s); !ok {
					t.Errorf("menu item %s: %q holds %U", it.Key, s, r)
				}
			}
			walk(it.Children)
		}
	}
	walk(m.Items)
	if menu := strings.Join(outline(m.Items, 0), "\n"); !strings.Contains(menu, "evil[2J line") {
		t.Errorf("the menu lost the text around what was dropped:\n%s", menu)
	}

	notes := rec.wait(t, 3)
	for _, n := range notes {
		for _, s := range []string{n.Summary, n.Body} {
			if r, ok := visible(s); !ok {
				t.Errorf("%s note: %q holds %U", n.Kind, s, r)
			}
		}
	}
	kinds := map[notify.Kind]bool{}
	for _, n := range notes {
		kinds[n.Kind] = true
	}
	if !kinds[notify.Done] || !kinds[notify.Failure] || !kinds[notify.Permission] {
		t.Errorf("notes = %+v, want a done, a failure and a permission note", notes)
	}
}

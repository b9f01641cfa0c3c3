//go:build !windows

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/clawdhq/clawd/internal/fakeopenai"
	"github.com/clawdhq/clawd/runtime/client"
)

// permClawd runs `clawd permissions args...`. On a loaded machine the
// CLI's health probe of the runtime's socket can time out and it then says
// "clawd is not running" although it is (seen with chromium tests running
// beside these); nothing reached the runtime then, so it is safe to try
// again. Each retry is logged.
func (w *world) permClawd(ctx context.Context, args ...string) result {
	w.t.Helper()
	args = append([]string{"permissions"}, args...)
	var r result
	for try := 1; ; try++ {
		r = w.clawd(ctx, "", args...)
		if r.code != 1 || !strings.Contains(r.stderr, "is not running") || try == 4 {
			return r
		}
		w.t.Logf("clawd %s said the runtime is not running (try %d, %v): trying again",
			strings.Join(args, " "), try, r.dur.Round(time.Millisecond))
		time.Sleep(200 * time.Millisecond)
	}
}

// mustPerm runs `clawd permissions args...`, which has to succeed.
func (w *world) mustPerm(ctx context.Context, args ...string) result {
	w.t.Helper()
	r := w.permClawd(ctx, args...)
	if r.code != 0 {
		w.t.Fatalf("clawd permissions %s: %s", strings.Join(args, " "), r)
	}
	return r
}

// pendingPermissions runs `clawd permissions --json` and returns the list.
func (w *world) pendingPermissions(ctx context.Context) []client.PermissionView {
	w.t.Helper()
	r := w.mustPerm(ctx, "--json")
	var list []client.PermissionView
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		w.t.Fatalf("clawd permissions --json printed %q: %v", r.stdout, err)
	}
	if list == nil {
		w.t.Fatalf("clawd permissions --json printed %q, want a JSON array (even when empty)", r.stdout)
	}
	return list
}

// awaitPermissions polls `clawd permissions --json` until cond holds or
// timeout passes; it returns the last list and whether cond held.
func (w *world) awaitPermissions(ctx context.Context, timeout time.Duration, cond func([]client.PermissionView) bool) ([]client.PermissionView, bool) {
	w.t.Helper()
	end := time.Now().Add(timeout)
	for {
		list := w.pendingPermissions(ctx)
		if cond(list) {
			return list, true
		}
		if time.Now().After(end) {
			return list, false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitPermissions is awaitPermissions that fails the test on a timeout.
func (w *world) waitPermissions(ctx context.Context, timeout time.Duration, what string, cond func([]client.PermissionView) bool) []client.PermissionView {
	w.t.Helper()
	list, ok := w.awaitPermissions(ctx, timeout, cond)
	if !ok {
		w.t.Fatalf("clawd permissions --json: no %s within %v; last list:\n%s", what, timeout, dumpPermissions(list))
	}
	return list
}

// ofSession returns the requests of one session.
func ofSession(list []client.PermissionView, id string) []client.PermissionView {
	var out []client.PermissionView
	for _, p := range list {
		if p.SessionID == id {
			out = append(out, p)
		}
	}
	return out
}

func dumpPermissions(list []client.PermissionView) string {
	if len(list) == 0 {
		return "  (none)\n"
	}
	var b strings.Builder
	for _, p := range list {
		data, _ := json.Marshal(p)
		b.WriteString("  " + string(data) + "\n")
	}
	return b.String()
}

// permChange is one line of the permission change stream and when the
// test read it.
type permChange struct {
	client.PermissionChange
	at time.Time
}

func (c permChange) String() string {
	s := c.Type + " " + c.Permission.ID + " " + c.Permission.Tool + " " + c.Permission.State
	if c.Reason != "" {
		s += " (" + c.Reason + ")"
	}
	return s
}

// permStream follows the runtime's permission change stream
// (GET /api/v1/permissions/events) for the whole test. The CLI reads it
// only for --wait, so the test reads it with the Go client the tray uses.
type permStream struct {
	w       *world
	mu      sync.Mutex
	changes []permChange
	changed chan struct{}
	cancel  context.CancelFunc
	done    chan struct{}
	err     error
}

// followPermissions subscribes to the permission change stream of serve.
// It need not wait for the subscription: the stream starts with every
// pending request as "added", so nothing is missed as long as a request
// is still pending when the test looks for its "added" line.
func (w *world) followPermissions(ctx context.Context, s *server) *permStream {
	w.t.Helper()
	c := client.New(s.info.Port, s.info.Token, client.Options{})
	ctx, cancel := context.WithCancel(ctx)
	ps := &permStream{w: w, changed: make(chan struct{}), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(ps.done)
		ps.err = c.PermissionEvents(ctx, func(ch client.PermissionChange) error {
			ps.mu.Lock()
			ps.changes = append(ps.changes, permChange{ch, time.Now()})
			close(ps.changed)
			ps.changed = make(chan struct{})
			ps.mu.Unlock()
			return nil
		})
	}()
	w.t.Cleanup(ps.stop)
	return ps
}

// stop ends the subscription and waits for its goroutine.
func (ps *permStream) stop() {
	ps.cancel()
	<-ps.done
	if ps.err != nil && !errors.Is(ps.err, context.Canceled) {
		ps.w.t.Errorf("permission change stream: %v", ps.err)
	}
}

// snapshot returns the changes so far.
func (ps *permStream) snapshot() []permChange {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return append([]permChange(nil), ps.changes...)
}

// await waits until cond holds for the changes so far.
func (ps *permStream) await(timeout time.Duration, cond func([]permChange) bool) ([]permChange, bool) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		ps.mu.Lock()
		chs := append([]permChange(nil), ps.changes...)
		changed := ps.changed
		ps.mu.Unlock()
		if cond(chs) {
			return chs, true
		}
		select {
		case <-changed:
		case <-ps.done:
			return chs, false
		case <-deadline.C:
			return chs, false
		}
	}
}

// closedChange returns the "closed" change of request id, if any.
func closedChange(chs []permChange, id string) (permChange, bool) {
	for _, c := range chs {
		if c.Type == "closed" && c.Permission.ID == id {
			return c, true
		}
	}
	return permChange{}, false
}

func dumpChanges(chs []permChange) string {
	parts := make([]string, len(chs))
	for i, c := range chs {
		parts[i] = c.String()
	}
	return fmt.Sprint(parts)
}

// shellTurn is a conversation of the fake model API: a prompt with marker
// gets a call of the agent's shell tool (named tool) running command, and
// after its result the model says done.
func shellTurn(tool, marker, command, done string) fakeopenai.Conversation {
	return fakeopenai.Conversation{Match: marker, Steps: []fakeopenai.Step{
		fakeopenai.Tool(tool, map[string]any{"command": command, "description": "write a file"}),
		fakeopenai.Text(done)}}
}

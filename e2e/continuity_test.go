//go:build !windows

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeanthropic"
	"github.com/clawdhq/clawd/internal/spool"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/client"
)

// journalHolds reports whether the runtime's journal of sessions names
// every one of ids.
func (w *world) journalHolds(ids ...string) bool {
	data, err := os.ReadFile(filepath.Join(w.clawdHome, runtime.SessionsFile))
	if err != nil {
		return false
	}
	for _, id := range ids {
		if !bytes.Contains(data, []byte(`"session_id":"`+id+`"`)) {
			return false
		}
	}
	return true
}

// spoolHas reports whether the hooks' spool holds an event of session id
// of kind.
func (w *world) spoolHas(id, kind string) bool {
	for _, r := range w.spooled() {
		if r.Event.SessionID == id && string(r.Event.Kind) == kind {
			return true
		}
	}
	return false
}

// awaitCond polls cond every 50 ms until it holds, and fails the test
// when it does not within timeout.
func awaitCond(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(timeout); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("not within %v: %s", timeout, what)
		}
	}
}

// TestContinuity: three interactive Claude Code sessions run while
// `clawd serve` is killed with SIGKILL and started again. The new runtime
// shows all three at once, with their titles, before any of them speaks;
// what their hooks (and hooks replayed from recorded payloads) said while
// no runtime ran is there too, once each; a session that ends afterwards
// lands in the history with its turns counted once.
func TestContinuity(t *testing.T) {
	t.Parallel()
	begin := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	deadline, _ := ctx.Deadline()
	const done = "E2E_CONTINUITY_DONE"
	w := newWorld(t)
	w.startAPI(fakeanthropic.Script{Conversations: []fakeanthropic.Conversation{{Steps: []fakeanthropic.Step{fakeanthropic.Text(done)}}}})
	serve := w.startServe()
	w.install(ctx)

	ids := []string{newUUID(t), newUUID(t), newUUID(t)}
	prompts := []string{"first continuity task", "second continuity task", "third continuity task"}
	// The titles shown: the prompts', but the third's, which the person
	// renames.
	titles := []string{prompts[0], prompts[1], "Named by me"}
	tuis := make([]*interactiveClaude, len(ids))
	for i, id := range ids {
		tuis[i] = w.startInteractiveClaude(id, deadline)
		tuis[i].submit(prompts[i])
	}
	for _, c := range tuis {
		c.WaitFor(regexp.MustCompile(done), 45*time.Second)
	}
	w.mustClawd(ctx, "rename", ids[2], titles[2])
	awaitCond(t, 20*time.Second, "the three sessions idle, titled, in the journal", func() bool {
		st, ok := w.status(ctx)
		for i, id := range ids {
			s, found := st.session(id)
			if !ok || !found || s.Title != titles[i] || s.State != "idle" {
				return false
			}
		}
		return w.journalHolds(ids...)
	})

	// SIGKILL: the journal on disk is all the next runtime gets.
	killed := time.Now()
	if err := serve.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-serve.done

	// While no runtime runs: a turn in the first TUI, whose hooks spool,
	// and recorded hooks of two sessions no TUI runs, one that ends.
	tuis[0].submit("one more while clawd is down")
	awaitCond(t, 45*time.Second, "the first session's turn end in the spool", func() bool { return w.spoolHas(ids[0], "turn.end") })
	ended, open := newUUID(t), newUUID(t)
	hook := func(id, name string, set map[string]string) {
		t.Helper()
		payload := withSession(t, readTestdata(t, "claude", "hooks", name), id)
		for k, v := range set {
			var m map[string]any
			json.Unmarshal(payload, &m)
			m[k] = v
			payload, _ = json.Marshal(m)
		}
		if r := w.clawd(ctx, string(payload), "hook", "claude"); r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Fatalf("clawd hook claude < %s with no runtime: %s", name, r)
		}
	}
	hook(ended, "SessionStart.json", nil)
	hook(ended, "UserPromptSubmit.json", map[string]string{"prompt_id": "p-1", "prompt": "recorded task"})
	hook(ended, "Stop.json", map[string]string{"prompt_id": "p-1"})
	hook(ended, "UserPromptSubmit.json", map[string]string{"prompt_id": "p-2", "prompt": "and another"})
	hook(ended, "Stop.json", map[string]string{"prompt_id": "p-2"})
	hook(ended, "SessionEnd.json", nil)
	hook(open, "SessionStart.json", nil)
	hook(open, "UserPromptSubmit.json", map[string]string{"prompt_id": "p-3", "prompt": "still open"})

	// The next runtime: everything is there before any new hook.
	restart := time.Now()
	w.startServe()
	t.Logf("serve up again %v after the restart began", time.Since(restart).Round(time.Millisecond))
	st, _ := w.status(ctx)
	for i, id := range ids {
		s, found := st.session(id)
		// The first one's turn, spooled, ended moments ago: its "done"
		// may still show.
		if !found || s.Title != titles[i] || s.Cwd != w.project || s.State != "idle" && (i != 0 || s.State != "attention") {
			t.Errorf("session %d after the restart = %+v (shown %v), want it idle, titled %q, in the project", i, s, found, titles[i])
		}
	}
	if s, _ := st.session(ids[0]); !s.UpdatedAt.After(killed) {
		t.Errorf("the first session's last activity %v, want its turn while clawd was down (after %v)", s.UpdatedAt, killed)
	}
	if s, found := st.session(open); !found || s.Title != "still open" || s.State != "thinking" {
		t.Errorf("the recorded open session after the restart = %+v (shown %v), want it thinking, titled", s, found)
	}
	if _, found := st.session(ended); found {
		t.Errorf("the recorded session that ended while clawd was down is shown live")
	}
	if left, _ := spool.Claimed(w.clawdHome); len(left) != 0 || w.spoolHas(ids[0], "turn.end") {
		t.Errorf("the spool is still there after the replay: %v", left)
	}
	e := w.awaitHistory(ctx, ended, func(e client.HistoryEntry) bool { return e.Ended })
	if e.Turns != 2 || e.Title != "recorded task" {
		t.Errorf("history of the recorded session = %+v, want ended, its 2 turns once each, its first prompt's title", e)
	}

	// The agents exit: their sessions end into the history, their turns
	// (one of the first's spooled) counted once.
	for i, c := range tuis {
		if rc := c.exit(); rc != 0 {
			t.Errorf("claude %d exited %d after /exit", i, rc)
		}
	}
	for i, id := range ids {
		turns := 1
		if i == 0 {
			turns = 2
		}
		e = w.awaitHistory(ctx, id, func(e client.HistoryEntry) bool { return e.Ended })
		if e.Turns != turns || e.Title != titles[i] || e.Headless {
			t.Errorf("history of session %d = %+v, want ended with %d turns, titled %q, not headless", i, e, turns, titles[i])
		}
	}
	t.Logf("TestContinuity took %v", time.Since(begin).Round(time.Millisecond))
}

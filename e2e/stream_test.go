//go:build linux

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clawdhq/clawd/runtime/client"
)

// answersTo returns the permission.answered records of request id.
func answersTo(evs []event, id string) []event {
	var out []event
	for _, e := range evs {
		if e.Kind == "permission.answered" && e.Answer != nil && e.Answer.ID == id {
			out = append(out, e)
		}
	}
	return out
}

// seqList is the seqs of evs.
func seqList(evs []event) []uint64 {
	var out []uint64
	for _, e := range evs {
		out = append(out, e.Seq)
	}
	return out
}

// TestEventsShowAnswers: `clawd events --json`, started after a session's
// first hook, begins with that session's start; a request answered with
// `clawd permissions allow` shows up as the request and then its answer,
// once, from the command line; a `clawd events --since SEQ` started later
// prints exactly what the first missed, as a full stream has it.
func TestEventsShowAnswers(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := newWorld(t)
	srv := w.startServe()
	defer srv.shutdown()
	const sid = "5e550000-0000-4000-8000-00000000e701"
	hook := func(file, session string) {
		t.Helper()
		if r := w.clawd(ctx, claudePayload(t, file, session, w.project), "hook", "claude"); r.code != 0 {
			t.Fatalf("clawd hook claude %s: %s", file, r)
		}
	}
	// Before anyone follows the stream.
	hook("SessionStart.json", sid)
	events := w.startEvents()
	events.waitFor(10*time.Second, "the session.start that came before the stream", func(evs []event) bool {
		return anyEvent(forSession(evs, sid), hasKind("session.start"))
	})

	blocked := w.blockingHook(ctx, claudePayload(t, "PermissionRequest.json", sid, w.project))
	list := w.waitPermissions(ctx, 15*time.Second, "the hook's request", func(l []client.PermissionView) bool {
		return len(ofSession(l, sid)) == 1
	})
	id := ofSession(list, sid)[0].ID
	w.mustPerm(ctx, "allow", id)
	if r := blocked.wait(t); !jsonEqual(r.stdout, string(readTestdata(t, "claude", "outputs", "PermissionRequest.allow.json"))) {
		t.Errorf("the hook after clawd permissions allow printed %q, want Claude's allow JSON", r.stdout)
	}
	// A fence: once it is out, everything the answer caused is too.
	hook("SessionStart.json", "fence-after-answer")
	evs := events.waitFor(10*time.Second, "the fence", func(evs []event) bool {
		return anyEvent(forSession(evs, "fence-after-answer"), hasKind("session.start"))
	})
	answers := answersTo(evs, id)
	if len(answers) != 1 {
		t.Fatalf("%d permission.answered records of %s, want 1:\n%s", len(answers), id, dumpEvents(evs))
	}
	a := answers[0]
	if a.Answer.Decision != "allow" || a.Answer.Source != "cli" || a.SessionID != sid || a.ToolName != "Bash" || a.Agent != "claude" {
		t.Errorf("answer %s, want allow from cli of claude's Bash in %s", a.raw, sid)
	}
	if strings.Contains(a.raw, "echo hello") {
		t.Errorf("the answer carries the tool input: %s", a.raw)
	}
	sess := forSession(evs, sid)
	at := slices.IndexFunc(sess, func(e event) bool { return e.Kind == "permission.request" })
	if at < 0 || sess[at].Seq >= a.Seq {
		t.Errorf("the permission.request does not come before its answer:\n%s", dumpEvents(sess))
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].Seq != evs[i-1].Seq+1 {
			t.Errorf("seqs %v: not one after the other", seqList(evs))
			break
		}
	}
	last := evs[len(evs)-1].Seq
	events.close()

	// While nobody follows: a turn.
	hook("UserPromptSubmit.json", sid)
	hook("PreToolUse.json", sid)
	hook("Stop.json", sid)
	until := func(evs []event) bool { return anyEvent(forSession(evs, sid), hasKind("turn.end")) }
	resumed := w.startEvents("--since", strconv.FormatUint(last, 10))
	got := resumed.waitFor(10*time.Second, "the turn.end after resuming", until)
	full := w.startEvents()
	all := full.waitFor(10*time.Second, "the turn.end on a full stream", until)
	var want []uint64
	for _, e := range all {
		if e.Seq > last {
			want = append(want, e.Seq)
		}
	}
	if fmt.Sprint(seqList(got)) != fmt.Sprint(want) || len(want) < 3 {
		t.Errorf("clawd events --since %d printed seqs %v, want %v (the full stream's after it)\n%s", last, seqList(got), want, dumpEvents(got))
	}
	if all[0].Seq != 1 {
		t.Errorf("a full stream starts at seq %d, want the backlog from 1", all[0].Seq)
	}
}

// TestDashboardEventsBacklog: the dashboard's events start with what
// happened before the page opened; an answer from the page reads as a
// sentence; a page whose stream breaks and comes back shows the events of
// the break, each once.
func TestDashboardEventsBacklog(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := newWorld(t)
	srv := w.startServe()
	defer srv.shutdown()
	const sid = "5e550000-0000-4000-8000-00000000e702"
	hook := func(file string) {
		t.Helper()
		if r := w.clawd(ctx, claudePayload(t, file, sid, w.project), "hook", "claude"); r.code != 0 {
			t.Fatalf("clawd hook claude %s: %s", file, r)
		}
	}
	hook("SessionStart.json")
	tab := newBrowser(t)
	w.openDashboard(ctx, tab, srv)
	waitPage(t, tab, "the session.start from before the page", `[...document.querySelectorAll("#event-list li .kind")].some((e) => e.textContent === "session.start")`, 10*time.Second)

	blocked := w.blockingHook(ctx, claudePayload(t, "PermissionRequest.json", sid, w.project))
	waitPage(t, tab, "the request", `document.querySelectorAll("#needs-list li button.allow").length === 1`, 10*time.Second)
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS("#needs-list li button.allow"))); err != nil {
		t.Fatalf("click Allow: %v", err)
	}
	blocked.wait(t)
	waitPage(t, tab, "the answer in the events", `!!document.querySelector("#event-list li.answer")`, 10*time.Second)
	if got := pageEval[string](t, tab, `document.querySelector("#event-list li.answer .text").textContent.trim()`); got != "Allowed Bash: echo hello > out.txt — from the dashboard" {
		t.Errorf("the answer in the events reads %q", got)
	}

	// The stream breaks, and the page cannot get back until the gate
	// opens; meanwhile the session goes on.
	before := pageEval[float64](t, tab, `lastSeq`)
	pageEval[bool](t, tab, `window.__realFetch = window.fetch;
window.__urls = [];
window.__gate = new Promise((open) => { window.__open = open; });
window.fetch = (...args) => { window.__urls.push(args[0]); return window.__gate.then(() => window.__realFetch(...args)); };
resync(); true`)
	hook("UserPromptSubmit.json")
	hook("PreToolUse.json")
	hook("Stop.json")
	pageEval[bool](t, tab, `window.__open(); true`)
	waitPage(t, tab, "the turn.end of the break", `events.some((e) => e.kind === "turn.end")`, 10*time.Second)
	// It asked for what followed the last event it showed, not for all.
	if urls := pageEval[[]string](t, tab, `window.__urls`); len(urls) == 0 || urls[0] != fmt.Sprintf("/ui/api/v1/stream?since=%d", int(before)) {
		t.Errorf("the page came back with %q, want the stream after seq %d", urls, int(before))
	}

	// The page shows every event the runtime holds, once, newest first.
	shown := pageEval[[]float64](t, tab, `events.map((e) => e.seq)`)
	full := w.startEvents()
	all := full.waitFor(10*time.Second, "the turn.end", func(evs []event) bool {
		return anyEvent(forSession(evs, sid), hasKind("turn.end"))
	})
	var want []float64
	for i := len(all) - 1; i >= 0; i-- {
		want = append(want, float64(all[i].Seq))
	}
	if fmt.Sprint(shown) != fmt.Sprint(want) {
		t.Errorf("the page shows seqs %v, want %v", shown, want)
	}
}

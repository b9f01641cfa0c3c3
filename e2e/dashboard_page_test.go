//go:build linux

package e2e

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tidwall/gjson"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/focus"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/client"
)

// pageFocus hands on what the dashboard asked to bring to the front.
type pageFocus chan focus.Target

func (f pageFocus) focus(ctx context.Context, t focus.Target) error {
	f <- t
	return nil
}

// pageRemotes is one remote machine's link, up.
type pageRemotes struct{}

func (pageRemotes) Links() []client.RemoteLink {
	return []client.RemoteLink{{Profile: "box", Label: "box", Kind: client.LinkSSH, State: client.LinkUp}}
}
func (pageRemotes) Reload(ctx context.Context) error { return nil }

// TestDashboardPage drives the rest of the page in Chromium against a
// runtime in this process (for its focus and remote links, which need a
// desktop and an SSH box) and real `clawd hook claude` processes: a
// click on a session's row brings that session's terminal to the front;
// a remote machine's session shows its machine and offers no focus; the
// remote link is listed; the agent filter shows one agent's sessions; a
// click that lands on a request another client
// answered meanwhile is refused with "already answered elsewhere" and
// answers no other request; an "always" button makes the hook print
// Claude's allow with that rule; Answer in terminal makes it print no
// decision and brings the session's terminal up; a question shows what
// it asks and its options and offers only the terminal; a plan is
// approved from the page; notifications pause and resume from it; the
// events filter by kind and by session.
func TestDashboardPage(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	w := newWorld(t)
	foc := make(pageFocus, 4)
	srv := runInProcess(t, runtime.Config{Home: w.clawdHome, Focus: foc.focus, Remotes: pageRemotes{}})
	tab := newBrowser(t)
	if err := chromedp.Do(tab, chromedp.Navigate(srv.DashboardLogin().URL), chromedp.WaitVisible(chromedp.CSS("#conn.live"))); err != nil {
		t.Fatal(err)
	}

	const (
		sidA, dirA = "5e550000-0000-4000-8000-0000000000a1", "/home/ada/src/alpha"
		sidB, dirB = "5e550000-0000-4000-8000-0000000000b2", "/home/ada/src/beta"
	)
	for _, s := range [][2]string{{sidA, dirA}, {sidB, dirB}} {
		if r := w.clawd(ctx, claudePayload(t, "SessionStart.json", s[0], s[1]), "hook", "claude"); r.code != 0 {
			t.Fatalf("clawd hook claude SessionStart: %s", r)
		}
	}
	// A remote machine's session, as the ingress records one (its id
	// namespaced, its pid dropped; e2e/remote_linux_test.go runs the real
	// path over SSH).
	srv.Ingest(agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: "box:r1", Host: "box", Cwd: dirA, Time: time.Now()})
	waitPage(t, tab, "three sessions", `document.querySelectorAll("#session-list li").length === 3`, 10*time.Second)

	// Click a local session: its terminal, as the runtime records it.
	goView(t, tab, "sessions")
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(`#session-list li[data-key="claude/`+sidB+`"] button`))); err != nil {
		t.Fatalf("click the session row: %v", err)
	}
	var want focus.Target
	for _, s := range srv.Snapshot().Sessions {
		if s.SessionID == sidB {
			want = focus.Target{PID: s.AgentPID, Cwd: s.Cwd, Title: s.Title}
		}
	}
	select {
	case got := <-foc:
		if got != want || got.Cwd != dirB {
			t.Errorf("a click on %s's row focused %+v, want %+v", sidB, got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("a click on %s's row focused nothing", sidB)
	}

	// The remote session: its machine in the row, nothing to click.
	remote := `document.querySelector('#session-list li[data-key="claude/box:r1"] button')`
	if row := pageEval[string](t, tab, remote+`.innerText`); !strings.Contains(row, "@box") {
		t.Errorf("the remote session's row reads %q, want @box in it", row)
	}
	if !pageEval[bool](t, tab, remote+`.disabled`) {
		t.Error("the remote session's row is a button that focuses something here")
	}
	if links := pageEval[string](t, tab, `document.getElementById("remote-list").innerText`); !strings.Contains(links, "Remote box: up") {
		t.Errorf("the remote links read %q, want Remote box: up", links)
	}

	// The agent filter: another agent's session, alone under its name.
	srv.Ingest(agents.Event{Agent: "codex", Kind: agents.KindPromptSubmit, SessionID: "c1", Cwd: dirB, AgentPID: 1, Time: time.Now()})
	waitPage(t, tab, "four sessions", `document.querySelectorAll("#session-list li").length === 4`, 10*time.Second)
	pageEval[bool](t, tab, `((a) => { const s = document.getElementById("f-agent"); s.value = a; s.dispatchEvent(new Event("change")); return s.value === a; })("codex")`)
	if keys := pageEval[[]string](t, tab, `[...document.querySelectorAll("#session-list li")].map((li) => li.dataset.key)`); len(keys) != 1 || keys[0] != "codex/c1" {
		t.Errorf("filtered by agent codex the sessions are %v, want codex/c1 alone", keys)
	}
	pageEval[bool](t, tab, `((a) => { const s = document.getElementById("f-agent"); s.value = a; s.dispatchEvent(new Event("change")); return s.value === a; })("")`)
	goView(t, tab, "inbox")

	// Two requests; A is answered with the CLI while the page still
	// holds A's Allow button.
	hookA := w.blockingHook(ctx, claudePayload(t, "PermissionRequest.json", sidA, dirA))
	hookB := w.blockingHook(ctx, claudePayload(t, "PermissionRequest.json", sidB, dirB))
	cardA, cardB := pageCard(t, tab, srv, sidA), pageCard(t, tab, srv, sidB)
	pageEval[bool](t, tab, `window.__stale = document.querySelector('`+cardA.sel+` button.allow'); !!window.__stale`)
	if r := w.clawd(ctx, "", "permissions", "deny", cardA.id); r.code != 0 {
		t.Fatalf("clawd permissions deny %s: %s", cardA.id, r)
	}
	if r := hookA.wait(t); !strings.Contains(r.stdout, `"deny"`) {
		t.Errorf("hook A after the CLI's deny printed %q", r.stdout)
	}
	waitPage(t, tab, "A gone from the page", `!document.querySelector('`+cardA.sel+`')`, 10*time.Second)
	// The click lands on A's button anyway (the page had not caught up).
	pageEval[bool](t, tab, `window.__stale.click(); true`)
	waitPage(t, tab, "the refusal", `!document.getElementById("toast").hidden`, 10*time.Second)
	if msg := pageEval[string](t, tab, `document.getElementById("toast").textContent`); !strings.HasPrefix(msg, "Already answered elsewhere") {
		t.Errorf("the stale click said %q, want Already answered elsewhere", msg)
	}
	if ps := srv.Permissions(); len(ps) != 1 || ps[0].ID != cardB.id {
		t.Errorf("after the stale click pending = %+v, want B's request alone", ps)
	}
	select {
	case r := <-hookB.done:
		t.Fatalf("the stale click on A answered B: %s", r)
	default:
	}
	cardB.click(t, tab, "Allow")
	if r := hookB.wait(t); !jsonEqual(r.stdout, string(readTestdata(t, "claude", "outputs", "PermissionRequest.allow.json"))) {
		t.Errorf("hook B after Allow printed %q, want Claude's allow JSON", r.stdout)
	}

	// An "always" rule from the page: the hook prints Claude's allow with
	// the offered suggestion as its updated permissions (the recorded
	// payload's: add the folder it names).
	const suggested = "/home/user/project"
	hookC := w.blockingHook(ctx, claudePayload(t, "PermissionRequest.json", sidA, dirA))
	cardC := pageCard(t, tab, srv, sidA)
	if text := cardC.text(t, tab); !strings.Contains(text, "Allow access to "+suggested) || strings.Contains(text, "Always") {
		t.Errorf("the request reads %q, want the offer as Claude's own label: Allow access to %s", text, suggested)
	}
	cardC.click(t, tab, "Allow access to ")
	r := hookC.wait(t)
	if gjson.Get(r.stdout, "hookSpecificOutput.decision.behavior").String() != "allow" ||
		gjson.Get(r.stdout, "hookSpecificOutput.decision.updatedPermissions.0.type").String() != "addDirectories" ||
		gjson.Get(r.stdout, "hookSpecificOutput.decision.updatedPermissions.0.directories.0").String() != suggested {
		t.Errorf("the hook after Always in the dashboard printed %q, want Claude's allow adding %s", r.stdout, suggested)
	}
	// Answer in terminal: the hook gives no decision (Claude's own dialog
	// takes it) and the page brings that session's terminal up.
	hookD := w.blockingHook(ctx, claudePayload(t, "PermissionRequest.json", sidB, dirB))
	pageCard(t, tab, srv, sidB).click(t, tab, "Answer in terminal")
	if r := hookD.wait(t); !jsonEqual(r.stdout, string(readTestdata(t, "claude", "outputs", "PermissionRequest.no-decision.json"))) {
		t.Errorf("the hook after Answer in terminal printed %q, want no decision", r.stdout)
	}
	select {
	case got := <-foc:
		if got != want {
			t.Errorf("Answer in terminal focused %+v, want %+v", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Answer in terminal brought no terminal up")
	}

	// A question reads as what it asks, with its options, and offers
	// only the terminal; a plan offers Approve, which allows it.
	question := w.blockingHook(ctx, claudePayload(t, "PermissionRequest.json", sidA, dirA, "tool_name", "AskUserQuestion",
		"tool_input", map[string]any{"questions": []any{map[string]any{"question": "Which database?", "header": "DB",
			"options": []any{map[string]any{"label": "Postgres"}, map[string]any{"label": "SQLite"}}}}},
		"permission_suggestions", []any{}))
	plan := w.blockingHook(ctx, claudePayload(t, "PermissionRequest.json", sidB, dirB, "tool_name", "ExitPlanMode",
		"tool_input", map[string]any{"plan": "1. Add the migration\n2. Run the tests"}, "permission_suggestions", []any{}))
	qCard, pCard := pageCard(t, tab, srv, sidA), pageCard(t, tab, srv, sidB)
	q := qCard.text(t, tab)
	for _, want := range []string{"Claude Code asks", "Which database?", "Postgres", "SQLite", "Answer in terminal"} {
		if !strings.Contains(q, want) {
			t.Errorf("the question's card reads %q, want %q in it", q, want)
		}
	}
	if strings.Contains(q, "Allow") || strings.Contains(q, "Deny") {
		t.Errorf("the question's card offers Allow or Deny: %q", q)
	}
	if p := pCard.text(t, tab); !strings.Contains(p, "wants its plan reviewed") || !strings.Contains(p, "Add the migration") || !strings.Contains(p, "Approve plan") {
		t.Errorf("the plan's card reads %q, want the plan and Approve plan", p)
	}
	pCard.click(t, tab, "Approve plan")
	if r := plan.wait(t); gjson.Get(r.stdout, "hookSpecificOutput.decision.behavior").String() != "allow" {
		t.Errorf("the hook after Approve plan printed %q, want Claude's allow", r.stdout)
	}
	if r := w.clawd(ctx, "", "permissions", "terminal", qCard.id); r.code != 0 {
		t.Fatalf("clawd permissions terminal %s: %s", qCard.id, r)
	}
	question.wait(t)

	// A subagent's request says which subagent asks.
	sub := w.blockingHook(ctx, claudePayload(t, "PermissionRequest.json", sidA, dirA,
		"agent_id", "afc7f71e8f325b97f", "agent_type", "Explore"))
	sCard := pageCard(t, tab, srv, sidA)
	if s := sCard.text(t, tab); !strings.Contains(s, "Claude Code (subagent: Explore) asks to run") {
		t.Errorf("the subagent's card reads %q, want Claude Code (subagent: Explore) asks to run", s)
	}
	if r := w.clawd(ctx, "", "permissions", "terminal", sCard.id); r.code != 0 {
		t.Fatalf("clawd permissions terminal %s: %s", sCard.id, r)
	}
	sub.wait(t)

	// Pause notifications for an hour, as in the tray, and resume them
	// (under Setup).
	goView(t, tab, "setup")
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS("#pause"))); err != nil {
		t.Fatal(err)
	}
	waitPage(t, tab, "the pause", `document.getElementById("pause").textContent.startsWith("Resume notifications")`, 10*time.Second)
	if until := time.Until(srv.NotificationsPausedUntil()); until < client.PauseFor-time.Minute || until > client.PauseFor {
		t.Errorf("after Pause in the page notifications are paused for %v, want %v", until, client.PauseFor)
	}
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS("#pause"))); err != nil {
		t.Fatal(err)
	}
	waitPage(t, tab, "the resume", `document.getElementById("pause").textContent === "Pause notifications for 1 h"`, 10*time.Second)
	if !srv.NotificationsPausedUntil().IsZero() {
		t.Error("notifications still paused after Resume in the page")
	}

	// The events: by kind, then by session.
	goView(t, tab, "activity")
	kinds := func() []string {
		return pageEval[[]string](t, tab, `[...document.querySelectorAll("#event-list li .kind")].map((e) => e.textContent)`)
	}
	sids := func() []string {
		return pageEval[[]string](t, tab, `[...document.querySelectorAll("#event-list li .sid")].map((e) => e.title)`)
	}
	if all := kinds(); !slices.Contains(all, "session.start") || !slices.Contains(all, "permission.request") {
		t.Fatalf("the events list %v, want session.start and permission.request among them", all)
	}
	kind := func(k string) {
		pageEval[bool](t, tab, `((k) => { const s = document.getElementById("e-kind"); s.value = k; s.dispatchEvent(new Event("input")); return s.value === k; })("`+k+`")`)
	}
	kind("session.start")
	if got := kinds(); len(got) != 2 || got[0] != "session.start" || got[1] != "session.start" {
		t.Errorf("filtered by kind session.start the events are %v, want the two session starts", got)
	}
	kind("")
	if err := chromedp.Do(tab, chromedp.SendKeys(chromedp.CSS("#e-session"), sidB[len(sidB)-6:])); err != nil {
		t.Fatal(err)
	}
	got := sids()
	if len(got) < 2 {
		t.Errorf("filtered by session %s the events are %v, want its start and its request", sidB, got)
	}
	for _, s := range got {
		if s != sidB {
			t.Errorf("filtered by session %s the events include %s", sidB, s)
		}
	}

	// Outcomes stay in the rows: Claude Code's own StopFailure, through a
	// real hook, reads as failed with the agent's reason; a finished turn
	// as done, counted in the page; both past their one-shots' seconds,
	// until the next prompt.
	if r := w.clawd(ctx, claudePayload(t, "StopFailure.json", sidA, dirA), "hook", "claude"); r.code != 0 {
		t.Fatalf("clawd hook claude StopFailure: %s", r)
	}
	srv.Ingest(agents.Event{Agent: "codex", Kind: agents.KindTurnEnd, SessionID: "c1", Cwd: dirB, AgentPID: 1, Time: time.Now()})
	rowA := `document.querySelector('#session-list li[data-key="claude/` + sidA + `"] .state')`
	rowC := `document.querySelector('#session-list li[data-key="codex/c1"] .state')`
	waitPage(t, tab, "A failed with its reason", rowA+`.textContent === "failed: API Error: 400 fake invalid request for StopFailure"`, 10*time.Second)
	waitPage(t, tab, "c1 done", rowC+`.textContent === "done just now"`, 10*time.Second)
	// Failed outranks thinking (the remote session's) and done.
	keys := pageEval[[]string](t, tab, `[...document.querySelectorAll("#session-list li")].map((li) => li.dataset.key)`)
	if a, r, c := slices.Index(keys, "claude/"+sidA), slices.Index(keys, "claude/box:r1"), slices.Index(keys, "codex/c1"); a < 0 || a > r || r > c {
		t.Errorf("the rows are %v, want the failed session, then the thinking one, then the done one", keys)
	}
	// The one-shots run out (the page hears of it in a view): the rows
	// still say so, and the page counts the finished turn's age.
	oneShotsOver := `((v) => ["` + sidA + `", "c1"].every((id) => v.sessions.find((s) => s.session_id === id).state === "idle"))(view)`
	waitPage(t, tab, "the one-shots over", oneShotsOver, 15*time.Second)
	waitPage(t, tab, "c1 done seconds ago", `/^done \d+s ago$/.test(`+rowC+`.textContent)`, 15*time.Second)
	if got := pageEval[string](t, tab, rowA+`.textContent`); got != "failed: API Error: 400 fake invalid request for StopFailure" {
		t.Errorf("A's row reads %q after its one-shot, want the failure and its reason", got)
	}
}

// requestCard is a request's card in the page, found by its id.
type requestCard struct{ id, sel string }

// pageCard waits for the one pending request of session in the runtime
// and for its card in the page.
func pageCard(t *testing.T, tab context.Context, srv *runtime.Server, session string) requestCard {
	t.Helper()
	var id string
	for deadline := time.Now().Add(10 * time.Second); id == ""; time.Sleep(20 * time.Millisecond) {
		for _, p := range srv.Permissions() {
			if p.SessionID == session {
				id = p.ID
			}
		}
		if id == "" && time.Now().After(deadline) {
			t.Fatalf("no request of %s pending within 10 s: %+v", session, srv.Permissions())
		}
	}
	c := requestCard{id: id, sel: `#needs-list li[data-key="` + id + `"]`}
	waitPage(t, tab, "the card of request "+id, `!!document.querySelector('`+c.sel+`')`, 10*time.Second)
	return c
}

func (c requestCard) text(t *testing.T, tab context.Context) string {
	return pageEval[string](t, tab, `document.querySelector('`+c.sel+`').innerText`)
}

// click clicks the card's button whose label starts with label.
func (c requestCard) click(t *testing.T, tab context.Context, label string) {
	t.Helper()
	js := `((label) => { const b = [...document.querySelectorAll('` + c.sel + ` button')].find((b) => b.textContent.startsWith(label)); if (b) b.click(); return !!b; })(` + strconv.Quote(label) + `)`
	if !pageEval[bool](t, tab, js) {
		t.Fatalf("request %s has no %q button: %s", c.id, label, c.text(t, tab))
	}
}

// TestDashboardDoctorFix: the Agents section of a real clawd serve runs
// clawd doctor: Claude Code's settings lost clawd's entries (another tool
// rewrote them), the section says so and offers Fix; Fix repairs them,
// shows the diff it applied, and `clawd doctor --agent claude` passes.
func TestDashboardDoctorFix(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := newWorld(t)
	w.selfRepairOff()
	srv := w.startServe()
	defer srv.shutdown()
	w.install(ctx)
	if err := os.WriteFile(w.settingsFile(), []byte(originalSettings), 0o600); err != nil {
		t.Fatal(err)
	}
	tab := newBrowser(t)
	w.openDashboard(ctx, tab, srv)
	goView(t, tab, "setup")
	card := `document.querySelector('#agent-list li[data-agent="claude"]')`
	waitPage(t, tab, "Claude Code's checks", `!!(`+card+` && `+card+`.querySelector(".findings li"))`, 30*time.Second)
	if text := pageEval[string](t, tab, card+`.innerText`); !strings.Contains(text, "fail: ") || !strings.Contains(text, "have no clawd entry") {
		t.Errorf("Claude Code's card reads %q, want the failed check of its missing entries", text)
	}
	pageEval[bool](t, tab, `[...`+card+`.querySelectorAll("button")].find((b) => b.textContent === "Fix").click(); true`)
	waitPage(t, tab, "the diff", `!!document.querySelector('#agent-list li[data-agent="claude"] pre.diff')`, 30*time.Second)
	diff := pageEval[string](t, tab, card+`.querySelector("pre.diff").textContent`)
	if !strings.Contains(diff, "+") || !strings.Contains(diff, "hook claude") {
		t.Errorf("the diff Fix shows = %q, want the clawd hooks it added", diff)
	}
	text := pageEval[string](t, tab, card+`.innerText`)
	if strings.Contains(text, "fail: ") || strings.Contains(text, "\nFix\n") {
		t.Errorf("after Fix Claude Code's card reads %q, want no failed check and no Fix", text)
	}
	if r := w.clawd(ctx, "", "doctor", "--agent", "claude"); r.code != 0 {
		t.Errorf("clawd doctor after Fix in the dashboard: %s", r)
	}
}

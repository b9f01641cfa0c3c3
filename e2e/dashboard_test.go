//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/tidwall/gjson"

	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/client"
)

// updateScreenshots, when set, makes TestDashboard write its screenshots
// into docs/ (CLAWD_UPDATE_SCREENSHOTS=1 go test -run TestDashboard$
// ./e2e/); a normal run renders them and checks them without touching
// the tree.
var updateScreenshots = os.Getenv("CLAWD_UPDATE_SCREENSHOTS") == "1"

// newBrowser starts Debian's chromium, headless, for the rest of the test
// and returns the context of its first tab. chromedp talks to it over a
// pipe and kills it (and what it left) when the test ends.
func newBrowser(t testing.TB) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumBin); err != nil {
		t.Fatalf("%s not found (%v): run bash scripts/test.sh, which installs Debian's chromium through scripts/install-agents.sh", chromiumBin, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumBin),
		chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// dashboardURL runs `clawd dashboard --no-open` and returns the one line
// it prints: the login URL.
func (w *world) dashboardURL(ctx context.Context, s *server) string {
	w.t.Helper()
	r := w.mustClawd(ctx, "dashboard", "--no-open")
	u := strings.TrimSpace(r.stdout)
	want := fmt.Sprintf(`^http://127\.0\.0\.1:%d/login\?code=[A-Za-z0-9_-]{43}$`, s.info.Port)
	if !regexp.MustCompile(want).MatchString(u) || strings.Count(r.stdout, "\n") != 1 {
		w.t.Fatalf("clawd dashboard --no-open printed %q, want one line matching %s", r.stdout, want)
	}
	return u
}

// openDashboard logs the tab in with a fresh login URL and waits for the
// page to follow the runtime's stream.
func (w *world) openDashboard(ctx, tab context.Context, s *server) string {
	w.t.Helper()
	u := w.dashboardURL(ctx, s)
	if err := chromedp.Do(tab, chromedp.Navigate(u), chromedp.WaitVisible(chromedp.CSS("#conn.live"))); err != nil {
		w.t.Fatalf("open the dashboard at %s: %v", u, err)
	}
	if loc, _ := chromedp.Run(tab, chromedp.Location()); loc != fmt.Sprintf("http://127.0.0.1:%d/", s.info.Port) {
		w.t.Errorf("after the login the tab is at %s, want the dashboard at /", loc)
	}
	return u
}

// serveDashboard starts w's clawd serve (shut down at the test's end)
// and a browser signed in to its dashboard.
func (w *world) serveDashboard(ctx context.Context) (*server, context.Context) {
	w.t.Helper()
	srv := w.startServe()
	w.t.Cleanup(srv.shutdown)
	tab := newBrowser(w.t)
	w.openDashboard(ctx, tab, srv)
	return srv, tab
}

// claudePayload is a recorded Claude Code payload (testdata/claude/hooks/
// file) with the given session and folder, and extra key, value pairs.
func claudePayload(t testing.TB, file, session, cwd string, extra ...any) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(readTestdata(t, "claude", "hooks", file), &m); err != nil {
		t.Fatal(err)
	}
	m["session_id"] = session
	m["cwd"] = cwd
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i].(string)] = extra[i+1]
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// pageEval evaluates a JavaScript expression in the tab, awaiting a
// promise, and fails the test on an error.
func pageEval[T any](t testing.TB, tab context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %s: %v", clip(js, 200), err)
	}
	return v
}

// waitPage polls a JavaScript condition in the tab until it is true.
func waitPage(t testing.TB, tab context.Context, what, cond string, timeout time.Duration) {
	t.Helper()
	if _, err := chromedp.Run(tab, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(timeout))); err != nil {
		t.Fatalf("the page never showed %s within %v: %v", what, timeout, err)
	}
}

// watchRow makes the page note the time (Date.now(), the machine's wall
// clock, as Go's) when a session row with key first shows.
const watchRow = `(key) => new Promise((resolve) => {
  window.__seen = window.__seen || {};
  const sel = '#session-list li[data-key="' + CSS.escape(key) + '"]';
  const check = () => { if (!window.__seen[key] && document.querySelector(sel)) window.__seen[key] = Date.now(); };
  new MutationObserver(check).observe(document.getElementById("session-list"), {childList: true, subtree: true});
  check();
  resolve(true);
})`

// TestDashboard is the dashboard in real Chromium, against a real clawd
// serve and real `clawd hook claude` processes: the login URL signs the
// tab in; a session a hook creates is listed within a second of the hook,
// without a reload; a blocking PermissionRequest shows under Needs you and
// Allow (then Deny, for a second one) makes that hook print Claude's
// answer (Deny by keyboard alone); a new request while the tab is hidden
// badges the title and plays the tone; the folder filter, review and
// trust, and do-not-disturb work from the page, and a failed run is
// retried and the automations paused from it; a used login code is
// refused. Screenshots (light, dark, 360 px) are rendered on the way.
func TestDashboard(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	w := newWorld(t)
	// A definition that waits for review, for the Automations section.
	def := "[[automation]]\nid = \"post-done\"\nname = \"Post when a turn completes\"\nevent = \"turn.completed\"\n" +
		"action = { type = \"webhook\", url = \"http://127.0.0.1:9/in\" }\n" +
		"input = { title = { template = \"${session.title} is done\" } }\n" +
		// One attempt: the run fails at once (nothing listens on port 9),
		// for Retry in the page.
		"policy = { max_attempts = 1 }\n"
	if err := os.WriteFile(filepath.Join(w.clawdHome, "automations.toml"), []byte(def), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := w.startServe()
	defer srv.shutdown()
	tab := newBrowser(t)
	loginURL := w.openDashboard(ctx, tab, srv)
	// Folders as a person's would read in the screenshots; hooks only
	// pass them on.
	const project = "/home/ada/src/clawd"
	pageEval[bool](t, tab, `window.__marker = "no reload"; true`)

	// A session a real hook creates shows within a second, no reload.
	const sid = "5e550000-0000-4000-8000-00000000da01"
	pageEval[bool](t, tab, "("+watchRow+")('claude/"+sid+"')")
	start := claudePayload(t, "SessionStart.json", sid, project)
	if r := w.clawd(ctx, start, "hook", "claude"); r.code != 0 {
		t.Fatalf("clawd hook claude SessionStart: %s", r)
	}
	hooked := time.Now()
	waitPage(t, tab, "the new session", `!!(window.__seen||{})["claude/`+sid+`"]`, 10*time.Second)
	seenAt := pageEval[float64](t, tab, `window.__seen["claude/`+sid+`"]`)
	lag := time.UnixMilli(int64(seenAt)).Sub(hooked)
	t.Logf("session row visible %v after the hook process exited", lag.Round(time.Millisecond))
	if lag > time.Second {
		t.Errorf("the session showed %v after the hook, want within 1 s", lag)
	}
	if m := pageEval[string](t, tab, `window.__marker || ""`); m != "no reload" {
		t.Error("the page reloaded to show the session")
	}
	goView(t, tab, "sessions")
	// The rows are content-visibility: auto, so a row reads "" until the
	// first frame after its view shows has laid it out.
	rowSel := `document.querySelector('#session-list li[data-key="claude/` + sid + `"]')`
	waitPage(t, tab, "the session row laid out", rowSel+`.innerText.trim() !== ""`, 5*time.Second)
	row := pageEval[string](t, tab, `(() => { const li = `+rowSel+`; return li.innerText + " | " + li.querySelector(".repo").title; })()`)
	if !strings.Contains(row, "Claude Code") || !strings.Contains(row, "clawd") || !strings.Contains(row, project) {
		t.Errorf("the session row reads %q, want Claude Code, its repository clawd and its folder %s on hover", row, project)
	}
	// More sessions, so the screenshots show a busy machine.
	const promptRest = "the stack trace says PROMPT-DETAIL-7781"
	for i, f := range []string{"UserPromptSubmit.json", "PreToolUse.json"} {
		other := fmt.Sprintf("5e550000-0000-4000-8000-00000000da1%d", i)
		dir := []string{"/home/ada/src/shop", "/home/ada/src/blog"}[i]
		w.clawd(ctx, claudePayload(t, "SessionStart.json", other, dir), "hook", "claude")
		if r := w.clawd(ctx, claudePayload(t, f, other, dir, "prompt", "Fix the login bug\n\n"+promptRest), "hook", "claude"); r.code != 0 {
			t.Fatalf("clawd hook claude %s: %s", f, r)
		}
	}
	waitPage(t, tab, "three sessions", `document.querySelectorAll("#session-list li").length === 3`, 10*time.Second)
	// The folder filter narrows the list; cleared, all are back.
	if err := chromedp.Do(tab, chromedp.SendKeys(chromedp.CSS("#f-folder"), "src/shop")); err != nil {
		t.Fatal(err)
	}
	waitPage(t, tab, "only the shop session", `document.querySelectorAll("#session-list li").length === 1 && document.querySelector("#session-list li .repo").title === "/home/ada/src/shop"`, 10*time.Second)
	pageEval[bool](t, tab, `const f = document.getElementById("f-folder"); f.value = ""; f.dispatchEvent(new Event("input")); true`)
	waitPage(t, tab, "three sessions again", `document.querySelectorAll("#session-list li").length === 3`, 10*time.Second)
	goView(t, tab, "inbox")

	// The title badge: a request arriving while the tab is hidden.
	// The tone goes through a recording AudioContext.
	pageEval[bool](t, tab, `Object.defineProperty(document, "hidden", {configurable: true, get: () => true});
window.__tones = 0;
window.__RealAudioContext = window.AudioContext;
window.AudioContext = class extends window.__RealAudioContext {
  createOscillator() { const o = super.createOscillator(); const start = o.start.bind(o); o.start = (...a) => { window.__tones++; return start(...a); }; return o; }
};
true`)

	// A real blocking PermissionRequest: Allow in the page answers it.
	allow := w.blockingHook(ctx, claudePayload(t, "PermissionRequest.json", sid, project))
	waitPage(t, tab, "the request under Needs you", `document.querySelectorAll("#needs-list li button.allow").length === 1`, 10*time.Second)
	card := pageEval[string](t, tab, `document.querySelector("#needs-list li").innerText`)
	if !strings.Contains(card, "Bash") || !strings.Contains(card, "echo hello > out.txt") || !strings.Contains(card, "Claude Code") {
		t.Errorf("the request reads %q, want Claude Code, Bash and its command", card)
	}
	if title := pageEval[string](t, tab, `document.title`); !strings.HasPrefix(title, "(1) ") {
		t.Errorf("title with a request arrived while hidden = %q, want a (1) badge", title)
	}
	if n := pageEval[int](t, tab, `window.__tones`); n != 1 {
		t.Errorf("%d tones for a request arrived while hidden, want 1", n)
	}
	pageEval[bool](t, tab, `window.AudioContext = window.__RealAudioContext; true`)
	pageEval[bool](t, tab, `delete document.hidden; document.dispatchEvent(new Event("visibilitychange")); true`)
	if title := pageEval[string](t, tab, `document.title`); title != "clawd" {
		t.Errorf("title once the tab is seen = %q, want clawd", title)
	}
	// Review and trust: the panel says exactly what leaves the machine.
	waitPage(t, tab, "the definition to review", `[...document.querySelectorAll("#auto-list button")].some((b) => b.textContent === "Review and trust")`, 10*time.Second)
	pageEval[bool](t, tab, `[...document.querySelectorAll("#auto-list button")].find((b) => b.textContent === "Review and trust").click(); true`)
	review := pageEval[string](t, tab, `document.querySelector("#auto-list .review").innerText`)
	for _, want := range []string{"http://127.0.0.1:9/in", `input.title = "${session.title} is done"`} {
		if !strings.Contains(review, want) {
			t.Errorf("the review panel reads %q, want %q in it", review, want)
		}
	}
	w.screenshots(t, tab, srv)

	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS("#needs-list li button.allow"))); err != nil {
		t.Fatalf("click Allow: %v", err)
	}
	r := allow.wait(t)
	if !jsonEqual(r.stdout, string(readTestdata(t, "claude", "outputs", "PermissionRequest.allow.json"))) {
		t.Errorf("the hook after Allow in the dashboard printed %q, want Claude's allow JSON", r.stdout)
	}
	waitPage(t, tab, "Needs you empty", `document.querySelectorAll("#needs-list li").length === 0`, 10*time.Second)

	// Deny likewise, by keyboard.
	deny := w.blockingHook(ctx, claudePayload(t, "PermissionRequest.json", sid, project))
	waitPage(t, tab, "the second request", `document.querySelectorAll("#needs-list li button.deny").length === 1`, 10*time.Second)
	// By keyboard alone this time: Tab to Deny, Enter.
	pageEval[bool](t, tab, `document.activeElement && document.activeElement.blur(); true`)
	for i := 0; ; i++ {
		if i == 40 {
			t.Fatal("40 presses of Tab never reached Deny")
		}
		if err := chromedp.Do(tab, chromedp.KeyEvent(kb.Tab)); err != nil {
			t.Fatal(err)
		}
		if pageEval[string](t, tab, `document.activeElement.textContent`) == "Deny" {
			break
		}
	}
	if err := chromedp.Do(tab, chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatalf("press Enter on Deny: %v", err)
	}
	r = deny.wait(t)
	if gjson.Get(r.stdout, "hookSpecificOutput.hookEventName").String() != "PermissionRequest" ||
		gjson.Get(r.stdout, "hookSpecificOutput.decision.behavior").String() != "deny" {
		t.Errorf("the hook after Deny in the dashboard printed %q, want Claude's deny JSON", r.stdout)
	}

	// The events section shows what the hooks did, and no prompt text.
	events := pageEval[string](t, tab, `document.getElementById("event-list").innerText`)
	for _, want := range []string{"session.start", "permission.request", "tool.start"} {
		if !strings.Contains(events, want) {
			t.Errorf("the events section lacks %s:\n%s", want, events)
		}
	}
	if !strings.Contains(events, "Fix the login bug") {
		t.Errorf("the events section lacks the session's title:\n%s", events)
	}
	// A request's answer names the request as its card did ("Allowed
	// Bash: echo hello > out.txt — from the dashboard"); the other rows
	// carry no tool input.
	records := pageEval[string](t, tab, `[...document.querySelectorAll("#event-list li:not(.answer)")].map((li) => li.innerText).join("\n")`)
	for _, secret := range []string{promptRest, "echo hello"} {
		if strings.Contains(records, secret) || secret == promptRest && strings.Contains(events, secret) {
			t.Errorf("the events section shows prompt text or tool input %q:\n%s", secret, events)
		}
	}

	// Trusting it from the page makes its binding active.
	pageEval[bool](t, tab, `document.querySelector("#auto-list .review button.allow").click(); true`)
	waitPage(t, tab, "the binding active", `!!document.querySelector("#auto-list li.b-active")`, 10*time.Second)
	var auto struct {
		Definitions []struct {
			Bindings []struct{ State string } `json:"binding_states"`
		} `json:"definitions"`
	}
	if err := srv.client().Call(ctx, http.MethodGet, "/api/v1/automations", nil, &auto); err != nil {
		t.Fatal(err)
	}
	if len(auto.Definitions) != 1 || len(auto.Definitions[0].Bindings) != 1 || auto.Definitions[0].Bindings[0].State != "active" {
		t.Errorf("after Trust in the page: %+v, want the one binding active", auto)
	}

	// A turn completes: the trusted webhook runs, fails (nothing listens
	// on port 9) and shows with its error; Retry in the page runs it again.
	if r := w.clawd(ctx, claudePayload(t, "Stop.json", sid, project), "hook", "claude"); r.code != 0 {
		t.Fatalf("clawd hook claude Stop: %s", r)
	}
	waitPage(t, tab, "the failed run", `!!document.querySelector("#runs tbody tr.r-failed")`, 30*time.Second)
	run := pageEval[string](t, tab, `document.querySelector("#runs tbody tr.r-failed").innerText`)
	if !strings.Contains(run, "post-done") || !strings.Contains(run, "turn.completed") || !strings.Contains(run, "Retry") {
		t.Errorf("the failed run reads %q, want post-done on turn.completed with Retry", run)
	}
	attempts := func() (state string, n int64) {
		var runs []json.RawMessage
		if err := srv.client().Call(ctx, http.MethodGet, "/api/v1/automations/runs", nil, &runs); err != nil || len(runs) != 1 {
			t.Fatalf("runs: %v, %d of them, want 1", err, len(runs))
		}
		return gjson.GetBytes(runs[0], "state").String(), gjson.GetBytes(runs[0], "attempts").Int()
	}
	if state, n := attempts(); state != "failed" || n != 1 {
		t.Errorf("the run before Retry: %s after %d attempts, want failed after 1", state, n)
	}
	pageEval[bool](t, tab, `[...document.querySelectorAll("#runs tbody button")].find((b) => b.textContent === "Retry").click(); true`)
	deadline := time.Now().Add(30 * time.Second)
	for {
		state, n := attempts()
		if n == 2 && state == "failed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after Retry in the page the run is %s after %d attempts, want failed after 2", state, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The master switch pauses every automation.
	pageEval[bool](t, tab, `document.getElementById("auto-switch").click(); true`)
	waitPage(t, tab, "the switch saying Resume all", `document.getElementById("auto-switch").textContent === "Resume all"`, 10*time.Second)
	var st struct{ Paused bool }
	if err := srv.client().Call(ctx, http.MethodGet, "/api/v1/automations", nil, &st); err != nil || !st.Paused {
		t.Errorf("automations after the page's switch: paused %v (%v), want paused", st.Paused, err)
	}

	// Do not disturb from the page, as in the tray.
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS("#dnd"))); err != nil {
		t.Fatal(err)
	}
	waitPage(t, tab, "do not disturb on", `document.getElementById("summary").textContent.includes("do not disturb")`, 10*time.Second)
	if on, err := srv.client().DND(ctx); err != nil || !on {
		t.Errorf("DND after the page's switch = %v, %v; want on", on, err)
	}

	// The used code lets nobody in: a new tab gets the sign-in page.
	tab2, cancel2 := chromedp.NewContext(tab)
	defer cancel2()
	if err := chromedp.Do(tab2, chromedp.Navigate(loginURL)); err != nil {
		t.Fatalf("open the used login URL: %v", err)
	}
	body := pageEval[string](t, tab2, `document.body.innerText`)
	if !strings.Contains(body, "clawd dashboard") || pageEval[string](t, tab2, `sessionStorage.getItem("clawd-secret") || ""`) != "" {
		t.Errorf("the used login URL showed %q and left a secret; want the sign-in page and none", body)
	}
	resp, err := http.Get(loginURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET of the used login URL: %d, want 403", resp.StatusCode)
	}

	// A bookmark of the dashboard opens it again while the runtime runs:
	// in that new tab of the same browser, and after the first tab went
	// elsewhere and came back, a view's own address included.
	base := fmt.Sprintf("http://127.0.0.1:%d/", srv.info.Port)
	for _, c := range []struct {
		tab context.Context
		url string
	}{{tab2, base}, {tab, "about:blank"}, {tab, base + "#sessions"}} {
		if err := chromedp.Do(c.tab, chromedp.Navigate(c.url)); err != nil {
			t.Fatalf("open %s: %v", c.url, err)
		}
		if c.url == "about:blank" {
			continue
		}
		waitPage(t, c.tab, "the dashboard live at "+c.url, `!!document.querySelector("#conn.live") && document.getElementById("signedout").hidden`, 10*time.Second)
	}
	if v := pageEval[bool](t, tab, `!document.getElementById("view-sessions").hidden && document.querySelectorAll("#session-list li").length === 3`); !v {
		t.Error("the bookmark of #sessions did not open the sessions view with its three sessions")
	}
}

// goView opens one of the dashboard's views by its address, as a click on
// the navigation does, and waits for it to show.
func goView(t testing.TB, tab context.Context, name string) {
	t.Helper()
	pageEval[bool](t, tab, `location.hash = "#`+name+`"; true`)
	waitPage(t, tab, "the "+name+" view", `!document.getElementById("view-`+name+`").hidden`, 5*time.Second)
}

// blockedHook is a `clawd hook claude` process that waits for an answer.
type blockedHook struct {
	done chan result
}

func (w *world) blockingHook(ctx context.Context, payload string) *blockedHook {
	h := &blockedHook{done: make(chan result, 1)}
	go func() { h.done <- w.clawd(ctx, payload, "hook", "claude") }()
	return h
}

func (h *blockedHook) wait(t *testing.T) result {
	t.Helper()
	select {
	case r := <-h.done:
		if r.code != 0 {
			t.Errorf("clawd hook claude PermissionRequest: %s", r)
		}
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("the hook got no answer within 30 s of the click")
	}
	return result{}
}

// screenshots renders the dashboard at 1280 px light (the inbox), dark
// (the sessions) and 390 px wide (a phone: the inbox), checks that each is
// a PNG of the size asked for, that nothing is wider than the viewport and
// that a phone's header is one line, and writes them into docs/ when
// CLAWD_UPDATE_SCREENSHOTS=1.
func (w *world) screenshots(t *testing.T, tab context.Context, s *server) {
	t.Helper()
	media := func(scheme string) chromedp.Action[chromedp.Void] {
		return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
			return chromedp.Void{}, err
		}
	}
	for _, shot := range []struct {
		file          string
		scheme        string
		view          string
		width, height int64
	}{
		{"dashboard-light.png", "light", "inbox", 1280, 800},
		{"dashboard-dark.png", "dark", "sessions", 1280, 800},
		{"dashboard-narrow.png", "light", "inbox", 390, 844},
	} {
		if err := chromedp.Do(tab, media(shot.scheme), chromedp.EmulateViewport(shot.width, shot.height)); err != nil {
			t.Fatalf("emulate %s: %v", shot.file, err)
		}
		goView(t, tab, shot.view)
		// Stable pictures: no caret, no focus ring.
		pageEval[bool](t, tab, `document.activeElement && document.activeElement.blur(); true`)
		// The page must fit: nothing wider than the viewport.
		if over := pageEval[float64](t, tab, `document.documentElement.scrollWidth - window.innerWidth`); over > 0 {
			t.Errorf("%s: the page is %v px wider than the %d px viewport", shot.file, over, shot.width)
		}
		if h := pageEval[float64](t, tab, `document.getElementById("top").getBoundingClientRect().height`); h > 56 {
			t.Errorf("%s: the header is %v px high, want one line of at most 56 px", shot.file, h)
		}
		if shot.scheme == "dark" {
			if bg := pageEval[string](t, tab, `getComputedStyle(document.body).backgroundColor`); bg != "rgb(23, 24, 26)" {
				t.Errorf("dark scheme background = %s, want the dark one", bg)
			}
		}
		buf, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot %s: %v", shot.file, err)
		}
		img, err := png.Decode(bytes.NewReader(buf))
		if err != nil || int64(img.Bounds().Dx()) != shot.width {
			t.Fatalf("screenshot %s: %v, width %d, want a %d px PNG", shot.file, err, img.Bounds().Dx(), shot.width)
		}
		if updateScreenshots {
			if err := os.WriteFile(filepath.Join("..", "docs", shot.file), buf, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote docs/%s", shot.file)
		}
	}
	if err := chromedp.Do(tab, media("light"), chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	goView(t, tab, "inbox")
}

// TestDashboardHostilePage: a page on another loopback port, opened in a
// second tab of the browser that holds the dashboard's login cookie,
// throws fetches (every mode, with and without credentials, with a
// guessed secret), form posts, images, scripts, iframes, WebSockets and
// EventSources at every dashboard route (the page itself in an iframe
// too), and reads its own storage. It reads nothing and changes nothing,
// the login's secret that the dashboard keeps for a bookmark included; and the cookie itself, which
// the browser hands the hostile server along with its own requests
// (cookies are per host, not per port), is worth nothing there without
// the page's secret.
func TestDashboardHostilePage(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	w := newWorld(t)
	srv, tab := w.serveDashboard(ctx)
	base := fmt.Sprintf("http://127.0.0.1:%d", srv.info.Port)

	// A session and a pending request for the page to try to answer.
	const sid = "5e550000-0000-4000-8000-00000000da02"
	w.clawd(ctx, claudePayload(t, "SessionStart.json", sid, w.project), "hook", "claude")
	pending := w.blockingHook(ctx, claudePayload(t, "PermissionRequest.json", sid, w.project))
	defer func() {
		srv.client().Decide(ctx, w.pendingPermissions(ctx)[0].ID, client.DecisionBody{Behavior: client.Terminal})
		pending.wait(t)
	}()
	list := w.waitPermissions(ctx, 10*time.Second, "the request pending", func(l []client.PermissionView) bool { return len(l) == 1 })
	id := list[0].ID
	waitPage(t, tab, "the request", `document.querySelectorAll("#needs-list li").length === 1`, 10*time.Second)

	cookies, err := chromedp.Run(tab, func(ctx context.Context, tg *chromedp.Target) ([]*network.Cookie, error) {
		r, err := cdp.Call(ctx, tg, network.GetCookies, network.GetCookiesParams{URLs: []string{base + "/"}})
		return r.Cookies, err
	})
	if err != nil || len(cookies) != 1 || !cookies[0].HTTPOnly || cookies[0].SameSite != network.CookieSameSiteStrict {
		t.Fatalf("the browser's cookies for %s: %+v, %v; want the one HttpOnly SameSite=Strict login", base, cookies, err)
	}
	loginCookie := cookies[0]

	// The hostile server: its page, a log of what the page saw, and the
	// cookies the browser sent it.
	stolen := make(chan string, 64)
	page := hostilePage(t, base, id, sid)
	hostile := newLoopbackServer(t, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie(loginCookie.Name); err == nil {
			select {
			case stolen <- c.Value:
			default:
			}
		}
		switch r.URL.Path {
		case "/":
			rw.Header().Set("Content-Type", "text/html; charset=utf-8")
			rw.Write(page)
		default:
			http.NotFound(rw, r)
		}
	}))

	// The login's secret, kept in the dashboard origin's storage for a
	// bookmark: the hostile page must not get at it.
	secret := pageEval[string](t, tab, `localStorage.getItem("clawd-secret") || ""`)
	if len(secret) < 40 {
		t.Fatalf("the dashboard keeps no secret in its localStorage (%q): a bookmark could not open it", secret)
	}
	before := dashboardState(ctx, t, srv, id)
	evil, cancelEvil := chromedp.NewContext(tab)
	defer cancelEvil()
	if err := chromedp.Do(evil, chromedp.Navigate(hostile+"/")); err != nil {
		t.Fatalf("open the hostile page: %v", err)
	}
	waitPage(t, evil, "the attack's end", `document.title === "done"`, 90*time.Second)
	raw := pageEval[string](t, evil, `JSON.stringify(window.results)`)
	var outcomes []struct {
		Kind, URL, How, Outcome, Body string
	}
	if err := json.Unmarshal([]byte(raw), &outcomes); err != nil || len(outcomes) == 0 {
		t.Fatalf("the hostile page's results %s: %v", clip(raw, 500), err)
	}
	kinds := map[string]int{}
	for _, o := range outcomes {
		kinds[o.Kind]++
		switch o.Outcome {
		case "failed", "opaque", "unreadable", "error", "closed":
		default:
			t.Errorf("%s %s (%s): %s %q, want nothing readable", o.Kind, o.URL, o.How, o.Outcome, clip(o.Body, 200))
		}
		if strings.Contains(o.Body, sid) || strings.Contains(o.Body, id) || strings.Contains(o.Body, secret) {
			t.Errorf("%s %s (%s) read the runtime's data: %q", o.Kind, o.URL, o.How, clip(o.Body, 200))
		}
	}
	for _, k := range []string{"fetch", "form", "img", "script", "iframe", "websocket", "eventsource", "storage"} {
		if kinds[k] == 0 {
			t.Errorf("the hostile page made no %s attempt (it made %v)", k, kinds)
		}
	}
	t.Logf("%d attempts by the hostile page: %v", len(outcomes), kinds)

	after := dashboardState(ctx, t, srv, id)
	if after != before {
		t.Errorf("the runtime changed under the hostile page:\nbefore %+v\nafter  %+v", before, after)
	}
	select {
	case r := <-pending.done:
		t.Fatalf("the pending hook was answered during the attack: %s", r)
	default:
	}

	// The browser gave the hostile server the login cookie; replayed from
	// outside any browser, with every header forged right, it still opens
	// nothing without the secret.
	var cookie string
	select {
	case cookie = <-stolen:
	default:
		t.Fatal("the browser sent the hostile server no dashboard cookie: this test would not show the cookie is not enough")
	}
	hc := &http.Client{Timeout: 10 * time.Second}
	for _, rt := range []struct{ method, path, body string }{
		{"GET", "/ui/api/v1/view", ""}, {"GET", "/ui/api/v1/stream", ""}, {"GET", "/ui/api/v1/permissions/" + id, ""},
		{"POST", "/ui/api/v1/permissions/" + id + "/decision", `{"behavior":"allow"}`}, {"POST", "/ui/api/v1/dnd", `{"on":true}`},
		{"POST", "/ui/api/v1/pause", `{"on":true}`}, {"GET", "/ui/api/v1/agents", ""}, {"GET", "/ui/api/v1/automations", ""},
		{"POST", "/ui/api/v1/automations/pause", `{}`},
	} {
		req, _ := http.NewRequest(rt.method, base+rt.path, strings.NewReader(rt.body))
		req.Header.Set("Cookie", loginCookie.Name+"="+cookie)
		req.Header.Set("Origin", base)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Clawd-Dashboard", "guessed")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s %s with the stolen cookie: %d, want 401", rt.method, rt.path, resp.StatusCode)
		}
	}
	if after := dashboardState(ctx, t, srv, id); after != before {
		t.Errorf("the runtime changed under the stolen cookie:\nbefore %+v\nafter  %+v", before, after)
	}
}

// dashState is what the hostile page must not change.
type dashState struct {
	pending    string
	dnd        bool
	paused     bool
	sessions   int
	autoPaused bool
}

func dashboardState(ctx context.Context, t *testing.T, s *server, id string) dashState {
	t.Helper()
	c := s.client()
	var st dashState
	list, err := c.Permissions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list {
		st.pending += p.ID + ":" + p.State + " "
	}
	var d client.DND
	if err := c.Call(ctx, http.MethodGet, "/api/v1/dnd", nil, &d); err != nil {
		t.Fatal(err)
	}
	st.dnd, st.paused = d.On, d.NotificationsPausedUntil != nil
	snap, err := c.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st.sessions = len(snap.Sessions)
	var auto struct {
		Paused bool `json:"paused"`
	}
	if err := c.Call(ctx, http.MethodGet, "/api/v1/automations", nil, &auto); err != nil {
		t.Fatal(err)
	}
	st.autoPaused = auto.Paused
	return st
}

// newLoopbackServer serves h on a free port of 127.0.0.1 until the test
// ends and returns its base URL.
func newLoopbackServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := &http.Server{Handler: h}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// hostilePage renders the attacker's page for the runtime at base.
func hostilePage(t *testing.T, base, id, session string) []byte {
	t.Helper()
	routes := []struct{ Method, Path, Body string }{
		{"GET", "/", ""}, {"GET", "/ui/api/v1/view", ""}, {"GET", "/ui/api/v1/stream", ""},
		{"GET", "/ui/api/v1/permissions/" + id, ""}, {"GET", "/ui/api/v1/agents", ""}, {"GET", "/ui/api/v1/doctor", ""},
		{"GET", "/ui/api/v1/automations", ""}, {"GET", "/ui/api/v1/automations/runs", ""},
		{"POST", "/ui/api/v1/permissions/" + id + "/decision", `{"behavior":"allow","via":"evil"}`},
		{"POST", "/ui/api/v1/dnd", `{"on":true}`}, {"POST", "/ui/api/v1/pause", `{"on":true}`},
		{"POST", "/ui/api/v1/focus", `{"agent":"claude","session_id":"` + session + `"}`},
		{"POST", "/ui/api/v1/doctor/claude/fix", `{}`}, {"POST", "/ui/api/v1/automations/pause", `{}`},
		{"POST", "/ui/api/v1/automations/reload", `{}`},
	}
	bases := []string{base, strings.Replace(base, "127.0.0.1", "localhost", 1)}
	b, _ := json.Marshal(map[string]any{"bases": bases, "routes": routes})
	return []byte(strings.Replace(hostileHTML, "__CONFIG__", url.PathEscape(string(b)), 1))
}

// hostileHTML is the attacker's page. It records each attempt and what
// the browser let it see in window.results and sets the title to "done".
const hostileHTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>attack</title></head><body><div id="frames"></div>
<script>
const cfg = JSON.parse(decodeURIComponent("__CONFIG__"));
window.results = [];
const note = (kind, url, how, outcome, body) => results.push({kind, url, how, outcome, body: String(body || "").slice(0, 300)});
const timeout = (ms) => new Promise((r) => setTimeout(r, ms));

async function fetches(url, r) {
  const variants = [];
  for (const mode of ["no-cors", "cors", "same-origin"]) for (const credentials of ["include", "omit"]) {
    variants.push({mode, credentials, method: r.Method});
    if (r.Method === "POST") {
      for (const ct of ["application/json", "text/plain", "application/x-www-form-urlencoded"]) variants.push({mode, credentials, method: "POST", ct});
    }
    variants.push({mode, credentials, method: r.Method, secret: true});
  }
  await Promise.all(variants.map(async (v) => {
    const ac = new AbortController();
    const init = {method: v.method, mode: v.mode, credentials: v.credentials, signal: ac.signal, headers: {}, cache: "no-store"};
    if (v.ct) init.headers["Content-Type"] = v.ct;
    if (v.secret) init.headers["X-Clawd-Dashboard"] = "guessed";
    if (v.method === "POST") init.body = r.Body;
    const how = JSON.stringify(v);
    const t = setTimeout(() => ac.abort(), 10000);
    try {
      const resp = await fetch(url, init);
      if (resp.type === "opaque") note("fetch", url, how, "opaque", "");
      else note("fetch", url, how, "readable " + resp.status, await resp.text());
    } catch (e) { note("fetch", url, how, "failed", ""); }
    clearTimeout(t);
  }));
}

function form(url, r, enctype) {
  return new Promise((resolve) => {
    const name = "f" + Math.random().toString(36).slice(2);
    const f = document.createElement("iframe");
    f.name = name;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      let text = "";
      try { text = f.contentDocument.body.innerText; } catch (e) {}
      note("form", url, enctype, text ? "readable" : "unreadable", text);
      resolve();
    };
    f.onload = finish;
    setTimeout(finish, 3000);
    document.getElementById("frames").appendChild(f);
    const fm = document.createElement("form");
    fm.method = "POST"; fm.action = url; fm.enctype = enctype; fm.target = name;
    const i = document.createElement("input");
    i.type = "hidden";
    if (enctype === "text/plain") { i.name = r.Body.slice(0, -1) + ',"pad":"'; i.value = '"}'; } else { i.name = "json"; i.value = r.Body; }
    fm.appendChild(i);
    document.body.appendChild(fm);
    fm.submit();
  });
}

function element(kind, url) {
  return new Promise((resolve) => {
    const e = document.createElement(kind === "img" ? "img" : kind === "script" ? "script" : "iframe");
    let done = false;
    const finish = (how) => {
      if (done) return;
      done = true;
      let text = "";
      if (kind === "iframe") { try { text = e.contentDocument.body.innerText; } catch (x) {} }
      if (kind === "img" && e.naturalWidth > 0) text = "image " + e.naturalWidth;
      note(kind, url, how, text ? "readable" : "unreadable", text);
      resolve();
    };
    e.onload = () => finish("load");
    e.onerror = () => finish("error");
    setTimeout(() => finish("timeout"), 3000);
    e.src = url;
    document.getElementById("frames").appendChild(e);
  });
}

function socket(url) {
  return new Promise((resolve) => {
    let ws;
    try { ws = new WebSocket(url.replace(/^http/, "ws")); } catch (e) { note("websocket", url, "", "error", ""); return resolve(); }
    let got = "";
    ws.onmessage = (m) => { got += m.data; };
    let done = false;
    const finish = (how) => { if (done) return; done = true; note("websocket", url, how, got ? "readable" : "closed", got); resolve(); };
    ws.onclose = () => finish("close");
    setTimeout(() => { try { ws.close(); } catch (e) {} finish("timeout"); }, 20000);
  });
}

function eventSource(url) {
  return new Promise((resolve) => {
    const es = new EventSource(url, {withCredentials: true});
    let got = "";
    es.onmessage = (m) => { got += m.data; };
    let done = false;
    const finish = (how) => { if (done) return; done = true; es.close(); note("eventsource", url, how, got ? "readable" : "error", got); resolve(); };
    es.onerror = () => finish("error");
    setTimeout(() => finish("timeout"), 3000);
  });
}

(async () => {
  // Chromium holds back WebSocket attempts to a host whose last one
  // failed: they all go at once, beside the rest.
  const sockets = [];
  for (const base of cfg.bases) for (const r of cfg.routes) sockets.push(socket(base + r.Path));
  for (const base of cfg.bases) {
    for (const r of cfg.routes) {
      const url = base + r.Path;
      const all = [fetches(url, r)];
      if (r.Method === "POST") for (const enc of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]) all.push(form(url, r, enc));
      else for (const k of ["img", "script", "iframe"]) all.push(element(k, url));
      if (r.Path.endsWith("/stream")) all.push(eventSource(url));
      await Promise.all(all);
    }
  }
  await Promise.all(sockets);
  // This origin's own storage: the dashboard's is another origin's.
  let mine = "";
  try { mine = localStorage.getItem("clawd-secret") || sessionStorage.getItem("clawd-secret") || ""; } catch (e) {}
  note("storage", location.origin, "localStorage", mine ? "readable" : "unreadable", mine);
  await timeout(200);
  document.title = "done";
})();
</script></body></html>`

// TestDashboardCommand: `clawd dashboard` hands the login URL to the
// desktop's opener (xdg-open here, a fake that records it), says so, and
// the URL lets a browser in; with no runtime, or an opener that fails, it
// says what to do and exits 1.
func TestDashboardCommand(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w := newWorld(t)
	if r := w.clawd(ctx, "", "dashboard", "--no-open"); r.code != 1 || !strings.Contains(r.stderr, "clawd serve") || r.stdout != "" {
		t.Errorf("clawd dashboard with no runtime: %s\nwant exit 1 saying to start clawd serve", r)
	}
	bin := filepath.Join(w.dir, "bin")
	opened := filepath.Join(w.dir, "opened")
	os.MkdirAll(bin, 0o700)
	opener := "#!/bin/sh\necho \"$1\" >> \"" + opened + "\"\n[ -e \"" + opened + ".fail\" ] && exit 3\nexit 0\n"
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(opener), 0o700); err != nil {
		t.Fatal(err)
	}
	w.pathPrefix = bin
	srv := w.startServe()
	defer srv.shutdown()

	r := w.mustClawd(ctx, "dashboard")
	b, _ := os.ReadFile(opened)
	u := strings.TrimSpace(string(b))
	if r.stdout != "" || !strings.Contains(r.stderr, "opened the dashboard") ||
		!strings.HasPrefix(u, fmt.Sprintf("http://127.0.0.1:%d/login?code=", srv.info.Port)) || strings.Count(u, "\n") != 0 {
		t.Fatalf("clawd dashboard: %s\nxdg-open got %q; want one login URL", r, b)
	}
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(resp.Cookies()) != 1 {
		t.Errorf("GET of the URL clawd dashboard opened: %d, cookies %v; want 200 and the login cookie", resp.StatusCode, resp.Cookies())
	}

	os.WriteFile(opened+".fail", nil, 0o600)
	if r := w.clawd(ctx, "", "dashboard"); r.code != 1 || !strings.Contains(r.stderr, "--no-open") {
		t.Errorf("clawd dashboard with a failing opener: %s\nwant exit 1 pointing at --no-open", r)
	}
}

// TestDashboardHostilePageControl is the control of
// TestDashboardHostilePage: the same page against a server with no guard
// and CORS wide open gets its requests in and reads the answers, so the
// guard, not a broken page, is what stopped it there.
func TestDashboardHostilePageControl(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	got := map[string]int{}
	open := newLoopbackServer(t, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.Method+" "+r.URL.Path]++
		mu.Unlock()
		rw.Header().Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
		rw.Header().Set("Access-Control-Allow-Credentials", "true")
		rw.Header().Set("Access-Control-Allow-Methods", "GET, POST")
		rw.Header().Set("Access-Control-Allow-Headers", "Content-Type, X-Clawd-Dashboard")
		rw.Header().Set("Content-Type", "text/plain")
		rw.Write([]byte("open"))
	}))
	page := hostilePage(t, open, "p-control", "s-control")
	hostile := newLoopbackServer(t, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		rw.Write(page)
	}))
	tab := newBrowser(t)
	if err := chromedp.Do(tab, chromedp.Navigate(hostile+"/")); err != nil {
		t.Fatal(err)
	}
	waitPage(t, tab, "the attack's end", `document.title === "done"`, 150*time.Second)
	raw := pageEval[string](t, tab, `JSON.stringify(window.results.filter((r) => r.outcome.startsWith("readable")).map((r) => r.kind))`)
	var readable []string
	json.Unmarshal([]byte(raw), &readable)
	kinds := map[string]int{}
	for _, k := range readable {
		kinds[k]++
	}
	if kinds["fetch"] == 0 {
		t.Errorf("against an open server the page read nothing by fetch (read: %v): it cannot tell a guard from a broken page", kinds)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, k := range []string{"POST /ui/api/v1/permissions/p-control/decision", "POST /ui/api/v1/dnd", "GET /ui/api/v1/view", "GET /ui/api/v1/stream"} {
		if got[k] == 0 {
			t.Errorf("the page never sent %s to the open server; it sent %v", k, got)
		}
	}
	t.Logf("against an open server the page read %v", kinds)
}

// runInProcess runs a runtime in this test's process (for parts that
// need a fake: a doctor, a focus, remote links) until the test ends, and
// returns it once clients can reach it.
func runInProcess(t *testing.T, cfg runtime.Config) *runtime.Server {
	t.Helper()
	srv := runtime.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done, ready := make(chan error, 1), make(chan struct{})
	go func() { done <- srv.Run(ctx, 0, func(client.Info) { close(ready) }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	return srv
}

// pageDoctor is a doctor for TestDashboardDoctor: one finding per agent,
// and a fix for Claude Code that returns a diff.
type pageDoctor struct{ fixed chan string }

func (d pageDoctor) Check(ctx context.Context, agent string) (client.DoctorReport, error) {
	if agent != "claude" {
		return client.DoctorReport{Agent: agent, OK: true, Findings: []client.DoctorFinding{{Level: "ok", Message: "hooks in place"}}}, nil
	}
	return client.DoctorReport{Agent: agent, Fixable: true,
		Findings: []client.DoctorFinding{{Level: "warn", Message: "the Stop hook runs another clawd binary"}}}, nil
}

func (d pageDoctor) Fix(ctx context.Context, agent string) (client.DoctorFix, error) {
	d.fixed <- agent
	return client.DoctorFix{Agent: agent, Changed: true, Diff: "--- settings.json\n+++ settings.json\n-old-clawd hook claude\n+new-clawd hook claude\n"}, nil
}

// TestDashboardDoctor: with a doctor (runtime.Config.Doctor) the Agents
// section shows its findings and a Fix button per fixable agent, which
// runs the fix and shows the diff it applied. The runtime runs in
// process here with a doctor that makes up its findings, one per agent;
// TestDashboardDoctorFix runs the real one in clawd serve.
func TestDashboardDoctor(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	doc := pageDoctor{fixed: make(chan string, 1)}
	srv := runInProcess(t, runtime.Config{Home: home, Doctor: doc,
		Agents: func(ctx context.Context) ([]client.AgentInfo, error) {
			return []client.AgentInfo{{ID: "claude", Name: "Claude Code", Detected: true, Installed: true, ConfigPath: "/home/ada/.claude/settings.json"},
				{ID: "codex", Name: "Codex"}}, nil
		}})
	tab := newBrowser(t)
	if err := chromedp.Do(tab, chromedp.Navigate(srv.DashboardLogin().URL), chromedp.WaitVisible(chromedp.CSS("#conn.live"))); err != nil {
		t.Fatal(err)
	}
	goView(t, tab, "setup")
	// The agents found here have a card with their checks; the others
	// fold into one line.
	waitPage(t, tab, "the doctor's findings", `document.querySelectorAll("#agent-list .findings li").length === 1`, 10*time.Second)
	agentsText := pageEval[string](t, tab, `document.getElementById("agent-list").innerText`)
	for _, want := range []string{"Claude Code", "hooks installed", "warn: the Stop hook runs another clawd binary"} {
		if !strings.Contains(agentsText, want) {
			t.Errorf("the Agents section lacks %q:\n%s", want, agentsText)
		}
	}
	if strings.Contains(agentsText, "Codex") {
		t.Errorf("the Agents section has a card for Codex, which is not found here:\n%s", agentsText)
	}
	if more := pageEval[string](t, tab, `document.getElementById("agents-more-sum").textContent + ": " + document.getElementById("agent-more-list").textContent`); more != "1 more agent, not found here: Codex" {
		t.Errorf("the folded agents read %q, want 1 more agent, not found here: Codex", more)
	}
	if n := pageEval[int](t, tab, `[...document.querySelectorAll("#agent-list button")].filter((b) => b.textContent === "Fix").length`); n != 1 {
		t.Errorf("%d Fix buttons, want one (Claude Code's)", n)
	}
	pageEval[bool](t, tab, `[...document.querySelectorAll("#agent-list button")].find((b) => b.textContent === "Fix").click(); true`)
	select {
	case a := <-doc.fixed:
		if a != "claude" {
			t.Errorf("Fix fixed %q, want claude", a)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Fix ran no fix")
	}
	waitPage(t, tab, "the diff", `!!document.querySelector("#agent-list pre.diff:not([hidden])")`, 10*time.Second)
	if diff := pageEval[string](t, tab, `document.querySelector("#agent-list pre.diff").textContent`); !strings.Contains(diff, "+new-clawd hook claude") {
		t.Errorf("the diff shown = %q", diff)
	}
}

//go:build linux

package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// chromiumBin is Debian's chromium, which scripts/install-agents.sh
// installs; a browser downloaded by a test tool does not run here.
const chromiumBin = "/usr/bin/chromium"

// doneMarker is what the attack page writes once every attempt has an
// outcome. Without it in the dumped DOM the test proves nothing: the
// script did not run to the end.
const doneMarker = "clawd-attack-done"

// attackOutcome is one attempt the page made and what the page could see
// of its result.
type attackOutcome struct {
	Kind    string `json:"kind"`    // fetch, form, iframe
	URL     string `json:"url"`     // the runtime URL attacked
	Method  string `json:"method"`  // GET, POST, ...
	Mode    string `json:"mode"`    // fetch mode, form enctype, iframe
	Detail  string `json:"detail"`  // content type, referrer policy, token
	Outcome string `json:"outcome"` // rejected, opaque, readable, loaded, ...
	Status  int    `json:"status"`  // status as the page saw it (0 when hidden)
	Body    string `json:"body"`    // what the page could read, if anything
}

// TestBrowserCannotDriveRuntime is the proof that a web page cannot use
// the runtime: a real headless Chromium loads a page from another loopback
// port that fires every route with fetch (no-cors and cors, JSON, text/plain
// and urlencoded bodies, with the pending request's id and even the API
// token, so Origin rejection is shown not to rest on secrecy), auto-submits
// HTML forms at the state-changing routes and opens the streams in iframes.
// Afterwards the runtime must be exactly as it was, and the page must have
// seen nothing but failures and opaque responses.
func TestBrowserCannotDriveRuntime(t *testing.T) {
	if _, err := os.Stat(chromiumBin); err != nil {
		t.Fatalf("%s not found (%v): run bash scripts/test.sh, which installs Debian's chromium through scripts/install-agents.sh", chromiumBin, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	w := newWorld(t)
	srv := w.startServe()
	// A cleanup, not a defer: cleanups run last first, so the streams
	// followed below end before the server does (a server gone first
	// ends them with an unexpected EOF).
	t.Cleanup(srv.shutdown)
	// The test reads over TCP with the token, as a browser-side client
	// would; it plays the hooks over the socket.
	c := client.New(srv.info.Port, srv.info.Token, client.Options{})
	hooks := srv.client()

	// Follow both streams from before the seeding, so everything the
	// attack might publish is seen.
	evs := followEvents(ctx, t, c)
	perms := followPermissions(ctx, t, c)

	const session = "5e550000-0000-4000-8000-0000000b0001"
	start := agents.Event{Agent: "claude", Kind: agents.KindSessionStart, SessionID: session,
		Time: time.Now().UTC(), HookEvent: "SessionStart", Cwd: w.project, Source: "startup"}
	// The event stream subscribes after it answers: repeat the start
	// until it comes out, then the stream is certainly live.
	for deadline := time.Now().Add(10 * time.Second); ; {
		if err := hooks.PostEvent(ctx, start); err != nil {
			t.Fatalf("seed session.start: %v", err)
		}
		if evs.wait(250*time.Millisecond, func(recs []client.EventRecord) bool { return len(recs) > 0 }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the seeded session.start never came out of GET /api/v1/events")
		}
	}

	// A fake hook: a permission request held open for the whole test.
	hookCtx, stopHook := context.WithCancel(ctx)
	hookDone := make(chan struct{})
	var hookAnswer client.Answer
	var hookErr error
	defer func() {
		stopHook()
		<-hookDone
	}()
	reqBody, err := json.Marshal(client.RequestBody{
		Event: agents.Event{Agent: "claude", Kind: agents.KindPermissionRequest, SessionID: session,
			Time: time.Now().UTC(), HookEvent: "PermissionRequest", Cwd: w.project, ToolName: "Bash"},
		Request:     agents.Request{ToolInput: json.RawMessage(`{"command":"rm -rf ~/important"}`)},
		WaitSeconds: 600,
	})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(hookDone)
		hookAnswer, hookErr = client.AskPermission(hookCtx, srv.info.Socket, reqBody)
	}()
	var pendingID string
	if !perms.wait(10*time.Second, func(chs []client.PermissionChange) bool {
		for _, ch := range chs {
			if ch.Type == "added" && ch.Permission.SessionID == session {
				pendingID = ch.Permission.ID
				return true
			}
		}
		return false
	}) {
		t.Fatalf("the fake hook's request never showed up on the permission stream: %v", perms.snapshot())
	}
	if !evs.wait(10*time.Second, func(recs []client.EventRecord) bool {
		return recs[len(recs)-1].Kind == agents.KindPermissionRequest
	}) {
		t.Fatalf("the permission.request never came out of GET /api/v1/events: %v", evs.snapshot())
	}

	before := runtimeState(ctx, t, c, pendingID)
	if len(before.pending) != 1 || before.pending[0].ID != pendingID || before.pending[0].State != "pending" {
		t.Fatalf("before the attack: pending = %+v, want only %s, pending", before.pending, pendingID)
	}
	if before.dnd {
		t.Fatal("before the attack: DND is on, want off")
	}
	if _, ok := findSession(before.snap, session); !ok || len(before.snap.Sessions) != 1 {
		t.Fatalf("before the attack: sessions = %+v, want only %s", before.snap.Sessions, session)
	}
	nEvents, nPerms := len(evs.snapshot()), len(perms.snapshot())

	page := attackPage(t, srv.info.Port, pendingID, srv.info.Token, session)
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(page)
		case "/log":
			msg, _ := url.QueryUnescape(r.URL.RawQuery)
			t.Logf("attack page: %s", msg)
		case "/sleep":
			// The page's clock. Under --virtual-time-budget a page's
			// timers stand still while any load is pending, and a stream
			// the page opened stays pending: a slow response from here
			// is a delay in real time.
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
			}
			w.Header().Set("Cache-Control", "no-store")
		default:
			http.NotFound(w, r)
		}
	}))
	defer attacker.Close()

	began := time.Now()
	dom := runChromium(ctx, t, attacker.URL+"/")
	t.Logf("chromium ran the attack page in %v", time.Since(began).Round(time.Millisecond))

	if !strings.Contains(dom, `id="done">`+doneMarker) {
		t.Fatalf("the dumped DOM has no %q: the attack script did not run to the end, so this test proves nothing. DOM:\n%s", doneMarker, clip(dom, 4000))
	}
	outcomes := pageOutcomes(t, dom)
	checkOutcomes(t, outcomes, srv.info.Port)

	// The runtime is as it was.
	after := runtimeState(ctx, t, c, pendingID)
	if len(after.snap.Sessions) != len(before.snap.Sessions) {
		t.Errorf("after the attack: %d sessions %+v, want %d (%s only)", len(after.snap.Sessions), after.snap.Sessions, len(before.snap.Sessions), session)
	}
	sb, _ := findSession(before.snap, session)
	if sa, ok := findSession(after.snap, session); !ok {
		t.Errorf("after the attack: session %s is gone", session)
	} else if !sessionsEqual(sa, sb) {
		t.Errorf("after the attack: session %s = %+v, want it unchanged: %+v", session, sa, sb)
	}
	if len(after.pending) != 1 || after.pending[0].ID != pendingID || after.pending[0].State != "pending" {
		t.Errorf("after the attack: pending = %+v, want only %s, still pending", after.pending, pendingID)
	}
	if after.detail.State != "pending" {
		t.Errorf("after the attack: GET /api/v1/permissions/%s state = %q, want pending", pendingID, after.detail.State)
	}
	if after.dnd {
		t.Error("after the attack: DND is on, want off")
	}
	select {
	case <-hookDone:
		t.Errorf("the fake hook got an answer during the attack: %+v, %v", hookAnswer, hookErr)
	default:
	}

	// Nothing was published: a fence posted now must be the first new
	// event, and the permission stream must have nothing new at all.
	fence := agents.Event{Agent: "claude", Kind: agents.KindSessionStart, SessionID: "fence-after-attack", Time: time.Now().UTC()}
	if err := hooks.PostEvent(ctx, fence); err != nil {
		t.Fatalf("post fence: %v", err)
	}
	if !evs.wait(10*time.Second, func(recs []client.EventRecord) bool {
		return recs[len(recs)-1].SessionID == fence.SessionID
	}) {
		t.Fatalf("the fence never came out of GET /api/v1/events: %v", evs.snapshot())
	}
	if recs := evs.snapshot(); len(recs) != nEvents+1 {
		t.Errorf("GET /api/v1/events carried %d events during the attack, want none: %+v", len(recs)-nEvents-1, recs[nEvents:len(recs)-1])
	}
	if chs := perms.snapshot(); len(chs) != nPerms {
		t.Errorf("GET /api/v1/permissions/events carried %d changes during the attack, want none: %+v", len(chs)-nPerms, chs[nPerms:])
	}
}

// state is what the test compares before and after the attack.
type state struct {
	snap    client.Snapshot
	pending []client.PermissionView
	detail  client.PermissionDetail
	dnd     bool
}

func runtimeState(ctx context.Context, t *testing.T, c *client.Client, id string) state {
	t.Helper()
	var st state
	var err error
	if st.snap, err = c.Sessions(ctx); err != nil {
		t.Fatalf("GET /api/v1/sessions: %v", err)
	}
	if st.pending, err = c.Permissions(ctx); err != nil {
		t.Fatalf("GET /api/v1/permissions: %v", err)
	}
	if st.detail, err = c.Permission(ctx, id); err != nil {
		t.Fatalf("GET /api/v1/permissions/%s: %v", id, err)
	}
	if st.dnd, err = c.DND(ctx); err != nil {
		t.Fatalf("GET /api/v1/dnd: %v", err)
	}
	return st
}

func findSession(snap client.Snapshot, id string) (client.SessionView, bool) {
	for _, s := range snap.Sessions {
		if s.SessionID == id {
			return s, true
		}
	}
	return client.SessionView{}, false
}

// sessionsEqual compares two views of one session field by field, through
// their JSON: SessionView holds slices.
func sessionsEqual(a, b client.SessionView) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// follower collects what one of the runtime's streams carries.
type follower[T any] struct {
	mu      sync.Mutex
	items   []T
	changed chan struct{}
}

func newFollower[T any]() *follower[T] { return &follower[T]{changed: make(chan struct{})} }

func (f *follower[T]) add(v T) {
	f.mu.Lock()
	f.items = append(f.items, v)
	close(f.changed)
	f.changed = make(chan struct{})
	f.mu.Unlock()
}

func (f *follower[T]) snapshot() []T {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]T(nil), f.items...)
}

// wait reports whether cond came to hold (on a non-empty list) within
// timeout.
func (f *follower[T]) wait(timeout time.Duration, cond func([]T) bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		f.mu.Lock()
		items, changed := append([]T(nil), f.items...), f.changed
		f.mu.Unlock()
		if len(items) > 0 && cond(items) {
			return true
		}
		select {
		case <-changed:
		case <-deadline.C:
			return false
		}
	}
}

// followEvents follows GET /api/v1/events until the test ends.
func followEvents(ctx context.Context, t *testing.T, c *client.Client) *follower[client.EventRecord] {
	f := newFollower[client.EventRecord]()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- c.StreamEvents(ctx, client.EventsFrom{}, func(_ []byte, rec client.EventRecord) error {
			f.add(rec)
			return nil
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("GET /api/v1/events: %v", err)
		}
	})
	return f
}

// followPermissions follows GET /api/v1/permissions/events until the test
// ends.
func followPermissions(ctx context.Context, t *testing.T, c *client.Client) *follower[client.PermissionChange] {
	f := newFollower[client.PermissionChange]()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- c.PermissionEvents(ctx, func(ch client.PermissionChange) error {
			f.add(ch)
			return nil
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("GET /api/v1/permissions/events: %v", err)
		}
	})
	return f
}

// runChromium loads page in headless Chromium and returns the DOM it
// dumped. Chromium runs in its own process group, which is killed
// afterwards: its helpers must not outlive the test.
func runChromium(ctx context.Context, t *testing.T, page string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromiumBin,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir="+t.TempDir(),
		"--dump-dom", "--virtual-time-budget=10000", page)
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	err := cmd.Wait()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if ctx.Err() != nil {
		t.Fatalf("chromium did not finish within 60 s; stderr:\n%s\nDOM so far:\n%s", clip(stderr.String(), 4000), clip(stdout.String(), 4000))
	}
	if err != nil {
		t.Fatalf("chromium: %v\nstderr:\n%s", err, clip(stderr.String(), 4000))
	}
	return stdout.String()
}

var resultsRE = regexp.MustCompile(`<pre id="results">([A-Za-z0-9+/=]*)</pre>`)

func pageOutcomes(t *testing.T, dom string) []attackOutcome {
	t.Helper()
	m := resultsRE.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the dumped DOM has no results: %s", clip(dom, 4000))
	}
	raw, err := base64.StdEncoding.DecodeString(m[1])
	if err != nil {
		t.Fatalf("results: %v", err)
	}
	var out []attackOutcome
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("results %s: %v", clip(string(raw), 2000), err)
	}
	return out
}

// checkOutcomes checks that the page saw nothing of the runtime: every
// fetch failed or got an opaque response, and nothing it could read (a
// status, a body, an iframe's document) came back. It also checks that
// every kind of attempt was made, against both host names.
func checkOutcomes(t *testing.T, outcomes []attackOutcome, port int) {
	t.Helper()
	seen, outcome := map[string]int{}, map[string]int{}
	for _, o := range outcomes {
		outcome[o.Kind+" "+o.Outcome]++
		host := "127.0.0.1"
		if strings.Contains(o.URL, "//localhost:") {
			host = "localhost"
		}
		seen[o.Kind+" "+host]++
		if !strings.Contains(o.URL, fmt.Sprintf(":%d/", port)) {
			t.Errorf("%s %s %s: not the runtime's port %d", o.Kind, o.Method, o.URL, port)
		}
		switch o.Kind {
		case "fetch":
			if o.Outcome == "timeout" {
				// Only a stream may hang, and only where the guard lets
				// it through: a no-cors GET without Origin or Referer,
				// which the page cannot read.
				if !isStream(o.URL) || o.Method != "GET" || o.Mode != "no-cors" || !strings.HasSuffix(o.Detail, "no-referrer") {
					t.Errorf("fetch %s %s (%s, %s) hung, want an answer at once", o.Method, o.URL, o.Mode, o.Detail)
				}
				continue
			}
			if o.Outcome != "rejected" && o.Outcome != "opaque" {
				t.Errorf("fetch %s %s (%s, %s) = %s status %d body %q, want rejected or opaque", o.Method, o.URL, o.Mode, o.Detail, o.Outcome, o.Status, o.Body)
			}
		case "form", "iframe":
			if o.Outcome != "unreadable" {
				t.Errorf("%s %s %s (%s, %s) = %s body %q, want unreadable", o.Kind, o.Method, o.URL, o.Mode, o.Detail, o.Outcome, o.Body)
			}
		default:
			t.Errorf("unknown attempt %+v", o)
		}
		if o.Status != 0 || o.Body != "" {
			t.Errorf("%s %s %s (%s, %s): the page read status %d body %q, want nothing", o.Kind, o.Method, o.URL, o.Mode, o.Detail, o.Status, o.Body)
		}
	}
	for _, k := range []string{"fetch 127.0.0.1", "fetch localhost", "form 127.0.0.1", "form localhost", "iframe 127.0.0.1", "iframe localhost"} {
		if seen[k] == 0 {
			t.Errorf("the page made no %s attempt", k)
		}
	}
	t.Logf("%d attempts: %v; outcomes: %v", len(outcomes), seen, outcome)
}

func isStream(u string) bool {
	return strings.HasSuffix(u, "/api/v1/events") || strings.HasSuffix(u, "/api/v1/permissions/events")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// attackPage renders the attacker's page.
func attackPage(t *testing.T, port int, id, token, session string) []byte {
	t.Helper()
	var b strings.Builder
	err := attackTmpl.Execute(&b, map[string]any{
		"Targets": []string{fmt.Sprintf("http://127.0.0.1:%d", port), fmt.Sprintf("http://localhost:%d", port)},
		"ID":      id,
		"Token":   token,
		"Session": session,
		"Done":    doneMarker,
	})
	if err != nil {
		t.Fatal(err)
	}
	return []byte(b.String())
}

// attackTmpl is the attacker's page. It knows everything a page could
// hope to know (the port, the pending request's id, the API token) and
// records each attempt's outcome as far as the browser lets it see.
var attackTmpl = template.Must(template.New("attack").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>attack</title></head>
<body>
<pre id="results"></pre>
<p id="done"></p>
<div id="frames"></div>
<script>
const targets = {{.Targets}};
const id = {{.ID}};
const token = {{.Token}};
const session = {{.Session}};
const done = {{.Done}};
const now = new Date().toISOString();
const results = [];
// log tells the test how far the page got, for when it hangs.
const log = (msg) => fetch("/log?" + encodeURIComponent(msg), {cache: "no-store"}).catch(() => {});
// realDelay waits about 2 s of real time (see the test's /sleep).
const realDelay = () => fetch("/sleep?" + Math.random(), {cache: "no-store"}).then(() => {}, () => {});

const event = (sid) => JSON.stringify({agent: "claude", kind: "session.start", session_id: sid, time: now, hook_event: "SessionStart"});
const bodies = {
  "/api/v1/events": event("evil-fetch"),
  "/state": JSON.stringify({state: "working", session_id: "evil-state"}),
  "/api/v1/permissions": JSON.stringify({event: {agent: "claude", kind: "permission.request", session_id: "evil-perm", time: now, tool_name: "Bash"}, wait_seconds: 1}),
  ["/api/v1/permissions/" + id + "/decision"]: JSON.stringify({behavior: "allow", via: "evil"}),
  "/api/v1/dnd": JSON.stringify({on: true}),
};
const routes = ["/api/v1/health", "/state", "/api/v1/sessions", "/api/v1/events", "/api/v1/permissions",
  "/api/v1/permissions/events", "/api/v1/permissions/" + id, "/api/v1/permissions/" + id + "/decision", "/api/v1/dnd"];
const streams = ["/api/v1/events", "/api/v1/permissions/events"];

function urlencoded(json) {
  const o = JSON.parse(json), p = new URLSearchParams();
  for (const k in o) p.set(k, typeof o[k] === "object" ? JSON.stringify(o[k]) : String(o[k]));
  return p.toString();
}

const pending = new Set();

async function attempt(url, path, method, mode, ctype, withToken, referrerPolicy, body) {
  const rec = {kind: "fetch", url, method, mode, detail: [ctype || "-", withToken ? "token" : "no-token", referrerPolicy || "default"].join(" "), outcome: "", status: 0, body: ""};
  // A stream the guard lets through (a no-cors GET without a Referer)
  // never settles: Chromium's opaque-response blocking waits for body
  // bytes to sniff. fetches() aborts what is left once everything else
  // has settled; those attempts end as "timeout".
  const ac = new AbortController();
  const p = {stream: streams.includes(path), abort: () => { rec.aborted = true; ac.abort(); }};
  pending.add(p);
  const init = {method, mode, signal: ac.signal, headers: {}, cache: "no-store", credentials: "include"};
  if (referrerPolicy) init.referrerPolicy = referrerPolicy;
  if (ctype) init.headers["Content-Type"] = ctype;
  if (withToken) init.headers["Authorization"] = "Bearer " + token;
  if (body !== undefined) init.body = body;
  try {
    const resp = await fetch(url, init);
    if (resp.type === "opaque" || resp.type === "opaqueredirect") {
      rec.outcome = "opaque";
    } else {
      rec.outcome = "readable";
      rec.status = resp.status;
      try { rec.body = (await resp.text()).slice(0, 200) || "(empty)"; } catch (e) { rec.body = "(unreadable: " + e + ")"; }
    }
  } catch (e) {
    rec.outcome = rec.aborted ? "timeout" : "rejected";
  }
  delete rec.aborted;
  pending.delete(p);
  ac.abort(); // a stream answered opaquely stays open otherwise
  results.push(rec);
}

async function fetches() {
  const all = [];
  for (const base of targets) {
    for (const path of routes) {
      const url = base + path;
      const json = bodies[path] || event("evil-" + path.replace(/\W/g, ""));
      for (const rp of ["", "no-referrer"]) {
        all.push(attempt(url, path, "GET", "no-cors", "", false, rp));
        all.push(attempt(url, path, "GET", "cors", "", false, rp));
        all.push(attempt(url, path, "GET", "cors", "", true, rp));
        for (const mode of ["no-cors", "cors"]) {
          all.push(attempt(url, path, "POST", mode, "application/json", mode === "cors", rp, json));
          all.push(attempt(url, path, "POST", mode, "text/plain", mode === "cors", rp, json));
          all.push(attempt(url, path, "POST", mode, "application/x-www-form-urlencoded", false, rp, urlencoded(json)));
          all.push(attempt(url, path, "POST", mode, "", false, rp, new Blob([json], {type: "application/json"})));
        }
        for (const m of ["PUT", "PATCH", "DELETE", "OPTIONS"]) {
          all.push(attempt(url, path, m, "cors", "application/json", true, rp, m === "DELETE" || m === "OPTIONS" ? undefined : json));
        }
      }
    }
  }
  // Up to 20 s of real time for everything but the streams, then end
  // the streams.
  for (let i = 0; i < 10 && [...pending].some((p) => !p.stream); i++) await realDelay();
  for (const p of pending) p.abort();
  await Promise.all(all);
}

// frame adds a hidden iframe and resolves once it loaded (or after a
// while: a stream never finishes loading), recording whether the page can
// read anything of it.
function frame(name, src, url, kind, method, mode, detail, referrerPolicy, timeout) {
  return new Promise((resolve) => {
    const f = document.createElement("iframe");
    f.name = name;
    if (referrerPolicy) f.referrerPolicy = referrerPolicy;
    const rec = {kind, url, method, mode, detail, outcome: "", status: 0, body: ""};
    let finished = false;
    const finish = (how) => {
      if (finished) return;
      finished = true;
      let text = "";
      try {
        const d = f.contentDocument || (f.contentWindow && f.contentWindow.document);
        if (d && d.body) text = d.body.innerText || "";
      } catch (e) { /* cross-origin: unreadable, as it should be */ }
      rec.outcome = text ? "readable" : "unreadable";
      rec.body = text.slice(0, 200);
      rec.detail += " " + how;
      f.remove();
      results.push(rec);
      resolve();
    };
    f.onload = () => finish("load");
    f.onerror = () => finish("error");
    timeout.then(() => finish("timeout"));
    document.getElementById("frames").appendChild(f);
    if (src) f.src = src;
  });
}

async function forms() {
  const all = [];
  let go;
  const timeout = new Promise((resolve) => { go = resolve; });
  let n = 0;
  const targetsOf = ["/state", "/api/v1/events", "/api/v1/permissions/" + id + "/decision", "/api/v1/dnd", "/api/v1/permissions"];
  for (const base of targets) {
    for (const path of targetsOf) {
      const json = bodies[path];
      for (const enctype of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]) {
        const name = "form" + (n++);
        const url = base + path;
        const loaded = frame(name, "", url, "form", "POST", enctype, "", "", timeout);
        const form = document.createElement("form");
        form.method = "POST";
        form.action = url;
        form.enctype = enctype;
        form.target = name;
        const input = document.createElement("input");
        input.type = "hidden";
        if (enctype === "text/plain") {
          // name=value with the "=" hidden inside a JSON string: the
          // body reads as the JSON object.
          input.name = json.slice(0, -1) + ',"pad":"';
          input.value = '"}';
        } else {
          input.name = "json";
          input.value = json;
        }
        form.appendChild(input);
        document.body.appendChild(form);
        form.submit();
        all.push(loaded);
      }
    }
  }
  realDelay().then(go);
  await Promise.all(all);
}

async function navigations() {
  const all = [];
  let go;
  const timeout = new Promise((resolve) => { go = resolve; });
  let n = 0;
  for (const base of targets) {
    for (const path of streams.concat(["/api/v1/sessions", "/api/v1/permissions/" + id, "/api/v1/dnd"])) {
      for (const rp of ["", "no-referrer"]) {
        all.push(frame("nav" + (n++), base + path, base + path, "iframe", "GET", "iframe", rp || "default", rp, timeout));
      }
    }
  }
  realDelay().then(go);
  await Promise.all(all);
}

(async () => {
  try {
    await fetches();
    log("fetches done: " + results.length);
    await forms();
    log("forms done: " + results.length);
    await navigations();
    log("navigations done: " + results.length);
  } catch (e) {
    results.push({kind: "page-error", url: "", method: "", mode: "", detail: String(e), outcome: "error", status: 0, body: ""});
  }
  document.getElementById("results").textContent = btoa(unescape(encodeURIComponent(JSON.stringify(results))));
  document.getElementById("done").textContent = done;
  document.title = done;
})();
</script>
</body></html>
`))

// TestBrowserAttackPageReachesOpenServer is the control of
// TestBrowserCannotDriveRuntime: the same page against a server with no
// guard and CORS wide open must get its requests in and read the
// answers. Otherwise the page, not the guard, is what failed.
func TestBrowserAttackPageReachesOpenServer(t *testing.T) {
	if _, err := os.Stat(chromiumBin); err != nil {
		t.Fatalf("%s not found (%v): run bash scripts/test.sh, which installs Debian's chromium through scripts/install-agents.sh", chromiumBin, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var mu sync.Mutex
	got := map[string]int{} // "METHOD path" -> requests
	open := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.Method+" "+r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
		w.Header().Set("Access-Control-Allow-Credentials", "true")
		w.Header().Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS")
		w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("open"))
	}))
	defer open.Close()
	port := open.Listener.Addr().(*net.TCPAddr).Port

	const id = "p-control"
	page := attackPage(t, port, id, "token", "session")
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(page)
		case "/sleep":
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
			}
		}
	}))
	defer attacker.Close()

	dom := runChromium(ctx, t, attacker.URL+"/")
	if !strings.Contains(dom, `id="done">`+doneMarker) {
		t.Fatalf("the dumped DOM has no %q. DOM:\n%s", doneMarker, clip(dom, 4000))
	}
	readable := 0
	for _, o := range pageOutcomes(t, dom) {
		if o.Outcome == "readable" {
			readable++
		}
	}
	if readable == 0 {
		t.Error("against an open server the page read nothing: it cannot tell a guard from a broken page")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, k := range []string{"POST /state", "POST /api/v1/events", "POST /api/v1/permissions",
		"POST /api/v1/permissions/" + id + "/decision", "POST /api/v1/dnd", "GET /api/v1/events", "GET /api/v1/permissions/events"} {
		if got[k] == 0 {
			t.Errorf("the page never sent %s to the open server; it got %v", k, got)
		}
	}
	t.Logf("the page read %d answers of the open server; requests: %v", readable, got)
}

package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/client"
)

// testEnv is an env with a private clawd home, the given stdin and
// captured output.
func testEnv(t *testing.T, home string, stdin []byte, vars map[string]string) (*env, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errb bytes.Buffer
	all := map[string]string{"CLAWD_HOME": home, "HOME": t.TempDir()}
	for k, v := range vars {
		all[k] = v
	}
	return &env{
		stdin:          bytes.NewReader(stdin),
		stdout:         &out,
		stderr:         &errb,
		getenv:         func(k string) string { return all[k] },
		now:            time.Now,
		executable:     func() (string, error) { return "/usr/local/bin/clawd", nil },
		permissionWait: testWait(t),
	}, &out, &errb
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "claude", "hooks", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// startRuntime runs a real runtime for home on a free port.
func startRuntime(t *testing.T, home string) *runtime.Server {
	t.Helper()
	s := runtime.New(runtime.Config{Home: home, Version: "test"})
	stop, err := serveRuntime(s)
	if err != nil {
		t.Fatalf("runtime: %v", err)
	}
	t.Cleanup(stop)
	return s
}

// serveRuntime runs s on a free port and returns once it listens; stop
// ends it and waits for it.
func serveRuntime(s *runtime.Server) (stop func(), err error) {
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, 0, func(client.Info) { close(ready) }) }()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		return nil, err
	}
	return func() {
		cancel()
		<-done
	}, nil
}

func hookLog(t *testing.T, home string) string {
	b, _ := os.ReadFile(filepath.Join(home, "logs", "hook.log"))
	return string(b)
}

// waits holds each test's shortWait, by test name.
var waits sync.Map

// shortWait makes the hooks of t and its subtests (their testEnv) wait at
// most d for a permission decision.
func shortWait(t *testing.T, d time.Duration) {
	t.Helper()
	waits.Store(t.Name(), d)
	t.Cleanup(func() { waits.Delete(t.Name()) })
}

// testWait is the permission wait of t's envs: the shortWait of t or of
// the test it is a subtest of; nil (the agent's) without one.
func testWait(t *testing.T) func(*agents.Agent, string) time.Duration {
	for name := t.Name(); ; {
		if d, ok := waits.Load(name); ok {
			return func(*agents.Agent, string) time.Duration { return d.(time.Duration) }
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return nil
		}
		name = name[:i]
	}
}

// shortHeartbeat makes the hook give up on a silent runtime sooner.
func shortHeartbeat(t *testing.T) {
	t.Helper()
	ack, loss := client.AckTimeout, client.HeartbeatLoss
	client.AckTimeout, client.HeartbeatLoss = 100*time.Millisecond, 300*time.Millisecond
	t.Cleanup(func() { client.AckTimeout, client.HeartbeatLoss = ack, loss })
}

func TestHookForwardsEvents(t *testing.T) {
	home := t.TempDir()
	// Nobody answers the permission request: the runtime's own timeout
	// (1 s, what the hook asks for) ends it with no decision.
	shortWait(t, 1900*time.Millisecond)
	s := startRuntime(t, home)
	vars := map[string]string{"CLAUDE_CODE_ENTRYPOINT": "cli", "CLAUDE_CODE_SESSION_ATTENDED": "1", "CLAUDE_PID": "4242"}
	for _, name := range []string{"SessionStart.json", "UserPromptSubmit.json", "PreToolUse.json", "PermissionRequest.json"} {
		e, out, errb := testEnv(t, home, fixture(t, name), vars)
		if code := run(context.Background(), e, []string{"clawd", "hook", "claude"}); code != 0 {
			t.Fatalf("hook %s exit = %d", name, code)
		}
		want := ""
		if name == "PermissionRequest.json" {
			want = "{}\n" // nobody decided
		}
		if out.String() != want || errb.Len() != 0 {
			t.Errorf("hook %s: stdout %q stderr %q, want stdout %q and no stderr", name, out, errb, want)
		}
	}
	snap := s.Snapshot()
	if len(snap.Sessions) != 1 {
		t.Fatalf("sessions = %+v", snap.Sessions)
	}
	got := snap.Sessions[0]
	if got.State != "waiting" || got.Title != "CAPTURE_ALL please" || got.Cwd != "/home/user/project" ||
		got.AgentPID != 4242 || got.Headless || got.Tool != "Bash" || got.Pending != 1 {
		t.Errorf("session = %+v", got)
	}
	if l := hookLog(t, home); l != "" {
		t.Errorf("hook.log = %q, want nothing logged on success", l)
	}
}

func TestHookFailsOpen(t *testing.T) {
	// A socket that accepts and never answers: a wedged runtime.
	hungHome := t.TempDir()
	hung, err := runtime.ListenSocket(client.SocketPath(hungHome), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hung.Close()
	go func() {
		for {
			c, err := hung.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	big := fixture(t, "PermissionRequest.json")
	big = bytes.Replace(big, []byte(`"echo hello > out.txt"`), []byte(`"`+strings.Repeat("x", maxHookInput)+`"`), 1)
	// A hung runtime never acknowledges the request: the hook gives up on
	// it long before its wait.
	shortWait(t, 20*time.Second)
	shortHeartbeat(t)

	cases := []struct {
		name    string
		home    string
		stdin   []byte
		args    []string
		wantOut string
		wantLog string
	}{
		{"runtime down", t.TempDir(), fixture(t, "Stop.json"), []string{"hook", "claude"}, "", spooledLog},
		{"runtime down, permission", t.TempDir(), fixture(t, "PermissionRequest.json"), []string{"hook", "claude"}, "{}\n", "runtime not reachable"},
		{"runtime hung", hungHome, fixture(t, "PermissionRequest.json"), []string{"hook", "claude", "PermissionRequest"}, "{}\n", "the runtime stopped answering"},
		{"not json", t.TempDir(), []byte("hello"), []string{"hook", "claude", "PermissionRequest"}, "{}\n", "decode payload"},
		{"json array", t.TempDir(), []byte("[1,2]"), []string{"hook", "claude", "Stop"}, "", "decode payload"},
		{"empty stdin", t.TempDir(), nil, []string{"hook", "claude", "Stop"}, "", "decode payload"},
		{"unknown event", t.TempDir(), []byte(`{"session_id":"s","hook_event_name":"Explode"}`), []string{"hook", "claude"}, "", "unknown hook event"},
		{"no session", t.TempDir(), []byte(`{"hook_event_name":"Stop"}`), []string{"hook", "claude"}, "", "no session_id"},
		{"unknown agent", t.TempDir(), fixture(t, "Stop.json"), []string{"hook", "nosuchagent"}, "", "unknown agent"},
		{"over the cap", t.TempDir(), big, []string{"hook", "claude"}, "{}\n", "over the stdin cap"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, out, errb := testEnv(t, c.home, c.stdin, nil)
			done := make(chan int, 1)
			go func() { done <- run(context.Background(), e, append([]string{"clawd"}, c.args...)) }()
			var code int
			select {
			case code = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("hook did not return: it must be bounded whatever the runtime does")
			}
			if code != 0 || out.String() != c.wantOut || errb.Len() != 0 {
				t.Errorf("exit %d stdout %q stderr %q; want 0, %q, no stderr", code, out, errb, c.wantOut)
			}
			checkHookLog(t, c.home, c.wantLog)
		})
	}
}

func TestHookTruncatedPayloadStillForwarded(t *testing.T) {
	home := t.TempDir()
	shortWait(t, 1900*time.Millisecond) // nobody answers
	s := startRuntime(t, home)
	big := fixture(t, "PermissionRequest.json")
	big = bytes.Replace(big, []byte(`"echo hello > out.txt"`), []byte(`"`+strings.Repeat("x", maxHookInput)+`"`), 1)
	e, out, _ := testEnv(t, home, big, nil)
	if code := run(context.Background(), e, []string{"clawd", "hook", "claude"}); code != 0 || out.String() != "{}\n" {
		t.Fatalf("exit %d stdout %q", code, out)
	}
	snap := s.Snapshot()
	if len(snap.Sessions) != 1 || snap.Sessions[0].State != "waiting" || snap.Sessions[0].Tool != "" && snap.Sessions[0].Tool != "Bash" {
		t.Fatalf("sessions after a truncated permission request = %+v", snap.Sessions)
	}
}

func TestHookLogRotates(t *testing.T) {
	home := t.TempDir()
	logs := filepath.Join(home, "logs")
	os.MkdirAll(logs, 0o700)
	os.WriteFile(filepath.Join(logs, "hook.log"), bytes.Repeat([]byte("x"), hookLogMax), 0o600)
	e, _, _ := testEnv(t, home, []byte("junk"), nil)
	run(context.Background(), e, []string{"clawd", "hook", "claude", "Stop"})
	cur, _ := os.ReadFile(filepath.Join(logs, "hook.log"))
	old, _ := os.ReadFile(filepath.Join(logs, "hook.log.1"))
	if len(old) != hookLogMax || !bytes.Contains(cur, []byte("decode payload")) || len(cur) > 4096 {
		t.Errorf("after rotation: hook.log %d bytes, hook.log.1 %d bytes", len(cur), len(old))
	}
}

func TestHookFastArgs(t *testing.T) {
	for _, c := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"hook", "claude"}, true},
		{[]string{"hook", "claude", "Stop"}, true},
		{[]string{"hook", "claude", "--help"}, false},
		{[]string{"hook"}, false},
		{[]string{"status", "claude"}, false},
		{[]string{"hook", "a", "b", "c"}, false},
	} {
		if _, ok := hookFastArgs(c.args); ok != c.ok {
			t.Errorf("hookFastArgs(%q) = %v, want %v", c.args, ok, c.ok)
		}
	}
}

// serveOnSocket serves h on the runtime socket of home until the test
// ends, as `clawd serve` would.
func serveOnSocket(t *testing.T, home string, h http.Handler) {
	t.Helper()
	ln, err := runtime.ListenSocket(client.SocketPath(home), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
}

// fakeRuntime is a server on the home's runtime socket that identifies as
// clawd and answers POST /api/v1/permissions with answer after delay (or
// never, when answer is nil and status is 0). It records what the hook
// sent.
type fakeRuntime struct {
	home      string
	mu        sync.Mutex
	bodies    [][]byte
	auth      []string
	withdrawn chan struct{} // closed when a held request's client went away
	received  chan struct{} // one value per request
}

func newFakeRuntime(t *testing.T, status int, answer string, delay time.Duration) *fakeRuntime {
	t.Helper()
	f := &fakeRuntime{home: t.TempDir(), withdrawn: make(chan struct{}), received: make(chan struct{}, 16)}
	var once sync.Once
	serveOnSocket(t, f.home, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(client.IdentityHeader, client.IdentityValue)
		if r.Method != http.MethodPost || r.URL.Path != "/api/v1/permissions" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.bodies = append(f.bodies, b)
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		f.mu.Unlock()
		f.received <- struct{}{}
		switch status {
		case 0: // acknowledge, keep the heartbeat, never answer
			w.WriteHeader(http.StatusOK)
			for {
				io.WriteString(w, "\n")
				w.(http.Flusher).Flush()
				select {
				case <-time.After(100 * time.Millisecond):
				case <-r.Context().Done():
					once.Do(func() { close(f.withdrawn) })
					return
				}
			}
		case -1: // never acknowledge
			<-r.Context().Done()
			once.Do(func() { close(f.withdrawn) })
			return
		case -2: // acknowledge, then fall silent
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			once.Do(func() { close(f.withdrawn) })
			return
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			once.Do(func() { close(f.withdrawn) })
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, answer)
	}))
	return f
}

// body returns the one request the hook sent.
func (f *fakeRuntime) body(t *testing.T) client.RequestBody {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.bodies) != 1 {
		t.Fatalf("runtime got %d permission requests, want 1", len(f.bodies))
	}
	if f.auth[0] != "" {
		t.Errorf("Authorization = %q, want none: the socket needs no token", f.auth[0])
	}
	var rb client.RequestBody
	if err := json.Unmarshal(f.bodies[0], &rb); err != nil {
		t.Fatalf("request body is not a RequestBody: %v\n%.300s", err, f.bodies[0])
	}
	return rb
}

// runHookOn runs `clawd hook claude` with stdin against home, bounded.
func runHookOn(t *testing.T, ctx context.Context, home string, stdin []byte) (code int, stdout string, stderr string) {
	t.Helper()
	e, out, errb := testEnv(t, home, stdin, map[string]string{"CLAUDE_CODE_SESSION_ATTENDED": "1"})
	done := make(chan int, 1)
	go func() { done <- run(ctx, e, []string{"clawd", "hook", "claude"}) }()
	select {
	case code = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("hook did not return")
	}
	return code, out.String(), errb.String()
}

func sameJSON(t *testing.T, got, want []byte) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		return false
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(g, w)
}

func output(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "claude", "outputs", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHookPermissionDecision(t *testing.T) {
	shortWait(t, 5*time.Second)
	cases := []struct {
		name    string
		fixture string
		answer  string
		want    string // file in testdata/claude/outputs
	}{
		{"allow", "PermissionRequest.json", `{"id":"p1","decision":{"behavior":"allow"}}`, "PermissionRequest.allow.json"},
		{"deny with message", "PermissionRequest.json", `{"id":"p1","decision":{"behavior":"deny","message":"Denied by the test hook"}}`, "PermissionRequest.deny.json"},
		{"deny and interrupt", "PermissionRequest.json", `{"id":"p1","decision":{"behavior":"deny","message":"stop now","interrupt":true}}`, "PermissionRequest.deny-interrupt.json"},
		{"always: the offered suggestion", "PermissionRequest.setMode.json",
			`{"id":"p1","decision":{"behavior":"allow","updated_permissions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}]}}`,
			"PermissionRequest.allow-always-setMode.json"},
		{"no decision", "PermissionRequest.json", `{"id":"p1","decision":null,"reason":"dnd"}`, "PermissionRequest.no-decision.json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeRuntime(t, 200, c.answer, 50*time.Millisecond)
			code, out, errb := runHookOn(t, context.Background(), f.home, fixture(t, c.fixture))
			if code != 0 || errb != "" || !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 || !sameJSON(t, []byte(out), output(t, c.want)) {
				t.Errorf("exit %d stdout %q stderr %q; want 0 and one line equal to %s", code, out, errb, c.want)
			}
			if l := hookLog(t, f.home); l != "" {
				t.Errorf("hook.log = %q, want nothing logged for an answer", l)
			}
			rb := f.body(t)
			if rb.Event.Kind != agents.KindPermissionRequest || rb.Event.ToolName != "Bash" || rb.Event.SessionID == "" {
				t.Errorf("event = %+v", rb.Event)
			}
			if rb.WaitSeconds != 5 || rb.InputTruncated {
				t.Errorf("wait_seconds %d input_truncated %v, want 5, false", rb.WaitSeconds, rb.InputTruncated)
			}
			payload := fixture(t, c.fixture)
			if !sameJSON(t, rb.ToolInput, []byte(gjson.GetBytes(payload, "tool_input").Raw)) {
				t.Errorf("tool_input = %s", rb.ToolInput)
			}
			sugg, _ := json.Marshal(rb.Suggestions)
			if !sameJSON(t, sugg, []byte(gjson.GetBytes(payload, "permission_suggestions").Raw)) {
				t.Errorf("suggestions = %s", sugg)
			}
		})
	}
}

func TestHookPermissionFailsOpen(t *testing.T) {
	shortWait(t, 700*time.Millisecond)
	shortHeartbeat(t)
	cases := []struct {
		name    string
		status  int
		answer  string
		wantLog string
	}{
		{"runtime answers 500", 500, `{"error":"boom"}`, "runtime refused the permission request"},
		{"answer not JSON", 200, `{"decision":`, "bad answer from the runtime"},
		{"unknown behavior", 200, `{"decision":{"behavior":"maybe"}}`, "decision behavior \\\"maybe\\\""},
		{"no answer within the wait", 0, "", "no answer from the runtime within the wait"},
		{"no acknowledgement", -1, "", "the runtime stopped answering"},
		{"heartbeat lost", -2, "", "the runtime stopped answering"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeRuntime(t, c.status, c.answer, 10*time.Millisecond)
			code, out, errb := runHookOn(t, context.Background(), f.home, fixture(t, "PermissionRequest.json"))
			if code != 0 || out != "{}\n" || errb != "" {
				t.Errorf("exit %d stdout %q stderr %q; want 0, {}, no stderr", code, out, errb)
			}
			if l := hookLog(t, f.home); !strings.Contains(l, c.wantLog) {
				t.Errorf("hook.log = %q, want a line with %q", l, c.wantLog)
			}
			if c.status <= 0 {
				select {
				case <-f.withdrawn:
				case <-time.After(5 * time.Second):
					t.Error("the hook gave up but its request stayed open: the runtime cannot withdraw it")
				}
			}
		})
	}
	t.Run("runtime down", func(t *testing.T) {
		home := t.TempDir()
		// A file left where the socket goes: nothing listens there.
		os.WriteFile(client.SocketPath(home), nil, 0o600)
		code, out, _ := runHookOn(t, context.Background(), home, fixture(t, "PermissionRequest.json"))
		if code != 0 || out != "{}\n" || !strings.Contains(hookLog(t, home), "runtime not reachable") {
			t.Errorf("exit %d stdout %q log %q", code, out, hookLog(t, home))
		}
	})
}

// The agent SIGTERMs the hook when the person answered in the terminal:
// the hook ends at once, prints nothing, logs nothing, and its request is
// withdrawn. The signal context is a child of run's ctx, so cancelling
// that stands in for the signal.
func TestHookPermissionSIGTERM(t *testing.T) {
	shortWait(t, 10*time.Second)
	f := newFakeRuntime(t, 0, "", 0)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-f.received
		cancel()
	}()
	start := time.Now()
	code, out, errb := runHookOn(t, ctx, f.home, fixture(t, "PermissionRequest.json"))
	if code != 0 || out != "" || errb != "" || time.Since(start) > 5*time.Second {
		t.Errorf("exit %d stdout %q stderr %q after %v; want 0, nothing, at once", code, out, errb, time.Since(start))
	}
	if l := hookLog(t, f.home); l != "" {
		t.Errorf("hook.log = %q, want nothing on SIGTERM", l)
	}
	select {
	case <-f.withdrawn:
	case <-time.After(5 * time.Second):
		t.Error("request not withdrawn after SIGTERM")
	}
}

// A tool input over agents.MaxRequestInput goes out as a preview marked
// input_truncated, and is still decided: size is never a reason to deny.
func TestHookPermissionOversizeInput(t *testing.T) {
	shortWait(t, 5*time.Second)
	f := newFakeRuntime(t, 200, `{"decision":{"behavior":"allow"}}`, 0)
	big := strings.Repeat(`<a href="x">&</a>`, (agents.MaxRequestInput+1000)/17+1)
	payload := bytes.Replace(fixture(t, "PermissionRequest.json"), []byte(`"echo hello > out.txt"`), []byte(`"`+strings.ReplaceAll(big, `"`, `\"`)+`"`), 1)
	code, out, _ := runHookOn(t, context.Background(), f.home, payload)
	if code != 0 || !sameJSON(t, []byte(out), output(t, "PermissionRequest.allow.json")) {
		t.Errorf("exit %d stdout %q; want the allow", code, out)
	}
	rb := f.body(t)
	var preview string
	if err := json.Unmarshal(rb.ToolInput, &preview); err != nil {
		t.Fatalf("tool_input is not a JSON string preview: %v (%.100s)", err, rb.ToolInput)
	}
	if !rb.InputTruncated || len(preview) == 0 || len(preview) > agents.MaxRequestInput ||
		!strings.HasPrefix(preview, "{") || !strings.Contains(preview[:100], `"command": "<a href=\"x\">&`) {
		t.Errorf("input_truncated %v, preview %d bytes starting %.40q; want true and at most %d bytes of the raw input", rb.InputTruncated, len(preview), preview, agents.MaxRequestInput)
	}
	f.mu.Lock()
	n := len(f.bodies[0])
	f.mu.Unlock()
	if n > 2*agents.MaxRequestInput {
		t.Errorf("request body %d bytes: the preview must stay near its cap (no HTML escaping)", n)
	}
}

func TestPermissionRequestElicitation(t *testing.T) {
	payload := fixture(t, "Elicitation.json")
	ev, err := agents.Claude.Decode(payload, "", func(string) string { return "" }, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	rb := permissionRequest(agents.Claude, ev, payload, false, 90*time.Second)
	if rb.Message != "Which color do you want?" || rb.WaitSeconds != 90 || rb.ToolInput != nil || rb.Suggestions != nil {
		t.Errorf("permissionRequest(Elicitation) = %+v", rb)
	}
}

// TestHookStdinNeverClosed: an agent that writes its payload and never
// closes the hook's stdin still gets its event forwarded once the wait for
// the end of stdin is over, because what arrived is one complete JSON
// value.
func TestHookStdinNeverClosed(t *testing.T) {
	for _, c := range []struct {
		name    string
		payload []byte
		want    bool
	}{
		{"complete", fixture(t, "UserPromptSubmit.json"), true},
		{"cut short", fixture(t, "UserPromptSubmit.json")[:100], false},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			s := startRuntime(t, home)
			pr, pw := io.Pipe()
			defer pw.Close()
			go pw.Write(c.payload) // and never close
			e, out, errb := testEnv(t, home, nil, nil)
			e.stdin, e.hookStdinWait = pr, 100*time.Millisecond
			if code := run(context.Background(), e, []string{"clawd", "hook", "claude"}); code != 0 || out.Len() != 0 || errb.Len() != 0 {
				t.Fatalf("hook = %d %q %q", code, out, errb)
			}
			got := len(s.Snapshot().Sessions) == 1
			if got != c.want {
				t.Errorf("session forwarded = %v, want %v (hook.log: %s)", got, c.want, hookLog(t, home))
			}
		})
	}
}

// TestHookIgnoresSilentListener: a listener on 23333 that accepts and
// never answers, in a clawd home without runtime.json, neither slows a
// hook nor loses its event: the hook goes to the home's socket and
// nowhere else.
func TestHookIgnoresSilentListener(t *testing.T) {
	home := t.TempDir()
	s := startRuntime(t, home)
	if err := os.Remove(filepath.Join(home, client.InfoFile)); err != nil {
		t.Fatal(err)
	}
	silent, err := net.Listen("tcp", "127.0.0.1:23333")
	if err != nil {
		// Something else holds 23333 (another clawd on this machine):
		// the hook must ignore that too.
		t.Logf("23333 is taken (%v): checking against whatever listens there", err)
	} else {
		defer silent.Close()
	}
	accepted := make(chan net.Conn, 16)
	if silent != nil {
		go func() {
			for {
				c, err := silent.Accept()
				if err != nil {
					return
				}
				accepted <- c // and never answer
			}
		}()
	}
	e, out, errb := testEnv(t, home, fixture(t, "UserPromptSubmit.json"), nil)
	start := time.Now()
	code := run(context.Background(), e, []string{"clawd", "hook", "claude"})
	took := time.Since(start)
	if code != 0 || out.Len() != 0 || errb.Len() != 0 {
		t.Fatalf("hook = %d %q %q", code, out, errb)
	}
	// The budget for a non-blocking event is 400 ms; the socket answers in
	// well under one, so half the budget is a generous bound.
	if took > hookPostTimeout/2 {
		t.Errorf("hook took %v beside a silent listener on 23333, want far less than its %v budget", took, hookPostTimeout)
	}
	if snap := s.Snapshot(); len(snap.Sessions) != 1 || snap.Sessions[0].Title != "CAPTURE_ALL please" {
		t.Errorf("sessions = %+v, want the hook's event delivered (hook.log: %s)", snap.Sessions, hookLog(t, home))
	}
	if silent != nil {
		// Connections are accepted in order: once our own is, any the
		// hook made would have been too.
		mine, err := net.Dial("tcp", "127.0.0.1:23333")
		if err != nil {
			t.Fatal(err)
		}
		defer mine.Close()
		if c := <-accepted; c.RemoteAddr().String() != mine.LocalAddr().String() {
			t.Errorf("the hook connected to 23333 (%v)", c.RemoteAddr())
		}
	}
}

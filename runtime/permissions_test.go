package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/sessions"
	"github.com/clawdhq/clawd/statemachine"
)

// fakeTimer is one timeout the broker asked for; the test fires it.
type fakeTimer struct {
	d  time.Duration
	ch chan time.Time
}

// permEnv is a runtime on loopback and on its socket with a fake timer
// source.
type permEnv struct {
	s      *Server
	port   int
	sock   string
	token  string
	timers chan fakeTimer
	stop   func() // stops the runtime and waits for it
}

func startPerm(t *testing.T, mod func(*Config)) *permEnv {
	t.Helper()
	env := &permEnv{timers: make(chan fakeTimer, 64)}
	cfg := Config{
		Home: t.TempDir(), Version: "test", Alive: func(int) bool { return true },
		After: func(d time.Duration) <-chan time.Time {
			ch := make(chan time.Time, 1)
			env.timers <- fakeTimer{d, ch}
			return ch
		},
	}
	if mod != nil {
		mod(&cfg)
	}
	env.s = New(cfg)
	env.token = env.s.Token()
	ln, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	env.port = ln.Addr().(*net.TCPAddr).Port
	env.sock = client.SocketPath(cfg.Home)
	sln, err := ListenSocket(env.sock, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- env.s.Serve(ctx, ln, sln) }()
	var stopped bool
	env.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}
	t.Cleanup(env.stop)
	return env
}

func (env *permEnv) url(path string) string {
	return fmt.Sprintf("http://127.0.0.1:%d%s", env.port, path)
}

// call sends an API request with token (none when empty) and returns the
// status and body.
func (env *permEnv) call(t *testing.T, method, path, token string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, env.url(path), rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (env *permEnv) decide(t *testing.T, id string, d client.DecisionBody) (int, []byte) {
	t.Helper()
	return env.call(t, "POST", "/api/v1/permissions/"+id+"/decision", env.token, d)
}

func (env *permEnv) list(t *testing.T) []client.PermissionView {
	t.Helper()
	code, b := env.call(t, "GET", "/api/v1/permissions", env.token, nil)
	if code != http.StatusOK {
		t.Fatalf("GET /api/v1/permissions = %d %s", code, b)
	}
	var vs []client.PermissionView
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatal(err)
	}
	return vs
}

func (env *permEnv) detail(t *testing.T, id string) client.PermissionDetail {
	t.Helper()
	code, b := env.call(t, "GET", "/api/v1/permissions/"+id, env.token, nil)
	if code != http.StatusOK {
		t.Fatalf("GET /api/v1/permissions/%s = %d %s", id, code, b)
	}
	var d client.PermissionDetail
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

type hookResult struct {
	code int
	ans  client.Answer
	raw  string
	err  error
}

// socketClient is an HTTP client of the runtime's socket.
func (env *permEnv) socketClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", env.sock)
		}}}
}

// hook posts a request as `clawd hook` does, over the socket, and returns
// where its answer will arrive.
func (env *permEnv) hook(body client.RequestBody) <-chan hookResult {
	out := make(chan hookResult, 1)
	go func() {
		b, _ := json.Marshal(body)
		resp, err := env.socketClient(20*time.Second).Post("http://clawd/api/v1/permissions", "application/json", bytes.NewReader(b))
		if err != nil {
			out <- hookResult{err: err}
			return
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		r := hookResult{code: resp.StatusCode, raw: string(raw)}
		if resp.StatusCode == http.StatusOK {
			r.err = json.Unmarshal(raw, &r.ans)
		}
		out <- r
	}()
	return out
}

func wait(t *testing.T, c <-chan hookResult) hookResult {
	t.Helper()
	select {
	case r := <-c:
		if r.err != nil {
			t.Fatalf("hook: %v", r.err)
		}
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("hook got no answer")
	}
	return hookResult{}
}

// noAnswer checks that the hook is still waiting.
func noAnswer(t *testing.T, c <-chan hookResult) {
	t.Helper()
	select {
	case r := <-c:
		t.Fatalf("hook answered %+v (%s), want it still waiting", r.ans, r.raw)
	default:
	}
}

// stream follows the permission change stream.
type stream struct {
	lines chan client.PermissionChange
}

func (env *permEnv) follow(t *testing.T) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", env.url("/api/v1/permissions/events"), nil)
	req.Header.Set("Authorization", "Bearer "+env.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/v1/permissions/events = %d", resp.StatusCode)
	}
	st := &stream{lines: make(chan client.PermissionChange, 256)}
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			var c client.PermissionChange
			if len(bytes.TrimSpace(sc.Bytes())) == 0 || json.Unmarshal(sc.Bytes(), &c) != nil {
				continue
			}
			st.lines <- c
		}
		close(st.lines)
	}()
	return st
}

// next returns the next change of type typ, failing after within.
func (st *stream) next(t *testing.T, typ string, within time.Duration) client.PermissionChange {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case c, ok := <-st.lines:
			if !ok {
				t.Fatalf("stream ended waiting for %q", typ)
			}
			if c.Type == typ {
				return c
			}
		case <-deadline:
			t.Fatalf("no %q change within %v", typ, within)
		}
	}
}

func permEvent(sid, tool, hash string) agents.Event {
	return agents.Event{Agent: "claude", Kind: agents.KindPermissionRequest, SessionID: sid,
		Time: time.Now().UTC(), ToolName: tool, InputHash: hash, Cwd: "/tmp/p", HookEvent: "PermissionRequest"}
}

func bashRequest(sid, hash, command string) client.RequestBody {
	in, _ := json.Marshal(map[string]string{"command": command, "description": "run it"})
	return hookBody(permEvent(sid, "Bash", hash), `{"tool_input":`+string(in)+`}`)
}

// hookBody is what Claude Code's hook registers for e whose payload is
// payload: the request as agents.Claude describes it.
func hookBody(e agents.Event, payload string) client.RequestBody {
	return client.RequestBody{Event: e, Request: agents.Claude.Describe(e, []byte(payload), false), WaitSeconds: 3595}
}

func sessionState(t *testing.T, s *Server, sid string) string {
	t.Helper()
	for _, ss := range s.Snapshot().Sessions {
		if ss.SessionID == sid {
			return ss.State
		}
	}
	return ""
}

const (
	setModeSuggestion = `{"type":"setMode","mode":"acceptEdits","destination":"session"}`
	ruleSuggestion    = `{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test"}],"behavior":"allow","destination":"localSettings"}`
)

func TestPermissionDecisions(t *testing.T) {
	cases := []struct {
		name        string
		body        client.DecisionBody
		want        client.Answer
		wantWaiting bool // the agent's own dialog is still open
	}{
		{"allow", client.DecisionBody{Behavior: "allow", Via: "test"},
			client.Answer{Decision: &agents.Decision{Allow: true}}, false},
		{"allow with suggestion", client.DecisionBody{Behavior: "allow", Suggestion: 2},
			client.Answer{Decision: &agents.Decision{Allow: true,
				UpdatedPermissions: []json.RawMessage{json.RawMessage(ruleSuggestion)}}}, false},
		{"deny with message", client.DecisionBody{Behavior: "deny", Message: "not on main"},
			client.Answer{Decision: &agents.Decision{Message: "not on main"}}, false},
		{"deny with interrupt", client.DecisionBody{Behavior: "deny", Interrupt: true},
			client.Answer{Decision: &agents.Decision{Interrupt: true}}, false},
		{"terminal", client.DecisionBody{Behavior: "terminal"},
			client.Answer{Reason: client.ReasonTerminal}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := startPerm(t, nil)
			st := env.follow(t)
			body := hookBody(permEvent("s1", "Bash", "h1"), `{"tool_input":{"command":"npm test"},"permission_suggestions":[`+
				setModeSuggestion+`,`+ruleSuggestion+`]}`)
			res := env.hook(body)
			added := st.next(t, "added", 5*time.Second)
			p := added.Permission
			if p.Kind != client.KindPermission || p.Tool != "Bash" || p.Summary != "npm test" || p.SessionID != "s1" ||
				p.Cwd != "/tmp/p" || p.State != "pending" || len(p.ID) != 10 {
				t.Errorf("added = %+v", p)
			}
			if want := []string{"Auto-accept edits this session", "Always allow Bash(npm test)"}; !reflect.DeepEqual(p.Suggestions, want) {
				t.Errorf("suggestion labels = %q, want %q", p.Suggestions, want)
			}
			if got := sessionState(t, env.s, "s1"); got != string(statemachine.Waiting) {
				t.Errorf("session state while pending = %q, want waiting", got)
			}
			noAnswer(t, res)

			code, b := env.decide(t, p.ID, c.body)
			if code != http.StatusOK {
				t.Fatalf("decide = %d %s", code, b)
			}
			var view client.PermissionView
			json.Unmarshal(b, &view)
			if view.ID != p.ID || view.State != "answered" {
				t.Errorf("decide returned %+v, want %s answered", view, p.ID)
			}
			r := wait(t, res)
			c.want.ID = p.ID
			if r.code != http.StatusOK || !reflect.DeepEqual(r.ans, c.want) {
				t.Errorf("hook answer = %d %s, want %+v", r.code, r.raw, c.want)
			}
			closed := st.next(t, "closed", 5*time.Second)
			if closed.Permission.ID != p.ID || closed.Permission.State != "answered" {
				t.Errorf("closed = %+v", closed)
			}
			if len(env.list(t)) != 0 {
				t.Errorf("list after the answer = %+v, want empty", env.list(t))
			}
			if d := env.detail(t, p.ID); d.State != "answered" {
				t.Errorf("detail of the answered request: state %q, want answered", d.State)
			}
			waiting := sessionState(t, env.s, "s1") == string(statemachine.Waiting)
			if waiting != c.wantWaiting {
				t.Errorf("session waiting after %s = %v, want %v", c.name, waiting, c.wantWaiting)
			}
		})
	}
}

func TestPermissionTimeout(t *testing.T) {
	cases := []struct {
		name   string
		config time.Duration
		wait   int
		want   time.Duration
	}{
		{"default", 0, 3595, DefaultPermissionTimeout},
		{"config", time.Minute, 3595, time.Minute},
		{"hook waits less", time.Minute, 30, 25 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := startPerm(t, func(cfg *Config) { cfg.PermissionTimeout = c.config })
			body := bashRequest("s1", "h1", "make")
			body.WaitSeconds = c.wait
			res := env.hook(body)
			var tm fakeTimer
			select {
			case tm = <-env.timers:
			case <-time.After(5 * time.Second):
				t.Fatal("the broker set no timer")
			}
			if tm.d != c.want {
				t.Errorf("timeout = %v, want %v", tm.d, c.want)
			}
			noAnswer(t, res)
			tm.ch <- time.Now()
			r := wait(t, res)
			if r.ans.Decision != nil || r.ans.Reason != client.ReasonTimeout || r.ans.ID == "" {
				t.Errorf("answer = %s, want no decision, reason timeout", r.raw)
			}
			if d := env.detail(t, r.ans.ID); d.State != "expired" {
				t.Errorf("state after timeout = %q, want expired", d.State)
			}
			code, b := env.decide(t, r.ans.ID, client.DecisionBody{Behavior: "allow"})
			if code != http.StatusConflict || !strings.Contains(string(b), "expired") {
				t.Errorf("decide after timeout = %d %s, want 409 expired", code, b)
			}
		})
	}
}

// TestPermissionWithdrawnOnHangup is the person answering in the
// terminal: Claude Code kills the hook, its connection drops, and the
// request must close everywhere within a second (the original's #273).
func TestPermissionWithdrawnOnHangup(t *testing.T) {
	env := startPerm(t, nil)
	st := env.follow(t)
	conn, err := net.Dial("unix", env.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	b, _ := json.Marshal(bashRequest("s1", "h1", "rm -rf build"))
	fmt.Fprintf(conn, "POST /api/v1/permissions HTTP/1.1\r\nHost: clawd\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		len(b), b)
	added := st.next(t, "added", 5*time.Second)
	if sessionState(t, env.s, "s1") != string(statemachine.Waiting) {
		t.Fatalf("session not waiting while the request is pending")
	}
	conn.Close()
	start := time.Now()
	closed := st.next(t, "closed", time.Second)
	if closed.Permission.ID != added.Permission.ID || closed.Reason != client.ReasonWithdrawn || closed.Permission.State != "withdrawn" {
		t.Errorf("closed = %+v, want %s withdrawn", closed, added.Permission.ID)
	}
	t.Logf("withdrawn %v after the hangup", time.Since(start))
	if l := env.list(t); len(l) != 0 {
		t.Errorf("list after hangup = %+v, want empty", l)
	}
	if got := sessionState(t, env.s, "s1"); got == string(statemachine.Waiting) {
		t.Errorf("session still waiting after the withdrawal")
	}
	code, body := env.decide(t, added.Permission.ID, client.DecisionBody{Behavior: "allow"})
	if code != http.StatusConflict || !strings.Contains(string(body), "withdrawn") {
		t.Errorf("decide after withdrawal = %d %s, want 409 withdrawn", code, body)
	}
}

// TestPermissionSiblings: answering one of two parallel requests of one
// session leaves the other alone (the original's #142).
func TestPermissionSiblings(t *testing.T) {
	env := startPerm(t, nil)
	st := env.follow(t)
	first := env.hook(bashRequest("s1", "h1", "npm test"))
	a := st.next(t, "added", 5*time.Second).Permission
	second := env.hook(bashRequest("s1", "h2", "npm run lint"))
	b := st.next(t, "added", 5*time.Second).Permission

	if code, body := env.decide(t, a.ID, client.DecisionBody{Behavior: "allow"}); code != http.StatusOK {
		t.Fatalf("decide = %d %s", code, body)
	}
	if r := wait(t, first); r.ans.Decision == nil || !r.ans.Decision.Allow {
		t.Errorf("first answer = %s", r.raw)
	}
	noAnswer(t, second)
	if l := env.list(t); len(l) != 1 || l[0].ID != b.ID {
		t.Errorf("list = %+v, want only %s", l, b.ID)
	}
	if got := sessionState(t, env.s, "s1"); got != string(statemachine.Waiting) {
		t.Errorf("session state with a sibling pending = %q, want waiting", got)
	}
	if code, body := env.decide(t, b.ID, client.DecisionBody{Behavior: "deny"}); code != http.StatusOK {
		t.Fatalf("decide = %d %s", code, body)
	}
	if r := wait(t, second); r.ans.Decision == nil || r.ans.Decision.Allow {
		t.Errorf("second answer = %s", r.raw)
	}
	if got := sessionState(t, env.s, "s1"); got == string(statemachine.Waiting) {
		t.Errorf("session still waiting with nothing pending")
	}
}

// TestPermissionIdenticalSiblings: two identical calls fingerprint alike
// and share the state machine's entry; the first answer must not end the
// session's wait for the second.
func TestPermissionIdenticalSiblings(t *testing.T) {
	env := startPerm(t, nil)
	st := env.follow(t)
	env.hook(bashRequest("s1", "h1", "npm test"))
	a := st.next(t, "added", 5*time.Second).Permission
	env.hook(bashRequest("s1", "h1", "npm test"))
	st.next(t, "added", 5*time.Second)
	env.decide(t, a.ID, client.DecisionBody{Behavior: "allow"})
	if got := sessionState(t, env.s, "s1"); got != string(statemachine.Waiting) {
		t.Errorf("session state with an identical sibling pending = %q, want waiting", got)
	}
}

func TestPermissionDND(t *testing.T) {
	env := startPerm(t, nil)
	st := env.follow(t)
	r1 := env.hook(bashRequest("s1", "h1", "one"))
	st.next(t, "added", 5*time.Second)
	r2 := env.hook(bashRequest("s2", "h2", "two"))
	st.next(t, "added", 5*time.Second)

	code, b := env.call(t, "POST", "/api/v1/dnd", env.token, client.DND{On: true})
	if code != http.StatusOK || strings.TrimSpace(string(b)) != `{"on":true}` {
		t.Fatalf("POST /api/v1/dnd = %d %s", code, b)
	}
	for _, r := range []hookResult{wait(t, r1), wait(t, r2)} {
		if r.ans.Decision != nil || r.ans.Reason != client.ReasonDND {
			t.Errorf("pending answer on DND = %s, want no decision, reason dnd", r.raw)
		}
	}
	for range 2 {
		if c := st.next(t, "closed", 5*time.Second); c.Reason != client.ReasonDND {
			t.Errorf("closed reason = %q, want dnd", c.Reason)
		}
	}
	if l := env.list(t); len(l) != 0 {
		t.Errorf("list under DND = %+v, want empty", l)
	}

	// While DND is on a new request is answered at once and never shown.
	r := wait(t, env.hook(bashRequest("s3", "h3", "three")))
	if r.ans.Decision != nil || r.ans.Reason != client.ReasonDND {
		t.Errorf("answer under DND = %s, want no decision, reason dnd", r.raw)
	}
	select {
	case c := <-st.lines:
		t.Errorf("change under DND: %+v", c)
	default:
	}
	if code, b := env.call(t, "GET", "/api/v1/dnd", env.token, nil); code != http.StatusOK || strings.TrimSpace(string(b)) != `{"on":true}` {
		t.Errorf("GET /api/v1/dnd = %d %s", code, b)
	}
	if code, b := env.call(t, "POST", "/api/v1/dnd", env.token, map[string]any{}); code != http.StatusBadRequest {
		t.Errorf("POST /api/v1/dnd without on = %d %s, want 400", code, b)
	}

	env.s.SetDND(false)
	res := env.hook(bashRequest("s4", "h4", "four"))
	st.next(t, "added", 5*time.Second)
	noAnswer(t, res)
}

func TestPermissionNoDecisionAtOnce(t *testing.T) {
	headless := func(sid string) client.RequestBody {
		b := bashRequest(sid, "h", "ls")
		b.Event.Headless = true
		return b
	}
	mode := func(m string) client.RequestBody {
		b := bashRequest("s1", "h", "ls")
		b.Event.PermissionMode = m
		return b
	}
	cases := []struct {
		name   string
		mod    func(*Config)
		body   client.RequestBody
		reason string
	}{
		{"bypassPermissions", nil, mode("bypassPermissions"), client.ReasonBypass},
		{"auto", nil, mode("auto"), client.ReasonBypass},
		{"headless by default", nil, headless("s1"), client.ReasonHeadless},
		{"headless policy none", func(c *Config) { c.HeadlessPolicy = HeadlessNone }, headless("s1"), client.ReasonHeadless},
		{"disabled agent", func(c *Config) { c.PermissionsDisabled = map[string]bool{"claude": true} }, bashRequest("s1", "h", "ls"), client.ReasonDisabled},
		{"other agent disabled", func(c *Config) { c.PermissionsDisabled = map[string]bool{"codex": true} }, bashRequest("s1", "h", "ls"), ""},
		{"default mode", nil, mode("default"), ""},
		{"acceptEdits", nil, mode("acceptEdits"), ""},
		{"headless policy ask", func(c *Config) { c.HeadlessPolicy = HeadlessAsk }, headless("s1"), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := startPerm(t, c.mod)
			res := env.hook(c.body)
			if c.reason == "" {
				st := env.follow(t)
				st.next(t, "added", 5*time.Second)
				noAnswer(t, res)
				return
			}
			r := wait(t, res)
			if r.code != http.StatusOK || r.ans.Decision != nil || r.ans.Reason != c.reason {
				t.Errorf("answer = %d %s, want no decision, reason %s", r.code, r.raw, c.reason)
			}
			if l := env.list(t); len(l) != 0 {
				t.Errorf("list = %+v, want empty", l)
			}
		})
	}
}

func TestPermissionKinds(t *testing.T) {
	env := startPerm(t, nil)
	st := env.follow(t)

	qin := `{"questions":[{"question":"Which database?","header":"DB","options":[{"label":"Postgres"},{"label":"SQLite"}],"multiSelect":false}]}`
	qe := permEvent("s1", "AskUserQuestion", "hq")
	qe.Kind = agents.KindQuestion
	qres := env.hook(hookBody(qe, `{"tool_input":`+qin+`}`))
	q := st.next(t, "added", 5*time.Second).Permission
	if q.Kind != client.KindQuestion || q.Summary != "Which database?" {
		t.Errorf("question = %+v", q)
	}
	if got := sessionState(t, env.s, "s1"); got != string(statemachine.Waiting) {
		t.Errorf("session state with a question = %q, want waiting", got)
	}
	if d := env.detail(t, q.ID); string(d.ToolInput) != qin {
		t.Errorf("question detail input = %s, want the options", d.ToolInput)
	}
	for _, b := range []client.Behavior{client.Allow, client.Deny} {
		code, body := env.decide(t, q.ID, client.DecisionBody{Behavior: b})
		if code != http.StatusBadRequest || !strings.Contains(string(body), "terminal") || !strings.Contains(string(body), `\"answer\"`) {
			t.Errorf("%s on a question = %d %s, want 400 pointing at behavior answer and the terminal", b, code, body)
		}
	}
	noAnswer(t, qres)
	if code, body := env.decide(t, q.ID, client.DecisionBody{Behavior: "terminal"}); code != http.StatusOK {
		t.Errorf("terminal on a question = %d %s", code, body)
	}
	if r := wait(t, qres); r.ans.Decision != nil || r.ans.Reason != client.ReasonTerminal {
		t.Errorf("question answer = %s", r.raw)
	}

	me := permEvent("s1", "github", "")
	me.Kind = agents.KindQuestion
	env.hook(hookBody(me, `{"message":"Pick a\nrepository"}`))
	if m := st.next(t, "added", 5*time.Second).Permission; m.Kind != client.KindQuestion || m.Summary != "Pick a repository" {
		t.Errorf("elicitation = %+v", m)
	}

	pres := env.hook(hookBody(permEvent("s2", "ExitPlanMode", "hp"), `{"tool_input":{"plan":"1. Add the broker\n2. Test it"}}`))
	p := st.next(t, "added", 5*time.Second).Permission
	if p.Kind != client.KindPlan || p.Summary != "1. Add the broker 2. Test it" {
		t.Errorf("plan = %+v", p)
	}
	if code, body := env.decide(t, p.ID, client.DecisionBody{Behavior: "allow"}); code != http.StatusOK {
		t.Errorf("allow on a plan = %d %s", code, body)
	}
	if r := wait(t, pres); r.ans.Decision == nil || !r.ans.Decision.Allow || string(r.ans.Decision.UpdatedInput) != "{}" {
		t.Errorf("plan answer = %s, want Claude's approval (an allow with updatedInput {})", r.raw)
	}
}

func TestPermissionDecisionErrors(t *testing.T) {
	env := startPerm(t, nil)
	st := env.follow(t)
	body := bashRequest("s1", "h1", "npm test")
	body.Suggestions = []json.RawMessage{json.RawMessage(setModeSuggestion)}
	res := env.hook(body)
	p := st.next(t, "added", 5*time.Second).Permission

	cases := []struct {
		name string
		id   string
		body client.DecisionBody
		code int
		msg  string
	}{
		{"unknown id", "nosuchid00", client.DecisionBody{Behavior: "allow"}, http.StatusNotFound, "no permission request"},
		{"bad behavior", p.ID, client.DecisionBody{Behavior: "maybe"}, http.StatusBadRequest, "want"},
		{"suggestion out of range", p.ID, client.DecisionBody{Behavior: "allow", Suggestion: 2}, http.StatusBadRequest, "1-1"},
		{"suggestion zero-based", p.ID, client.DecisionBody{Behavior: "allow", Suggestion: -1}, http.StatusBadRequest, "1-1"},
		{"suggestion with deny", p.ID, client.DecisionBody{Behavior: "deny", Suggestion: 1}, http.StatusBadRequest, "allow"},
	}
	for _, c := range cases {
		code, b := env.decide(t, c.id, c.body)
		if code != c.code || !strings.Contains(string(b), c.msg) {
			t.Errorf("%s: decide = %d %s, want %d containing %q", c.name, code, b, c.code, c.msg)
		}
	}
	noAnswer(t, res)
	if code, b := env.decide(t, p.ID, client.DecisionBody{Behavior: "allow", Suggestion: 1}); code != http.StatusOK {
		t.Fatalf("decide = %d %s", code, b)
	}
	wait(t, res)
	code, b := env.decide(t, p.ID, client.DecisionBody{Behavior: "deny"})
	if code != http.StatusConflict || !strings.Contains(string(b), "already answered") {
		t.Errorf("second decision = %d %s, want 409 already answered", code, b)
	}
	if code, b := env.call(t, "GET", "/api/v1/permissions/nosuchid00", env.token, nil); code != http.StatusNotFound {
		t.Errorf("GET unknown id = %d %s, want 404", code, b)
	}
}

func TestPermissionBadRequests(t *testing.T) {
	env := startPerm(t, nil)
	cases := []struct {
		name string
		body string
		code int
	}{
		{"not a permission event", `{"event":{"agent":"claude","kind":"tool.start","session_id":"s1","time":"2026-01-01T00:00:00Z"}}`, http.StatusBadRequest},
		{"invalid event", `{"event":{"agent":"claude","kind":"permission.request","time":"2026-01-01T00:00:00Z"}}`, http.StatusBadRequest},
		{"tool input not json", `{"event":{"agent":"claude","kind":"permission.request","session_id":"s1","time":"2026-01-01T00:00:00Z"},"tool_input":{nope}}`, http.StatusBadRequest},
		{"bad json", `{`, http.StatusBadRequest},
	}
	for _, c := range cases {
		resp, err := env.socketClient(10*time.Second).Post("http://clawd/api/v1/permissions", "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.code {
			t.Errorf("%s: POST = %d, want %d", c.name, resp.StatusCode, c.code)
		}
	}
	if l := env.list(t); len(l) != 0 {
		t.Errorf("list = %+v, want empty", l)
	}
}

// TestPermissionToken: on the TCP port the token guards every /api/v1
// route, reads included, and a refusal says nothing. Events and permission
// requests are not taken there even with the token: only over the socket.
func TestPermissionToken(t *testing.T) {
	env := startPerm(t, nil)
	st := env.follow(t)
	res := env.hook(bashRequest("s1", "h1", "ls")) // over the socket
	p := st.next(t, "added", 5*time.Second).Permission

	routes := []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/v1/health", nil},
		{"GET", "/api/v1/sessions", nil},
		{"GET", "/api/v1/events", nil},
		{"POST", "/api/v1/events", permEvent("s2", "Bash", "h2")},
		{"POST", "/api/v1/permissions", bashRequest("s3", "h3", "ls")},
		{"GET", "/api/v1/nosuchroute", nil},
		{"GET", "/api/v1/permissions", nil},
		{"GET", "/api/v1/permissions/" + p.ID, nil},
		{"POST", "/api/v1/permissions/" + p.ID + "/decision", client.DecisionBody{Behavior: "allow"}},
		{"GET", "/api/v1/permissions/events", nil},
		{"GET", "/api/v1/dnd", nil},
		{"POST", "/api/v1/dnd", client.DND{On: true}},
	}
	for _, r := range routes {
		for _, tok := range []string{"", "wrong", env.token + "x", env.token[:len(env.token)-1]} {
			code, b := env.call(t, r.method, r.path, tok, r.body)
			if code != http.StatusUnauthorized || len(b) != 0 {
				t.Errorf("%s %s with token %q = %d %q, want 401 and no body", r.method, r.path, tok, code, b)
			}
		}
	}
	noAnswer(t, res)
	if env.s.DND() {
		t.Error("DND switched on without the token")
	}
	for _, r := range routes[3:5] {
		if code, b := env.call(t, r.method, r.path, env.token, r.body); code != http.StatusForbidden || !strings.Contains(string(b), "socket") {
			t.Errorf("%s %s over TCP with the token = %d %s, want 403 pointing to the socket", r.method, r.path, code, b)
		}
	}
	if got := len(env.s.Snapshot().Sessions); got != 1 {
		t.Errorf("%d sessions after posts over TCP, want only the socket's s1", got)
	}
	// Bearer with the right token passes (the other routes are covered
	// by every other test).
	if code, _ := env.call(t, "GET", "/api/v1/dnd", env.token, nil); code != http.StatusOK {
		t.Errorf("GET /api/v1/dnd with the token = %d", code)
	}
}

func TestPermissionLargeInput(t *testing.T) {
	env := startPerm(t, nil)
	st := env.follow(t)

	huge := strings.Repeat("x", maxPermissionBody)
	in, _ := json.Marshal(map[string]string{"file_path": "/tmp/p/big.txt", "content": huge})
	body := client.RequestBody{Event: permEvent("s1", "Write", "hbig"), Request: agents.Request{ToolInput: in}, WaitSeconds: 3595}
	r := wait(t, env.hook(body))
	if r.code != http.StatusRequestEntityTooLarge {
		t.Errorf("oversize request = %d %s, want 413", r.code, r.raw)
	}

	preview, _ := json.Marshal(map[string]string{"file_path": "/tmp/p/big.txt", "content": huge[:4096] + "…"})
	body.ToolInput, body.InputTruncated = preview, true
	body.Summary = "/tmp/p/big.txt"
	res := env.hook(body)
	p := st.next(t, "added", 5*time.Second).Permission
	if p.Summary != "/tmp/p/big.txt" {
		t.Errorf("summary = %q", p.Summary)
	}
	d := env.detail(t, p.ID)
	if !d.InputTruncated || !bytes.Equal(d.ToolInput, preview) {
		t.Errorf("detail: truncated %v, input %d bytes, want the %d-byte preview", d.InputTruncated, len(d.ToolInput), len(preview))
	}
	noAnswer(t, res)
}

func TestPermissionShutdown(t *testing.T) {
	env := startPerm(t, nil)
	st := env.follow(t)
	res := env.hook(bashRequest("s1", "h1", "ls"))
	st.next(t, "added", 5*time.Second)
	env.stop()
	r := wait(t, res)
	if r.code != http.StatusOK || r.ans.Decision != nil || r.ans.Reason != client.ReasonShutdown {
		t.Errorf("answer on shutdown = %d %s, want no decision, reason shutdown", r.code, r.raw)
	}
}

func TestPermissionStreamSSE(t *testing.T) {
	env := startPerm(t, nil)
	env.hook(bashRequest("s1", "h1", "make"))
	st := env.follow(t)
	id := st.next(t, "added", 5*time.Second).Permission.ID

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", env.url("/api/v1/permissions/events"), nil)
	req.Header.Set("Authorization", "Bearer "+env.token)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var c client.PermissionChange
	data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: ")
	if !ok || json.Unmarshal([]byte(data), &c) != nil || c.Type != "added" || c.Permission.ID != id {
		t.Errorf("first SSE line = %q, want data: the pending %s as added", line, id)
	}
}

// TestPermissionClosedKept: a closed request can be read for a minute,
// then it is gone.
func TestPermissionClosedKept(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	env := startPerm(t, func(c *Config) { c.Now = clock })
	st := env.follow(t)
	res := env.hook(bashRequest("s1", "h1", "make"))
	id := st.next(t, "added", 5*time.Second).Permission.ID
	env.decide(t, id, client.DecisionBody{Behavior: "deny"})
	wait(t, res)
	mu.Lock()
	now = now.Add(sessions.ClosedKeep)
	mu.Unlock()
	if d := env.detail(t, id); d.State != "answered" {
		t.Errorf("state a minute after = %q, want answered", d.State)
	}
	mu.Lock()
	now = now.Add(time.Second)
	mu.Unlock()
	if code, b := env.call(t, "GET", "/api/v1/permissions/"+id, env.token, nil); code != http.StatusNotFound {
		t.Errorf("GET after more than a minute = %d %s, want 404", code, b)
	}
}

// TestPermissionSettledByAgentEvents: Claude Code keeps the hook running
// after the person picks "Yes" in the terminal; the tool's PostToolUse is
// how clawd learns. It must close exactly that request (the sibling stays)
// and let its hook go with no decision.
func TestPermissionSettledByAgentEvents(t *testing.T) {
	env := startPerm(t, nil)
	st := env.follow(t)
	pre := func(id, hash string) agents.Event {
		return agents.Event{Agent: "claude", Kind: agents.KindToolStart, SessionID: "s1", Time: time.Now().UTC(),
			ToolName: "Bash", ToolUseID: id, InputHash: hash}
	}
	env.s.Ingest(pre("toolu_1", "h1"))
	first := env.hook(bashRequest("s1", "h1", "echo hello > out.txt"))
	a := st.next(t, "added", 5*time.Second).Permission
	env.s.Ingest(pre("toolu_2", "h2"))
	second := env.hook(bashRequest("s1", "h2", "npm run lint"))
	b := st.next(t, "added", 5*time.Second).Permission

	// The person answered the first one in the terminal: the tool ran.
	end := pre("toolu_1", "h1")
	end.Kind = agents.KindToolEnd
	env.s.Ingest(end)
	if r := wait(t, first); r.ans.Decision != nil || r.ans.Reason != client.ReasonWithdrawn {
		t.Errorf("hook of the settled request got %s, want no decision, withdrawn", r.raw)
	}
	if c := st.next(t, "closed", 5*time.Second); c.Permission.ID != a.ID || c.Reason != client.ReasonWithdrawn {
		t.Errorf("closed change = %+v, want %s withdrawn", c, a.ID)
	}
	noAnswer(t, second)
	if l := env.list(t); len(l) != 1 || l[0].ID != b.ID {
		t.Errorf("list = %+v, want only the sibling %s", l, b.ID)
	}
	if code, _ := env.decide(t, a.ID, client.DecisionBody{Behavior: "deny"}); code != http.StatusConflict {
		t.Errorf("a late deny of the settled request = %d, want 409", code)
	}
	// The turn ends: nothing can still be pending.
	env.s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindTurnEnd, SessionID: "s1", Time: time.Now().UTC()})
	if r := wait(t, second); r.ans.Decision != nil {
		t.Errorf("hook of the sibling after the turn ended got %s, want no decision", r.raw)
	}
	if l := env.list(t); len(l) != 0 {
		t.Errorf("list after the turn ended = %+v", l)
	}
}

// TestPostStateCannotTouchRequests: the original app's POST /state, open
// to any local process on the TCP port, sets states only: it cannot show a
// request ("waiting", permission and question events), nor close or
// withdraw one that waits.
func TestPostStateCannotTouchRequests(t *testing.T) {
	env := startPerm(t, nil)
	st := env.follow(t)
	res := env.hook(bashRequest("s1", "h1", "rm -rf build"))
	added := st.next(t, "added", 5*time.Second)

	state := func(body string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest("POST", env.url("/state"), strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	for _, body := range []string{
		`{"state":"waiting","session_id":"fake"}`,
		`{"state":"idle","session_id":"s1"}`,
		`{"state":"sleeping","session_id":"s1"}`,
		`{"state":"idle","session_id":"s1","event":"Stop"}`,
		`{"state":"idle","session_id":"s1","event":"SessionEnd"}`,
	} {
		if code, b := state(body); code != http.StatusBadRequest && code != http.StatusConflict {
			t.Errorf("POST /state %s = %d %s, want 400 or 409", body, code, b)
		}
	}
	for _, ev := range []string{"PermissionRequest", "Elicitation"} {
		if code, b := state(`{"state":"notification","session_id":"fake-` + ev + `","event":"` + ev + `"}`); code != http.StatusOK {
			t.Errorf("POST /state with event %s = %d %s, want 200 (as a plain state)", ev, code, b)
		}
	}
	noAnswer(t, res)
	if l := env.list(t); len(l) != 1 || l[0].ID != added.Permission.ID {
		t.Errorf("pending = %+v, want only %s", l, added.Permission.ID)
	}
	for _, ss := range env.s.Snapshot().Sessions {
		switch {
		case ss.SessionID == "s1" && (ss.State != string(statemachine.Waiting) || ss.Pending != 1):
			t.Errorf("session s1 = %s with %d pending, want still waiting on its request", ss.State, ss.Pending)
		case ss.SessionID != "s1" && (ss.Pending != 0 || ss.State == string(statemachine.Waiting)):
			t.Errorf("POST /state made session %s wait (%s, %d pending)", ss.SessionID, ss.State, ss.Pending)
		}
	}
}

// TestPermissionAckAndHeartbeat: a registered request is acknowledged at
// once (the response headers), and the held response carries a heartbeat
// until the answer comes, after it.
func TestPermissionAckAndHeartbeat(t *testing.T) {
	env := startPerm(t, func(c *Config) { c.PermissionHeartbeat = 50 * time.Millisecond })
	st := env.follow(t)
	conn, err := net.Dial("unix", env.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	b, _ := json.Marshal(bashRequest("s1", "h1", "npm test"))
	fmt.Fprintf(conn, "POST /api/v1/permissions HTTP/1.1\r\nHost: clawd\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(b), b)
	conn.SetReadDeadline(time.Now().Add(client.AckTimeout))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no acknowledgement within %v: %v", client.AckTimeout, err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get(client.IdentityHeader) != client.IdentityValue {
		t.Fatalf("acknowledgement = %d %v", resp.StatusCode, resp.Header)
	}
	p := st.next(t, "added", 5*time.Second).Permission
	// Heartbeats: newlines, each well within HeartbeatLoss of the last.
	body := bufio.NewReader(resp.Body)
	for i := range 5 {
		conn.SetReadDeadline(time.Now().Add(client.HeartbeatLoss))
		line, err := body.ReadString('\n')
		if err != nil || line != "\n" {
			t.Fatalf("heartbeat %d = %q, %v", i, line, err)
		}
	}
	if code, b := env.decide(t, p.ID, client.DecisionBody{Behavior: "allow"}); code != http.StatusOK {
		t.Fatalf("decide = %d %s", code, b)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		line, err := body.ReadString('\n')
		if err != nil {
			t.Fatalf("no answer after the heartbeats: %v", err)
		}
		if line == "\n" {
			continue
		}
		var a client.Answer
		if err := json.Unmarshal([]byte(line), &a); err != nil || a.ID != p.ID || a.Decision == nil || !a.Decision.Allow {
			t.Fatalf("answer line %q: %+v, %v", line, a, err)
		}
		break
	}
}

// TestSessionFloodSparesRequest: 300 new sessions posted past the 256 cap
// in a burst do not evict the session whose permission request waits:
// it stays listed, waiting, and the person's answer still reaches its hook.
func TestSessionFloodSparesRequest(t *testing.T) {
	env := startPerm(t, nil)
	st := env.follow(t)
	res := env.hook(bashRequest("real", "h1", "rm -rf build"))
	p := st.next(t, "added", 5*time.Second).Permission

	conn, err := net.Dial("unix", env.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	for i := range 300 {
		b, _ := json.Marshal(agents.Event{Agent: "claude", Kind: agents.KindSessionStart,
			SessionID: fmt.Sprintf("flood-%03d", i), Time: time.Now().UTC()})
		fmt.Fprintf(conn, "POST /api/v1/events HTTP/1.1\r\nHost: clawd\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(b), b)
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("flood post %d: %v %v", i, resp, err)
		}
	}
	snap := env.s.Snapshot()
	if n := len(snap.Sessions); n != statemachine.DefaultOptions().MaxSessions {
		t.Errorf("%d sessions after the flood, want the cap %d", n, statemachine.DefaultOptions().MaxSessions)
	}
	if got := sessionState(t, env.s, "real"); got != string(statemachine.Waiting) {
		t.Fatalf("the waiting session after the flood: state %q, want waiting", got)
	}
	if l := env.list(t); len(l) != 1 || l[0].ID != p.ID {
		t.Fatalf("pending after the flood = %+v, want %s", l, p.ID)
	}
	if code, b := env.decide(t, p.ID, client.DecisionBody{Behavior: "allow"}); code != http.StatusOK {
		t.Fatalf("decide after the flood = %d %s", code, b)
	}
	if r := wait(t, res); r.ans.Decision == nil || !r.ans.Decision.Allow {
		t.Errorf("the hook's answer after the flood = %+v, want allow", r.ans)
	}
}

package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
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

// held is every record the backlog holds, in Seq order.
func held(s *Server) []client.EventRecord {
	sub, recs, _ := s.sessions.FollowEvents(sessions.Start{Backlog: true}, 1)
	sub.Close()
	return recs
}

// answersOf returns the permission.answered records of session sid the
// backlog holds, and fails unless each comes after a permission.request
// (or question.asked) of the session.
func answersOf(t *testing.T, s *Server, sid string) []client.EventRecord {
	t.Helper()
	var out []client.EventRecord
	asked := false
	for _, r := range held(s) {
		if r.SessionID != sid {
			continue
		}
		switch r.Kind {
		case agents.KindPermissionRequest, agents.KindQuestion:
			asked = true
		case client.KindPermissionAnswered:
			if !asked {
				t.Errorf("answer %+v before any permission.request of %s", r.Answer, sid)
			}
			out = append(out, r)
		}
	}
	return out
}

// hookCtx posts a request as env.hook does, until ctx ends: cancelling
// ctx is the agent killing its hook.
func (env *permEnv) hookCtx(ctx context.Context, body client.RequestBody) <-chan hookResult {
	out := make(chan hookResult, 1)
	go func() {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequestWithContext(ctx, "POST", "http://clawd/api/v1/permissions", bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		resp, err := env.socketClient(20 * time.Second).Do(req)
		if err != nil {
			out <- hookResult{err: err}
			return
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		r := hookResult{code: resp.StatusCode, raw: string(raw)}
		r.err = json.Unmarshal(raw, &r.ans)
		out <- r
	}()
	return out
}

// TestPermissionAnsweredEveryClose: however a request closes, the event
// stream gets exactly one permission.answered record for it, after its
// permission.request, saying the decision and who answered.
func TestPermissionAnsweredEveryClose(t *testing.T) {
	// A request with two suggestions, the second a rule.
	request := func() client.RequestBody {
		return hookBody(permEvent("s1", "Bash", "h1"), `{"tool_input":{"command":"npm test"},"permission_suggestions":[`+
			setModeSuggestion+`,`+ruleSuggestion+`]}`)
	}
	withMode := func(m string) func() client.RequestBody {
		return func() client.RequestBody {
			b := request()
			b.Event.PermissionMode = m
			return b
		}
	}
	headless := func() client.RequestBody {
		b := request()
		b.Event.Headless = true
		return b
	}
	type closing struct {
		env    *permEnv
		id     string
		timer  fakeTimer
		hangup func()
	}
	decide := func(d client.DecisionBody) func(*testing.T, closing) {
		return func(t *testing.T, c closing) {
			if code, b := c.env.decide(t, c.id, d); code != http.StatusOK {
				t.Fatalf("decide %+v = %d %s", d, code, b)
			}
		}
	}
	cases := []struct {
		name    string
		mod     func(*Config)
		body    func() client.RequestBody
		dnd     bool // do not disturb is on from the start
		atOnce  bool // answered at once, never listed
		hungUp  bool // the hook gets no answer
		close   func(*testing.T, closing)
		want    client.PermissionAnswer
		waiting bool // the session still waits for the agent's own dialog
	}{
		{name: "allow from the CLI", close: decide(client.DecisionBody{Behavior: client.Allow, Via: "cli"}),
			want: client.PermissionAnswer{Decision: "allow", Source: "cli"}},
		{name: "deny from the tray", close: func(t *testing.T, c closing) {
			// The tray decides in process.
			if _, err := c.env.s.Decide(c.id, client.DecisionBody{Behavior: client.Deny, Via: "tray"}); err != nil {
				t.Fatal(err)
			}
		}, want: client.PermissionAnswer{Decision: "deny", Source: "tray"}},
		{name: "always from a token client", close: decide(client.DecisionBody{Behavior: client.Allow, Suggestion: 2}),
			want: client.PermissionAnswer{Decision: "always", Rule: "Always allow Bash(npm test)", Source: "api"}},
		{name: "a client naming itself anything", close: decide(client.DecisionBody{Behavior: client.Allow, Via: "root"}),
			want: client.PermissionAnswer{Decision: "allow", Source: "api"}},
		{name: "terminal from the CLI", close: decide(client.DecisionBody{Behavior: client.Terminal, Via: "cli"}),
			want: client.PermissionAnswer{Decision: "none", Reason: "terminal", Source: "cli"}, waiting: true},
		{name: "timeout", close: func(t *testing.T, c closing) { c.timer.ch <- time.Now() },
			want: client.PermissionAnswer{Decision: "none", Reason: "timeout", Source: "timeout"}, waiting: true},
		{name: "hook killed", hungUp: true, close: func(t *testing.T, c closing) {
			c.hangup()
			eventually(t, "the request withdrawn", func() bool { return len(c.env.s.Permissions()) == 0 })
		}, want: client.PermissionAnswer{Decision: "none", Reason: "withdrawn", Source: "terminal"}},
		{name: "the tool ran", close: func(t *testing.T, c closing) {
			// Yes in the terminal: the agent reports the call.
			c.env.s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindToolEnd, SessionID: "s1", Time: time.Now().UTC(),
				ToolName: "Bash", ToolUseID: "toolu_1", InputHash: "h1"})
		}, want: client.PermissionAnswer{Decision: "none", Reason: "withdrawn", Source: "terminal"}},
		{name: "do not disturb turned on", close: func(t *testing.T, c closing) { c.env.s.SetDND(true) },
			want: client.PermissionAnswer{Decision: "none", Reason: "dnd", Source: "dnd"}, waiting: true},
		{name: "the runtime stops", close: func(t *testing.T, c closing) { c.env.stop() },
			want: client.PermissionAnswer{Decision: "none", Reason: "shutdown", Source: "runtime"}},
		{name: "under do not disturb", dnd: true, atOnce: true,
			want: client.PermissionAnswer{Decision: "none", Reason: "dnd", Source: "dnd"}, waiting: true},
		{name: "bypass mode", body: withMode("bypassPermissions"), atOnce: true,
			want: client.PermissionAnswer{Decision: "none", Reason: "bypass", Source: "agent"}},
		{name: "headless", body: headless, atOnce: true,
			want: client.PermissionAnswer{Decision: "none", Reason: "headless", Source: "config"}},
		{name: "permissions off", mod: func(c *Config) { c.PermissionsDisabled = map[string]bool{"claude": true} }, atOnce: true,
			want: client.PermissionAnswer{Decision: "none", Reason: "disabled", Source: "config"}, waiting: true},
		{name: "native", mod: func(c *Config) { c.Native = func(string, string) bool { return true } }, atOnce: true,
			want: client.PermissionAnswer{Decision: "none", Reason: "native", Source: "config"}, waiting: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := startPerm(t, c.mod)
			if c.dnd {
				env.s.SetDND(true)
			}
			body := request
			if c.body != nil {
				body = c.body
			}
			// The call the person may answer in the terminal.
			env.s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindToolStart, SessionID: "s1", Time: time.Now().UTC(),
				ToolName: "Bash", ToolUseID: "toolu_1", InputHash: "h1"})
			ctx, hangup := context.WithCancel(context.Background())
			defer hangup()
			res := env.hookCtx(ctx, body())
			id := ""
			if c.atOnce {
				if r := wait(t, res); r.ans.Decision != nil || r.ans.Reason != c.want.Reason {
					t.Fatalf("answer at once = %s, want no decision, %s", r.raw, c.want.Reason)
				}
			} else {
				eventually(t, "the request listed", func() bool { return len(env.s.Permissions()) == 1 })
				id = env.s.Permissions()[0].ID
				var tm fakeTimer
				select {
				case tm = <-env.timers:
				case <-time.After(5 * time.Second):
					t.Fatal("the broker set no timer")
				}
				c.close(t, closing{env: env, id: id, timer: tm, hangup: hangup})
				if !c.hungUp {
					wait(t, res)
				}
				// Every other way it could close now closes nothing.
				select {
				case tm.ch <- time.Now():
				default:
				}
				env.s.Decide(id, client.DecisionBody{Behavior: client.Allow, Via: "cli"})
				env.s.SetDND(true)
				hangup()
				env.stop()
			}
			got := answersOf(t, env.s, "s1")
			if len(got) != 1 {
				t.Fatalf("%d permission.answered records, want 1: %+v", len(got), got)
			}
			rec := got[0]
			a := *rec.Answer
			if id != "" && a.ID != id || a.ID == "" {
				t.Errorf("answer of request %q, want %q", a.ID, id)
			}
			want := c.want
			want.ID, want.Request, want.Summary = a.ID, client.KindPermission, "npm test"
			if !reflect.DeepEqual(a, want) {
				t.Errorf("answer = %+v, want %+v", a, want)
			}
			if rec.Agent != "claude" || rec.ToolName != "Bash" || rec.Cwd != "/tmp/p" || rec.HookEvent != "PermissionRequest" || rec.Seq == 0 {
				t.Errorf("record = %+v, want claude's Bash PermissionRequest in /tmp/p, numbered", rec)
			}
			if waiting := rec.State == string(statemachine.Waiting); waiting != c.waiting {
				t.Errorf("session state in the answer = %q, want waiting %v", rec.State, c.waiting)
			}
		})
	}
}

// TestPermissionAnsweredOnStream: the answer reaches GET /api/v1/events
// as JSON with its source, and carries no tool input, like every record.
func TestPermissionAnsweredOnStream(t *testing.T) {
	env := startPerm(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lines := make(chan string, 64)
	go client.NewSocket(env.sock, client.Options{}).StreamEvents(ctx, client.EventsFrom{}, func(raw []byte, rec client.EventRecord) error {
		lines <- string(raw)
		return nil
	})
	res := env.hook(bashRequest("s1", "h1", "rm -rf build"))
	eventually(t, "the request listed", func() bool { return len(env.s.Permissions()) == 1 })
	id := env.s.Permissions()[0].ID
	if code, b := env.decide(t, id, client.DecisionBody{Behavior: client.Deny, Via: "cli"}); code != http.StatusOK {
		t.Fatalf("deny = %d %s", code, b)
	}
	wait(t, res)
	var kinds []string
	for {
		select {
		case l := <-lines:
			var rec client.EventRecord
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatalf("line %s: %v", l, err)
			}
			kinds = append(kinds, string(rec.Kind))
			if rec.Kind != client.KindPermissionAnswered {
				continue
			}
			if !strings.Contains(l, `"answer":{"id":"`+id+`","request":"permission","decision":"deny","source":"cli"}`) {
				t.Errorf("answered line %s, want the answer with its id and source", l)
			}
			if strings.Contains(l, "rm -rf") {
				t.Errorf("answered line carries the tool input: %s", l)
			}
			if want := "permission.request permission.answered"; strings.Join(kinds, " ") != want {
				t.Errorf("kinds = %v, want %s", kinds, want)
			}
			return
		case <-time.After(10 * time.Second):
			t.Fatalf("no permission.answered on the stream; kinds %v", kinds)
		}
	}
}

// TestPermissionAnsweredOnceUnderRaces: the person, the timer, do not
// disturb and the agent all close the same request at once; one wins, and
// the stream says so exactly once, with the winner's source.
func TestPermissionAnsweredOnceUnderRaces(t *testing.T) {
	for round := range 20 {
		env := startPerm(t, nil)
		ctx, hangup := context.WithCancel(context.Background())
		res := env.hookCtx(ctx, bashRequest("s1", "h1", "make"))
		eventually(t, "the request listed", func() bool { return len(env.s.Permissions()) == 1 })
		id := env.s.Permissions()[0].ID
		tm := <-env.timers
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := []string{}
		for i, via := range []string{"cli", "tray", "dashboard", "cli"} {
			wg.Go(func() {
				b := client.Allow
				if i%2 == 1 {
					b = client.Deny
				}
				if _, err := env.s.Decide(id, client.DecisionBody{Behavior: b, Via: via}); err == nil {
					mu.Lock()
					won = append(won, via)
					mu.Unlock()
				}
			})
		}
		wg.Go(func() { tm.ch <- time.Now() })
		wg.Go(func() { env.s.SetDND(true) })
		wg.Go(hangup)
		wg.Wait()
		<-res
		eventually(t, "the request closed", func() bool { return len(env.s.Permissions()) == 0 })
		env.stop()
		got := answersOf(t, env.s, "s1")
		if len(got) != 1 {
			t.Fatalf("round %d: %d answers, want 1: %+v", round, len(got), got)
		}
		src := got[0].Answer.Source
		switch len(won) {
		case 0:
			if src != "timeout" && src != "dnd" && src != "terminal" {
				t.Errorf("round %d: no decision won, answer from %q", round, src)
			}
		case 1:
			if src != won[0] {
				t.Errorf("round %d: %s's decision won, answer from %q", round, won[0], src)
			}
		default:
			t.Errorf("round %d: %d decisions succeeded: %v", round, len(won), won)
		}
	}
}

// TestDashboardAnswerAndBacklog: the page's stream starts with the
// backlog after the View; a request answered from the page is recorded
// as the dashboard's whatever its body says, and reads as a sentence; a
// page that resumes after its last seq gets nothing twice.
func TestDashboardAnswerAndBacklog(t *testing.T) {
	d := startDash(t, false)
	d.s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindSessionStart, SessionID: "s1", Time: time.Now().UTC(), Cwd: "/tmp/p"})
	cookie, secret := d.login(t)
	open := func(query string) (<-chan map[string]json.RawMessage, func()) {
		ctx, cancel := context.WithCancel(context.Background())
		r, _ := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("http://127.0.0.1:%d/ui/api/v1/stream%s", d.port, query), nil)
		as(cookie, secret)(r)
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		lines := make(chan map[string]json.RawMessage, 256)
		go func() {
			defer resp.Body.Close()
			dec := json.NewDecoder(resp.Body)
			for {
				var m map[string]json.RawMessage
				if dec.Decode(&m) != nil {
					close(lines)
					return
				}
				lines <- m
			}
		}()
		return lines, cancel
	}
	// events returns the stream's event lines until one matches last.
	events := func(lines <-chan map[string]json.RawMessage, last func(dashEvent) bool) []dashEvent {
		t.Helper()
		var out []dashEvent
		for {
			select {
			case m, ok := <-lines:
				if !ok {
					t.Fatalf("stream ended; events so far %+v", out)
				}
				var typ string
				json.Unmarshal(m["type"], &typ)
				switch typ {
				case "event":
					var e dashEvent
					b, _ := json.Marshal(m)
					json.Unmarshal(b, &e)
					out = append(out, e)
					if last(e) {
						return out
					}
				case "view":
				default:
					t.Errorf("line of type %q: %v", typ, m)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no such event within 10 s; events so far %+v", out)
			}
		}
	}
	lines, cancel := open("")
	first := events(lines, func(e dashEvent) bool { return true })
	if first[0].Event.Kind != agents.KindSessionStart || first[0].Event.Seq != 1 {
		t.Errorf("first event = %+v, want the backlog's session.start", first[0].Event)
	}
	res := d.hook(bashRequest("s1", "h1", "npm test"))
	eventually(t, "the request listed", func() bool { return len(d.s.Permissions()) == 1 })
	id := d.s.Permissions()[0].ID
	if r := d.do(t, "POST", "/ui/api/v1/permissions/"+id+"/decision", client.DecisionBody{Behavior: client.Allow, Via: "cli"},
		as(cookie, secret)); r.status != http.StatusOK {
		t.Fatalf("decision from the page = %d %s", r.status, r.body)
	}
	wait(t, res)
	got := events(lines, func(e dashEvent) bool { return e.Event.Kind == client.KindPermissionAnswered })
	ans := got[len(got)-1]
	if ans.Event.Answer.Source != "dashboard" || ans.Text != "Allowed Bash: npm test — from the dashboard" {
		t.Errorf("answer on the page's stream = %+v %q, want the dashboard's, as a sentence", ans.Event.Answer, ans.Text)
	}
	cancel()

	// The page comes back after its last event: only what follows.
	d.s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindTurnEnd, SessionID: "s1", Time: time.Now().UTC()})
	lines, cancel = open(fmt.Sprintf("?since=%d", ans.Event.Seq))
	defer cancel()
	again := events(lines, func(e dashEvent) bool { return true })
	if again[0].Event.Kind != agents.KindTurnEnd || again[0].Event.Seq != ans.Event.Seq+1 {
		t.Errorf("first event after resuming = %+v, want the turn.end right after %d", again[0].Event, ans.Event.Seq)
	}
}

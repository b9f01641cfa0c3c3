package sessions

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/statemachine"
)

// brokerRig is a broker on a bare store with a fake clock: what the
// broker needs of the runtime, and nothing else.
type brokerRig struct {
	st *Store
	b  *Broker

	mu    sync.Mutex
	now   time.Time
	rule  string
	cards int
}

func newBrokerRig(askHeadless bool) *brokerRig {
	r := &brokerRig{now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	r.st = New(Config{Now: r.clock})
	r.b = NewBroker(BrokerConfig{Store: r.st, Now: r.clock, AskHeadless: askHeadless,
		Rules: func(*agents.Event) string { r.mu.Lock(); defer r.mu.Unlock(); return r.rule },
		Card: func(body *client.RequestBody) func(*client.PermissionView) {
			r.mu.Lock()
			r.cards++
			r.mu.Unlock()
			return func(v *client.PermissionView) { v.Folder = "shop" }
		},
	})
	return r
}

func (r *brokerRig) clock() time.Time { r.mu.Lock(); defer r.mu.Unlock(); return r.now }

func (r *brokerRig) advance(d time.Duration) { r.mu.Lock(); r.now = r.now.Add(d); r.mu.Unlock() }

func bash(sid, hash string) *client.RequestBody {
	return &client.RequestBody{
		Event: agents.Event{Agent: "claude", Kind: agents.KindPermissionRequest, SessionID: sid, ToolName: "Bash",
			InputHash: hash, Cwd: "/tmp/p", HookEvent: "PermissionRequest"},
		Request: agents.Request{Summary: "make", ToolInput: []byte(`{"command":"make"}`)},
	}
}

// TestBrokerDecides: a request registered with the broker alone waits in
// its session and is listed with its card; the first decision answers
// the hook, records the answer in the store and closes the request, which
// stays readable for ClosedKeep and refuses a second decision.
func TestBrokerDecides(t *testing.T) {
	r := newBrokerRig(false)
	req, reason := r.b.Register(bash("s1", "h1"))
	if req == nil {
		t.Fatalf("Register = no request (%s), want it listed", reason)
	}
	v := r.b.View()
	if len(v.Permissions) != 1 || v.Permissions[0].Folder != "shop" || r.cards != 1 {
		t.Fatalf("View().Permissions = %+v after %d cards, want the request with its card", v.Permissions, r.cards)
	}
	if len(v.Sessions) != 1 || v.Sessions[0].Pending != 1 {
		t.Fatalf("View().Sessions = %+v, want s1 waiting", v.Sessions)
	}
	id := req.Added().ID
	if _, err := r.b.Decide(id, client.DecisionBody{Behavior: client.Allow, Via: "tray"}); err != nil {
		t.Fatalf("Decide(allow) = %v", err)
	}
	select {
	case ans := <-req.Answer():
		if ans.ID != id || ans.Decision == nil || !ans.Decision.Allow {
			t.Errorf("answer = %+v, want an allow of %s", ans, id)
		}
	default:
		t.Fatal("no answer for the hook after Decide")
	}
	if ss, _ := r.st.Session(statemachine.Key{Agent: "claude", ID: "s1"}); ss.Pending != 0 || len(r.b.Permissions()) != 0 {
		t.Errorf("after the allow: %d pending, %d listed, want none", ss.Pending, len(r.b.Permissions()))
	}
	if r.st.Seq() != 2 {
		t.Errorf("Seq() = %d, want 2: the request's event and its answer", r.st.Seq())
	}
	if _, err := r.b.Decide(id, client.DecisionBody{Behavior: client.Deny}); !errors.Is(err, ErrClosed) {
		t.Errorf("a second Decide = %v, want ErrClosed", err)
	}
	if _, err := r.b.Decide("nope", client.DecisionBody{Behavior: client.Deny}); !errors.Is(err, ErrNoRequest) {
		t.Errorf("Decide(unknown) = %v, want ErrNoRequest", err)
	}
	r.advance(ClosedKeep)
	if d, ok := r.b.Detail(id); !ok || d.State != client.RequestAnswered {
		t.Errorf("Detail after ClosedKeep = %+v, %v; want it answered", d.State, ok)
	}
	r.advance(time.Second)
	if _, ok := r.b.Detail(id); ok {
		t.Error("Detail after more than ClosedKeep found the request, want it gone")
	}
}

// TestBrokerAnswersAtOnce: do-not-disturb, the person's rules and a
// headless session without AskHeadless answer with no decision at once,
// in that order, and list nothing.
func TestBrokerAnswersAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name        string
		dnd         bool
		rule        string
		headless    bool
		askHeadless bool
		want        string
	}{
		{name: "do not disturb over a rule", dnd: true, rule: client.ReasonDisabled, want: client.ReasonDND},
		{name: "a rule", rule: client.ReasonNative, want: client.ReasonNative},
		{name: "a rule over headless", rule: client.ReasonSubagent, headless: true, want: client.ReasonSubagent},
		{name: "headless", headless: true, want: client.ReasonHeadless},
		{name: "headless, asked", headless: true, askHeadless: true, want: ""},
	} {
		r := newBrokerRig(tc.askHeadless)
		r.b.SetDND(tc.dnd)
		r.rule = tc.rule
		body := bash("s1", "h1")
		body.Event.Headless = tc.headless
		req, reason := r.b.Register(body)
		if reason != tc.want || (req == nil) != (tc.want != "") {
			t.Errorf("%s: Register = %v, %q; want reason %q", tc.name, req != nil, reason, tc.want)
		}
		if n := len(r.b.Permissions()); (n == 0) != (tc.want != "") {
			t.Errorf("%s: %d listed", tc.name, n)
		}
	}
}

// TestBrokerSettles: when the agent's own events close the session's
// pending entry (the person answered in the terminal), Settle withdraws
// the request and hands the hook no decision.
func TestBrokerSettles(t *testing.T) {
	r := newBrokerRig(false)
	req, _ := r.b.Register(bash("s1", "h1"))
	k := statemachine.Key{Agent: "claude", ID: "s1"}
	r.b.Settle(k)
	if len(r.b.Permissions()) != 1 {
		t.Fatal("Settle withdrew a request whose entry is still pending")
	}
	r.st.Apply(agents.Event{Agent: "claude", Kind: agents.KindTurnEnd, SessionID: "s1"}, false)
	r.b.Settle(k)
	select {
	case ans := <-req.Answer():
		if ans.Decision != nil || ans.Reason != client.ReasonWithdrawn {
			t.Errorf("answer = %+v, want no decision, withdrawn", ans)
		}
	default:
		t.Fatal("no answer for the hook after Settle")
	}
	if d, _ := r.b.Detail(req.Added().ID); d.State != client.RequestWithdrawn {
		t.Errorf("state = %q, want withdrawn", d.State)
	}
}

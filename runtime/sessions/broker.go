package sessions

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/statemachine"
)

// Permission broker defaults and limits.
const (
	// DefaultRequestTimeout is how long a request waits for the person
	// when BrokerConfig.Timeout is zero. After it the agent gets "no
	// decision" and asks in its own terminal, where its dialog has been
	// open all along, so a short wait loses nothing; ten minutes matches
	// Claude Code's own default hook timeout.
	DefaultRequestTimeout = 10 * time.Minute
	// hookMargin is kept free of the hook's own wait (RequestBody.WaitSeconds)
	// so the runtime's answer reaches the hook before it gives up.
	hookMargin = 5 * time.Second
	// ClosedKeep is how long a closed request can still be read by id
	// (Detail), so a client that loses a race sees what happened to it.
	ClosedKeep = time.Minute
)

// reasonAnswered is the close reason of an allow or deny decision.
const reasonAnswered = "answered"

// Broker is the permission broker: the open permission requests, their
// answers, do-not-disturb and the permission stream. Every request the
// agents' hooks make and every answer a client gives goes through it; it
// takes from the rest of the runtime only what its BrokerConfig gives.
//
// Its lock, mu, comes before the store's (see Store for the whole lock
// order): holding mu across Apply and the listing of a request, and
// across its close and Resolve, keeps the state machine's pending entries
// and the broker's requests in step.
type Broker struct {
	// cfg is NewBroker's BrokerConfig with its defaults filled in.
	cfg BrokerConfig

	mu      sync.Mutex
	seq     uint64
	dnd     bool
	pending map[string]*Request
	closed  map[string]*Request
	// stream is the permission stream's hub; the in-process feeds hear
	// through the store (Store.Announce).
	stream *Hub[Line]
}

// BrokerConfig is what a Broker needs of the runtime.
type BrokerConfig struct {
	// Store is the session store the requests' events go into, their
	// answers are recorded in and the feeds hear of them through.
	Store *Store
	// Now is the clock (default time.Now).
	Now func() time.Time
	Log *slog.Logger
	// Timeout is how long a request waits for the person (default
	// DefaultRequestTimeout); the hook's own wait cuts it (WaitFor).
	Timeout time.Duration
	// AskHeadless shows a headless session's request like any other;
	// without it the request is answered with no decision at once.
	AskHeadless bool
	// Rules says which of the person's settings answers e with no
	// decision at once (client.ReasonDisabled, ReasonNative or
	// ReasonSubagent), "" for none; nil: none. It is asked under mu,
	// after do-not-disturb and before bypass and headless, and may take
	// only a lock of its own.
	Rules func(e *agents.Event) string
	// Card works out how body reads as a card, outside mu (it may look at
	// the disk), and returns what fills a request's view with it under
	// mu. nil: no card.
	Card func(body *client.RequestBody) (fill func(*client.PermissionView))
}

// NewBroker returns a broker with no requests.
func NewBroker(cfg BrokerConfig) *Broker {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultRequestTimeout
	}
	if cfg.Rules == nil {
		cfg.Rules = func(*agents.Event) string { return "" }
	}
	if cfg.Card == nil {
		cfg.Card = func(*client.RequestBody) func(*client.PermissionView) { return func(*client.PermissionView) {} }
	}
	return &Broker{cfg: cfg, pending: map[string]*Request{}, closed: map[string]*Request{}, stream: NewLineHub()}
}

// immediateReason says why a request is answered with no decision at once,
// or "" when it is to be shown. The caller holds mu.
func (b *Broker) immediateReason(e *agents.Event, headless bool) string {
	if b.dnd {
		return client.ReasonDND
	}
	if reason := b.cfg.Rules(e); reason != "" {
		return reason
	}
	switch {
	case bypasses(e):
		return client.ReasonBypass
	case headless && !b.cfg.AskHeadless:
		return client.ReasonHeadless
	}
	return ""
}

// immediateSource is who answers a request at once for reason (see
// immediateReason).
func immediateSource(reason string) string {
	switch reason {
	case client.ReasonDND:
		return client.SourceDND
	case client.ReasonBypass:
		return client.SourceAgent
	}
	return client.SourceConfig
}

// bypasses reports whether e's agent proceeds without asking in e's
// permission mode, though it fired the request.
func bypasses(e *agents.Event) bool {
	a := agents.Lookup(e.Agent)
	return a != nil && e.PermissionMode != "" && slices.Contains(a.BypassModes, e.PermissionMode)
}

// resolves reports whether closing a request for reason ends the session's
// wait. An allow or deny closes the agent's dialog, a withdrawal means the
// person answered there, and bypass or headless sessions have no dialog.
// Every other no-decision answer (dnd, timeout, terminal, disabled,
// native, subagent) hands the request to the agent's own dialog, which is
// still open: the session keeps waiting until the agent reports what the
// person did.
func resolves(reason string, headless bool) bool {
	switch reason {
	case client.ReasonDND, client.ReasonTimeout, client.ReasonTerminal, client.ReasonDisabled, client.ReasonNative, client.ReasonSubagent:
		return headless
	}
	return true
}

// resolveLocked closes the state machine's pending entry of r, unless
// another open request shares it (two identical calls in one session
// fingerprint alike). The caller holds mu.
func (b *Broker) resolveLocked(key statemachine.Key, pendingKey string) {
	if pendingKey == "" {
		return
	}
	for _, o := range b.pending {
		if o.key == key && o.pendingKey == pendingKey {
			return
		}
	}
	b.cfg.Store.Resolve(key, pendingKey)
}

// answeredBy is who closed a request (a client.Source constant) and, for
// an "always", the label of the suggestion applied; for a question, what
// was answered.
type answeredBy struct {
	source, rule string
	answers      []client.AnsweredQuestion
}

// closeLocked closes a pending request with ans, tells every follower,
// hands ans to the waiting hook and records on the event stream how it
// closed and who closed it (by). It reports false when r was closed
// already: every request is closed, and recorded, exactly once. The
// caller holds mu.
func (b *Broker) closeLocked(r *Request, ans client.Answer, state, reason string, by answeredBy) bool {
	if r.view.State != client.RequestPending {
		return false
	}
	now := b.cfg.Now()
	r.view.State = state
	r.closedAt = now
	delete(b.pending, r.view.ID)
	for id, c := range b.closed {
		if now.Sub(c.closedAt) > ClosedKeep {
			delete(b.closed, id)
		}
	}
	b.closed[r.view.ID] = r
	b.publishLocked(client.ChangeClosed, r.view, reason)
	if resolves(reason, r.view.Headless) {
		b.resolveLocked(r.key, r.pendingKey)
	}
	b.recordAnswer(r, ans, reason, by)
	ans.ID = r.view.ID
	r.answer <- ans
	b.cfg.Log.Info("permission closed", "id", r.view.ID, "agent", r.view.Agent, "session", r.view.SessionID,
		"tool", r.view.Tool, "reason", reason)
	return true
}

// Settle closes the open requests of session k whose pending
// entry the agent's own events have closed: the tool ran or failed, the
// turn ended, the session is gone. That is how clawd learns that the
// person answered in the terminal: Claude Code 2.1.328 SIGTERMs the hook
// when the person picks No or Esc, but after a Yes the hook keeps running
// until the session ends, and the request would stay listed as pending
// (and a late allow or deny would claim to decide what was already done).
func (b *Broker) Settle(k statemachine.Key) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.pending {
		if r.key != k || r.pendingKey == "" {
			continue
		}
		if !b.cfg.Store.HasPending(k, r.pendingKey) {
			b.closeLocked(r, client.Answer{Reason: client.ReasonWithdrawn}, client.RequestWithdrawn, client.ReasonWithdrawn,
				answeredBy{source: client.SourceTerminal})
		}
	}
}

// NoDecision closes r with no decision for reason, if it is still
// pending: the hook is gone (withdrawn: the agent killed it, its prompt
// was answered first), the wait is over (timeout) or the runtime stops
// (shutdown).
func (b *Broker) NoDecision(r *Request, reason string) {
	state, by := client.RequestWithdrawn, answeredBy{source: client.SourceTerminal}
	switch reason {
	case client.ReasonTimeout:
		state, by.source = client.RequestExpired, client.SourceTimeout
	case client.ReasonShutdown:
		by.source = client.SourceRuntime
	}
	b.mu.Lock()
	b.closeLocked(r, client.Answer{Reason: reason}, state, reason, by)
	b.mu.Unlock()
}

// recordAnswer numbers and publishes the permission.answered record of r,
// closed with ans for reason by by, in order with the agents' events (see
// Store.Record). The caller holds mu.
func (b *Broker) recordAnswer(r *Request, ans client.Answer, reason string, by answeredBy) {
	a := &client.PermissionAnswer{ID: r.view.ID, Request: r.view.Kind, Decision: client.DecisionNone, Reason: reason,
		Source: by.source, Summary: r.view.Summary}
	if d := ans.Decision; d != nil {
		a.Reason = ""
		switch {
		case !d.Allow:
			a.Decision = client.DecisionDeny
		case by.answers != nil:
			a.Decision, a.Answers = client.DecisionAnswer, by.answers
		case by.rule != "":
			a.Decision, a.Rule = client.DecisionAlways, by.rule
		default:
			a.Decision = client.DecisionAllow
		}
	}
	b.cfg.Store.Record(r.key, client.EventRecord{
		Event: agents.Event{Agent: r.view.Agent, Kind: client.KindPermissionAnswered, SessionID: r.view.SessionID,
			Time: b.cfg.Now().UTC(), HookEvent: r.hookEvent, ToolName: r.view.Tool, Cwd: r.view.Cwd, Headless: r.view.Headless},
		Answer: a,
	})
}

// publishLocked tells the feeds and the permission stream that the request
// v was added or closed. The caller holds mu, which keeps the
// changes in the order they happened.
func (b *Broker) publishLocked(typ string, v client.PermissionView, reason string) {
	c := client.PermissionChange{Type: typ, Permission: v, Reason: reason}
	b.cfg.Store.Announce(client.Change{Permission: &c})
	PublishJSON(b.stream, c)
}

// SetDND turns do-not-disturb on or off. Turning it on answers every
// pending request with no decision at once: the agents ask in their own
// terminals, nothing is allowed or denied silently.
func (b *Broker) SetDND(on bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dnd == on {
		return
	}
	b.dnd = on
	b.cfg.Log.Info("do not disturb", "on", on)
	b.cfg.Store.Announce(client.Change{Settings: true})
	if !on {
		return
	}
	for _, r := range b.pendingLocked() {
		b.closeLocked(r, client.Answer{Reason: client.ReasonDND}, client.RequestWithdrawn, client.ReasonDND, answeredBy{source: client.SourceDND})
	}
}

// DND reports whether do-not-disturb is on.
func (b *Broker) DND() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.dnd
}

// pendingLocked returns the pending requests, oldest first.
func (b *Broker) pendingLocked() []*Request {
	rs := make([]*Request, 0, len(b.pending))
	for _, r := range b.pending {
		rs = append(rs, r)
	}
	slices.SortFunc(rs, func(x, y *Request) int { return cmp.Compare(x.seq, y.seq) })
	return rs
}

// Register takes a checked request in, all under mu but its card, worked
// out before: the state machine shows its session waiting, then the broker
// lists the request and announces it, so no reader sees one without the
// other. A request that is answered at once instead (see immediateReason)
// is never listed: Register returns nil and the reason for the no
// decision.
func (b *Broker) Register(body *client.RequestBody) (*Request, string) {
	e := &body.Event
	fill := b.cfg.Card(body)
	b.mu.Lock()
	defer b.mu.Unlock()
	// Apply, not the runtime's ingest: the state machine's Result has the
	// PendingKey that closes exactly this request's entry later.
	res, _, _ := b.cfg.Store.Apply(*e, false)
	headless := e.Headless || res.Session.Headless
	req := newRequest(e, body, res, headless, b.cfg.Now())
	fill(&req.view)
	if reason := b.immediateReason(e, headless); reason != "" {
		// Never shown, so never announced on the API: no "added", no
		// "closed". In process, a request left to the agent's own dialog
		// because clawd does not answer this agent is "unshown": the
		// person still wants to hear that a terminal waits for them.
		if resolves(reason, headless) {
			b.resolveLocked(req.key, req.pendingKey)
		}
		if reason == client.ReasonDisabled || reason == client.ReasonNative || reason == client.ReasonSubagent {
			b.cfg.Store.Announce(client.Change{Permission: &client.PermissionChange{Type: client.ChangeUnshown, Permission: req.view, Reason: reason}})
		}
		// The stream showed its permission.request: it shows the answer.
		b.recordAnswer(req, client.Answer{Reason: reason}, reason, answeredBy{source: immediateSource(reason)})
		return nil, reason
	}
	b.seq++
	req.seq = b.seq
	b.pending[req.view.ID] = req
	req.added = req.view
	b.publishLocked(client.ChangeAdded, req.view, "")
	return req, ""
}

// WaitFor is how long a request may wait for the person: the broker's
// timeout, cut to leave hookMargin of the hook's own wait of waitSeconds
// (half of a wait too short for that), so the answer reaches the hook
// before it gives up.
func (b *Broker) WaitFor(waitSeconds int) time.Duration {
	if waitSeconds <= 0 {
		return b.cfg.Timeout
	}
	wait := time.Duration(waitSeconds) * time.Second
	if wait > 2*hookMargin {
		wait -= hookMargin
	} else {
		wait /= 2
	}
	return min(b.cfg.Timeout, wait)
}

// Permissions returns the pending requests, oldest first.
func (b *Broker) Permissions() []client.PermissionView {
	b.mu.Lock()
	defer b.mu.Unlock()
	views := []client.PermissionView{}
	for _, p := range b.pendingLocked() {
		views = append(views, p.view)
	}
	return views
}

// lookupLocked finds a pending or recently closed request. The caller
// holds mu.
func (b *Broker) lookupLocked(id string) *Request {
	if p := b.pending[id]; p != nil {
		return p
	}
	if p := b.closed[id]; p != nil && b.cfg.Now().Sub(p.closedAt) <= ClosedKeep {
		return p
	}
	return nil
}

// View returns the requests and do-not-disturb at one moment with the
// sessions (see client.View). It takes mu and then the store's lock, the
// order in which a request is registered: a request is listed only while
// its session has it pending, so no reader sees a request before its
// session waits, nor after the agent's own events closed it and before
// the broker caught up.
func (b *Broker) View() client.View {
	b.mu.Lock()
	defer b.mu.Unlock()
	v := client.View{Permissions: []client.PermissionView{}, DND: b.dnd}
	v.Snapshot = b.cfg.Store.Snapshot(func(hasPending func(statemachine.Key, string) bool) {
		for _, p := range b.pendingLocked() {
			// A request whose session was never tracked (no room in
			// the state machine) has no pending entry to agree with.
			if p.pendingKey == "" || hasPending(p.key, p.pendingKey) {
				v.Permissions = append(v.Permissions, p.view)
			}
		}
	})
	return v
}

// Detail returns the pending or recently closed request id in full.
func (b *Broker) Detail(id string) (client.PermissionDetail, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.lookupLocked(id)
	if p == nil {
		return client.PermissionDetail{}, false
	}
	return p.detail(), true
}

// Follow subscribes to the permission stream with room for buf lines and
// returns the pending requests as "added" lines, under one lock: no change
// is missed or seen twice.
func (b *Broker) Follow(buf int) (*Subscription[Line], []Line) {
	b.mu.Lock()
	defer b.mu.Unlock()
	sub := b.stream.Subscribe(buf)
	var initial []Line
	for _, p := range b.pendingLocked() {
		if line, err := json.Marshal(client.PermissionChange{Type: client.ChangeAdded, Permission: p.view}); err == nil {
			initial = append(initial, Line{JSON: line})
		}
	}
	return sub, initial
}

// Errors of Decide.
var (
	// ErrNoRequest: no pending or recently closed request has the id.
	ErrNoRequest = errors.New("no such permission request")
	// ErrClosed: the request was already answered, withdrawn or expired.
	ErrClosed = errors.New("permission request already closed")
	// ErrBadDecision: the decision does not fit the request.
	ErrBadDecision = errors.New("decision does not fit the request")
)

// Decide answers the pending request id, for the API and the tray alike.
// The error wraps ErrNoRequest, ErrClosed or ErrBadDecision and says why
// in words a person can act on.
func (b *Broker) Decide(id string, body client.DecisionBody) (client.PermissionView, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.lookupLocked(id)
	if p == nil {
		return client.PermissionView{}, fmt.Errorf("%w: %s", ErrNoRequest, id)
	}
	if p.view.State != client.RequestPending {
		msg := "permission request " + id + " was already answered"
		switch p.view.State {
		case client.RequestWithdrawn:
			msg = "permission request " + id + " was withdrawn"
		case client.RequestExpired:
			msg = "permission request " + id + " expired"
		}
		return p.view, &decideError{ErrClosed, msg}
	}
	ans, reason, state, problem := decision(p, &body)
	if problem != "" {
		return p.view, &decideError{ErrBadDecision, problem}
	}
	by := answeredBy{source: client.ClientSource(body.Via)}
	if n := body.Suggestion; n > 0 && n <= len(p.view.Suggestions) {
		by.rule = p.view.Suggestions[n-1]
	}
	if body.Behavior == client.AnswerQuestions {
		by.answers = answeredQuestions(body.Answers)
	}
	b.closeLocked(p, ans, state, reason, by)
	// Neither the answers nor a message: they may be the person's own
	// words (see client.AnsweredQuestion).
	b.cfg.Log.Info("permission decided", "id", id, "behavior", body.Behavior, "suggestion", body.Suggestion, "via", body.Via)
	return p.view, nil
}

// decideError keeps the sentinel for errors.Is and the message as is.
type decideError struct {
	kind error
	msg  string
}

func (e *decideError) Error() string { return e.msg }
func (e *decideError) Unwrap() error { return e.kind }

// decision turns a client's decision into the hook's answer, or says why
// it does not fit the request.
func decision(p *Request, body *client.DecisionBody) (ans client.Answer, reason, state, problem string) {
	if body.Suggestion != 0 && body.Behavior != client.Allow {
		return ans, "", "", fmt.Sprintf("a suggestion is applied with behavior %q only", client.Allow)
	}
	switch body.Behavior {
	case client.Terminal:
		return client.Answer{Reason: client.ReasonTerminal}, client.ReasonTerminal, client.RequestAnswered, ""
	case client.AnswerQuestions:
		if ans, problem = decideQuestion(p, body); problem != "" {
			return ans, "", "", problem
		}
		return ans, reasonAnswered, client.RequestAnswered, ""
	case client.Allow, client.Deny:
	default:
		return ans, "", "", fmt.Sprintf("behavior %q: want %q, %q, %q or %q", body.Behavior, client.Allow, client.Deny,
			client.AnswerQuestions, client.Terminal)
	}
	if len(body.Answers) > 0 {
		return ans, "", "", fmt.Sprintf("answers go with behavior %q", client.AnswerQuestions)
	}
	if p.view.Kind == client.KindQuestion {
		if p.view.Answerable {
			return ans, "", "", fmt.Sprintf("this is a question: answer it with behavior %q and its options (clawd answer ID OPTION...), or in the agent's terminal (behavior %q)",
				client.AnswerQuestions, client.Terminal)
		}
		return ans, "", "", cannotAnswer(p)
	}
	d := &agents.Decision{Allow: body.Behavior == client.Allow}
	if !d.Allow {
		d.Message, d.Interrupt = body.Message, body.Interrupt
	}
	if n := body.Suggestion; n != 0 {
		switch k := len(p.rawSuggestions); {
		case k == 0:
			return ans, "", "", fmt.Sprintf("suggestion %d: this request offers no suggestions", n)
		case n < 1 || n > k:
			return ans, "", "", fmt.Sprintf("suggestion %d out of range: this request offers 1-%d", n, k)
		}
		d.UpdatedPermissions = []json.RawMessage{p.rawSuggestions[n-1]}
	}
	if p.view.Kind == client.KindPlan {
		if ans, problem = decidePlan(p, d); problem != "" {
			return ans, "", "", problem
		}
		return ans, reasonAnswered, client.RequestAnswered, ""
	}
	return client.Answer{Decision: d}, reasonAnswered, client.RequestAnswered, ""
}

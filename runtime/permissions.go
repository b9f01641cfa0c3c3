package runtime

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/statemachine"
)

// Permission broker defaults and limits.
const (
	// DefaultPermissionTimeout is how long a request waits for the person
	// when Config.PermissionTimeout is zero. After it the agent gets "no
	// decision" and asks in its own terminal, where its dialog has been
	// open all along, so a short wait loses nothing; ten minutes matches
	// Claude Code's own default hook timeout.
	DefaultPermissionTimeout = 10 * time.Minute
	// DefaultPermissionHeartbeat is Config.PermissionHeartbeat's default:
	// a third of client.HeartbeatLoss, so a hook gives up only on a
	// runtime that missed three heartbeats.
	DefaultPermissionHeartbeat = time.Second
	// hookMargin is kept free of the hook's own wait (RequestBody.WaitSeconds)
	// so the runtime's answer reaches the hook before it gives up.
	hookMargin = 5 * time.Second
	// maxPermissionBody caps a registration. The hook sends a truncated
	// preview (InputTruncated) of a larger tool input instead of a body
	// that would be refused: a big Write is shown, never auto-denied (the
	// original's #36).
	maxPermissionBody = 1 << 20
	// maxDecisionBody caps a decision: a verdict and a message.
	maxDecisionBody = 64 << 10
	// closedKeep is how long a closed request can still be read by id, so
	// a client that loses a race sees what happened to it.
	closedKeep = time.Minute
	// maxSummary and maxLabel bound the one-line texts lists show.
	maxSummary = 120
	maxLabel   = 80
	maxOptions = 32
)

// Headless policies (Config.HeadlessPolicy).
const (
	HeadlessNone = "none" // answer no decision at once: -p handles it itself
	HeadlessAsk  = "ask"  // show the request like any other
)

// Request states (client.PermissionView.State).
const (
	statePending   = "pending"
	stateAnswered  = "answered"
	stateWithdrawn = "withdrawn"
	stateExpired   = "expired"
)

// reasonAnswered is the close reason of an allow or deny decision.
const reasonAnswered = "answered"

// broker holds the open permission requests. Lock order: broker.mu before
// Server.mu, never the other way round; holding broker.mu across ingest and
// registration, and across close and Resolve, keeps the state machine's
// pending entries and the broker's requests in step.
type broker struct {
	after   func(time.Duration) <-chan time.Time
	timeout time.Duration
	policy  string

	mu      sync.Mutex
	seq     uint64
	dnd     bool
	pending map[string]*permRequest
	closed  map[string]*permRequest
	// stream is the permission stream's hub; feeds are the server's.
	stream *hub[streamLine]
	feeds  *hub[Change]
}

func newBroker(cfg Config, feeds *hub[Change]) *broker {
	b := &broker{
		after:   cfg.After,
		timeout: cfg.PermissionTimeout,
		policy:  cfg.HeadlessPolicy,
		pending: map[string]*permRequest{},
		closed:  map[string]*permRequest{},
		stream:  newStreamHub(),
		feeds:   feeds,
	}
	if b.after == nil {
		b.after = time.After
	}
	if b.timeout <= 0 {
		b.timeout = DefaultPermissionTimeout
	}
	if b.policy != HeadlessAsk {
		b.policy = HeadlessNone
	}
	return b
}

// permRequest is one request registered by a hook.
type permRequest struct {
	seq            uint64
	view           client.PermissionView
	toolInput      json.RawMessage
	inputTruncated bool
	rawSuggestions []json.RawMessage
	message        string

	key        statemachine.Key
	pendingKey string
	closedAt   time.Time
	// answer gets exactly one Answer, from whoever closes the request.
	answer chan client.Answer
}

func (r *permRequest) detail() client.PermissionDetail {
	return client.PermissionDetail{
		PermissionView: r.view,
		ToolInput:      r.toolInput,
		InputTruncated: r.inputTruncated,
		RawSuggestions: r.rawSuggestions,
		Message:        r.message,
	}
}

// nudge wakes the clock: the display may have changed.
func (s *Server) nudge() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// immediateReason says why a request is answered with no decision at once,
// or "" when it is to be shown. The caller holds broker.mu.
func (s *Server) immediateReason(e *agents.Event, headless bool) string {
	switch {
	case s.perms.dnd:
		return client.ReasonDND
	case s.cfg.PermissionsDisabled[e.Agent]:
		return client.ReasonDisabled
	case s.cfg.Native != nil && s.cfg.Native(e.Agent, s.sessionKind(e)):
		return client.ReasonNative
	case bypasses(e):
		return client.ReasonBypass
	case headless && s.perms.policy == HeadlessNone:
		return client.ReasonHeadless
	}
	return ""
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
// Every other no-decision answer (dnd, timeout, terminal, disabled) hands
// the request to the agent's own dialog, which is still open: the session
// keeps waiting until the agent reports what the person did.
func resolves(reason string, headless bool) bool {
	switch reason {
	case client.ReasonDND, client.ReasonTimeout, client.ReasonTerminal, client.ReasonDisabled, client.ReasonNative:
		return headless
	}
	return true
}

// resolveLocked closes the state machine's pending entry of r, unless
// another open request shares it (two identical calls in one session
// fingerprint alike). The caller holds broker.mu.
func (s *Server) resolveLocked(key statemachine.Key, pendingKey string) {
	if pendingKey == "" {
		return
	}
	for _, o := range s.perms.pending {
		if o.key == key && o.pendingKey == pendingKey {
			return
		}
	}
	s.mu.Lock()
	s.m.Resolve(key, pendingKey, s.cfg.Now())
	s.mu.Unlock()
	s.nudge()
}

// closeLocked closes a pending request with ans, tells every follower and
// hands ans to the waiting hook. It reports false when r was closed
// already. The caller holds broker.mu.
func (s *Server) closeLocked(r *permRequest, ans client.Answer, state, reason string) bool {
	b := s.perms
	if r.view.State != statePending {
		return false
	}
	now := s.cfg.Now()
	r.view.State = state
	r.closedAt = now
	delete(b.pending, r.view.ID)
	for id, c := range b.closed {
		if now.Sub(c.closedAt) > closedKeep {
			delete(b.closed, id)
		}
	}
	b.closed[r.view.ID] = r
	b.publishLocked(client.ChangeClosed, r.view, reason)
	if resolves(reason, r.view.Headless) {
		s.resolveLocked(r.key, r.pendingKey)
	}
	ans.ID = r.view.ID
	r.answer <- ans
	s.log.Info("permission closed", "id", r.view.ID, "agent", r.view.Agent, "session", r.view.SessionID,
		"tool", r.view.Tool, "reason", reason)
	return true
}

// settlePermissions closes the open requests of session k whose pending
// entry the agent's own events have closed: the tool ran or failed, the
// turn ended, the session is gone. That is how clawd learns that the
// person answered in the terminal: Claude Code 2.1.328 SIGTERMs the hook
// when the person picks No or Esc, but after a Yes the hook keeps running
// until the session ends, and the request would stay listed as pending
// (and a late allow or deny would claim to decide what was already done).
func (s *Server) settlePermissions(k statemachine.Key) {
	b := s.perms
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.pending {
		if r.key != k || r.pendingKey == "" {
			continue
		}
		s.mu.Lock()
		open := s.m.HasPending(k, r.pendingKey)
		s.mu.Unlock()
		if !open {
			s.closeLocked(r, client.Answer{Reason: client.ReasonWithdrawn}, stateWithdrawn, client.ReasonWithdrawn)
		}
	}
}

// closeNoDecision closes r with no decision, if it is still pending.
func (s *Server) closeNoDecision(r *permRequest, reason string) {
	state := stateWithdrawn
	switch reason {
	case client.ReasonTimeout:
		state = stateExpired
	case client.ReasonTerminal:
		state = stateAnswered
	}
	s.perms.mu.Lock()
	s.closeLocked(r, client.Answer{Reason: reason}, state, reason)
	s.perms.mu.Unlock()
}

func (b *broker) publishLocked(typ string, v client.PermissionView, reason string) {
	c := client.PermissionChange{Type: typ, Permission: v, Reason: reason}
	b.feeds.publish(Change{Permission: &c})
	publishJSON(b.stream, c)
}

// SetDND turns do-not-disturb on or off. Turning it on answers every
// pending request with no decision at once: the agents ask in their own
// terminals, nothing is allowed or denied silently.
func (s *Server) SetDND(on bool) {
	b := s.perms
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dnd == on {
		return
	}
	b.dnd = on
	s.log.Info("do not disturb", "on", on)
	b.feeds.publish(Change{Settings: true})
	if !on {
		return
	}
	for _, r := range b.pendingLocked() {
		s.closeLocked(r, client.Answer{Reason: client.ReasonDND}, stateWithdrawn, client.ReasonDND)
	}
}

// DND reports whether do-not-disturb is on.
func (s *Server) DND() bool {
	s.perms.mu.Lock()
	defer s.perms.mu.Unlock()
	return s.perms.dnd
}

// pendingLocked returns the pending requests, oldest first.
func (b *broker) pendingLocked() []*permRequest {
	rs := make([]*permRequest, 0, len(b.pending))
	for _, r := range b.pending {
		rs = append(rs, r)
	}
	slices.SortFunc(rs, func(x, y *permRequest) int { return cmp.Compare(x.seq, y.seq) })
	return rs
}

// handlePermissionRequest is the hook's POST /api/v1/permissions: it
// registers the request and holds the connection open until the answer.
// Closing the connection withdraws the request: Claude Code kills the
// hook when the person answers in the terminal, and net/http cancels the
// request's context as soon as the connection drops.
func (s *Server) handlePermissionRequest(w http.ResponseWriter, r *http.Request) {
	var body client.RequestBody
	// readBody reads to EOF, which starts net/http's background read that
	// notices the hook hanging up.
	if !readBody(w, r, maxPermissionBody, &body) {
		return
	}
	// The request is read; the wait that follows is held open as long as
	// the agent lets the hook wait (bodyDeadline's limit was for the body).
	http.NewResponseController(w).SetReadDeadline(time.Time{})
	e := body.Event
	if err := s.accept(&e); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if e.Kind != agents.KindPermissionRequest && e.Kind != agents.KindQuestion {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("event kind %q is not a permission request: use %q or %q",
			e.Kind, agents.KindPermissionRequest, agents.KindQuestion))
		return
	}
	if string(body.ToolInput) == "null" {
		body.ToolInput = nil
	}

	b := s.perms
	b.mu.Lock()
	// apply, not Ingest: the state machine's Result has the PendingKey
	// that closes exactly this request's entry later.
	res, _, _ := s.apply(e, false)
	headless := e.Headless || res.Session.Headless
	if reason := s.immediateReason(&e, headless); reason != "" {
		// Never shown, so never announced on the API: no "added", no
		// "closed". In process, a request left to the agent's own dialog
		// because clawd does not answer this agent is "unshown": the
		// person still wants to hear that a terminal waits for them.
		if resolves(reason, headless) {
			s.resolveLocked(res.Session.Key(), res.PendingKey)
		}
		if reason == client.ReasonDisabled || reason == client.ReasonNative {
			v := newPermRequest(&e, &body, res, headless, s.cfg.Now()).view
			s.feeds.publish(Change{Permission: &client.PermissionChange{Type: TypeUnshown, Permission: v, Reason: reason}})
		}
		b.mu.Unlock()
		s.log.Info("permission not shown", "agent", e.Agent, "session", e.SessionID, "tool", e.ToolName, "reason", reason)
		writeJSON(w, http.StatusOK, client.Answer{Reason: reason})
		return
	}
	req := newPermRequest(&e, &body, res, headless, s.cfg.Now())
	b.seq++
	req.seq = b.seq
	b.pending[req.view.ID] = req
	b.publishLocked(client.ChangeAdded, req.view, "")
	b.mu.Unlock()
	s.log.Info("permission pending", "id", req.view.ID, "agent", e.Agent, "session", e.SessionID,
		"tool", e.ToolName, "kind", req.view.Kind)

	// Acknowledge at once: the response headers and a first heartbeat.
	// The hook that sees neither within client.AckTimeout, or no byte
	// within client.HeartbeatLoss later, takes the runtime for stopped and
	// answers "no decision" so the agent's own prompt takes over.
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	beat := func() error {
		rc.SetWriteDeadline(time.Now().Add(s.cfg.StreamWriteTimeout))
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		return rc.Flush()
	}
	if beat() != nil {
		s.closeNoDecision(req, client.ReasonWithdrawn)
		return
	}
	heartbeat := time.NewTicker(s.cfg.PermissionHeartbeat)
	defer heartbeat.Stop()

	timeout := b.timeout
	if body.WaitSeconds > 0 {
		wait := time.Duration(body.WaitSeconds) * time.Second
		if wait > 2*hookMargin {
			wait -= hookMargin
		} else {
			wait /= 2
		}
		timeout = min(timeout, wait)
	}
	expired := b.after(timeout)
	var ans client.Answer
wait:
	for {
		select {
		case ans = <-req.answer:
			break wait
		case <-expired:
			s.closeNoDecision(req, client.ReasonTimeout)
			ans = <-req.answer
			break wait
		case <-s.done:
			s.closeNoDecision(req, client.ReasonShutdown)
			ans = <-req.answer
			break wait
		case <-r.Context().Done():
			// The hook is gone: nobody to write to.
			s.closeNoDecision(req, client.ReasonWithdrawn)
			return
		case <-heartbeat.C:
			if beat() != nil {
				s.closeNoDecision(req, client.ReasonWithdrawn)
				return
			}
		}
	}
	line, _ := json.Marshal(ans)
	rc.SetWriteDeadline(time.Now().Add(s.cfg.StreamWriteTimeout))
	w.Write(append(line, '\n'))
}

func newPermRequest(e *agents.Event, body *client.RequestBody, res statemachine.Result, headless bool, now time.Time) *permRequest {
	kind := client.KindPermission
	switch {
	case e.Kind == agents.KindQuestion || body.Kind == agents.RequestQuestion:
		kind = client.KindQuestion
	case body.Kind == agents.RequestPlan:
		kind = client.KindPlan
	}
	return &permRequest{
		view: client.PermissionView{
			ID:          newPermID(),
			Kind:        kind,
			Agent:       e.Agent,
			SessionID:   e.SessionID,
			Title:       res.Session.Title,
			Cwd:         res.Session.Cwd,
			Tool:        e.ToolName,
			Summary:     summarize(e, body),
			Suggestions: labels(body.SuggestionLabels, len(body.Suggestions)),
			Options:     options(body.Options),
			Headless:    headless,
			CreatedAt:   now.UTC(),
			State:       statePending,
		},
		toolInput:      body.ToolInput,
		inputTruncated: body.InputTruncated,
		rawSuggestions: body.Suggestions,
		message:        body.Message,
		key:            res.Session.Key(),
		pendingKey:     res.PendingKey,
		answer:         make(chan client.Answer, 1),
	}
}

var permIDEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newPermID returns 10 random base32 characters (50 bits): short enough
// to type in `clawd permissions allow ID`.
func newPermID() string {
	var b [7]byte
	rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return permIDEncoding.EncodeToString(b[:])[:10]
}

// summarize is the one line a list shows for a request: the agent's own
// summary, else a question's text, the first string of the tool input or
// the hook's message.
func summarize(e *agents.Event, body *client.RequestBody) string {
	s := body.Summary
	if s == "" && e.Kind == agents.KindQuestion {
		s = body.Message // an MCP elicitation
	}
	if s == "" {
		s = firstString(body.ToolInput)
	}
	if s == "" {
		s = body.Message
	}
	return oneLine(s, maxSummary)
}

// options are a question's choices as a list shows them.
func options(in []string) []string {
	var out []string
	for _, o := range in {
		if l := oneLine(o, maxSummary); l != "" && len(out) < maxOptions {
			out = append(out, l)
		}
	}
	return out
}

// firstString returns the first top-level string value of a JSON object
// in document order, or the value itself when in is a string (a truncated
// preview may be one).
func firstString(in json.RawMessage) string {
	if len(in) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(in))
	tok, err := dec.Token()
	if err != nil {
		return ""
	}
	if s, ok := tok.(string); ok {
		return s
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return ""
	}
	for dec.More() {
		if _, err := dec.Token(); err != nil { // the key
			return ""
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return ""
		}
		var s string
		if json.Unmarshal(v, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// oneLine is the one line a list shows of s: internal/text's policy, cut
// to n runes.
func oneLine(s string, n int) string { return text.Line(s, n) }

// labels names each of n offered suggestions for a button or a menu, in
// order: `clawd permissions always ID N` picks the Nth. A missing label
// reads "Apply suggestion N"; equal labels get a number, never dropped, so
// N keeps pointing at the raw suggestion.
func labels(given []string, n int) []string {
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	seen := map[string]int{}
	for i := range n {
		l := ""
		if i < len(given) {
			l = oneLine(given[i], maxLabel)
		}
		if l == "" {
			l = fmt.Sprintf("Apply suggestion %d", i+1)
		}
		if seen[l]++; seen[l] > 1 {
			l = fmt.Sprintf("%s (%d)", l, seen[l])
		}
		out = append(out, l)
	}
	return out
}

// Permissions returns the pending requests, oldest first.
func (s *Server) Permissions() []client.PermissionView {
	b := s.perms
	b.mu.Lock()
	defer b.mu.Unlock()
	views := []client.PermissionView{}
	for _, p := range b.pendingLocked() {
		views = append(views, p.view)
	}
	return views
}

// handlePermissionList is GET /api/v1/permissions: pending requests,
// oldest first.
func (s *Server) handlePermissionList(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Permissions())
}

// lookupLocked finds a pending or recently closed request. The caller
// holds broker.mu.
func (s *Server) lookupLocked(id string) *permRequest {
	b := s.perms
	if p := b.pending[id]; p != nil {
		return p
	}
	if p := b.closed[id]; p != nil && s.cfg.Now().Sub(p.closedAt) <= closedKeep {
		return p
	}
	return nil
}

// handlePermissionGet is GET /api/v1/permissions/{id}.
func (s *Server) handlePermissionGet(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.perms.mu.Lock()
	p := s.lookupLocked(id)
	var d client.PermissionDetail
	if p != nil {
		d = p.detail()
	}
	s.perms.mu.Unlock()
	if p == nil {
		writeError(w, http.StatusNotFound, "no permission request "+id)
		return
	}
	writeJSON(w, http.StatusOK, d)
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
func (s *Server) Decide(id string, body client.DecisionBody) (client.PermissionView, error) {
	b := s.perms
	b.mu.Lock()
	defer b.mu.Unlock()
	p := s.lookupLocked(id)
	if p == nil {
		return client.PermissionView{}, fmt.Errorf("%w: %s", ErrNoRequest, id)
	}
	if p.view.State != statePending {
		msg := "permission request " + id + " was already answered"
		switch p.view.State {
		case stateWithdrawn:
			msg = "permission request " + id + " was withdrawn"
		case stateExpired:
			msg = "permission request " + id + " expired"
		}
		return p.view, &decideError{ErrClosed, msg}
	}
	ans, reason, state, problem := decide(p, &body)
	if problem != "" {
		return p.view, &decideError{ErrBadDecision, problem}
	}
	s.closeLocked(p, ans, state, reason)
	s.log.Info("permission decided", "id", id, "behavior", body.Behavior, "suggestion", body.Suggestion, "via", body.Via)
	return p.view, nil
}

// decideError keeps the sentinel for errors.Is and the message as is.
type decideError struct {
	kind error
	msg  string
}

func (e *decideError) Error() string { return e.msg }
func (e *decideError) Unwrap() error { return e.kind }

// handlePermissionDecision is POST /api/v1/permissions/{id}/decision.
func (s *Server) handlePermissionDecision(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var body client.DecisionBody
	if !readBody(w, r, maxDecisionBody, &body) {
		return
	}
	view, err := s.Decide(id, body)
	switch {
	case errors.Is(err, ErrNoRequest):
		writeError(w, http.StatusNotFound, "no permission request "+id)
	case errors.Is(err, ErrClosed):
		writeError(w, http.StatusConflict, err.Error())
	case err != nil:
		writeError(w, http.StatusBadRequest, err.Error())
	default:
		writeJSON(w, http.StatusOK, view)
	}
}

// decide turns a client's decision into the hook's answer, or says why it
// does not fit the request.
func decide(p *permRequest, body *client.DecisionBody) (ans client.Answer, reason, state, problem string) {
	if body.Suggestion != 0 && body.Behavior != client.Allow {
		return ans, "", "", fmt.Sprintf("a suggestion is applied with behavior %q only", client.Allow)
	}
	switch body.Behavior {
	case client.Terminal:
		return client.Answer{Reason: client.ReasonTerminal}, client.ReasonTerminal, stateAnswered, ""
	case client.Allow, client.Deny:
	default:
		return ans, "", "", fmt.Sprintf("behavior %q: want %q, %q or %q", body.Behavior, client.Allow, client.Deny, client.Terminal)
	}
	switch p.view.Kind {
	case client.KindQuestion:
		return ans, "", "", fmt.Sprintf("this is a question: answer it in the agent's terminal (behavior %q)", client.Terminal)
	case client.KindPlan:
		if body.Behavior != client.Allow {
			return ans, "", "", fmt.Sprintf("a plan review is approved (behavior %q) or answered in the agent's terminal (behavior %q)",
				client.Allow, client.Terminal)
		}
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
	return client.Answer{Decision: d}, reasonAnswered, stateAnswered, ""
}

// handlePermissionStream is GET /api/v1/permissions/events: the pending
// requests as "added" lines, then every change as it happens. NDJSON by
// default, Server-Sent Events when the client accepts text/event-stream,
// with a heartbeat every 15 s as on the event stream.
func (s *Server) handlePermissionStream(w http.ResponseWriter, r *http.Request) {
	b := s.perms
	s.stream(w, r, "type", func() (*subscription[streamLine], [][]byte) {
		// Subscribe and take the pending list under one lock: no change
		// is missed or seen twice.
		b.mu.Lock()
		defer b.mu.Unlock()
		sub := b.stream.subscribe(1024)
		var initial [][]byte
		for _, p := range b.pendingLocked() {
			if line, err := json.Marshal(client.PermissionChange{Type: client.ChangeAdded, Permission: p.view}); err == nil {
				initial = append(initial, line)
			}
		}
		return sub, initial
	})
}

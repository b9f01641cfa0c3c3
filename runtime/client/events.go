package client

import (
	"github.com/clawdhq/clawd/agents"
)

// The event stream. GET /api/v1/events sends the runtime's recent event
// records first (its backlog: the last EventBacklog of each agent, in
// memory only), then every record as it happens, each numbered in Seq.
// NDJSON by default; Server-Sent Events, each record with its "id:", when
// the client accepts text/event-stream.
//
//	GET /api/v1/events              the whole backlog, then live
//	GET /api/v1/events?since=SEQ    the records after SEQ, then live
//	                                (an SSE client's Last-Event-ID header is the same)
//	GET /api/v1/events?backlog=0    live only
//
// A client that reconnects with the last Seq it read gets exactly the
// records it missed, none twice. When the backlog no longer holds some of
// them, the first line says how many are lost: {"kind": "stream.missed",
// "missed": N}; when SEQ is beyond anything this runtime numbered (it
// restarted, and numbers from 1 again), {"kind": "stream.missed",
// "reset": true} comes before the whole backlog.

// EventBacklog is how many of each agent's latest event records the
// runtime keeps for the streams' backlog.
const EventBacklog = 200

// StreamMissed is the kind (event stream) or type (the dashboard's) of
// the line that says the backlog no longer holds records a reconnecting
// client asked for (EventRecord.Missed), or that the runtime numbers
// anew (EventRecord.Reset).
const StreamMissed = "stream.missed"

// KindPermissionAnswered is the kind of the record the runtime adds to
// the event stream when a permission request closes, however it closes:
// exactly one per request, after its permission.request, with the
// request's agent, session, tool and hook event (the hook the answer
// went to) and the answer in EventRecord.Answer. It is the runtime's own record, not an agent's
// event: agents.Kind.Valid refuses it, so no hook can post one.
const KindPermissionAnswered agents.Kind = "permission.answered"

// PermissionAnswer is how a permission request closed
// (EventRecord.Answer).
type PermissionAnswer struct {
	// ID is the request's id, as GET /api/v1/permissions listed it.
	ID string `json:"id"`
	// Request is what the request asked: permission, question or plan.
	Request RequestKind `json:"request"`
	// Decision is DecisionAllow, DecisionDeny, DecisionAlways,
	// DecisionAnswer or DecisionNone (the agent asks in its own terminal,
	// or, headless, does what it does by itself).
	Decision string `json:"decision"`
	// Rule is the label of the suggestion an "always" applied.
	Rule string `json:"rule,omitempty"`
	// Answers are a question's answers (DecisionAnswer), per question in
	// order.
	Answers []AnsweredQuestion `json:"answers,omitempty"`
	// Reason says why there is no decision: one of the no-decision
	// reasons of Answer (terminal, timeout, withdrawn, dnd, shutdown,
	// headless, bypass, disabled, native).
	Reason string `json:"reason,omitempty"`
	// Source is who answered: one of the Source constants.
	Source string `json:"source"`
	// Summary is the request's one line (the command of a Bash call),
	// kept for the dashboard's own stream, which shows it beside the
	// pending requests: like agents.Event, the event stream carries no
	// tool input.
	Summary string `json:"-"`
}

// AnsweredQuestion is how a person answered one question: the labels of
// the options picked, and whether they typed an answer of their own. What
// they typed is their own words, as a deny's or a plan's message is: it
// goes to the agent only, never to the event stream, the logs or the
// history.
type AnsweredQuestion struct {
	Labels []string `json:"labels,omitempty"`
	Typed  bool     `json:"typed,omitempty"`
}

// PermissionAnswer decisions. A plan approved is an allow, a plan sent
// back to keep planning a deny.
const (
	DecisionAllow  = "allow"
	DecisionDeny   = "deny"
	DecisionAlways = "always" // allowed, with a suggested rule applied
	DecisionAnswer = "answer" // a question answered (Answers)
	DecisionNone   = "none"
)

// Who answered a request (PermissionAnswer.Source). A client names itself
// in DecisionBody.Via; the name is recorded, never trusted to grant
// anything (every client holds the same right to answer).
const (
	SourceTray      = "tray"
	SourceDashboard = "dashboard"
	SourceCLI       = "cli"
	// SourceTelegram is a button pressed in the paired Telegram chat.
	SourceTelegram = "telegram"
	// SourceAPI is any other client of the API (a token client, a
	// script): one that names itself nothing the runtime knows.
	SourceAPI = "api"
	// SourceTerminal: the agent's own prompt was answered first: the
	// agent killed the hook, or its events closed the request.
	SourceTerminal = "terminal"
	SourceTimeout  = "timeout"
	// SourceDND: do-not-disturb handed it to the agent's own prompt.
	SourceDND = "dnd"
	// SourceConfig: clawd's config leaves it to the agent (permissions
	// off for the agent, permission_mode "native", the headless policy).
	SourceConfig = "config"
	// SourceAgent: the agent's permission mode lets the call through
	// without asking (bypass).
	SourceAgent = "agent"
	// SourceRuntime: the runtime stopped while the request waited.
	SourceRuntime = "runtime"
)

// ClientSource is the Source a decision with via records: the client's
// own name when it is one of the person's clients, else SourceAPI.
func ClientSource(via string) string {
	switch via {
	case SourceTray, SourceDashboard, SourceCLI, SourceTelegram:
		return via
	}
	return SourceAPI
}

package client

import (
	"encoding/json"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// The permission API. A hook registers a request with
// POST /api/v1/permissions over the runtime's socket (never over TCP), and
// the runtime acknowledges it at once (the response headers) and holds the
// response open, with a heartbeat newline every second, until the person
// decides, the request times out or is withdrawn; the Answer is the last
// line. Closing the connection (the agent killed the hook because the
// person answered in the terminal) withdraws it. The other routes are
// served on the socket as they are and on TCP with the API token from
// runtime.json (Authorization: Bearer <token>).
//
//	POST /api/v1/permissions                 RequestBody -> heartbeats, Answer (held open)
//	GET  /api/v1/permissions                 -> []PermissionView (pending only)
//	GET  /api/v1/permissions/{id}            -> PermissionDetail
//	POST /api/v1/permissions/{id}/decision   DecisionBody -> PermissionView
//	                                         (400 a decision that does not fit the request, saying why;
//	                                         404 unknown id, 409 already answered or withdrawn)
//	GET  /api/v1/permissions/events          NDJSON/SSE stream of PermissionChange
//	GET  /api/v1/dnd, POST /api/v1/dnd       DND{On}

// RequestKind says what the person is asked.
type RequestKind string

// Request kinds.
const (
	// KindPermission: may the agent run this tool call? Allow, deny,
	// always (apply a suggestion).
	KindPermission RequestKind = "permission"
	// KindQuestion: the agent asks something (AskUserQuestion, an MCP
	// elicitation). Shown with its questions and their options; answered
	// with behavior AnswerQuestions when the view says Answerable, else
	// in the agent's terminal. Never with a permission's allow or deny.
	KindQuestion RequestKind = "question"
	// KindPlan: ExitPlanMode's plan review: approved with Allow, sent back
	// to keep planning with Deny (and the person's message), or answered
	// in the terminal.
	KindPlan RequestKind = "plan"
)

// RequestBody is what the hook sends to register a request.
type RequestBody struct {
	// Event is the normalized permission.request / question.asked event.
	Event agents.Event `json:"event"`
	// Request is what the agent's hook says the request asks.
	agents.Request
	// WaitSeconds is how long the hook will wait: the runtime answers
	// before that.
	WaitSeconds int `json:"wait_seconds"`
}

// Behavior is what a client asks of a request (DecisionBody.Behavior).
type Behavior string

// Behaviors.
const (
	Allow Behavior = "allow"
	Deny  Behavior = "deny"
	// Terminal closes the request without a decision: the person answers
	// in the agent's own terminal.
	Terminal Behavior = "terminal"
	// AnswerQuestions answers a question with DecisionBody.Answers.
	AnswerQuestions Behavior = "answer"
)

// Answer is the runtime's reply to a RequestBody. Decision is nil for "no
// decision": the agent then asks in its own terminal (or, headless, does
// what it does by itself). Reason says why there is none.
type Answer struct {
	ID       string           `json:"id,omitempty"`
	Decision *agents.Decision `json:"decision"`
	Reason   string           `json:"reason,omitempty"`
}

// No-decision reasons.
const (
	ReasonDND       = "dnd"
	ReasonTimeout   = "timeout"
	ReasonWithdrawn = "withdrawn" // the request was closed by the agent or the person elsewhere
	ReasonHeadless  = "headless"  // headless session, policy says no decision
	ReasonBypass    = "bypass"    // permission_mode bypassPermissions/auto: clawd steps aside
	ReasonDisabled  = "disabled"  // permission handling is off for this agent
	ReasonNative    = "native"    // permission_mode "native": the agent's own prompt decides
	ReasonSubagent  = "subagent"  // subagent_permissions = false: a subagent's request, asked in the agent's terminal
	ReasonAgentOff  = "agent_off" // enabled = false: clawd ignores this agent
	ReasonShutdown  = "shutdown"  // the runtime is stopping
	ReasonTerminal  = "terminal"  // the person chose "answer in terminal"
)

// PermissionView is a pending (or just closed) request as lists show it:
// no full tool input, only a one-line summary.
type PermissionView struct {
	ID        string      `json:"id"`
	Kind      RequestKind `json:"kind"`
	Agent     string      `json:"agent"`
	SessionID string      `json:"session_id"`
	Title     string      `json:"title,omitempty"`
	Cwd       string      `json:"cwd,omitempty"`
	Tool      string      `json:"tool"`
	Summary   string      `json:"summary"`
	// Folder names where the request runs, for people: its repository's
	// name with the folder inside it ("clawd/runtime"), or outside a
	// repository (or on a remote machine) the folder's own name. Cwd is
	// the whole path.
	Folder string `json:"folder,omitempty"`
	// Description is what the agent says the call is for (Bash's
	// description), one line.
	Description string `json:"description,omitempty"`
	// URL and Prompt are a fetch's address and what it asks of the page.
	URL    string `json:"url,omitempty"`
	Prompt string `json:"prompt,omitempty"`
	// MCPServer and MCPTool name an MCP tool by its server and its own
	// name (Tool is the agent's name for it, "mcp__github__create_issue").
	MCPServer string `json:"mcp_server,omitempty"`
	MCPTool   string `json:"mcp_tool,omitempty"`
	// Diff is what the call would change in a file, worked out once when
	// the request came; nil for a call that changes none.
	Diff *Diff `json:"diff,omitempty"`
	// Suggestions are human labels of the offered "always" options, in
	// the order `clawd permissions always ID N` numbers them (from 1).
	Suggestions []string `json:"suggestions,omitempty"`
	// Options are the answers a question offers (AskUserQuestion's
	// option labels), shown so the person knows what the terminal will ask.
	Options []string `json:"options,omitempty"`
	// QuestionView says what a question or a plan asks, whole.
	QuestionView
	Headless bool `json:"headless,omitempty"`
	// SubagentID and SubagentType name the subagent that asks (Claude
	// Code's agent_id and agent_type, "Explore"); both empty for the
	// session's own requests.
	SubagentID   string    `json:"subagent_id,omitempty"`
	SubagentType string    `json:"subagent_type,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	// State is one of the Request states.
	State string `json:"state"`
}

// The states of a request (PermissionView.State): waiting for the
// person, answered (by a decision or a rule), withdrawn by the agent (its
// hook went away: answered in the terminal), or expired unanswered.
const (
	RequestPending   = "pending"
	RequestAnswered  = "answered"
	RequestWithdrawn = "withdrawn"
	RequestExpired   = "expired"
)

// QuestionView is what a question request asks, structured, and a plan
// request's plan: enough for a client to show them and to answer.
type QuestionView struct {
	// Questions are a question's questions, in order, when clawd read
	// them whole: their text, header and options with the exact labels an
	// answer names (display them through internal/text's policy; they are
	// the agent's words).
	Questions []agents.Question `json:"questions,omitempty"`
	// Answerable: clawd can hand the agent an answer to Questions
	// (behavior AnswerQuestions). Otherwise the person answers in the
	// agent's terminal (the agent's Supports.QuestionsInTerminal says
	// why).
	Answerable bool `json:"answerable,omitempty"`
	// Plan is a plan review's plan as the agent wrote it (Markdown), its
	// first MaxViewPlan bytes; PlanTruncated says there is more, which
	// PermissionDetail has whole.
	Plan          string `json:"plan,omitempty"`
	PlanTruncated bool   `json:"plan_truncated,omitempty"`
}

// MaxViewPlan bounds the plan a PermissionView carries: every view of the
// runtime carries its pending requests.
const MaxViewPlan = 16 << 10

// Diff is a file change as a unified diff, bounded (MaxDiffLines,
// MaxDiffBytes) and safe to show: every line is one line of the change
// through internal/text's CodeLine (indentation kept; control, format and
// bidi characters dropped).
type Diff struct {
	// Path is the file: relative to the request's repository (else its
	// folder) when it is inside, else as the agent named it.
	Path string `json:"path"`
	// Whole says the change writes the whole file, whose old content the
	// request does not hold: every line is added.
	Whole bool `json:"whole,omitempty"`
	// All says a replacement applies to every occurrence of its text,
	// not only the one shown.
	All bool `json:"all,omitempty"`
	// Lines are the diff's lines, each led by its kind: ' ' unchanged, '-'
	// removed, '+' added, '@' a hunk's or a file's header (its text the
	// agent's own, or none between two edits of one file).
	Lines []string `json:"lines"`
	// More counts the lines of the diff past the bound, not in Lines.
	More int `json:"more,omitempty"`
	// Cut says the change was larger than the request carries: Lines are
	// the diff of its start, or none when nothing of its text arrived.
	Cut bool `json:"cut,omitempty"`
}

// The bounds of a Diff.
const (
	MaxDiffLines = 200
	MaxDiffBytes = 16 << 10
)

// PermissionDetail adds the full input (or its truncated preview), and
// the whole plan (Plan, PlanTruncated false).
type PermissionDetail struct {
	PermissionView
	ToolInput      json.RawMessage   `json:"tool_input,omitempty"`
	InputTruncated bool              `json:"input_truncated,omitempty"`
	RawSuggestions []json.RawMessage `json:"raw_suggestions,omitempty"`
	Message        string            `json:"message,omitempty"`
}

// DecisionBody is what a client (CLI, tray, dashboard) sends to answer.
type DecisionBody struct {
	// Behavior is Allow, Deny, AnswerQuestions (a question's Answers) or
	// Terminal (close it here, answer in the agent's terminal). On a plan,
	// Allow approves it and Deny sends it back to keep planning, with
	// Message saying what to plan further.
	Behavior Behavior `json:"behavior"`
	// Suggestion applies offered suggestion N (1-based) with an allow.
	Suggestion int `json:"suggestion,omitempty"`
	// Message goes to the model with a deny: why, or, for a plan, what to
	// plan further ("keep planning").
	Message   string `json:"message,omitempty"`
	Interrupt bool   `json:"interrupt,omitempty"`
	// Answers answer a question (behavior AnswerQuestions): one per
	// PermissionView.Questions, in order, each the labels picked and the
	// person's own text; a zero one leaves its question unanswered. The
	// agent's Answer checks them against the questions.
	Answers []agents.Answer `json:"answers,omitempty"`
	// Via names the client that answers ("cli", "tray", "dashboard"),
	// for the log and the answer's record on the event stream
	// (PermissionAnswer.Source, see ClientSource). It is only recorded:
	// it grants nothing.
	Via string `json:"via,omitempty"`
}

// PermissionChange is one line of the permission change stream.
type PermissionChange struct {
	// Type is ChangeAdded or ChangeClosed (StreamLagged on the line that
	// says how many a slow reader lost).
	Type       string         `json:"type"`
	Permission PermissionView `json:"permission"`
	// Reason is set on ChangeClosed: answered, withdrawn, timeout, dnd, ...
	Reason string `json:"reason,omitempty"`
}

// PermissionChange types.
const (
	ChangeAdded  = "added"
	ChangeClosed = "closed"
	// ChangeUnshown, on the in-process feed only, is a request the
	// runtime answered "no decision" at once because it leaves the
	// agent's requests to the agent's own prompt (permission handling off,
	// or permission_mode "native"): the person still wants to hear that a
	// terminal waits for them.
	ChangeUnshown = "unshown"
)

// StreamLagged is the type (permission stream) or kind (event stream) of
// the line that tells a reader too slow for a stream how many lines it
// lost: {"type": "stream.lagged", "dropped": N}.
const StreamLagged = "stream.lagged"

// DND is the do-not-disturb setting.
type DND struct {
	On bool `json:"on"`
	// NotificationsPausedUntil is set while desktop notifications are
	// paused (the tray's "Pause notifications for 1 h"); read only.
	NotificationsPausedUntil *time.Time `json:"notifications_paused_until,omitempty"`
}

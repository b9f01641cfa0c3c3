// Package agents is the registry of the coding agents clawd supports: for
// each one its id, where its settings live, which hook events it fires, how a
// hook payload maps onto clawd's normalized Event, and the exact "no decision"
// answer it expects on stdout. It is pure data and functions: no I/O.
package agents

import (
	"sync"
	"time"
)

// Kind is the normalized name of something that happened in an agent
// session. Every agent's hook events map onto this one vocabulary, so the
// state machine, the event stream and the automations never need to know
// which agent spoke.
type Kind string

// The normalized event kinds.
const (
	KindSessionStart Kind = "session.start"
	KindSessionEnd   Kind = "session.end"
	KindSetup        Kind = "session.setup"
	// KindSessionUpdate is the agent changing what it knows of a session
	// (its title): the state stays as it was.
	KindSessionUpdate   Kind = "session.update"
	KindPromptSubmit    Kind = "prompt.submit"
	KindPromptExpansion Kind = "prompt.expansion"
	// KindPromptContinue: the agent sends a turn's tool results back to
	// the model; the same turn goes on (Qwen Code fires UserPromptSubmit
	// again, with an empty prompt, for it). Not a new turn: no title, and
	// nothing that reacts to a prompt does.
	KindPromptContinue    Kind = "prompt.continue"
	KindToolStart         Kind = "tool.start"
	KindToolEnd           Kind = "tool.end"
	KindToolFailure       Kind = "tool.failure"
	KindToolBatch         Kind = "tool.batch"
	KindPermissionRequest Kind = "permission.request"
	KindPermissionDenied  Kind = "permission.denied"
	// KindPermissionGranted is the person allowing a call in the agent's
	// own dialog, where the agent reports it (opencode's
	// permission.replied): the request is settled and the call goes on.
	KindPermissionGranted Kind = "permission.granted"
	KindQuestion          Kind = "question.asked"
	KindQuestionAnswered  Kind = "question.answered"
	KindNotification      Kind = "notification"
	KindSubagentStart     Kind = "subagent.start"
	KindSubagentStop      Kind = "subagent.stop"
	KindCompactStart      Kind = "compact.start"
	KindCompactEnd        Kind = "compact.end"
	KindTurnEnd           Kind = "turn.end"
	KindTurnFailure       Kind = "turn.failure"
	KindCwdChange         Kind = "cwd.change"
	KindModelSwitch       Kind = "model.switch"
	KindModelSwitched     Kind = "model.switched"
	KindConfigChange      Kind = "config.change"
	KindFileChange        Kind = "file.change"
	KindDirectoryAdd      Kind = "directory.add"
	KindInstructionsLoad  Kind = "instructions.load"
	KindMessage           Kind = "message.display"
	KindWorktreeCreate    Kind = "worktree.create"
	KindWorktreeRemove    Kind = "worktree.remove"
	KindTaskCreate        Kind = "task.create"
	KindTaskComplete      Kind = "task.complete"
	KindTeammateIdle      Kind = "teammate.idle"
	// KindModelRequest: the agent is about to call its model.
	KindModelRequest Kind = "model.request"
	// KindModelResponse: (part of) the model's answer arrived.
	KindModelResponse Kind = "model.response"
	// KindCompactCheck: the agent checks whether its context needs
	// compacting, which it may then not do (Gemini's PreCompress, fired
	// before every model call). Not a compaction: see KindCompactStart.
	KindCompactCheck Kind = "compact.check"
	// KindState is an event that carries an explicit display state instead
	// of a lifecycle fact: what a custom script posting the original app's
	// POST /state body sends.
	KindState Kind = "state"
)

// kinds holds every normalized kind, built on first use.
var kinds = sync.OnceValue(func() map[Kind]bool {
	kinds := map[Kind]bool{}
	for _, k := range []Kind{KindSessionStart, KindSessionEnd, KindSetup, KindSessionUpdate, KindPromptSubmit,
		KindPromptExpansion, KindPromptContinue, KindToolStart, KindToolEnd, KindToolFailure, KindToolBatch,
		KindPermissionRequest, KindPermissionDenied, KindPermissionGranted, KindQuestion, KindQuestionAnswered,
		KindNotification, KindSubagentStart, KindSubagentStop, KindCompactStart,
		KindCompactEnd, KindTurnEnd, KindTurnFailure, KindCwdChange, KindModelSwitch,
		KindModelSwitched, KindConfigChange, KindFileChange, KindDirectoryAdd,
		KindInstructionsLoad, KindMessage, KindWorktreeCreate, KindWorktreeRemove,
		KindTaskCreate, KindTaskComplete, KindTeammateIdle, KindModelRequest, KindModelResponse,
		KindCompactCheck, KindState} {
		kinds[k] = true
	}
	return kinds
})

// Valid reports whether k is one of the normalized kinds.
func (k Kind) Valid() bool { return kinds()[k] }

// Notice is what an agent's notification means, in clawd's words: the
// decoders map each agent's own notification types onto these.
type Notice string

// Notices.
const (
	// NoticeDialog: the agent shows a permission dialog.
	NoticeDialog Notice = "dialog"
	// NoticeQuestion: the agent shows a question dialog.
	NoticeQuestion Notice = "question"
	// NoticeAnswered: a question dialog was answered or closed.
	NoticeAnswered Notice = "answered"
	// NoticeIdle: the agent has waited for the next prompt for a while;
	// nothing runs and no dialog is open.
	NoticeIdle Notice = "idle"
	// NoticeOther: anything else worth a glance.
	NoticeOther Notice = "other"
)

// TitleSource says where a session title came from. The person's title
// wins over the agent's own (a rename in the agent, an AI title, a thread
// name), which wins over one derived from a prompt (see Titles).
type TitleSource string

// Title sources. Events carry the agent's and the prompt's; only the
// person, through the runtime's API, gives TitleFromPerson.
const (
	TitleFromPerson TitleSource = "person"
	TitleFromAgent  TitleSource = "agent"
	TitleFromPrompt TitleSource = "prompt"
)

// Event is one normalized thing that happened in an agent session. It is
// what `clawd hook` sends to the runtime and what `clawd events` prints.
//
// It deliberately carries no prompt text, tool input or output, assistant
// messages or file contents: only ids, tool names, paths, a derived title and
// short enum-like words reported by the agent. These events end up in
// terminals, logs and screenshots.
type Event struct {
	Agent     string    `json:"agent"`
	Kind      Kind      `json:"kind"`
	SessionID string    `json:"session_id"`
	Time      time.Time `json:"time"`
	// HookEvent is the agent's own name for the event (Claude's
	// hook_event_name), kept for logs and debugging.
	HookEvent string `json:"hook_event,omitempty"`

	// TurnID is the agent's own id of the turn, where it has one (Claude's
	// prompt_id, Codex's turn_id): what a turn's automation events are
	// keyed by.
	TurnID string `json:"turn_id,omitempty"`

	Cwd        string `json:"cwd,omitempty"`
	ProjectDir string `json:"project_dir,omitempty"`
	// Transcript is the agent's own file of the session, where it names
	// one: Codex's rollout file (for a Codex SubagentStop, the
	// sub-agent's), Claude Code's and Qwen Code's transcripts, Gemini
	// CLI's chat file, Copilot CLI's workspace.yaml. The runtime reads the
	// session's metadata and titles from it (Agent.TitleFile).
	Transcript string `json:"transcript,omitempty"`

	ToolName  string `json:"tool_name,omitempty"`
	ToolUseID string `json:"tool_use_id,omitempty"`
	// ToolUseIDs lists the calls a batch event closes.
	ToolUseIDs []string `json:"tool_use_ids,omitempty"`
	// InputHash fingerprints the tool input (agent + tool + input) so a
	// permission request, which has no tool_use_id in Claude Code 2.1.328,
	// can be tied to the PreToolUse that announced the same call.
	InputHash string `json:"input_hash,omitempty"`

	SubagentID   string `json:"subagent_id,omitempty"`
	SubagentType string `json:"subagent_type,omitempty"`

	Title       string      `json:"title,omitempty"`
	TitleSource TitleSource `json:"title_source,omitempty"`

	// Source is SessionStart's source (startup, resume, clear, compact),
	// the compaction trigger, or where a setting changed.
	Source string `json:"source,omitempty"`
	// Reason is why a session ended (clear, prompt_input_exit, other, ...).
	Reason string `json:"reason,omitempty"`
	// NotificationType is the agent's own word for a notification
	// (Claude's permission_prompt, idle_prompt, ...), for people and logs;
	// Notice is what it means, for the state machine.
	NotificationType string `json:"notification_type,omitempty"`
	Notice           Notice `json:"notice,omitempty"`
	// ErrorKind classifies a failed turn (rate_limit, overloaded, ...).
	ErrorKind string `json:"error_kind,omitempty"`
	// ErrorText is the agent's own words for why a turn failed, as it
	// showed them to the person ("API Error: 429 …"), cut to MaxErrorLen:
	// an error of the agent or its API, never the model's answer.
	ErrorText string `json:"error_text,omitempty"`
	// Action is how a question was answered (accept, decline, cancel).
	Action string `json:"action,omitempty"`
	// State is the explicit display state of a KindState event.
	State string `json:"state,omitempty"`

	PermissionMode string `json:"permission_mode,omitempty"`
	// Interrupt is set when a tool failure was the person interrupting it.
	Interrupt bool `json:"interrupt,omitempty"`
	// BackgroundTasks counts background work (subagents, shells) still
	// running when a turn or subagent stopped.
	BackgroundTasks int `json:"background_tasks,omitempty"`

	// Headless marks sessions nobody watches (claude -p, SDK hosts).
	Headless bool `json:"headless,omitempty"`
	// AgentPID is the agent's own process, for liveness checks.
	AgentPID int `json:"agent_pid,omitempty"`
	// Truncated is set when the payload was larger than the hook's stdin
	// cap and only the fields before the cut could be read.
	Truncated bool `json:"truncated,omitempty"`

	// Host names the machine a session runs on when it is not the
	// runtime's own: a remote profile ("box") or a WSL distro
	// ("wsl:Ubuntu"). Only the runtime's profile ingress sets it (see
	// runtime.Ingress); an event that came over the socket is local.
	Host string `json:"host,omitempty"`
	// Distro is the WSL distro the hook ran in (WSL_DISTRO_NAME), as the
	// hook marks its events. The ingress of a WSL profile takes only its
	// own distro's events and shows them under Host.
	Distro string `json:"wsl_distro,omitempty"`

	// Response is the agent's final answer of a turn (Stop's
	// last_assistant_message), carried from the hook to the runtime for
	// automations that ask for it (response.committed) and nothing else:
	// the runtime takes it off the event as it arrives, so it is never
	// recorded, published or printed.
	Response string `json:"response,omitempty"`
}

// Limits on the fields of an Event, enforced by Validate and by the
// decoders, so one odd payload cannot bloat the runtime's memory or a
// terminal line.
const (
	MaxIDLen    = 256
	MaxPathLen  = 4096
	MaxErrorLen = 512
	MaxWordLen  = 64
	// MaxTitleLen bounds a session title: whole sentences of a first
	// prompt fit (the dashboard cuts them on screen only), and a title
	// stays one line of a menu or a log.
	MaxTitleLen = 120
	MaxBatchIDs = 256
	// MaxResponseLen caps Event.Response as the agent wrote it. The hook
	// cuts it further, so that the whole event fits MaxEventBody (see
	// Event.AppendJSONWithin). Decoding never makes JSON text longer, so
	// whatever fits MaxEventBody is within it.
	MaxResponseLen = 64 << 10
	// MaxEventBody caps an event's JSON on the way to the runtime: the
	// most the runtime reads of a posted event, and what the hook fits
	// each event into.
	MaxEventBody = 64 << 10
)

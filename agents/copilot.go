package agents

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/clawdhq/clawd/internal/lazy"
)

// GitHub Copilot CLI (npm @github/copilot, verified against 1.0.102), in
// its native hook format: camelCase events, payloads without the event's
// name (clawd's command carries it: `clawd hook copilot preToolUse`),
// sessionId, and timestamps in epoch milliseconds.
//
// Hook events and what they become (the display state is the state
// machine's):
//
//	sessionStart         prompt.expansion    thinking; title from initialPrompt. Copilot
//	                                         starts a session only when its first prompt is
//	                                         sent, and fires userPromptSubmitted for that
//	                                         prompt too, before or after this one: both
//	                                         mean "thinking", and only the latter is the
//	                                         turn (it counts once in history and recap)
//	                                         (session.start, idle, when it ever comes
//	                                         without a prompt)
//	userPromptSubmitted  prompt.submit       thinking; title from the prompt
//	preToolUse           tool.start          working
//	permissionRequest    permission.request  waiting, answered through clawd (flat
//	                                         {"behavior": ...}; the nested form Claude Code
//	                                         takes is ignored by Copilot)
//	postToolUse          tool.end            working
//	postToolUseFailure   tool.failure        error flash, then working
//	agentStop            turn.end            attention flash, then idle
//	errorOccurred        turn.failure        error flash, then idle (an API error: in
//	                                         copilot -p sessionEnd with reason "error" follows)
//	sessionEnd           session.end         removed
//	notification         notification        permission_prompt → waiting; decoded, not
//	                                         registered (see below)
//
// Not registered: notification (Copilot runs it alongside the other hooks,
// and it was seen to arrive after the agentStop it preceded, which would
// leave a finished session waiting; the permissionRequest before it says
// the same), subagentStart/subagentStop (a sub-agent's tool hooks come
// under a session id of its own, not verified), preCompact (no event
// follows a compaction, so the session would show sweeping for minutes).
//
// Tool calls carry no id: a permission request is tied to its call by the
// input's fingerprint (CopilotFingerprint).
var Copilot = &Agent{
	ID:       copilotID,
	Name:     "Copilot CLI",
	Aliases:  []string{"copilot-cli", "github-copilot"},
	Command:  "copilot",
	Package:  "@github/copilot",
	Supports: Supports{States: true, Permissions: true, Titles: true, Subagents: false, QuestionsInTerminal: copilotQuestions},
	Verified: VerifiedRealCLI,
	Tested:   []string{"1.0.102"},
	Notes: []string{
		"Copilot asks its permission hook before it applies --allow-all-tools, --allow-tool rules or approvals for the session, so clawd asks you for those calls too; COPILOT_ALLOW_ALL in Copilot's environment is honoured, or set permission_mode = \"native\" under [agents.copilot]",
		"a Copilot TUI shows in clawd from its first prompt on: Copilot starts the session, and its hooks, only then",
		"disableAllHooks in Copilot's settings turns its hooks off: clawd then sees nothing of its sessions",
		"subagents are not followed: Copilot's hooks for them are not verified",
	},
	Settings: "hooks/clawd.json, a file of clawd's own, in $COPILOT_HOME or ~/.copilot",
	// $COPILOT_HOME, else ~/.copilot; clawd's hook file in hooks/ there.
	ConfigDir: func(getenv Env) (string, error) {
		return configDir(getenv, "COPILOT_HOME", ".copilot", "Copilot CLI")
	},
	Hooks: []HookSpec{
		{Event: "sessionStart", Timeout: copilotStateTimeout},
		{Event: "userPromptSubmitted", Timeout: copilotStateTimeout},
		{Event: "preToolUse", Timeout: copilotStateTimeout},
		{Event: "permissionRequest", Timeout: CopilotPermissionTimeout, Blocking: true},
		{Event: "postToolUse", Timeout: copilotStateTimeout},
		{Event: "postToolUseFailure", Timeout: copilotStateTimeout},
		{Event: "agentStop", Timeout: copilotStateTimeout},
		{Event: "errorOccurred", Timeout: copilotStateTimeout},
		{Event: "sessionEnd", Timeout: copilotStateTimeout},
	},
	kinds:           copilotKinds,
	Decode:          decodeCopilot,
	DecodeTruncated: decodeCopilotTruncated,
	Describe:        copilotDescribe,
	BypassModes:     []string{CopilotAllowAll},
	NoDecision:      copilotNoDecision,
	Render:          copilotRender,
	// --resume takes an optional value: only --resume=ID is sure to take
	// the id as its (Copilot prints the same form when a session ends).
	Resume:    func(id string) []string { return []string{"--resume=" + id} },
	TitleFile: &TitleFile{Path: func(e *Event) string { return e.Transcript }, Whole: copilotWorkspaceTitle},
}

// copilotQuestions says why Copilot's questions are answered in its
// terminal. ask_user (the TUI's; not offered to copilot -p) fires
// preToolUse and no permissionRequest, in 1.0.102: a deny with a reason
// blocks it ("Denied by preToolUse hook: <reason>"), modifiedArgs
// rewrite its input (which holds no answer); the answers come only from
// its elicitation dialog (testdata/copilot/hooks/preToolUse.ask_user.json).
const copilotQuestions = "Copilot CLI takes the answers to its questions (ask_user) from its own dialog only: its preToolUse hook can block or rewrite one, not answer it"

// copilotSessionID matches the session ids Copilot names its session
// folders by; only such an id names a file path.
var copilotSessionID = lazy.Regexp(`^[A-Za-z0-9][A-Za-z0-9-]{0,127}$`)

// copilotWorkspace is the file Copilot CLI (1.0.102) keeps a session's
// name in, its session-state folder's workspace.yaml, which it rewrites:
// `name:` with `user_named: true` for the name --name or /rename gave,
// false for one Copilot gave itself. Offline that is the first prompt,
// word for word, written as its turn starts (naming by a model call needs
// a GitHub login: Copilot asks a bring-your-own-key provider nothing for
// it). "" when the hook's environment names no Copilot home or the id is
// no folder's name.
func copilotWorkspace(env Env, sessionID string) string {
	dir, err := configDir(env, "COPILOT_HOME", ".copilot", "Copilot CLI")
	if err != nil || !copilotSessionID().MatchString(sessionID) {
		return ""
	}
	return clip(filepath.Join(dir, "session-state", sessionID, "workspace.yaml"), MaxPathLen)
}

// copilotWorkspaceTitle reads workspace.yaml's name (a top-level scalar:
// plain, or quoted where plain would not read back; one folded onto
// indented lines is joined) and user_named. A name of several lines,
// which Copilot writes as a block scalar (its name for a first prompt of
// several lines is the whole prompt), says nothing.
func copilotWorkspaceTitle(data []byte, sessionID string) (string, bool, bool) {
	var name, id string
	var named, found bool
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		key, value, ok := strings.Cut(lines[i], ":")
		if !ok || strings.HasPrefix(key, " ") {
			continue
		}
		value = strings.TrimSpace(value)
		// A scalar folded onto the lines that follow, indented.
		for i+1 < len(lines) && strings.HasPrefix(lines[i+1], " ") {
			i++
			value += " " + strings.TrimSpace(lines[i])
		}
		switch key {
		case "id":
			id = value
		case "user_named":
			named = value == "true"
		case "name":
			name, found = yamlScalar(value)
		}
	}
	if !found || name == "" || id != "" && id != sessionID {
		return "", false, false
	}
	return name, named, true
}

// yamlScalar reads a one-line YAML scalar: plain, 'single' (” is a
// quote) or "double" (JSON's escapes). Block scalars, tags, anchors and
// escapes Go does not know say nothing.
func yamlScalar(v string) (string, bool) {
	switch {
	case v == "" || strings.ContainsAny(v[:1], "|>!&*[{"):
		return "", false
	case v[0] == '\'':
		if len(v) < 2 || v[len(v)-1] != '\'' {
			return "", false
		}
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'"), true
	case v[0] == '"':
		var s string
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			return "", false
		}
		return s, true
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return v, true
}

// copilotStateTimeout bounds a non-blocking hook on Copilot's side
// (timeoutSec). The hook bounds itself far tighter; this is only the
// backstop.
const copilotStateTimeout = 10

// CopilotPermissionTimeout is the agent-side timeout of Copilot's
// permissionRequest hook in seconds; the hook waits this minus
// PermissionWaitMargin. Past it Copilot goes on as without the hook.
const CopilotPermissionTimeout = 600

// CopilotAllowAll is the permission mode of a session whose Copilot runs
// with COPILOT_ALLOW_ALL: every tool is allowed, yet Copilot still asks
// its permissionRequest hook first (and would take a deny).
const CopilotAllowAll = "allow-all"

// copilotKinds maps Copilot's camelCase event names to a kind.
var copilotKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"sessionStart":        KindSessionStart,
		"userPromptSubmitted": KindPromptSubmit,
		"preToolUse":          KindToolStart,
		"permissionRequest":   KindPermissionRequest,
		"postToolUse":         KindToolEnd,
		"postToolUseFailure":  KindToolFailure,
		"agentStop":           KindTurnEnd,
		"errorOccurred":       KindTurnFailure,
		"sessionEnd":          KindSessionEnd,
		"notification":        KindNotification,
	}
})

// copilotNotices maps Copilot's notification_type words to clawd's.
var copilotNotices = map[string]Notice{
	"permission_prompt": NoticeDialog,
}

// CopilotFingerprint is Fingerprint for a Copilot tool call. Copilot's
// calls have no id, and its permissionRequest sends only part of the
// input preToolUse and postToolUse got (a shell call's command, without
// the model's description): an input with a string "command" is
// identified by that command alone, trimmed of surrounding whitespace,
// any other is hashed whole.
func CopilotFingerprint(tool string, input []byte) string {
	if c := gjson.GetBytes(input, "command"); c.Type == gjson.String {
		return Fingerprint(copilotID, tool, appendJSONString(nil, strings.TrimSpace(c.String())))
	}
	return Fingerprint(copilotID, tool, input)
}

func decodeCopilot(payload []byte, hookEvent string, env Env, now time.Time) (Event, error) {
	return decodeCopilotOpts(payload, hookEvent, env, now, false)
}

// decodeCopilotTruncated decodes the start of a payload cut at the hook's
// stdin cap. Copilot writes sessionId, timestamp, cwd and toolName before
// the bulky toolArgs and toolResult.
func decodeCopilotTruncated(prefix []byte, hookEvent string, env Env, now time.Time) (Event, error) {
	return decodeCopilotOpts(prefix, hookEvent, env, now, true)
}

func decodeCopilotOpts(b []byte, hookEvent string, env Env, now time.Time, truncated bool) (Event, error) {
	p, err := openPayload(b, truncated)
	if err != nil {
		return Event{}, err
	}
	get, str := p.get, p.str
	// The event is the command line's: the payloads do not name it,
	// except permissionRequest's hookName and the Claude-style name a
	// notification carries.
	name := hookEvent
	if name == "" {
		name = str("hookName", MaxWordLen)
	}
	if name == "" && str("hook_event_name", MaxWordLen) == "Notification" {
		name = "notification"
	}
	kind, ok := copilotKinds()[name]
	if !ok {
		return Event{}, fmt.Errorf("%w %q", ErrUnknownEvent, clip(name, MaxWordLen))
	}
	sid := str("sessionId", MaxIDLen)
	if sid == "" {
		return Event{}, ErrNoSession
	}
	e := Event{
		Agent:      copilotID,
		Kind:       kind,
		SessionID:  sid,
		Time:       now.UTC(),
		HookEvent:  name,
		Cwd:        str("cwd", MaxPathLen),
		ToolName:   str("toolName", MaxIDLen),
		ProjectDir: clip(env("COPILOT_PROJECT_DIR"), MaxPathLen),
		Transcript: copilotWorkspace(env, sid),
		Truncated:  truncated,
	}
	if ts := get("timestamp"); ts.Type == gjson.Number && ts.Num > 0 && ts.Num < 1e15 {
		e.Time = agentTime(time.UnixMilli(ts.Int()), now)
	}
	// Copilot sets COPILOT_LOADER_PID (the process that runs the session,
	// or the one supervising it) for an interactive session only: not with
	// -p/--prompt, --headless, --server or --acp.
	if pid, err := strconv.Atoi(env("COPILOT_LOADER_PID")); err == nil && pid > 0 {
		e.AgentPID = pid
	} else {
		e.Headless = true
	}
	if copilotTruthy(env("COPILOT_ALLOW_ALL")) {
		e.PermissionMode = CopilotAllowAll
	}

	switch name {
	case "sessionStart":
		e.Source = str("source", MaxWordLen)
		// The first prompt's title may be none (a credential's look):
		// the prompt still means "thinking".
		if p := get("initialPrompt").String(); strings.TrimSpace(p) != "" {
			e.Kind = KindPromptExpansion
			if t := PromptTitle(p); t != "" {
				e.Title, e.TitleSource = t, TitleFromPrompt
			}
		}
	case "userPromptSubmitted":
		if t := PromptTitle(get("prompt").String()); t != "" {
			e.Title, e.TitleSource = t, TitleFromPrompt
		}
	case "preToolUse", "postToolUse", "postToolUseFailure":
		if in := get("toolArgs"); in.Exists() && !truncated {
			e.InputHash = CopilotFingerprint(e.ToolName, []byte(in.Raw))
		}
	case "permissionRequest":
		if in := get("toolInput"); in.Exists() && !truncated {
			e.InputHash = CopilotFingerprint(e.ToolName, []byte(in.Raw))
		}
	case "notification":
		e.NotificationType = str("notification_type", MaxWordLen)
		e.Notice = cmp.Or(copilotNotices[e.NotificationType], NoticeOther)
	case "errorOccurred":
		e.ErrorKind = str("errorContext", MaxWordLen)
		e.ErrorText = copilotErrorText(get("error").Get("message"))
	case "sessionEnd":
		e.Reason = str("reason", MaxWordLen)
	}
	return e, nil
}

// copilotErrorText is why a Copilot turn failed: its error's message, or
// the message inside it when that is an upstream's JSON error body
// ({"message": "...", "type": ...}), as Copilot passes it on.
func copilotErrorText(m gjson.Result) string {
	if m.Type != gjson.String {
		return ""
	}
	s := strings.TrimSpace(m.String())
	if inner := gjson.Get(s, "message"); inner.Type == gjson.String && gjson.Valid(s) {
		s = strings.TrimSpace(inner.String())
	}
	return clip(s, MaxErrorLen)
}

// copilotTruthy reads a boolean environment variable the way Copilot
// reads COPILOT_ALLOW_ALL.
func copilotTruthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "1", "yes", "on", "y":
		return true
	}
	return false
}

// copilotDescribe says what a Copilot permissionRequest asks: its
// toolInput (the command alone, for a shell call).
func copilotDescribe(ev Event, payload []byte, cut bool) Request {
	r := Request{Kind: RequestPermission}
	if in := gjson.GetBytes(payload, "toolInput"); in.Exists() {
		r.ToolInput, r.InputTruncated = inputPreview(in.Raw, cut)
	}
	r.Summary = inputSummary(r.ToolInput)
	// Copilot CLI 1.0.102's permissionRequest carries the shell command
	// alone (the description is in preToolUse's toolArgs only): one is
	// read should a later release send it.
	r.Description = inputText(gjson.GetBytes(payload, "toolInput"), "description", maxDescription)
	return r
}

// copilotNoDecision prints nothing for every event: Copilot then goes on
// as without the hook (for permissionRequest: its own prompt, or in -p a
// denial), as the fixtures show, captured with a hook that printed
// nothing.
func copilotNoDecision(string) []byte { return nil }

// copilotDenyMessage is what the model is told when the person denied a
// call without saying why. Copilot passes it on as "Permission denied by a
// PermissionRequest hook: <message>".
const copilotDenyMessage = "Denied from clawd"

// copilotRender prints d as Copilot's permissionRequest answer, one line,
// in the flat forms verified against Copilot CLI 1.0.102
// (testdata/copilot/outputs/permissionRequest.allow.json, .deny.json).
// The nested form Claude Code reads is ignored by Copilot, in both of its
// config styles (permissionRequest.claude-style.IGNORED.json). Copilot has
// no "always" rules or interrupt for hooks: neither is sent. A nil
// decision or another event gives the no-decision answer.
func copilotRender(hookEvent string, d *Decision) []byte {
	if d == nil || hookEvent != "permissionRequest" {
		return copilotNoDecision(hookEvent)
	}
	out := struct {
		Behavior string `json:"behavior"`
		Message  string `json:"message,omitempty"`
	}{Behavior: "allow"}
	if !d.Allow {
		out.Behavior, out.Message = "deny", d.Message
		if strings.TrimSpace(out.Message) == "" {
			out.Message = copilotDenyMessage
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return copilotNoDecision(hookEvent)
	}
	return append(b, '\n')
}

const copilotID = "copilot"

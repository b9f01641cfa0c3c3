package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/clawdhq/clawd/internal/lazy"
)

// opencode (npm opencode-ai, verified against 1.18.33).
//
// opencode has no command hooks. clawd hooks it with a plugin, a JS file
// opencode loads from the plugin/ folder of its config (installers
// writes it): opencode hands the plugin every bus event and a few hook
// calls, and the plugin runs `clawd hook opencode <event>` with the event
// as JSON on stdin, one process at a time, in order. The plugin picks and
// slims what it sends and adds a "clawd" object of its own: the project
// folder, opencode's pid, whether it runs as `opencode run` (headless),
// the root session of a subagent's and its agent name, and the tool
// call a permission belongs to.
//
// Events the plugin sends and what they become (the display state is the
// state machine's):
//
//	session.created       session.start        idle; a child session (the task
//	                                           tool's): subagent.start, juggling
//	session.updated       session.update       the title opencode gave the session
//	chat.message          prompt.submit        thinking; title from the prompt
//	                                           (a subagent's prompt: juggling)
//	message.part.updated  tool.start           a tool part running: working
//	                      tool.end             completed: working
//	                      tool.failure         error: error flash, then working
//	                      permission.denied    error because the person rejected it
//	permission.asked      permission.request   waiting (blocking: the person's answer
//	                                           goes back as once, always or reject)
//	permission.replied    permission.granted   working (once, always)
//	                      permission.denied    working (reject)
//	session.status        turn.end             idle: attention flash, then idle;
//	                                           a subagent's: subagent.stop
//	                      notification         retry: the model API failed, opencode retries
//	session.idle          turn.end             as session.status idle (the plugin sends one)
//	session.error         turn.failure         error flash, then idle; an abort
//	                                           (Esc): turn.end, reason interrupt
//	session.deleted       session.end          removed; a child's: subagent.stop
//	dispose               session.end          opencode exits: every session it ran
//	question.asked        question.asked       waiting (blocking: the question tool's
//	                                           questions; the person's answers go back as
//	                                           the answers, or a rejection)
//
// A child session's events carry the child's id; the decoder files them
// under the root session with SubagentID set, as Codex's sub-agents are.
var Opencode = &Agent{
	ID:       opencodeID,
	Name:     "opencode",
	Command:  "opencode",
	Package:  "opencode-ai",
	Supports: Supports{States: true, Permissions: true, Titles: true, Subagents: true, AnswersQuestions: true},
	Verified: VerifiedRealCLI,
	Tested:   []string{"1.18.33"},
	Notes: []string{
		"clawd hooks opencode with a plugin (plugin/clawd.js in its config folder): opencode loads plugins when it starts, so restart a running opencode after installing",
		"opencode run rejects every permission request by itself at once (unless --auto): clawd shows those sessions as headless and answers nothing there; the TUI and opencode serve wait for clawd's answer",
		"an answer from clawd reaches opencode as once, always (the patterns opencode itself offers) or reject; a deny with a message rejects with that feedback to the model, a plain deny ends the turn",
		"opencode's question tool (the TUI's; opencode run denies it) is answered from clawd: its options, several for a multi-select, or text of one's own",
	},
	Settings: "plugin/clawd.js in $OPENCODE_CONFIG_DIR, else $XDG_CONFIG_HOME/opencode or ~/.config/opencode",
	// $OPENCODE_CONFIG_DIR (a config folder opencode reads besides the
	// global one), else $XDG_CONFIG_HOME/opencode, else ~/.config/opencode.
	ConfigDir: opencodeConfigDir,
	// The events the plugin sends, in the order they usually come; the
	// timeouts are the plugin's, after which it kills the hook process.
	Hooks: []HookSpec{
		{Event: "session.created", Timeout: opencodeStateTimeout},
		{Event: "session.updated", Timeout: opencodeStateTimeout},
		{Event: "chat.message", Timeout: opencodeStateTimeout},
		{Event: "message.part.updated", Timeout: opencodeStateTimeout},
		{Event: "permission.asked", Timeout: OpencodePermissionTimeout, Blocking: true},
		{Event: "permission.replied", Timeout: opencodeStateTimeout},
		{Event: "question.asked", Timeout: OpencodePermissionTimeout, Blocking: true},
		{Event: "session.status", Timeout: opencodeStateTimeout},
		{Event: "session.idle", Timeout: opencodeStateTimeout},
		{Event: "session.error", Timeout: opencodeStateTimeout},
		{Event: "session.deleted", Timeout: opencodeStateTimeout},
		{Event: "dispose", Timeout: opencodeStateTimeout},
	},
	kinds:           opencodeKinds,
	Decode:          decodeOpencode,
	DecodeTruncated: decodeOpencodeTruncated,
	Describe:        opencodeDescribe,
	NoDecision:      opencodeNoDecision,
	Render:          opencodeRender,
	Answer:          opencodeAnswer,
	Resume:          func(id string) []string { return []string{"--session", id} },
}

const opencodeID = "opencode"

// opencodeStateTimeout bounds a non-blocking hook process in the plugin,
// in seconds. The hook bounds itself far tighter; this is the backstop.
const opencodeStateTimeout = 10

// OpencodePermissionTimeout is how long, in seconds, the plugin lets
// the hook of a permission request wait before it kills it. opencode's
// own prompt waits for ever; the hook gives up PermissionWaitMargin
// sooner, and the runtime's own permission timeout usually well before.
const OpencodePermissionTimeout = 3600

// opencodeKinds maps the events the plugin sends to their usual kind, the
// v2 plugin's included (opencodeV2Kinds); the decoder picks another where
// the payload says so (a child session, a tool part's status, a reply, a
// status type).
var opencodeKinds = sync.OnceValue(func() map[string]Kind {
	kinds := map[string]Kind{
		"session.created":      KindSessionStart,
		"session.updated":      KindSessionUpdate,
		"chat.message":         KindPromptSubmit,
		"message.part.updated": KindToolStart,
		"permission.asked":     KindPermissionRequest,
		"permission.replied":   KindPermissionGranted,
		"session.status":       KindTurnEnd,
		"session.idle":         KindTurnEnd,
		"session.error":        KindTurnFailure,
		"session.deleted":      KindSessionEnd,
		"dispose":              KindSessionEnd,
		"question.asked":       KindQuestion,
	}
	for name, k := range opencodeV2Kinds() {
		if _, ok := kinds[name]; !ok {
			kinds[name] = k
		}
	}
	return kinds
})

// ErrNothingToShow reports an event of a kind clawd decodes that carries
// nothing it shows: a text part, a busy status, a subagent's error. The
// plugin does not send such events; the hook drops them.
var ErrNothingToShow = errors.New("event carries nothing clawd shows")

// opencodeDefaultTitle matches the titles opencode gives a session before
// it has one (its own isDefaultTitle).
var opencodeDefaultTitle = lazy.Regexp(`^(New session - |Child session - )\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

// opencodeRejected starts the error of a tool call the person rejected
// (opencode's PermissionRejectedError and PermissionCorrectedError).
const opencodeRejected = "The user rejected permission"

// opencodeAborted is the name of the error of a turn the person cut
// short (Esc).
const opencodeAborted = "MessageAbortedError"

// ReasonExit is the Reason of a session.end because the agent's process
// ended (opencode's dispose).
const ReasonExit = "exit"

func opencodeConfigDir(getenv Env) (string, error) {
	if d := getenv("OPENCODE_CONFIG_DIR"); d != "" {
		return d, nil
	}
	// As xdg-basedir, which opencode uses: the variable as it is set.
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "opencode"), nil
	}
	home := UserHome(getenv)
	if home == "" {
		return "", errors.New("cannot find opencode's settings: neither HOME nor OPENCODE_CONFIG_DIR nor XDG_CONFIG_HOME is set")
	}
	return filepath.Join(home, ".config", "opencode"), nil
}

func decodeOpencode(payload []byte, hookEvent string, env Env, now time.Time) (Event, error) {
	return decodeOpencodeOpts(payload, hookEvent, now, false)
}

// decodeOpencodeTruncated decodes the start of a payload cut at the
// hook's stdin cap: in practice a permission request for an edit whose
// diff is megabytes. The plugin writes its "clawd" object first, and
// opencode the session id and the permission before the metadata.
func decodeOpencodeTruncated(prefix []byte, hookEvent string, env Env, now time.Time) (Event, error) {
	return decodeOpencodeOpts(prefix, hookEvent, now, true)
}

func decodeOpencodeOpts(b []byte, hookEvent string, now time.Time, truncated bool) (Event, error) {
	p, err := openPayload(b, truncated)
	if err != nil {
		return Event{}, err
	}
	name := hookEvent
	if name == "" {
		name = p.str("type", MaxWordLen)
	}
	if name == "" && p.get("input").Exists() && p.get("output").Exists() {
		name = "chat.message" // the recorded form of the hook call
	}
	kind, ok := opencodeKinds()[name]
	if !ok {
		return Event{}, fmt.Errorf("%w %q", ErrUnknownEvent, clip(name, MaxWordLen))
	}
	props := p.get("properties")
	ctx := p.get("clawd")
	str := func(r gjson.Result, path string, max int) string {
		v := r.Get(path)
		if v.Type != gjson.String {
			return ""
		}
		return clip(v.String(), max)
	}

	// The session the event is about: a child session's events go to
	// its root, as a subagent's.
	sid := str(props, "sessionID", MaxIDLen)
	info := props.Get("info")
	switch name {
	case "session.created", "session.updated", "session.deleted":
		if id := str(info, "id", MaxIDLen); id != "" {
			sid = id
		}
	case "chat.message":
		sid = str(p.get("input"), "sessionID", MaxIDLen)
	case "message.part.updated":
		if sid == "" {
			sid = str(props, "part.sessionID", MaxIDLen)
		}
	}
	if sid == "" {
		return Event{}, ErrNoSession
	}
	root := str(ctx, "root", MaxIDLen)
	if root == "" {
		root = str(info, "parentID", MaxIDLen)
	}
	e := Event{
		Agent:     opencodeID,
		Kind:      kind,
		SessionID: sid,
		Time:      now.UTC(),
		HookEvent: name,
		Cwd:       str(info, "directory", MaxPathLen),
		Headless:  ctx.Get("headless").Bool(),
		Truncated: truncated,
	}
	if e.Cwd == "" {
		e.Cwd = str(ctx, "directory", MaxPathLen)
	}
	if pid := ctx.Get("pid").Int(); pid > 0 && pid < 1<<31 {
		e.AgentPID = int(pid)
	}
	child := root != "" && root != sid
	if child {
		e.SessionID, e.SubagentID = root, sid
		e.SubagentType = str(ctx, "agent", MaxIDLen)
		if e.SubagentType == "" {
			e.SubagentType = str(info, "agent", MaxIDLen)
		}
		if e.SubagentType == "" {
			// opencode's subagents all have an agent; an empty type
			// would read as Claude's internal compaction agent.
			e.SubagentType = "subagent"
		}
	}

	switch name {
	case "session.created":
		if child {
			e.Kind = KindSubagentStart
		} else {
			e.Title, e.TitleSource = opencodeTitle(str(info, "title", 1024))
		}
	case "session.updated":
		if !child {
			e.Title, e.TitleSource = opencodeTitle(str(info, "title", 1024))
		}
	case "session.deleted":
		if child {
			e.Kind = KindSubagentStop
		} else {
			e.Reason = "deleted"
		}
	case "dispose":
		e.Reason = ReasonExit
	case "chat.message":
		if !child {
			if t := PromptTitle(opencodePrompt(p.get("output").Get("parts"))); t != "" {
				e.Title, e.TitleSource = t, TitleFromPrompt
			}
		}
	case "message.part.updated":
		part := props.Get("part")
		if part.Get("type").String() != "tool" {
			return Event{}, fmt.Errorf("%w: a %s part", ErrNothingToShow, clip(part.Get("type").String(), MaxWordLen))
		}
		e.ToolName = str(part, "tool", MaxIDLen)
		e.ToolUseID = str(part, "callID", MaxIDLen)
		switch status := part.Get("state.status").String(); status {
		case "running":
			e.Kind = KindToolStart
		case "completed":
			e.Kind = KindToolEnd
		case "error":
			e.Kind = KindToolFailure
			if strings.HasPrefix(part.Get("state.error").String(), opencodeRejected) {
				e.Kind = KindPermissionDenied
			}
		default:
			return Event{}, fmt.Errorf("%w: a %s tool part", ErrNothingToShow, clip(status, MaxWordLen))
		}
	case "permission.asked":
		e.ToolName = str(props, "permission", MaxIDLen)
		e.ToolUseID = opencodeCallID(ctx, props.Get("tool.callID"), str(props, "id", MaxIDLen))
	case "question.asked":
		e.ToolName = opencodeQuestionTool
		e.ToolUseID = opencodeCallID(ctx, props.Get("tool.callID"), str(props, "id", MaxIDLen))
	case "permission.replied":
		e.Action = str(props, "reply", MaxWordLen)
		e.ToolUseID = opencodeCallID(ctx, gjson.Result{}, str(props, "requestID", MaxIDLen))
		switch e.Action {
		case "once", "always":
			e.Kind = KindPermissionGranted
		case "reject":
			e.Kind = KindPermissionDenied
		default:
			return Event{}, fmt.Errorf("%w: reply %q", ErrNothingToShow, e.Action)
		}
	case "session.status", "session.idle":
		typ := "idle"
		if name == "session.status" {
			typ = props.Get("status.type").String()
		}
		switch {
		case typ == "idle" && child:
			e.Kind = KindSubagentStop
		case typ == "idle":
			e.Kind = KindTurnEnd
		case typ == "retry" && !child:
			e.Kind, e.NotificationType, e.Notice = KindNotification, "retry", NoticeOther
		default:
			return Event{}, fmt.Errorf("%w: status %q", ErrNothingToShow, clip(typ, MaxWordLen))
		}
	case "session.error":
		if child {
			// The task tool hands a subagent's failure to the parent's
			// model; its session.idle follows.
			return Event{}, fmt.Errorf("%w: a subagent's error", ErrNothingToShow)
		}
		e.ErrorKind = str(props, "error.name", MaxWordLen)
		if e.ErrorKind == opencodeAborted {
			e.Kind, e.Reason = KindTurnEnd, ReasonInterrupt
		}
	}
	return e, nil
}

// opencodeCallID is the id a permission is keyed by: the tool call it
// belongs to (the plugin's note of it, else the request's own field),
// else the request's id.
func opencodeCallID(ctx, field gjson.Result, requestID string) string {
	if c := ctx.Get("callID"); c.Type == gjson.String && c.String() != "" {
		return clip(c.String(), MaxIDLen)
	}
	if field.Type == gjson.String && field.String() != "" {
		return clip(field.String(), MaxIDLen)
	}
	return requestID
}

// opencodeTitle cleans a title opencode gave a session; its placeholder
// ("New session - <time>") is none.
func opencodeTitle(t string) (string, TitleSource) {
	if opencodeDefaultTitle().MatchString(t) {
		return "", ""
	}
	if t = AgentTitle(t); t == "" {
		return "", ""
	}
	return t, TitleFromAgent
}

// opencodePrompt is the text of the first text part of a user message.
// `opencode run` hands over a message with spaces wrapped in double
// quotes: one pair around the whole text is taken off.
func opencodePrompt(parts gjson.Result) string {
	var text string
	parts.ForEach(func(_, part gjson.Result) bool {
		if part.Get("type").String() == "text" && !part.Get("synthetic").Bool() {
			text = part.Get("text").String()
			return false
		}
		return true
	})
	if len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"' {
		text = text[1 : len(text)-1]
	}
	return text
}

// opencodeQuestionTool is the tool whose questions question.asked
// carries.
const opencodeQuestionTool = "question"

// opencodeQuestionFields are the question tool's: multiple, and custom
// (an answer of one's own), true unless it says otherwise.
var opencodeQuestionFields = questionFields{multi: "multiple", custom: "custom", customDefault: true}

// opencodeDescribe says what a permission.asked asks: the command, file
// or pattern, and opencode's own "always" offer (the patterns it would
// allow from then on) as the one suggestion. A question.asked asks its
// questions.
func opencodeDescribe(ev Event, payload []byte, cut bool) Request {
	props := gjson.GetBytes(payload, "properties")
	if ev.HookEvent == "question.asked" {
		r := Request{Kind: RequestQuestion}
		if qs := props.Get("questions"); qs.Exists() {
			r.ToolInput, r.InputTruncated = inputPreview(`{"questions":`+qs.Raw+`}`, cut)
			if !cut {
				r.Questions = readQuestions(qs, opencodeQuestionFields)
			}
		}
		if len(r.Questions) > 0 {
			r.Summary = r.Questions[0].Text
		}
		return r
	}
	r := Request{Kind: RequestPermission}
	if m := props.Get("metadata"); m.Exists() {
		r.ToolInput, r.InputTruncated = inputPreview(m.Raw, cut)
	}
	for _, f := range []string{"command", "filepath", "filePath", "path", "url", "pattern", "query"} {
		if s := props.Get("metadata." + f); s.Type == gjson.String && s.String() != "" {
			r.Summary = s.String()
			break
		}
	}
	var patterns []string
	props.Get("patterns").ForEach(func(_, v gjson.Result) bool {
		if v.Type == gjson.String {
			patterns = append(patterns, v.String())
		}
		return true
	})
	if r.Summary == "" {
		r.Summary = strings.Join(patterns, ", ")
	}
	opencodeCard(&r, ev.ToolName, props.Get("metadata"))
	var always []string
	props.Get("always").ForEach(func(_, v gjson.Result) bool {
		if v.Type == gjson.String && v.String() != "" {
			always = append(always, v.String())
		}
		return true
	})
	if len(always) > 0 && !cut {
		s, err := json.Marshal(map[string]any{"reply": "always", "patterns": always})
		if err == nil {
			r.Suggestions = []json.RawMessage{s}
			r.SuggestionLabels = []string{"Always allow " + ev.ToolName + ": " + strings.Join(always, ", ")}
		}
	}
	return r
}

// opencodeCard adds to r what a person reads beside the summary, from
// the metadata opencode's tools ask with (read in opencode's bundled
// source): edit and write ask for "edit" with the file and a unified diff
// of the whole file they made themselves, webfetch with its url.
func opencodeCard(r *Request, permission string, meta gjson.Result) {
	switch permission {
	case "edit":
		if d := meta.Get("diff"); d.Type == gjson.String && d.String() != "" {
			r.Change = patchChange(meta.Get("filepath").String(), d.String())
		}
	case "webfetch":
		r.URL = inputText(meta, "url", maxURL)
	}
}

// opencodeNoDecision: `{}` for a permission request or a question, which
// the plugin reads as "no answer" (opencode's own prompt stays); nothing
// for the other events, whose output the plugin does not read.
func opencodeNoDecision(hookEvent string) []byte {
	if hookEvent == "permission.asked" || hookEvent == "question.asked" {
		return []byte("{}\n")
	}
	return nil
}

// opencodeAnswer gives the person's answers to a question.asked back as
// opencode takes them: per question, in order, the labels picked and the
// person's own text (the plugin posts them to /question/{id}/reply;
// opencode then tells the model `"<question>"="<answers joined by ", ">"`).
func opencodeAnswer(req Request, answers []Answer) (Decision, error) {
	if req.Kind != RequestQuestion || req.InputTruncated {
		return Decision{}, fmt.Errorf("%w: not a whole question.asked", ErrCannotAnswer)
	}
	if err := fitAnswers(req.Questions, answers); err != nil {
		return Decision{}, err
	}
	out := make([][]string, len(answers))
	for i, a := range answers {
		out[i] = append([]string{}, a.Labels...)
		if t := strings.TrimSpace(a.Text); t != "" {
			out[i] = append(out[i], t)
		}
	}
	return Decision{Allow: true, Answers: out}, nil
}

// opencodeRender prints d as the plugin's answer to a permission.asked,
// one line: {"reply":"once"}, {"reply":"always"} (an allow with the
// offered suggestion), {"reply":"reject"} or, with the person's message,
// {"reply":"reject","message":"..."}. The plugin sends the reply to
// opencode through its client; a message goes with it as feedback the
// model reads (and the turn goes on), a plain reject ends the turn.
func opencodeRender(hookEvent string, d *Decision) []byte {
	if d != nil && hookEvent == "question.asked" {
		return opencodeRenderAnswers(d)
	}
	if d == nil || hookEvent != "permission.asked" {
		return opencodeNoDecision(hookEvent)
	}
	var out struct {
		Reply   string `json:"reply"`
		Message string `json:"message,omitempty"`
	}
	switch {
	case d.Allow && len(d.UpdatedPermissions) > 0:
		out.Reply = "always"
	case d.Allow:
		out.Reply = "once"
	default:
		out.Reply, out.Message = "reject", strings.TrimSpace(d.Message)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return opencodeNoDecision(hookEvent)
	}
	return append(b, '\n')
}

// opencodeRenderAnswers prints d as the plugin's answer to a
// question.asked, one line: {"answers":[["label", ...], ...]}, which it
// posts to /question/{id}/reply, or {"reply":"reject"} for a deny, which
// it posts to /question/{id}/reject (opencode then ends the turn). An
// allow without answers is no decision.
func opencodeRenderAnswers(d *Decision) []byte {
	var out any = map[string]string{"reply": "reject"}
	if d.Allow {
		if len(d.Answers) == 0 {
			return opencodeNoDecision("question.asked")
		}
		out = map[string][][]string{"answers": d.Answers}
	}
	b, err := marshalJSON(out)
	if err != nil {
		return opencodeNoDecision("question.asked")
	}
	return append(b, '\n')
}

// opencode 2.x (#1039).
//
// opencode 2 loads a plugin only as a default-exported {id, setup}
// definition, registered by folder in opencode.json's "plugins" key (v1's
// "plugin" key, and the plugin/ folder clawd's v1 plugin sits in, are
// another loader's). clawd's v2 plugin (installers writes it, and
// registers it only where `opencode --version` says 2.x) subscribes to the
// v2 event stream, ctx.event.subscribe, whose vocabulary is new, and
// answers permissions through ctx.permission.hook("evaluate"). It runs
// `clawd hook opencode <type>` with the event slimmed to ids and names as
// {type, data, location, clawd} on stdin (v2's envelope; the folder is the
// envelope's location.directory). v2 runs plugins in a shared service, not
// the TUI's process: the plugin sends no pid.
//
// No opencode 2.x is on npm (opencode-ai's newest is 1.18.33): the v2
// parts are built from opencode's published v2 plugin API and the events a
// real opencode 2.0.15 was seen to send (verified: documented format,
// testdata/opencode/documented-v2-*).
//
//	session.created              session.start     idle; a child's (data.parentID):
//	                                               subagent.start
//	session.renamed              session.update    the title opencode gave it
//	session.step.started         prompt.submit     thinking (the first step of a turn;
//	                                               later steps: prompt.continue)
//	session.tool.called          tool.start        working
//	session.tool.success         tool.end          working
//	session.tool.error           tool.failure      error flash, then working
//	session.execution.succeeded  turn.end          attention flash, then idle; a
//	                                               child's: subagent.stop
//	session.execution.failed     turn.failure      error flash, then idle
//	session.error                turn.failure      as execution.failed
//	session.deleted              session.end       removed; a child's: subagent.stop
//	permission.evaluate          permission.request waiting (blocking: the answer goes
//	                                               back as the evaluation's decision)
//
// permission.evaluate is the plugin's name for an evaluation whose effect
// is "ask" (opencode calls the hook for those only that its rules leave to
// the person). The answer is {"decision":"allow"|"always"|"deny"}; with no
// answer the effect stays "ask" and opencode's own prompt asks.

// opencodeV2Hooks are the events the v2 plugin sends.
var opencodeV2Hooks = []HookSpec{
	{Event: "session.step.started", Timeout: opencodeStateTimeout},
	{Event: "session.renamed", Timeout: opencodeStateTimeout},
	{Event: "session.tool.called", Timeout: opencodeStateTimeout},
	{Event: "session.tool.success", Timeout: opencodeStateTimeout},
	{Event: "session.tool.error", Timeout: opencodeStateTimeout},
	{Event: "session.execution.succeeded", Timeout: opencodeStateTimeout},
	{Event: "session.execution.failed", Timeout: opencodeStateTimeout},
	{Event: OpencodeEvaluate, Timeout: OpencodePermissionTimeout, Blocking: true},
}

// OpencodeEvaluate is the v2 plugin's event for a permission evaluation
// that would ask the person.
const OpencodeEvaluate = "permission.evaluate"

// opencodeV2Kinds maps the v2 events to their usual kind, those v2
// shares with v1 (session.created, session.deleted, session.error)
// included.
var opencodeV2Kinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"session.created":             KindSessionStart,
		"session.renamed":             KindSessionUpdate,
		"session.step.started":        KindPromptSubmit,
		"session.tool.called":         KindToolStart,
		"session.tool.success":        KindToolEnd,
		"session.tool.error":          KindToolFailure,
		"session.execution.succeeded": KindTurnEnd,
		"session.execution.failed":    KindTurnFailure,
		"session.error":               KindTurnFailure,
		"session.deleted":             KindSessionEnd,
		OpencodeEvaluate:              KindPermissionRequest,
	}
})

// OpencodeV1Hooks returns the events the v1 plugin sends: Opencode.Hooks
// without the v2 plugin's.
func OpencodeV1Hooks() []HookSpec {
	var out []HookSpec
	for _, h := range Opencode.Hooks {
		if !slices.ContainsFunc(opencodeV2Hooks, func(v HookSpec) bool { return v.Event == h.Event }) {
			out = append(out, h)
		}
	}
	return out
}

// OpencodeV2Hooks returns the events the v2 plugin sends.
func OpencodeV2Hooks() []HookSpec { return slices.Clone(opencodeV2Hooks) }

// init adds the v2 plugin's events to Opencode's (opencodeKinds adds their
// kinds), and routes its payloads
// to the v2 decoder, describer and answers: v1's stay as they are.
func init() {
	Opencode.Hooks = append(Opencode.Hooks, opencodeV2Hooks...)
	decode, truncated, describe, render := Opencode.Decode, Opencode.DecodeTruncated, Opencode.Describe, Opencode.Render
	Opencode.Decode = func(b []byte, hookEvent string, env Env, now time.Time) (Event, error) {
		if opencodeIsV2(b, hookEvent, false) {
			return decodeOpencodeV2(b, hookEvent, now, false)
		}
		return decode(b, hookEvent, env, now)
	}
	Opencode.DecodeTruncated = func(b []byte, hookEvent string, env Env, now time.Time) (Event, error) {
		if opencodeIsV2(b, hookEvent, true) {
			return decodeOpencodeV2(b, hookEvent, now, true)
		}
		return truncated(b, hookEvent, env, now)
	}
	Opencode.Describe = func(ev Event, payload []byte, cut bool) Request {
		if ev.HookEvent == OpencodeEvaluate {
			return opencodeV2Describe(ev, payload, cut)
		}
		return describe(ev, payload, cut)
	}
	noDecision := Opencode.NoDecision
	Opencode.NoDecision = func(hookEvent string) []byte {
		if hookEvent == OpencodeEvaluate {
			return []byte("{}\n")
		}
		return noDecision(hookEvent)
	}
	Opencode.Render = func(hookEvent string, d *Decision) []byte {
		if hookEvent == OpencodeEvaluate {
			return opencodeV2Render(d)
		}
		return render(hookEvent, d)
	}
}

// opencodeIsV2 reports whether a payload is the v2 plugin's: an event
// only v2 has, or v2's envelope (data, no properties) for one both have.
func opencodeIsV2(b []byte, hookEvent string, truncated bool) bool {
	name := hookEvent
	if name == "" {
		name = gjson.GetBytes(b, "type").String()
	}
	if _, ok := opencodeV2Kinds()[name]; !ok {
		return false
	}
	if slices.ContainsFunc(opencodeV2Hooks, func(h HookSpec) bool { return h.Event == name }) {
		return true
	}
	if truncated {
		return gjson.GetBytes(b, "clawd.v").Int() == 2
	}
	return gjson.GetBytes(b, "data").IsObject() && !gjson.GetBytes(b, "properties").Exists()
}

// decodeOpencodeV2 decodes a payload of the v2 plugin: {type, data,
// location, clawd}. clawd holds the plugin's own notes: root (the root
// session of a child's), agent (a child's agent), first (the first step
// of a turn), headless.
func decodeOpencodeV2(b []byte, hookEvent string, now time.Time, truncated bool) (Event, error) {
	p, err := openPayload(b, truncated)
	if err != nil {
		return Event{}, err
	}
	name := hookEvent
	if name == "" {
		name = p.str("type", MaxWordLen)
	}
	kind, ok := opencodeV2Kinds()[name]
	if !ok {
		return Event{}, fmt.Errorf("%w %q", ErrUnknownEvent, clip(name, MaxWordLen))
	}
	data, ctx := p.get("data"), p.get("clawd")
	str := func(r gjson.Result, path string, max int) string {
		v := r.Get(path)
		if v.Type != gjson.String {
			return ""
		}
		return clip(v.String(), max)
	}
	sid := str(data, "sessionID", MaxIDLen)
	if sid == "" {
		return Event{}, ErrNoSession
	}
	e := Event{
		Agent:     opencodeID,
		Kind:      kind,
		SessionID: sid,
		Time:      now.UTC(),
		HookEvent: name,
		Cwd:       str(p.get("location"), "directory", MaxPathLen),
		Headless:  ctx.Get("headless").Bool(),
		Truncated: truncated,
	}
	root := str(ctx, "root", MaxIDLen)
	if root == "" {
		root = str(data, "parentID", MaxIDLen)
	}
	child := root != "" && root != sid
	if child {
		e.SessionID, e.SubagentID = root, sid
		if e.SubagentType = str(ctx, "agent", MaxIDLen); e.SubagentType == "" {
			e.SubagentType = "subagent"
		}
	}
	switch name {
	case "session.created":
		if child {
			e.Kind = KindSubagentStart
		}
	case "session.renamed":
		if child {
			return Event{}, fmt.Errorf("%w: a subagent's title", ErrNothingToShow)
		}
		if e.Title, e.TitleSource = opencodeTitle(str(data, "title", 1024)); e.Title == "" {
			return Event{}, fmt.Errorf("%w: no title", ErrNothingToShow)
		}
	case "session.step.started":
		if !ctx.Get("first").Bool() {
			e.Kind = KindPromptContinue
		}
	case "session.tool.called", "session.tool.success", "session.tool.error":
		e.ToolName = str(data, "name", MaxIDLen)
		e.ToolUseID = str(data, "id", MaxIDLen)
	case "session.execution.succeeded":
		if child {
			e.Kind = KindSubagentStop
		}
	case "session.execution.failed", "session.error":
		if child {
			// The task tool hands a subagent's failure to the parent.
			return Event{}, fmt.Errorf("%w: a subagent's error", ErrNothingToShow)
		}
		e.ErrorKind = str(data, "error.name", MaxWordLen)
		if e.ErrorKind == opencodeAborted {
			e.Kind, e.Reason = KindTurnEnd, ReasonInterrupt
		}
	case "session.deleted":
		if child {
			e.Kind = KindSubagentStop
		} else {
			e.Reason = "deleted"
		}
	case OpencodeEvaluate:
		e.ToolName = str(data, "action", MaxIDLen)
		e.ToolUseID = str(data, "source.id", MaxIDLen)
	}
	return e, nil
}

// opencodeV2Describe says what an evaluation asks: the action's resources
// (a command, a path) and, as the one suggestion, "always" for the action
// in this session (v2 has no rules a plugin could persist: the plugin
// remembers it while opencode runs).
func opencodeV2Describe(ev Event, payload []byte, cut bool) Request {
	r := Request{Kind: RequestPermission}
	data := gjson.GetBytes(payload, "data")
	var res []string
	data.Get("resources").ForEach(func(_, v gjson.Result) bool {
		if v.Type == gjson.String {
			res = append(res, v.String())
		}
		return true
	})
	if rs := data.Get("resources"); rs.Exists() {
		r.ToolInput, r.InputTruncated = inputPreview(`{"resources":`+rs.Raw+`}`, cut)
	}
	r.Summary = strings.Join(res, ", ")
	if !cut && ev.ToolName != "" {
		r.Suggestions = []json.RawMessage{json.RawMessage(`{"decision":"always"}`)}
		r.SuggestionLabels = []string{"Always allow " + ev.ToolName + " in this session"}
	}
	return r
}

// opencodeV2Render prints d as the plugin's answer to an evaluation:
// {"decision":"allow"}, {"decision":"always"} (an allow with the
// suggestion), {"decision":"deny"} or, with the person's message,
// {"decision":"deny","message":"..."}. No decision is {}: the effect
// stays "ask".
func opencodeV2Render(d *Decision) []byte {
	if d == nil {
		return []byte("{}\n")
	}
	var out struct {
		Decision string `json:"decision"`
		Message  string `json:"message,omitempty"`
	}
	switch {
	case d.Allow && len(d.UpdatedPermissions) > 0:
		out.Decision = "always"
	case d.Allow:
		out.Decision = "allow"
	default:
		out.Decision, out.Message = "deny", strings.TrimSpace(d.Message)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return []byte("{}\n")
	}
	return append(b, '\n')
}

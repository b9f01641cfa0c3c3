package codex

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/tidwall/gjson"
)

// parser turns the records of one rollout file, fed line by line in file
// order, into normalized events. It is pure: no I/O and no clock, only
// the records' own timestamps.
//
// A turn's prompt.submit is held back from task_started until the turn
// shows what it is: the person's message (which also gives the title), a
// tool call, or an agent message. A `/compact` runs as a turn of its own
// with no prompt, and Codex fires only PreCompact and PostCompact for it,
// then SessionStart with source "compact" before the next prompt; the
// monitor does the same, so its timeline matches the hooks'. The held
// event keeps task_started's time.
//
// While catching up on history (records older than cutoff) the parser
// only builds its state; when it goes live it first emits what that
// state says is going on (the session, the open turn, the running
// tools), then the records as they come.
type parser struct {
	path   string // the rollout file, Event.Transcript
	cutoff time.Time
	live   bool
	// title looks up session_index.jsonl's name for a thread, already
	// cleaned by agents.AgentTitle; nil when there is none.
	title func(threadID string) string
	out   []agents.Event

	meta     Meta
	haveMeta bool
	sid      string // the root session
	sub      string // this thread's id when it is a sub-agent's
	subType  string
	cwd      string
	headless bool
	lastTime time.Time
	rec      string // the record being fed: its type, or its payload's

	// items is set once the file holds item_completed records (Codex
	// 0.169 and later). A shell command, a patch or a multi-agent call
	// then ends with its item_completed, as PostToolUse does: the
	// *_output of an interrupted command or of one still running in the
	// background is no end.
	items bool

	turnOpen     bool
	turnStart    time.Time
	announced    bool   // the turn's prompt.submit went out
	prompt       string // the person's first line in this turn
	promptTitle  string // its title, "" for none (or a secret)
	compacting   bool
	compactTask  bool // this turn only compacts the context
	afterCompact bool
	subRunning   bool // a sub-agent's turn runs: subagent.start, no stop yet
	calls        []call
	seen         map[string]bool // call ids started in this turn

	sentTitle string
}

// call is a running tool call.
type call struct {
	id, tool, hash string
	t              time.Time
	rec            string
}

func newParser(path string, cutoff time.Time, title func(string) string) *parser {
	p := &parser{path: path, cutoff: cutoff, title: title, seen: map[string]bool{}}
	p.live = cutoff.IsZero()
	// A file whose session_meta never made it (cut at MaxLine) is still
	// followed, as the thread its name says.
	p.sid = threadFromName(path)
	return p
}

// threadFromName is the thread id in a rollout's file name,
// rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl.
func threadFromName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	const uuidLen = 36
	if len(base) < uuidLen || !strings.HasPrefix(base, "rollout-") {
		return ""
	}
	return clip(base[len(base)-uuidLen:], agents.MaxIDLen)
}

// take returns the events produced since the last take.
func (p *parser) take() []agents.Event {
	out := p.out
	p.out = nil
	return out
}

// line feeds one complete record, without its newline. The parser keeps
// nothing of b.
func (p *parser) line(b []byte) {
	if len(b) == 0 || b[0] != '{' {
		return
	}
	get := func(path string) gjson.Result { return gjson.GetBytes(b, path) }
	typ := get("type").String()
	switch typ {
	case "event_msg", "response_item", "session_meta", "compacted", "turn_context":
	default:
		// token_count, world_state, token_usage_record, ... say
		// nothing about what the session does.
		return
	}
	t := recordTime(b)
	if t.IsZero() {
		t = p.lastTime
	}
	p.lastTime = t
	p.rec = typ
	if !p.live && !t.IsZero() && !t.Before(p.cutoff) {
		p.goLive()
	}

	switch typ {
	case "session_meta":
		if m, ok := parseMeta(b); ok {
			p.sessionMeta(m, t)
		}
	case "turn_context":
		if c := get("payload.cwd"); c.Type == gjson.String && c.Str != "" {
			p.cwd = clip(c.Str, agents.MaxPathLen)
		}
	case "compacted":
		p.compactStart(t)
	case "event_msg":
		p.eventMsg(get, t)
	case "response_item":
		p.responseItem(get, t)
	}
}

func (p *parser) eventMsg(get func(string) gjson.Result, t time.Time) {
	p.rec = clip(get("payload.type").String(), agents.MaxWordLen)
	switch p.rec {
	case "task_started":
		p.startTurn(t)
	case "task_complete":
		errInfo := get("payload.error")
		failed := errInfo.Exists() && errInfo.Type != gjson.Null
		p.endTurn(t, failed, errorKind(errInfo))
	case "turn_aborted":
		p.abortTurn(t)
	case "item_completed":
		p.items = true
		p.itemCompleted(get, t)
	case "user_message":
		// Rollouts before 0.169 wrote the person's input as an event.
		p.userMessage(get("payload.message").String(), t)
	case "agent_message":
		p.announce(t)
	case "exec_command_begin":
		p.toolStart(get("payload.call_id").String(), "Bash", commandHash("Bash", commandText(get("payload.command"))), t)
	case "patch_apply_begin":
		p.toolStart(get("payload.call_id").String(), "apply_patch", "", t)
	case "mcp_tool_call_begin":
		name := "mcp__" + get("payload.invocation.server").String() + "__" + get("payload.invocation.tool").String()
		p.toolStart(get("payload.call_id").String(), name, "", t)
	case "web_search_begin":
		p.toolStart(get("payload.call_id").String(), "web_search", "", t)
	case "exec_command_end", "patch_apply_end", "mcp_tool_call_end", "web_search_end":
		p.toolEnd(get("payload.call_id").String(), t)
	case "context_compacted":
		p.compactEnd(t)
	}
}

func (p *parser) itemCompleted(get func(string) gjson.Result, t time.Time) {
	switch get("payload.item.type").String() {
	case "UserMessage":
		// Only what the person typed is written as a UserMessage item;
		// Codex's own context messages are response items only.
		var text string
		for _, c := range get("payload.item.content").Array() {
			if s := c.Get("text").String(); s != "" {
				text = s
				break
			}
		}
		p.userMessage(text, t)
	case "AgentMessage":
		p.announce(t)
	case "ContextCompaction":
		p.compactEnd(t)
	case "WebSearch":
		p.webSearch(get("payload.item.id").String(), t)
	default:
		// CommandExecution, FileChange, CollabAgentToolCall, ...: the
		// item's id is the call's call_id. A late item of an
		// interrupted command finds no open call.
		p.toolEnd(get("payload.item.id").String(), t)
	}
}

func (p *parser) responseItem(get func(string) gjson.Result, t time.Time) {
	p.rec = clip(get("payload.type").String(), agents.MaxWordLen)
	switch p.rec {
	case "message":
		if get("payload.role").String() != "user" {
			// The assistant's text is not an announcement: the
			// compaction turn writes its summary as one.
			return
		}
		text := get("payload.content.0.text").String()
		if !contextText(text) {
			p.userMessage(text, t)
		}
	case "function_call":
		name := toolName(get("payload.name").String(), get("payload.namespace").String())
		args := get("payload.arguments")
		var hash string
		if name == "Bash" {
			cmd := gjson.Get(args.String(), "cmd")
			if !cmd.Exists() {
				cmd = gjson.Get(args.String(), "command") // the older shell tool
			}
			hash = commandHash(name, commandText(cmd))
		} else if args.Type == gjson.String {
			hash = agents.CodexFingerprint(name, []byte(args.Str))
		}
		// Waiting for approval leaves no record: a heuristic would be
		// a Bash call whose arguments ask for
		// "sandbox_permissions":"require_escalated" and that has no
		// output yet. The monitor does not guess.
		p.toolStart(get("payload.call_id").String(), name, hash, t)
	case "custom_tool_call":
		name := clip(get("payload.name").String(), agents.MaxIDLen)
		var hash string
		if name == "apply_patch" {
			hash = commandHash(name, get("payload.input").String())
		}
		p.toolStart(get("payload.call_id").String(), name, hash, t)
	case "local_shell_call":
		p.toolStart(get("payload.call_id").String(), "Bash", commandHash("Bash", commandText(get("payload.action.command"))), t)
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		id := get("payload.call_id").String()
		if p.items && p.endsWithItem(id) {
			return
		}
		p.toolEnd(id, t)
	case "web_search_call":
		p.webSearch(get("payload.id").String(), t)
	}
}

// endsWithItem reports whether Codex writes an item_completed for the
// open call id when it really finishes.
func (p *parser) endsWithItem(id string) bool {
	for _, c := range p.calls {
		if c.id == id {
			return c.tool == "Bash" || c.tool == "apply_patch" || c.tool == "spawn_agent" ||
				strings.HasPrefix(c.tool, multiAgentNS)
		}
	}
	return false
}

// multiAgentNS is the namespace of Codex's sub-agent tools.
const multiAgentNS = "multi_agent_"

// toolName names a function call as Codex's hooks name it: every shell
// tool is "Bash"; otherwise the namespace is glued to the name
// ("multi_agent_v1wait_agent"), except spawn_agent, whose hooks say
// plain "spawn_agent" though its call carries the namespace too
// (testdata/codex/hooks/PreToolUse.spawn_agent.json).
func toolName(name, namespace string) string {
	switch name {
	case "exec_command", "shell", "shell_command", "container.exec", "local_shell":
		return "Bash"
	case "spawn_agent":
		return name
	}
	return clip(namespace+name, agents.MaxIDLen)
}

// commandText is a shell command as the Bash hook shows it: a string, or
// an argv joined with spaces.
func commandText(r gjson.Result) string {
	if r.IsArray() {
		var parts []string
		for _, a := range r.Array() {
			parts = append(parts, a.String())
		}
		return strings.Join(parts, " ")
	}
	return r.String()
}

// commandHash fingerprints a shell command or a patch as the hooks do
// their tool_input, {"command": cmd}, so a monitor event and a hook event
// of the same call carry the same InputHash.
func commandHash(tool, cmd string) string {
	if cmd == "" {
		return ""
	}
	in, err := json.Marshal(struct {
		Command string `json:"command"`
	}{cmd})
	if err != nil {
		return ""
	}
	return agents.CodexFingerprint(tool, in)
}

// contextText reports whether a user message is context Codex injects
// rather than something the person typed: <environment_context>,
// <user_instructions>, <turn_aborted>, <subagent_notification>,
// AGENTS.md instructions.
func contextText(s string) bool {
	s = strings.TrimSpace(s)
	return s == "" || strings.HasPrefix(s, "<") || strings.HasPrefix(s, "# AGENTS.md")
}

// errorKind is the word that classifies a failed turn: codex_error_info
// is a word ("internal_server_error") or an object keyed by one.
func errorKind(errInfo gjson.Result) string {
	info := errInfo.Get("codex_error_info")
	switch {
	case info.Type == gjson.String && info.Str != "":
		return clip(info.Str, agents.MaxWordLen)
	case info.IsObject():
		var k string
		info.ForEach(func(key, _ gjson.Result) bool {
			k = key.String()
			return false
		})
		if k != "" {
			return clip(k, agents.MaxWordLen)
		}
	}
	return "error"
}

func (p *parser) sessionMeta(m Meta, t time.Time) {
	again := p.haveMeta
	p.meta, p.haveMeta = m, true
	p.sid = m.SessionID
	p.cwd = m.Cwd
	p.headless = m.Headless()
	if m.Subagent() {
		p.sub = m.ThreadID
		p.subType = m.AgentRole
		if p.subType == "" {
			// What Codex's hooks send as agent_type for its default
			// agent; the state machine ignores a stop without one.
			p.subType = "default"
		}
		if !p.subRunning {
			p.subRunning = true
			p.emit(p.event(agents.KindSubagentStart, t, "session_meta"))
		}
		return
	}
	e := p.event(agents.KindSessionStart, t, "session_meta")
	e.Source = m.Source
	if again {
		// A second session_meta in the same file: the thread was
		// resumed and appended to.
		e.Source = "resume"
	}
	p.emit(e)
}

func (p *parser) startTurn(t time.Time) {
	p.turnOpen, p.turnStart = true, t
	p.announced, p.prompt, p.promptTitle = false, "", ""
	p.compacting, p.compactTask = false, false
	p.calls = p.calls[:0]
	clear(p.seen)
	if p.sub != "" && !p.subRunning {
		p.subRunning = true
		p.emit(p.event(agents.KindSubagentStart, t, "task_started"))
	}
}

// announce emits the turn's prompt.submit once the turn is known to be
// the person's (or the parent agent's, for a sub-agent).
func (p *parser) announce(t time.Time) {
	if !p.turnOpen {
		// Rollouts before 0.169 had no task_started.
		p.startTurn(t)
	}
	if p.announced || p.compactTask {
		return
	}
	p.announced = true
	if p.afterCompact && p.sub == "" {
		p.afterCompact = false
		e := p.event(agents.KindSessionStart, p.turnStart, "task_started")
		e.Source = "compact"
		p.emit(e)
	}
	p.emit(p.event(agents.KindPromptSubmit, p.turnStart, "task_started"))
}

// userMessage takes what the person said: the turn is theirs, and its
// first words may name the session.
func (p *parser) userMessage(s string, t time.Time) {
	if !p.turnOpen {
		p.startTurn(t)
	}
	if p.prompt == "" && !contextText(s) {
		// Only the first line makes the title: keep no more.
		if i := strings.IndexByte(s, '\n'); i >= 0 && strings.TrimSpace(s[:i]) != "" {
			s = s[:i]
		}
		p.prompt = clip(s, 1024)
		p.promptTitle = agents.PromptTitle(p.prompt)
	}
	p.announce(t)
}

func (p *parser) endTurn(t time.Time, failed bool, errKind string) {
	if !p.turnOpen {
		return
	}
	if p.compacting {
		p.compactEnd(t)
	}
	switch {
	case p.compactTask && !failed:
		// /compact ends with no Stop; the next turn opens with
		// SessionStart "compact", as the hooks do.
		p.afterCompact = p.sub == ""
	case p.sub != "":
		p.announce(t)
		p.subStop(t, "task_complete")
	default:
		if !p.compactTask {
			p.announce(t)
		}
		e := p.event(agents.KindTurnEnd, t, "task_complete")
		if failed {
			e.Kind, e.ErrorKind = agents.KindTurnFailure, errKind
		}
		p.emit(e)
	}
	p.closeTurn()
}

func (p *parser) abortTurn(t time.Time) {
	if !p.turnOpen {
		return
	}
	if p.compacting {
		p.compactEnd(t)
	}
	if !p.compactTask {
		p.announce(t)
	}
	if p.sub != "" {
		// A sub-agent's turn never ends its parent's.
		p.subStop(t, "turn_aborted")
	} else {
		e := p.event(agents.KindTurnEnd, t, "turn_aborted")
		e.Reason = agents.ReasonInterrupt
		p.emit(e)
	}
	p.closeTurn()
}

func (p *parser) subStop(t time.Time, hook string) {
	p.subRunning = false
	p.emit(p.event(agents.KindSubagentStop, t, hook))
}

func (p *parser) closeTurn() {
	p.turnOpen, p.announced, p.prompt, p.promptTitle = false, false, "", ""
	p.compactTask = false
	p.calls = p.calls[:0]
	clear(p.seen)
}

func (p *parser) toolStart(id, tool, hash string, t time.Time) {
	p.announce(t)
	id = clip(id, agents.MaxIDLen)
	if id != "" {
		if p.seen[id] {
			return // older rollouts announce a call twice
		}
		p.remember(id)
		if len(p.calls) == maxCalls {
			// A turn this busy lost some ends; forget its oldest.
			p.calls = append(p.calls[:0], p.calls[1:]...)
		}
		p.calls = append(p.calls, call{id: id, tool: tool, hash: hash, t: t, rec: p.rec})
	}
	e := p.event(agents.KindToolStart, t, "")
	e.ToolName, e.ToolUseID, e.InputHash = tool, id, hash
	p.emit(e)
}

// Bounds on what one turn of one file keeps.
const (
	maxCalls = 256
	maxSeen  = 4096
)

// remember marks a call id as started in this turn.
func (p *parser) remember(id string) {
	if len(p.seen) >= maxSeen {
		clear(p.seen)
	}
	p.seen[id] = true
}

// toolEnd ends an open call; a call ends once.
func (p *parser) toolEnd(id string, t time.Time) {
	for i, c := range p.calls {
		if c.id == id {
			p.calls = append(p.calls[:i], p.calls[i+1:]...)
			e := p.event(agents.KindToolEnd, t, "")
			e.ToolName, e.ToolUseID, e.InputHash = c.tool, c.id, c.hash
			p.emit(e)
			return
		}
	}
}

// webSearch is a hosted search: it starts and ends in one record (two,
// item_completed and web_search_call, for the same search in 0.169).
func (p *parser) webSearch(id string, t time.Time) {
	p.announce(t)
	id = clip(id, agents.MaxIDLen)
	if id != "" {
		if p.seen[id] {
			return
		}
		p.remember(id)
	}
	for _, k := range []agents.Kind{agents.KindToolStart, agents.KindToolEnd} {
		e := p.event(k, t, "")
		e.ToolName, e.ToolUseID = "web_search", id
		p.emit(e)
	}
}

func (p *parser) compactStart(t time.Time) {
	if p.compacting {
		return
	}
	p.compacting = true
	if p.turnOpen && !p.announced {
		p.compactTask = true
	}
	e := p.event(agents.KindCompactStart, t, "compacted")
	e.Source = p.compactTrigger()
	p.emit(e)
}

func (p *parser) compactEnd(t time.Time) {
	if !p.compacting {
		p.compactStart(t)
	}
	p.compacting = false
	e := p.event(agents.KindCompactEnd, t, "")
	e.Source = p.compactTrigger()
	p.emit(e)
}

// compactTrigger is what PreCompact calls the trigger: a turn of its own
// is the person's /compact; one inside a turn is Codex's own.
func (p *parser) compactTrigger() string {
	if p.compactTask || !p.turnOpen {
		return "manual"
	}
	return "auto"
}

// event is a new event of this file's thread. hook names the rollout
// record it stands for (HookEvent); "" is the record being fed.
func (p *parser) event(k agents.Kind, t time.Time, hook string) agents.Event {
	if hook == "" {
		hook = p.rec
	}
	e := agents.Event{
		Agent:      "codex",
		Kind:       k,
		SessionID:  p.sid,
		Time:       t,
		HookEvent:  hook,
		Cwd:        p.cwd,
		Transcript: clip(p.path, agents.MaxPathLen),
		Headless:   p.headless,
	}
	if p.sub != "" {
		e.SubagentID, e.SubagentType = p.sub, p.subType
	}
	return e
}

// emit records e if the parser is live. The session's title rides on
// every prompt.submit and on the first event after it changed.
func (p *parser) emit(e agents.Event) {
	if !p.live || e.SessionID == "" {
		return
	}
	if p.sub == "" {
		if t, src := p.currentTitle(); t != "" && (e.Kind == agents.KindPromptSubmit || t != p.sentTitle) {
			e.Title, e.TitleSource = t, src
			p.sentTitle = t
		}
	}
	p.out = append(p.out, e)
}

// currentTitle is the session's name from session_index.jsonl, else the
// title of this turn's prompt.
func (p *parser) currentTitle() (string, agents.TitleSource) {
	if p.title != nil && p.haveMeta {
		if t := p.title(p.meta.ThreadID); t != "" {
			return t, agents.TitleFromAgent
		}
	}
	if p.promptTitle != "" {
		return p.promptTitle, agents.TitleFromPrompt
	}
	return "", ""
}

// goLive ends the catch-up: what the history says is going on becomes
// events, with the times of the records that started it.
func (p *parser) goLive() {
	if p.live {
		return
	}
	p.live = true
	p.sentTitle = ""
	if !p.haveMeta {
		return
	}
	if p.sub == "" {
		e := p.event(agents.KindSessionStart, p.meta.Time, "session_meta")
		e.Source = p.meta.Source
		p.emit(e)
	} else if p.subRunning {
		p.emit(p.event(agents.KindSubagentStart, p.meta.Time, "session_meta"))
	}
	if !p.turnOpen {
		return
	}
	if p.compacting {
		e := p.event(agents.KindCompactStart, p.turnStart, "compacted")
		e.Source = p.compactTrigger()
		p.emit(e)
	}
	if p.announced {
		p.emit(p.event(agents.KindPromptSubmit, p.turnStart, "task_started"))
	}
	for _, c := range p.calls {
		e := p.event(agents.KindToolStart, c.t, c.rec)
		e.ToolName, e.ToolUseID, e.InputHash = c.tool, c.id, c.hash
		p.emit(e)
	}
}

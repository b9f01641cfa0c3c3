package agents

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// OpenClaw (npm openclaw, verified against 2026.9.6; it needs Node.js
// 24.16 or newer).
//
// OpenClaw has no command hooks. clawd hooks it with a native plugin of
// its own, a folder with a manifest (openclaw.plugin.json: activation
// onStartup, an empty configSchema) and a plain ESM module whose default
// export is the plugin object ({id, name, register}); installers writes
// the folder and names it in openclaw.json (plugins.load.paths and an
// entry under plugins.entries that keeps conversation access off). The
// plugin registers typed hooks with api.on and runs `clawd hook openclaw
// <event>` with a JSON object of its making on stdin, one process at a
// time, in order. That object is an allowlist: ids, the tool's name, the
// folder, OpenClaw's pid, the outcome of a model call as OpenClaw's words
// and whether an error was present; never a tool's params or result, an
// error's text or a message.
//
// Events the plugin sends and what they become:
//
//	session_start        session.start     idle
//	model_call_started   prompt.submit     thinking (the first model call of a run;
//	                                       later ones: prompt.continue)
//	before_tool_call     tool.start        working
//	after_tool_call      tool.end          working (tool.failure when an error
//	                                       was present)
//	before_compaction    compact.start     sweeping
//	after_compaction     compact.end       back to what it was
//	model_call_ended     turn.end          a model call that completed, once no
//	                                       other call, tool or compaction followed
//	                                       it for 1.5 s (the plugin's debounce):
//	                                       attention flash, then idle
//	                     turn.failure      a failed call; aborted or terminated:
//	                                       turn.end, reason interrupt
//	session_end          session.end       removed, for the reasons idle, daily,
//	                                       deleted and unknown; a new, reset or
//	                                       compaction session end carries on
//
// OpenClaw's before_tool_call could block a tool; clawd's plugin does not
// use it: OpenClaw asks through its own approvals, and a plugin that
// blocked would deny whenever clawd is away.
var OpenClaw = &Agent{
	ID:       openclawID,
	Name:     "OpenClaw",
	Command:  "openclaw",
	Package:  "openclaw",
	Supports: Supports{States: true},
	Verified: VerifiedRealCLI,
	Tested:   []string{"2026.9.6"},
	Notes: []string{
		"clawd hooks OpenClaw with a plugin (clawd-plugin/ in its state folder, named in openclaw.json): OpenClaw loads plugins when it starts, so restart a running gateway after installing",
		"clawd shows what OpenClaw does and answers nothing: OpenClaw's own approvals decide its tools",
		"OpenClaw says nothing of a turn's prompt to clawd's plugin (it sends no messages): its sessions have no titles",
	},
	Settings: "openclaw.json ($OPENCLAW_CONFIG_PATH, else in $OPENCLAW_STATE_DIR or ~/.openclaw) and clawd-plugin/ beside it",
	// $OPENCLAW_STATE_DIR, else ~/.openclaw.
	ConfigDir: func(getenv Env) (string, error) {
		return configDir(getenv, "OPENCLAW_STATE_DIR", ".openclaw", "OpenClaw")
	},
	// The events the plugin sends; the timeouts are the plugin's, after
	// which it kills the hook process.
	Hooks: []HookSpec{
		{Event: "session_start", Timeout: openclawStateTimeout},
		{Event: "model_call_started", Timeout: openclawStateTimeout},
		{Event: "before_tool_call", Timeout: openclawStateTimeout},
		{Event: "after_tool_call", Timeout: openclawStateTimeout},
		{Event: "before_compaction", Timeout: openclawStateTimeout},
		{Event: "after_compaction", Timeout: openclawStateTimeout},
		{Event: "model_call_ended", Timeout: openclawStateTimeout},
		{Event: "session_end", Timeout: openclawStateTimeout},
	},
	kinds:           openclawKinds,
	Decode:          decodeOpenClaw,
	DecodeTruncated: decodeOpenClawTruncated,
	NoDecision:      noOutput,
	Render:          stateOnlyRender(noOutput),
}

const openclawID = "openclaw"

// openclawStateTimeout bounds a hook process in the plugin, in seconds.
const openclawStateTimeout = 10

// OpenClawStopDebounce is how long after a completed model call the
// plugin waits for another call, a tool or a compaction before it reports
// the turn done: OpenClaw says nothing when a run settles.
const OpenClawStopDebounce = 1500 * time.Millisecond

// openclawEndReasons are the session_end reasons that end a session for
// clawd; OpenClaw's others (new, reset, compaction) go on in a session of
// the same conversation.
var openclawEndReasons = []string{"idle", "daily", "deleted", "unknown"}

var openclawKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"session_start":      KindSessionStart,
		"model_call_started": KindPromptSubmit,
		"before_tool_call":   KindToolStart,
		"after_tool_call":    KindToolEnd,
		"before_compaction":  KindCompactStart,
		"after_compaction":   KindCompactEnd,
		"model_call_ended":   KindTurnEnd,
		"session_end":        KindSessionEnd,
	}
})

// openclawShape is where the plugin's payload keeps what clawd reads: the
// names are the plugin's own (installers/openclaw_plugin.js).
var openclawShape = hookShape{
	agent:   openclawID,
	kinds:   openclawKinds,
	event:   []string{"type"},
	session: []string{"session_id", "session_key", "run_id"},
	cwd:     []string{"cwd"},
	tool:    []string{"tool_name"},
	toolUse: []string{"tool_call_id"},
}

func decodeOpenClaw(payload []byte, hookEvent string, env Env, now time.Time) (Event, error) {
	return decodeOpenClawOpts(payload, hookEvent, env, now, false)
}

// decodeOpenClawTruncated decodes the start of a payload cut at the
// hook's stdin cap; the plugin's payloads are small, ids first.
func decodeOpenClawTruncated(prefix []byte, hookEvent string, env Env, now time.Time) (Event, error) {
	return decodeOpenClawOpts(prefix, hookEvent, env, now, true)
}

func decodeOpenClawOpts(b []byte, hookEvent string, env Env, now time.Time, truncated bool) (Event, error) {
	e, p, err := openclawShape.decode(b, hookEvent, env, now, truncated)
	if err != nil {
		return Event{}, err
	}
	e.TurnID = p.str("run_id", MaxIDLen)
	e.Headless = p.get("headless").Bool()
	if pid := p.get("pid").Int(); pid > 0 && pid < 1<<31 {
		e.AgentPID = int(pid)
	}
	switch e.Kind {
	case KindPromptSubmit:
		if !p.get("first").Bool() {
			e.Kind = KindPromptContinue
		}
	case KindToolEnd:
		if p.get("error_present").Bool() {
			e.Kind = KindToolFailure
		}
	case KindTurnEnd:
		switch outcome := p.str("outcome", MaxWordLen); outcome {
		case "completed":
		case "error":
			switch kind := p.str("failure_kind", MaxWordLen); kind {
			case "aborted", "terminated":
				e.Reason = ReasonInterrupt
			default:
				e.Kind, e.ErrorKind = KindTurnFailure, kind
			}
		default:
			return Event{}, fmt.Errorf("%w: a model call's outcome %q", ErrNothingToShow, outcome)
		}
	case KindSessionEnd:
		e.Reason = p.str("reason", MaxWordLen)
		if e.Reason == "" {
			e.Reason = "unknown"
		}
		if !slices.Contains(openclawEndReasons, e.Reason) {
			return Event{}, fmt.Errorf("%w: a session end for %s goes on", ErrNothingToShow, e.Reason)
		}
	}
	return e, nil
}

// OpenClawConfig returns openclaw.json as OpenClaw finds it:
// $OPENCLAW_CONFIG_PATH, else openclaw.json in its state folder.
func OpenClawConfig(getenv Env) (string, error) {
	if p := getenv("OPENCLAW_CONFIG_PATH"); p != "" {
		return p, nil
	}
	d, err := OpenClaw.ConfigDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "openclaw.json"), nil
}

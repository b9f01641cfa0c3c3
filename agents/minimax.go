package agents

import (
	"path/filepath"
	"sync"
	"time"
)

// MiniMax Code (documented format: local plugins in <data dir>/plugins,
// the data dir $MINIMAX_DATA_DIR, else $MAVIS_DATA_DIR, else ~/.minimax;
// a plugin with a Claude-compatible manifest, .claude-plugin/plugin.json,
// whose hooks file has Claude Code's shape and payloads; a handler's
// timeout must be a whole number of seconds from 1 to 10, or MiniMax drops
// it). No runnable client here.
//
// Hook events and what they become (the display state is the state
// machine's):
//
//	SessionStart      session.start    idle
//	UserPromptSubmit  prompt.submit    thinking; title from the prompt
//	PreToolUse        tool.start       working
//	PostToolUse       tool.end         working
//	PreCompact        compact.start    sweeping
//	PostCompact       compact.end      back to what it was
//	Stop              turn.end         attention flash, then idle
//	SessionEnd        session.end      removed
//
// State only: at most 10 s a hook (3 s for all of SessionEnd's) leaves no
// time for a person to answer, so no event blocks. Not registered:
// SubagentStart and SubagentStop (their payloads' fields are not
// documented). MiniMax has no title of its own: the first prompt names
// the session, later ones do not rename it.
var MiniMax = &Agent{
	ID:       miniMaxID,
	Name:     "MiniMax Code",
	Aliases:  []string{"mcode", "minimax-code"},
	Command:  "mcode",
	Supports: Supports{States: true, Titles: true},
	Verified: VerifiedDocumented,
	Notes: []string{
		"tested from MiniMax Code's documented plugin format: there is no MiniMax Code to run here",
		"clawd's hooks come as a local plugin (plugins/clawd in MiniMax's data folder): if they do not fire, enable it in MiniMax Code (mcode plugin enable clawd@local)",
		"MiniMax gives a hook at most 10 s: clawd shows the session and answers nothing",
	},
	Settings: "the plugin plugins/clawd in $MINIMAX_DATA_DIR, $MAVIS_DATA_DIR or ~/.minimax (files of clawd's own)",
	ConfigDir: func(getenv Env) (string, error) {
		for _, k := range []string{"MINIMAX_DATA_DIR", "MAVIS_DATA_DIR"} {
			if d := getenv(k); filepath.IsAbs(d) {
				return d, nil
			}
		}
		return homeFolder(getenv, "MiniMax Code", ".minimax")
	},
	Hooks: []HookSpec{
		{Event: "SessionStart", Timeout: miniMaxTimeout},
		{Event: "SessionEnd", Timeout: miniMaxTimeout},
		{Event: "UserPromptSubmit", Timeout: miniMaxTimeout},
		{Event: "PreToolUse", Timeout: miniMaxTimeout},
		{Event: "PostToolUse", Timeout: miniMaxTimeout},
		{Event: "Stop", Timeout: miniMaxTimeout},
		{Event: "PreCompact", Timeout: miniMaxTimeout},
		{Event: "PostCompact", Timeout: miniMaxTimeout},
	},
	kinds: miniMaxKinds,
	Decode: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		e, _, err := claudeShape(miniMaxID, miniMaxKinds).decode(b, ev, env, now, false)
		return e, err
	},
	DecodeTruncated: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		e, _, err := claudeShape(miniMaxID, miniMaxKinds).decode(b, ev, env, now, true)
		return e, err
	},
	NoDecision: noOutput,
	Render:     stateOnlyRender(noOutput),
}

const miniMaxID = "minimax"

// miniMaxTimeout is the timeout clawd writes, in whole seconds: MiniMax
// drops a handler whose timeout is not 1 to 10, and gives all SessionEnd
// hooks 3 s together. The hook answers within 0.4 s.
const miniMaxTimeout = 2

var miniMaxKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"SessionStart":     KindSessionStart,
		"SessionEnd":       KindSessionEnd,
		"UserPromptSubmit": KindPromptSubmit,
		"PreToolUse":       KindToolStart,
		"PostToolUse":      KindToolEnd,
		"Stop":             KindTurnEnd,
		"PreCompact":       KindCompactStart,
		"PostCompact":      KindCompactEnd,
	}
})

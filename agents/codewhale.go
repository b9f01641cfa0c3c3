package agents

// CodeWhale (a DeepSeek-based coding agent). Known, not supported: none
// of CodeWhale's own documentation states its hooks. The one public
// account is a community fork of the original app (its
// hooks/codewhale-install.js and codewhale-hook.js): [[hooks.hooks]]
// tables (event, command, background, timeout_secs) under a [hooks] table
// with enabled = true in ~/.codewhale/config.toml, events session_start,
// session_end, message_submit, tool_call_before, tool_call_after,
// mode_change and on_error, and the context only in environment variables
// (DEEPSEEK_SESSION_ID, DEEPSEEK_TOOL_NAME, DEEPSEEK_WORKSPACE, ...), no
// payload on stdin but message_submit's. That fork itself is unsure the
// session id is set on every event (it caches the last one in a temp
// file, else makes one up), and no CodeWhale runs here to settle it, so
// clawd writes no installer on it.
var CodeWhale = &Agent{
	ID:          codeWhaleID,
	Name:        "CodeWhale",
	Command:     "codewhale",
	Unsupported: "no documentation of CodeWhale's states its hooks; the one public account (a fork of the original app) gives the context only in DEEPSEEK_* environment variables with no session id it can promise, and clawd writes no guessed installer",
	Settings:    "config.toml in ~/.codewhale (not edited: not supported)",
	ConfigDir: func(getenv Env) (string, error) {
		return homeFolder(getenv, "CodeWhale", ".codewhale")
	},
	NoDecision: noOutput,
	Render:     stateOnlyRender(noOutput),
}

const codeWhaleID = "codewhale"

package agents

// CodeWhale (a DeepSeek-based coding agent). Known, not supported: the
// original app hooks it through `[[hooks.hooks]]` tables in
// ~/.codewhale/config.toml and reads the context from environment
// variables (DEEPSEEK_SESSION_ID, DEEPSEEK_TOOL_NAME, ...), but no source
// here states the keys of those tables or the names of its events, and
// clawd writes no guessed installer.
var CodeWhale = &Agent{
	ID:          codeWhaleID,
	Name:        "CodeWhale",
	Command:     "codewhale",
	Unsupported: "no source states CodeWhale's hook table keys and event names, and clawd writes no guessed installer",
	Settings:    "config.toml in ~/.codewhale (not edited: not supported)",
	ConfigDir: func(getenv Env) (string, error) {
		return homeFolder(getenv, "CodeWhale", ".codewhale")
	},
	NoDecision: noOutput,
	Render:     stateOnlyRender(noOutput),
}

const codeWhaleID = "codewhale"

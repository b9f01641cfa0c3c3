package agents

import (
	"sync"
	"time"
)

// Kiro CLI (AWS; documented format: hooks live in each agent's
// configuration file, ~/.kiro/agents/<agent>.json, as
// "hooks": {"agentSpawn": [{"command": ...}], ...}; the payload names its
// event in hook_event_name and carries cwd, tool_name and tool_input, and
// no session id). No runnable client here: Kiro's CLI is not on npm.
//
// Kiro has no global hooks: clawd puts its handlers into every agent file
// there (but kiro_default.json, Kiro's own, and examples) and writes an
// agent of its own, clawd.json, for those who use Kiro's default agent:
// `kiro-cli --agent clawd`, or `/agent swap clawd`.
//
// Hook events and what they become (the display state is the state
// machine's):
//
//	agentSpawn        session.start    idle
//	userPromptSubmit  prompt.submit    thinking; title from the prompt, if sent
//	preToolUse        tool.start       working
//	postToolUse       tool.end         working
//	stop              turn.end         attention flash, then idle
//
// Kiro's payloads carry no session id: a Kiro session is the folder it
// runs in (two Kiros in one folder show as one session), and, as Kiro
// fires no session end, it goes by the state machine's stale rules.
var Kiro = &Agent{
	ID:       kiroID,
	Name:     "Kiro CLI",
	Aliases:  []string{"kiro-cli"},
	Command:  "kiro-cli",
	Supports: Supports{States: true, Titles: true},
	Verified: VerifiedDocumented,
	Notes: []string{
		"tested from Kiro's documented hook format: Kiro's CLI is not on npm, so it does not run here",
		"Kiro runs hooks per agent: clawd's are in each of your agents (~/.kiro/agents/*.json) and in its own agent, clawd (kiro-cli --agent clawd), which has all tools and nothing else of Kiro's default agent",
		"Kiro's hooks carry no session id: clawd shows one session per folder, and ends it when it has been idle long enough",
	},
	Settings: "every agent in ~/.kiro/agents (not kiro_default.json), and agents/clawd.json of clawd's own",
	ConfigDir: func(getenv Env) (string, error) {
		return homeFolder(getenv, "Kiro CLI", ".kiro", "agents")
	},
	Hooks: []HookSpec{
		{Event: "agentSpawn"},
		{Event: "userPromptSubmit"},
		{Event: "preToolUse"},
		{Event: "postToolUse"},
		{Event: "stop"},
	},
	kinds: kiroKinds,
	Decode: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeKiro(b, ev, env, now, false)
	},
	DecodeTruncated: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeKiro(b, ev, env, now, true)
	},
	NoDecision: noOutput,
	Render:     stateOnlyRender(noOutput),
}

const kiroID = "kiro"

var kiroKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"agentSpawn":       KindSessionStart,
		"userPromptSubmit": KindPromptSubmit,
		"preToolUse":       KindToolStart,
		"postToolUse":      KindToolEnd,
		"stop":             KindTurnEnd,
	}
})

// kiroShape reads Kiro's payloads: no session field, the folder stands in
// for one (decodeKiro).
var kiroShape = sync.OnceValue(func() hookShape {
	h := claudeShape(kiroID, kiroKinds)
	h.session = []string{"cwd"}
	h.defaultSession = "default"
	return h
})

func decodeKiro(b []byte, hookEvent string, env Env, now time.Time, truncated bool) (Event, error) {
	e, _, err := kiroShape().decode(b, hookEvent, env, now, truncated)
	return e, err
}

package agents

import (
	"path/filepath"
	"sync"
	"time"
)

// OMP, oh-my-pi (npm @oh-my-pi/pi-coding-agent, verified against 18.2.3;
// it runs on Bun).
//
// OMP is derived from Pi and keeps its extension API: it loads TypeScript
// extensions from the extensions/ folder of its active agent folder and
// hands them its lifecycle events. clawd hooks it with an extension of its
// own (installers writes it) that runs `clawd hook omp <event>` with a
// small JSON object of its making on stdin, one process at a time, in
// order, in the payload shape of clawd's Pi extension. Like Pi's, it only
// reports: it registers no blocking tool_call answer, so it never holds up
// a tool.
//
// Three things differ from Pi, all handled in the extension:
//
//   - OMP fires agent_end at every pause of its agent loop (a failed model
//     call it retries, queued follow-ups, background jobs), so agent_end
//     alone is no "done". A turn is done in two steps: session_stop (the
//     settled turn) makes a candidate, and the agent_end after it whose
//     willContinue is not true confirms it; only then does the extension
//     send agent_end.
//   - session_switch and session_branch move the terminal to another
//     session without shutting the one it leaves: the extension sends a
//     session_shutdown (reason switch or branch) for the session left,
//     then the new session's start.
//   - The community bridge clawd-on-desk-omp.ts reports the same events:
//     clawd refuses to install beside it (see OMPBridge).
//
// Events the extension sends and what they become:
//
//	session_start           session.start     idle
//	session_switch          session.start     idle (the session switched to)
//	session_branch          session.start     idle (the branch)
//	before_agent_start      prompt.submit     thinking; title from the prompt
//	tool_execution_start    tool.start        working
//	tool_execution_end      tool.end          working (tool.failure on an error)
//	session_before_compact  compact.start     sweeping
//	session_compact         compact.end       back to what it was
//	agent_end               turn.end          attention flash, then idle (confirmed
//	                                          completions only, see above)
//	session_shutdown        session.end       removed (also the session left by a
//	                                          switch or a branch)
var OMP = &Agent{
	ID:       ompID,
	Name:     "OMP",
	Aliases:  []string{"oh-my-pi"},
	Command:  "omp",
	Package:  "@oh-my-pi/pi-coding-agent",
	Supports: Supports{States: true, Titles: true},
	Verified: VerifiedRealCLI,
	Tested:   []string{"18.2.3"},
	Notes: []string{
		"clawd hooks OMP with an extension (extensions/clawd.ts in its active agent folder): OMP loads extensions when it starts, so restart a running OMP after installing",
		"OMP runs tools without asking: clawd shows what it does and answers nothing, never blocking a tool",
		"clawd does not install beside the community bridge extensions/" + OMPBridge + ", which reports the same events: remove it first",
	},
	Settings:  "extensions/clawd.ts in OMP's agent folder: $PI_CODING_AGENT_DIR, else ~/<$PI_CONFIG_DIR or .omp>/agent",
	ConfigDir: ompAgentDir,
	// The events the extension sends; the timeouts are the extension's,
	// after which it kills the hook process.
	Hooks: []HookSpec{
		{Event: "session_start", Timeout: piStateTimeout},
		{Event: "session_switch", Timeout: piStateTimeout},
		{Event: "session_branch", Timeout: piStateTimeout},
		{Event: "before_agent_start", Timeout: piStateTimeout},
		{Event: "tool_execution_start", Timeout: piStateTimeout},
		{Event: "tool_execution_end", Timeout: piStateTimeout},
		{Event: "session_before_compact", Timeout: piStateTimeout},
		{Event: "session_compact", Timeout: piStateTimeout},
		{Event: "agent_end", Timeout: piStateTimeout},
		{Event: "session_shutdown", Timeout: piStateTimeout},
	},
	kinds:           ompKinds,
	Decode:          decodeOMP,
	DecodeTruncated: decodeOMPTruncated,
	NoDecision:      noOutput,
	Render:          stateOnlyRender(noOutput),
}

const ompID = "omp"

// OMPBridge is the file name of the community bridge
// (github.com/Crosery/clawd-on-desk-omp) in OMP's extensions folder: it
// posts the same lifecycle events to the original app, so OMP beside
// clawd's extension would report every event twice.
const OMPBridge = "clawd-on-desk-omp.ts"

var ompKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"session_start":          KindSessionStart,
		"session_switch":         KindSessionStart,
		"session_branch":         KindSessionStart,
		"before_agent_start":     KindPromptSubmit,
		"tool_execution_start":   KindToolStart,
		"tool_execution_end":     KindToolEnd,
		"session_before_compact": KindCompactStart,
		"session_compact":        KindCompactEnd,
		"agent_end":              KindTurnEnd,
		"session_shutdown":       KindSessionEnd,
	}
})

// ompShape is piShape for OMP: the extension writes the same fields.
var ompShape = func() hookShape {
	s := piShape
	s.agent, s.kinds = ompID, ompKinds
	return s
}()

// ompAgentDir is the agent folder OMP loads extensions from, as OMP
// resolves it: $PI_CODING_AGENT_DIR, else agent/ in the config root,
// ~/.omp, or the folder $PI_CONFIG_DIR names under the home (OMP joins
// it to the home even when it looks absolute). The one resolver of install,
// uninstall and doctor.
func ompAgentDir(getenv Env) (string, error) {
	if d := getenv("PI_CODING_AGENT_DIR"); d != "" {
		return filepath.Clean(d), nil
	}
	home := UserHome(getenv)
	if home == "" {
		return "", errNoHome("OMP", "PI_CODING_AGENT_DIR")
	}
	root := ".omp"
	if r := getenv("PI_CONFIG_DIR"); r != "" {
		root = r
	}
	return filepath.Join(home, root, "agent"), nil
}

func decodeOMP(payload []byte, hookEvent string, env Env, now time.Time) (Event, error) {
	return decodePiFamily(ompShape, payload, hookEvent, env, now, false)
}

// decodeOMPTruncated decodes the start of a payload cut at the hook's
// stdin cap (see decodePiTruncated).
func decodeOMPTruncated(prefix []byte, hookEvent string, env Env, now time.Time) (Event, error) {
	return decodePiFamily(ompShape, prefix, hookEvent, env, now, true)
}

package agents

import (
	"fmt"
	"path/filepath"
	"sync"
	"time"
)

// Pi (npm @mariozechner/pi-coding-agent, verified against 0.73.1).
//
// Pi has no command hooks; it loads TypeScript extensions from the
// extensions/ folder of its agent folder and hands them its lifecycle
// events. clawd hooks it with an extension of its own (installers writes
// it) that runs `clawd hook pi <event>` with a small JSON object of its
// making on stdin, one process at a time, in order. The extension only
// reports: it registers no tool_call handler, so it can neither block nor
// slow down a tool (Pi runs tools without asking, and its users asked for
// no layer that denies when clawd is away).
//
// Events the extension sends and what they become (the display state is
// the state machine's):
//
//	session_start           session.start     idle (reason startup, new, resume, fork, reload)
//	before_agent_start      prompt.submit     thinking; title from the prompt
//	tool_execution_start    tool.start        working
//	tool_execution_end      tool.end          working (tool.failure, an error flash,
//	                                          when Pi reports an error)
//	session_before_compact  compact.start     sweeping
//	session_compact         compact.end       back to what it was
//	agent_end               turn.end          attention flash, then idle
//	session_shutdown        session.end       removed (reason quit, new, resume, fork);
//	                                          a reload (the same session) is dropped
//
// A session is named by its first prompt, or by the name Pi gave it
// (pi.setSessionName, /name), which the extension sends with every event.
// With no UI (`pi -p`, --mode json or rpc) the session is headless.
var Pi = &Agent{
	ID:       piID,
	Name:     "Pi",
	Aliases:  []string{"pi-coding-agent"},
	Command:  "pi",
	Package:  "@mariozechner/pi-coding-agent",
	Supports: Supports{States: true, Titles: true},
	Verified: VerifiedRealCLI,
	Tested:   []string{"0.73.1"},
	Notes: []string{
		"clawd hooks Pi with an extension (extensions/clawd.ts in its agent folder): Pi loads extensions when it starts, so restart a running Pi after installing",
		"Pi runs tools without asking: clawd shows what it does and answers nothing, never blocking a tool",
	},
	Settings: "extensions/clawd.ts in $PI_CODING_AGENT_DIR or ~/.pi/agent",
	// $PI_CODING_AGENT_DIR, else ~/.pi/agent.
	ConfigDir: func(getenv Env) (string, error) {
		if d := getenv("PI_CODING_AGENT_DIR"); d != "" {
			return d, nil
		}
		home := UserHome(getenv)
		if home == "" {
			return "", errNoHome("Pi", "PI_CODING_AGENT_DIR")
		}
		return filepath.Join(home, ".pi", "agent"), nil
	},
	// The events the extension sends; the timeouts are the extension's,
	// after which it kills the hook process.
	Hooks: []HookSpec{
		{Event: "session_start", Timeout: piStateTimeout},
		{Event: "before_agent_start", Timeout: piStateTimeout},
		{Event: "tool_execution_start", Timeout: piStateTimeout},
		{Event: "tool_execution_end", Timeout: piStateTimeout},
		{Event: "session_before_compact", Timeout: piStateTimeout},
		{Event: "session_compact", Timeout: piStateTimeout},
		{Event: "agent_end", Timeout: piStateTimeout},
		{Event: "session_shutdown", Timeout: piStateTimeout},
	},
	kinds:           piKinds,
	Decode:          decodePi,
	DecodeTruncated: decodePiTruncated,
	NoDecision:      noOutput,
	Render:          stateOnlyRender(noOutput),
}

const piID = "pi"

// piStateTimeout bounds a hook process in the extension, in seconds. The
// hook bounds itself far tighter; this is the backstop.
const piStateTimeout = 10

var piKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"session_start":          KindSessionStart,
		"before_agent_start":     KindPromptSubmit,
		"tool_execution_start":   KindToolStart,
		"tool_execution_end":     KindToolEnd,
		"session_before_compact": KindCompactStart,
		"session_compact":        KindCompactEnd,
		"agent_end":              KindTurnEnd,
		"session_shutdown":       KindSessionEnd,
	}
})

// piShape is where the extension's payload keeps what clawd reads: the
// names are the extension's own (installers/pi_extension.ts).
var piShape = hookShape{
	agent:      piID,
	kinds:      piKinds,
	event:      []string{"type"},
	session:    []string{"session_id"},
	cwd:        []string{"cwd"},
	tool:       []string{"tool_name"},
	toolUse:    []string{"tool_call_id"},
	prompt:     []string{"prompt"},
	transcript: []string{"session_file"},
}

func decodePi(payload []byte, hookEvent string, env Env, now time.Time) (Event, error) {
	return decodePiOpts(payload, hookEvent, env, now, false)
}

// decodePiTruncated decodes the start of a payload cut at the hook's
// stdin cap; the extension writes the event, the session and the tool
// before the prompt, the only field that can be long.
func decodePiTruncated(prefix []byte, hookEvent string, env Env, now time.Time) (Event, error) {
	return decodePiOpts(prefix, hookEvent, env, now, true)
}

func decodePiOpts(b []byte, hookEvent string, env Env, now time.Time, truncated bool) (Event, error) {
	return decodePiFamily(piShape, b, hookEvent, env, now, truncated)
}

// decodePiFamily decodes the payload of an extension of clawd's for Pi or
// a Pi-derived agent (OMP): both write the same fields, shape says which
// agent's they are.
func decodePiFamily(shape hookShape, b []byte, hookEvent string, env Env, now time.Time, truncated bool) (Event, error) {
	e, p, err := shape.decode(b, hookEvent, env, now, truncated)
	if err != nil {
		return Event{}, err
	}
	e.Headless = p.get("headless").Bool()
	if pid := p.get("pid").Int(); pid > 0 && pid < 1<<31 {
		e.AgentPID = int(pid)
	}
	if t := AgentTitle(p.str("session_name", 1024)); t != "" {
		e.Title, e.TitleSource = t, TitleFromAgent
	}
	switch e.Kind {
	case KindSessionStart:
		e.Source = p.str("reason", MaxWordLen)
	case KindSessionEnd:
		e.Reason = p.str("reason", MaxWordLen)
		if e.Reason == "reload" {
			return Event{}, fmt.Errorf("%w: a reload keeps the session", ErrNothingToShow)
		}
	case KindToolEnd:
		if p.get("is_error").Bool() {
			e.Kind = KindToolFailure
		}
	}
	return e, nil
}

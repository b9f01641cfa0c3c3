package runtime

import (
	"log/slog"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// ignored reports whether the runtime drops e unseen: its agent is
// disabled (Config.AgentsDisabled). Nothing of it reaches the state
// machine, the event stream, the history or the automations; the agent's
// hooks still run, and get their usual answer.
func (s *Server) ignored(e *agents.Event) bool {
	return s.cfg.AgentsDisabled[e.Agent]
}

// subagentLeft reports whether e is a subagent's request that is left to
// the agent's own terminal (Config.SubagentPermissionsOff). A request
// without a subagent id is the session's own, even when it names an agent
// type (Claude Code's main thread of an --agent session does).
func (s *Server) subagentLeft(e *agents.Event) bool {
	return e.SubagentID != "" && s.cfg.SubagentPermissionsOff[e.Agent]
}

// immediateRule says which of the person's settings answers e with no
// decision at once, "" for none: the broker's rules (sessions.BrokerConfig.Rules).
func (s *Server) immediateRule(e *agents.Event) string {
	switch {
	case s.cfg.PermissionsDisabled[e.Agent]:
		return client.ReasonDisabled
	case s.cfg.Native != nil && s.cfg.Native(e.Agent, s.sessionKind(e)):
		return client.ReasonNative
	case s.subagentLeft(e):
		return client.ReasonSubagent
	}
	return ""
}

// notShownLevel is the log level of a request answered with no decision
// at once for reason: the gates the person set in config.toml fire on
// every request of the agent or subagent, so they log at debug.
func notShownLevel(reason string) slog.Level {
	switch reason {
	case client.ReasonAgentOff, client.ReasonSubagent:
		return slog.LevelDebug
	}
	return slog.LevelInfo
}

// Package present says how the runtime's sessions and requests read to a
// person: how urgent a session is, its state in words and as one of the
// tray's icons, an agent's display name, a request in one line. The tray's
// menu and the web dashboard both show sessions through it, so they sort
// and name them alike. It is pure: no I/O.
package present

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/statemachine"
	"github.com/clawdhq/clawd/tray/icons"
)

// Urgency orders sessions: whatever waits for the person first (0), then
// failures (1) and news (2), then work in progress (3), then the idle (4)
// and the rest (5).
func Urgency(s client.SessionView) int {
	if s.Pending > 0 {
		return 0
	}
	switch statemachine.State(s.State) {
	case statemachine.Waiting:
		return 0
	case statemachine.Error:
		return 1
	case statemachine.Notification, statemachine.Attention:
		return 2
	case statemachine.Juggling, statemachine.Working, statemachine.Thinking,
		statemachine.Sweeping, statemachine.Carrying:
		return 3
	case statemachine.Idle:
		return 4
	}
	return 5
}

// Sort orders sessions most urgent first; among equals the headless ones
// after their peers, then the most recently updated first.
func Sort(sessions []client.SessionView) {
	slices.SortFunc(sessions, func(a, b client.SessionView) int {
		return cmp.Or(
			cmp.Compare(Urgency(a), Urgency(b)),
			boolOrder(a.Headless, b.Headless),
			b.UpdatedAt.Compare(a.UpdatedAt),
			cmp.Compare(a.Agent, b.Agent),
			cmp.Compare(a.SessionID, b.SessionID),
		)
	})
}

func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// StateLabel says what a session does, in words.
func StateLabel(s client.SessionView) string {
	if s.Pending > 0 {
		return "needs you"
	}
	switch statemachine.State(s.State) {
	case statemachine.Waiting:
		return "needs you"
	case statemachine.Error:
		return "failed"
	case statemachine.Attention:
		return "done"
	case statemachine.Notification:
		return "has news"
	case statemachine.Working, statemachine.Carrying:
		if s.Tool != "" {
			return "working (" + s.Tool + ")"
		}
		return "working"
	case statemachine.Thinking:
		return "thinking"
	case statemachine.Juggling:
		if s.Subagents == 1 {
			return "juggling 1 subagent"
		}
		if s.Subagents > 1 {
			return fmt.Sprintf("juggling %d subagents", s.Subagents)
		}
		return "juggling"
	case statemachine.Sweeping:
		return "compacting"
	case statemachine.Idle:
		return "idle"
	case statemachine.Sleeping:
		return "ended"
	}
	return s.State
}

// StateIcon is the tray's icon of a display state; ok is false for a
// state that has none of its own (sleeping, or one the runtime added
// later).
func StateIcon(state string) (n icons.Name, ok bool) {
	switch statemachine.State(state) {
	case statemachine.Waiting, statemachine.Notification:
		return icons.NeedsYou, true
	case statemachine.Error:
		return icons.Error, true
	case statemachine.Attention:
		return icons.Done, true
	case statemachine.Juggling:
		return icons.Juggling, true
	case statemachine.Working, statemachine.Carrying:
		return icons.Working, true
	case statemachine.Thinking, statemachine.Sweeping:
		return icons.Thinking, true
	case statemachine.Idle:
		return icons.Idle, true
	}
	return "", false
}

// SessionIcon is the tray's icon for one session: a question when what
// it waits for is one (asks), else its state's.
func SessionIcon(s client.SessionView, asks bool) icons.Name {
	if s.Pending > 0 || statemachine.State(s.State) == statemachine.Waiting {
		if asks {
			return icons.Question
		}
		return icons.NeedsYou
	}
	if n, ok := StateIcon(s.State); ok {
		return n
	}
	return icons.Sleeping
}

// AgentName is an agent's display name, or its id when clawd does not
// know it.
func AgentName(id string) string {
	if a := agents.Lookup(id); a != nil {
		return a.Name
	}
	return id
}

// RequestSummary is a permission request in one line: the tool and what
// it would do, "Bash: npm test".
func RequestSummary(p client.PermissionView) string {
	switch {
	case p.Summary == "" || p.Summary == p.Tool:
		return p.Tool
	case p.Tool == "" || strings.HasPrefix(p.Summary, p.Tool):
		return p.Summary
	}
	return p.Tool + ": " + p.Summary
}

// Place names a session for people: its title, else its folder's name.
func Place(title, cwd string) string {
	if title != "" {
		return title
	}
	if cwd != "" {
		return filepath.Base(cwd)
	}
	return ""
}

// Package present says how the runtime's sessions and requests read to a
// person: how urgent a session is, its state in words and as one of the
// tray's icons, an agent's display name, a request in one line. The tray's
// menu and the web dashboard both show sessions through it, so they sort
// and name them alike. It is pure: no I/O.
package present

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/icons"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/statemachine"
)

// Status is what a session is, in the order the tray, `clawd status` and
// the dashboard list sessions: most urgent first. It is the session's
// situation, not what the icon animates: a one-shot "done" or "failed"
// lasts seconds, the outcome it announced lasts until the next prompt.
type Status int

// The statuses, most urgent first.
const (
	NeedsYou Status = iota // a permission request waits for the person
	Asks                   // only questions wait for the person
	Failed                 // the last turn failed
	Working                // a tool, subagents or a compaction run
	Thinking               // the model works on a prompt
	Done                   // the last turn finished
	Idle                   // open, nothing running, no outcome yet
	Ended                  // gone, or a state clawd does not know
)

// SessionStatus is s's Status. What runs now comes before how the last
// turn ended; a view of a bare state (no BaseState: the display's, or an
// older runtime's session) reads that state.
func SessionStatus(s client.SessionView) Status {
	st := statemachine.State(s.State)
	if s.Pending > 0 || st == statemachine.Waiting {
		if s.Questions > 0 && s.Questions >= s.Pending {
			return Asks
		}
		return NeedsYou
	}
	base := statemachine.State(cmp.Or(s.BaseState, s.State))
	switch {
	case st == statemachine.Sweeping || st == statemachine.Carrying:
		return Working // compacting, or creating a worktree
	case base == statemachine.Working || base == statemachine.Juggling:
		return Working
	case base == statemachine.Thinking:
		return Thinking
	case s.Outcome == string(statemachine.OutcomeFailed):
		return Failed
	case s.Outcome == string(statemachine.OutcomeDone):
		return Done
	}
	switch base {
	case statemachine.Error:
		return Failed
	case statemachine.Attention:
		return Done
	case statemachine.Idle, statemachine.Notification:
		return Idle
	}
	return Ended
}

// Urgency is SessionStatus as a number, 0 most urgent, for the
// dashboard's page (which names the numbers in app.js).
func Urgency(s client.SessionView) int { return int(SessionStatus(s)) }

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

// StateLabel says what a session is (its Status), in words, in p's
// language: "needs you", "failed: API Error: 429 …", "working (Bash)",
// "done". StatusLabel adds when the last turn finished.
func StateLabel(p i18n.Printer, s client.SessionView) string {
	switch SessionStatus(s) {
	case NeedsYou:
		return p.T("state.waiting")
	case Asks:
		return p.T("state.question")
	case Failed:
		if r := text.Line(s.FailReason, statemachine.MaxFailReason); r != "" {
			return p.T("state.failed_reason", r)
		}
		return p.T("state.error")
	case Working:
		st := statemachine.State(s.State)
		if st != statemachine.Sweeping && st != statemachine.Carrying && s.BaseState != "" {
			st = statemachine.State(s.BaseState)
		}
		return workLabel(p, st, s)
	case Thinking:
		return p.T("state.thinking")
	case Done:
		return p.T("state.attention")
	case Idle:
		return p.T("state.idle")
	}
	return DisplayLabel(p, s.State)
}

// StatusLabel is StateLabel with the age of a finished turn, counted to
// now: "done 3m ago".
func StatusLabel(p i18n.Printer, s client.SessionView, now time.Time) string {
	if SessionStatus(s) != Done || s.OutcomeAt.IsZero() {
		return StateLabel(p, s)
	}
	if d := now.Sub(s.OutcomeAt); d >= nowFor {
		return p.T("state.done_ago", Age(p, d))
	}
	return p.T("state.done_now")
}

// DisplayLabel says a state in words: what the icon shows, "done" for
// the few seconds of its one-shot, "needs you", "has news".
func DisplayLabel(p i18n.Printer, state string) string {
	switch st := statemachine.State(state); st {
	case statemachine.Working, statemachine.Carrying, statemachine.Juggling:
		return workLabel(p, st, client.SessionView{})
	case statemachine.Waiting, statemachine.Error, statemachine.Attention, statemachine.Notification,
		statemachine.Thinking, statemachine.Sweeping, statemachine.Idle, statemachine.Sleeping:
		return p.T("state." + string(st))
	}
	return state
}

// workLabel says what runs: "working (Bash)", "juggling 2 subagents",
// "compacting".
func workLabel(p i18n.Printer, st statemachine.State, s client.SessionView) string {
	switch st {
	case statemachine.Juggling:
		if s.Subagents > 0 {
			return p.N("state.juggling_n", s.Subagents)
		}
		return p.T("state.juggling")
	case statemachine.Sweeping:
		return p.T("state.sweeping")
	}
	if s.Tool != "" {
		return p.T("state.working_tool", s.Tool)
	}
	return p.T("state.working")
}

// nowFor is how long an event counts as just now.
const nowFor = 5 * time.Second

// Age is a short duration for a menu or a table: "now", "45s", "12m",
// "3h", "2d".
func Age(p i18n.Printer, d time.Duration) string {
	switch {
	case d < nowFor:
		return p.T("age.now")
	case d < time.Minute:
		return p.T("age.seconds", int(d/time.Second))
	case d < time.Hour:
		return p.T("age.minutes", int(d/time.Minute))
	case d < 48*time.Hour:
		return p.T("age.hours", int(d/time.Hour))
	}
	return p.T("age.days", int(d/(24*time.Hour)))
}

// LinkState is a remote link's state as a word in p's language: "up",
// "connecting", "down".
func LinkState(p i18n.Printer, st string) string {
	switch st {
	case client.LinkUp, client.LinkConnecting, client.LinkDown:
		return p.T("remote." + st)
	}
	return st
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

// SessionIcon is the icon of one session's row: a question when what it
// waits for is one (asks, or the session says so), the outcome of its
// last turn while nothing runs, else its state's.
func SessionIcon(s client.SessionView, asks bool) icons.Name {
	switch SessionStatus(s) {
	case NeedsYou, Asks:
		if asks || SessionStatus(s) == Asks {
			return icons.Question
		}
		return icons.NeedsYou
	case Failed:
		return icons.Error
	case Done:
		return icons.Done
	}
	if n, ok := StateIcon(s.State); ok {
		// An idle custom agent shows the icon its config.toml names.
		if a := agents.Lookup(s.Agent); n == icons.Idle && a != nil && a.Icon != "" {
			return icons.Name(a.Icon)
		}
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

// Subagent is the mark of a subagent's request, in p's language:
// "subagent: Explore" (its type, else its id); "" for the session's own.
func Subagent(p i18n.Printer, v client.PermissionView) string {
	if v.SubagentID == "" {
		return ""
	}
	return p.T("request.subagent", subagentName(v))
}

// Requester names who asks for v: the agent's display name, with the
// subagent when one asks, "Claude Code (subagent: Explore)".
func Requester(p i18n.Printer, v client.PermissionView) string {
	return WithSubagent(p, AgentName(v.Agent), v)
}

// WithSubagent adds to name, who asks for v, the subagent when one asks:
// "claude (subagent: Explore)".
func WithSubagent(p i18n.Printer, name string, v client.PermissionView) string {
	if v.SubagentID == "" {
		return name
	}
	return p.T("request.by_subagent", name, subagentName(v))
}

// subagentName names the subagent that asks for v: its type, else its id.
func subagentName(v client.PermissionView) string {
	return text.Line(cmp.Or(v.SubagentType, v.SubagentID), 0)
}

// RequestSummary is a permission request in one line: the tool (an MCP
// tool by server and name, see ToolLabel) and what it would do, "Bash:
// npm test".
func RequestSummary(p client.PermissionView) string {
	tool := ToolLabel(p)
	switch {
	case p.Summary == "" || p.Summary == p.Tool:
		return tool
	case p.Tool == "" || strings.HasPrefix(p.Summary, p.Tool):
		return p.Summary
	}
	return tool + ": " + p.Summary
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

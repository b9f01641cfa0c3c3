// Package health is the vocabulary of clawd's checks (clawd doctor): a
// check has a stable id, a status, a one-line finding and the one command
// or step that fixes it. The installers declare their agents' own checks
// in it; package doctor runs them with its own.
//
// A check is made with New from messages of the catalogs (i18n.M), so
// the text report can show its finding and fix in the person's language
// while Finding and Fix, what --json carries, stay English.
package health

import "github.com/clawdhq/clawd/internal/i18n"

// Status is how a check came out.
type Status string

// The statuses, from good to bad; Skipped is a check that does not apply
// here (an agent that is not on this machine, a desktop check on an SSH
// box).
const (
	OK      Status = "ok"
	Skipped Status = "skipped"
	Warn    Status = "warn"
	Fail    Status = "fail"
)

// Check is one check's result.
type Check struct {
	// ID is stable across releases, for scripts: "runtime.reachable",
	// "claude.hooks.missing", "codex.trust.stale".
	ID string `json:"id"`
	// Agent is the agent's id; "" for the runtime's and the desktop's
	// checks.
	Agent  string `json:"agent"`
	Status Status `json:"status"`
	// Finding says in one line what was found.
	Finding string `json:"finding"`
	// Fix is the command or the step that fixes it; "" when nothing is
	// wrong.
	Fix string `json:"fix"`
	// FindingMsg and FixMsg are Finding and Fix as messages, which
	// Text prints in a person's language.
	FindingMsg i18n.Msg `json:"-"`
	FixMsg     i18n.Msg `json:"-"`
}

// New is the check id (of agent, "" for none) that came out s: finding
// (a message of the catalogs) and fix (one, or a command as an
// i18n.Literal; the zero Msg when nothing is wrong), with Finding and Fix
// their English.
func New(id, agent string, s Status, finding, fix i18n.Msg) Check {
	var en i18n.Printer
	return Check{ID: id, Agent: agent, Status: s, Finding: en.Msg(finding), Fix: en.Msg(fix), FindingMsg: finding, FixMsg: fix}
}

// Text returns c's finding and fix in p's language; a check made without
// messages (read back from JSON) gives its English.
func (c Check) Text(p i18n.Printer) (finding, fix string) {
	finding, fix = c.Finding, c.Fix
	if !c.FindingMsg.IsZero() {
		finding = p.Msg(c.FindingMsg)
	}
	if !c.FixMsg.IsZero() {
		fix = p.Msg(c.FixMsg)
	}
	return finding, fix
}

// Package health is the vocabulary of clawd's checks (clawd doctor): a
// check has a stable id, a status, a one-line finding and the one command
// or step that fixes it. The installers declare their agents' own checks
// in it; package doctor runs them with its own.
package health

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
}

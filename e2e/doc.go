// Package e2e holds clawd's end-to-end tests: they build the clawd binary,
// run `clawd serve`, `clawd install` and `clawd events` as a person would,
// and drive the real agent CLIs (installed by scripts/install-agents.sh)
// against a scripted fake model API on loopback. Everything runs in
// temporary folders; nothing touches the real ~/.claude or ~/.clawd.
package e2e

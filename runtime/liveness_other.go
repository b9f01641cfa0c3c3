//go:build !linux && !darwin && !windows

package runtime

// processStart cannot tell processes apart here: the journal keeps no
// start time, and a session's agent counts as alive while its pid runs
// (see keeper.alive).
func processStart(pid int) (string, error) { return "", errNoStartTime }

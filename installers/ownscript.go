package installers

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/clawdhq/clawd/agents"
)

// ownScript is a script of clawd's own that an agent loads and that runs
// clawd's hook (opencode's plugin, Pi's extension), embedded beside its
// installer with placeholders that render fills in. Its first line is
// clawd's marker, and one line of it, `const CLAWD_COMMAND = "<hook
// command>"`, holds the hook command in clawd's shape: by the two clawd
// knows the file for its own (see ours).
type ownScript struct {
	agent *agents.Agent
	text  string
}

// scriptCommandPrefix starts the line of a script that holds the hook
// command, as a JSON string.
const scriptCommandPrefix = "const CLAWD_COMMAND = "

// marker is the script's first line.
func (s ownScript) marker() string {
	first, _, _ := strings.Cut(s.text, "\n")
	return first
}

// render returns the script for binary, and how many events it hooks.
// binary and the command go in as JSON strings, so no path can end a line
// of the file or a string in it (encoding/json escapes U+2028 and U+2029,
// which end a line in JavaScript). The timeouts are the agent's, in ms.
func (s ownScript) render(binary string) ([]byte, int) {
	quote := func(v string) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	var stateMS, permMS int
	for _, h := range s.agent.Hooks {
		if h.Blocking {
			permMS = max(permMS, h.Timeout*1000)
		} else {
			stateMS = max(stateMS, h.Timeout*1000)
		}
	}
	r := strings.NewReplacer(
		"__CLAWD_COMMAND__", quote(Command(binary, s.agent.ID)),
		"__CLAWD__", quote(binary),
		"__STATE_TIMEOUT_MS__", strconv.Itoa(stateMS),
		"__PERMISSION_TIMEOUT_MS__", strconv.Itoa(permMS),
	)
	return []byte(r.Replace(s.text)), len(s.agent.Hooks)
}

// ours reports whether data is a script clawd wrote: it starts with
// clawd's marker line and its command line names a hook command of
// clawd's (Known.Ours: named like clawd, in the install record, or the
// running binary). A moved or renamed clawd's script is so found and
// rewritten; a file someone else put there, even one that copied the
// marker, is not.
func (s ownScript) ours(data []byte, known Known) (int, bool) {
	cmd, ok := s.command(data)
	if !ok {
		return 0, false
	}
	if _, ok := known.Ours(cmd, s.agent.ID); !ok {
		return 0, false
	}
	return len(s.agent.Hooks), true
}

// commands lists the command of a script of clawd's, for doctor: the one
// its every event runs, with the event appended.
func (s ownScript) commands(data []byte) []Hook {
	if cmd, ok := s.command(data); ok {
		return []Hook{{Command: cmd}}
	}
	return nil
}

// command returns the hook command of a file that starts with the
// script's marker line.
func (s ownScript) command(data []byte) (string, bool) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	first, rest, _ := strings.Cut(text, "\n")
	if first != s.marker() {
		return "", false
	}
	for _, line := range strings.Split(rest, "\n") {
		quoted, ok := strings.CutPrefix(line, scriptCommandPrefix)
		if !ok {
			continue
		}
		var cmd string
		if json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimSpace(quoted), ";")), &cmd) != nil {
			return "", false
		}
		return cmd, true
	}
	return "", false
}

// ownFile is the installer of the script at path.
func (s ownScript) ownFile(path string) *OwnFile {
	return &OwnFile{Agent: s.agent.ID, Path: path, Render: s.render, Ours: s.ours, Commands: s.commands}
}

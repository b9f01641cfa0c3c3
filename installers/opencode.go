package installers

import (
	_ "embed"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clawdhq/clawd/agents"
)

// opencodePluginJS is the plugin clawd writes into opencode's config,
// with placeholders for what Render fills in.
//
//go:embed opencode_plugin.js
var opencodePluginJS string

// opencodeMarker is the first line of clawd's plugin file: with the
// command line below it, how clawd knows the file for its own.
var opencodeMarker, _, _ = strings.Cut(opencodePluginJS, "\n")

// opencodeCommandPrefix starts the line of the plugin that holds the
// hook command, as a JSON string.
const opencodeCommandPrefix = "const CLAWD_COMMAND = "

// NewOpencode returns the installer of clawd's plugin for opencode:
// plugin/clawd.js in the config folder getenv points at
// (agents.Opencode.ConfigDir). opencode loads every .js file there at
// start.
func NewOpencode(getenv func(string) string) (*OwnFile, error) {
	p, err := OpencodePluginPath(getenv)
	if err != nil {
		return nil, err
	}
	return &OwnFile{
		Agent:    agents.Opencode.ID,
		Path:     p,
		Render:   OpencodePlugin,
		Ours:     opencodeOurs,
		Commands: opencodeCommands,
	}, nil
}

// OpencodePluginPath returns where clawd's opencode plugin goes.
func OpencodePluginPath(getenv func(string) string) (string, error) {
	d, err := agents.Opencode.ConfigDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "plugin", "clawd.js"), nil
}

// OpencodePlugin returns clawd's opencode plugin for binary, and how many
// events it hooks. binary and the command go in as JSON strings, so no
// path can end a line of the file or a string in it (encoding/json
// escapes U+2028 and U+2029, which end a line in JavaScript).
func OpencodePlugin(binary string) ([]byte, int) {
	quote := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	var stateMS, permMS int
	for _, h := range agents.Opencode.Hooks {
		if h.Blocking {
			permMS = max(permMS, h.Timeout*1000)
		} else {
			stateMS = max(stateMS, h.Timeout*1000)
		}
	}
	r := strings.NewReplacer(
		"__CLAWD_COMMAND__", quote(Command(binary, agents.Opencode.ID)),
		"__CLAWD__", quote(binary),
		"__STATE_TIMEOUT_MS__", strconv.Itoa(stateMS),
		"__PERMISSION_TIMEOUT_MS__", strconv.Itoa(permMS),
	)
	return []byte(r.Replace(opencodePluginJS)), len(agents.Opencode.Hooks)
}

// opencodeOurs reports whether data is a plugin clawd wrote: it starts
// with clawd's marker line and its command line names a hook command of
// clawd's (Known.Ours: named like clawd, in the install record, or the
// running binary). A moved or renamed clawd's plugin is so found and
// rewritten; a file someone else put there, even one that copied the
// marker, is not.
func opencodeOurs(data []byte, known Known) (int, bool) {
	cmd, ok := opencodeCommand(data)
	if !ok {
		return 0, false
	}
	if _, ok := known.Ours(cmd, agents.Opencode.ID); !ok {
		return 0, false
	}
	return len(agents.Opencode.Hooks), true
}

// opencodeCommands lists the command of a plugin of clawd's: the one its
// every event runs, with the event appended.
func opencodeCommands(data []byte) []Hook {
	if cmd, ok := opencodeCommand(data); ok {
		return []Hook{{Command: cmd}}
	}
	return nil
}

// opencodeCommand returns the hook command of a file that starts with
// clawd's marker line.
func opencodeCommand(data []byte) (string, bool) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	first, rest, _ := strings.Cut(text, "\n")
	if first != opencodeMarker {
		return "", false
	}
	for _, line := range strings.Split(rest, "\n") {
		quoted, ok := strings.CutPrefix(line, opencodeCommandPrefix)
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

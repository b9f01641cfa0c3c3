package agents

import (
	"errors"
	"path/filepath"
	"time"
)

// Kilo Code CLI (npm @kilocode/cli, verified against 7.7.7), a fork of
// opencode: no command hooks, plugins in the plugin/ folder of its config
// ($KILO_CONFIG_DIR, else $XDG_CONFIG_HOME/kilo or ~/.config/kilo), the
// same plugin API, bus events and permission replies as opencode 1.18
// (observed: session.created, chat.message, tool parts, session.status,
// session.idle, permission.asked answered through the plugin's client in
// the TUI; `kilo run` is its headless run). clawd hooks it with its
// opencode plugin, which runs `clawd hook kilo <event>`, and reads what
// the plugin sends exactly as opencode's (see Opencode for the events and
// what they become), under Kilo's id.
var Kilo = &Agent{
	ID:       kiloID,
	Name:     "Kilo Code",
	Aliases:  []string{"kilocode", "kilo-code"},
	Command:  "kilo",
	Package:  "@kilocode/cli",
	Supports: Supports{States: true, Permissions: true, Titles: true, Subagents: true},
	Verified: VerifiedRealCLI,
	Tested:   []string{"7.7.7"},
	Notes: []string{
		"clawd hooks Kilo Code with a plugin (plugin/clawd.js in its config folder), the one it writes for opencode, of which Kilo is a fork: Kilo loads plugins when it starts, so restart a running kilo after installing",
		"kilo run rejects every permission request by itself at once: clawd shows those sessions as headless and answers nothing there; the TUI waits for clawd's answer, and its own prompt closes when clawd answers",
		"Ctrl-C does not quit Kilo's TUI; /exit does, and ends the session in clawd",
	},
	Settings: "plugin/clawd.js in $KILO_CONFIG_DIR, else $XDG_CONFIG_HOME/kilo or ~/.config/kilo",
	ConfigDir: func(getenv Env) (string, error) {
		if d := getenv("KILO_CONFIG_DIR"); d != "" {
			return d, nil
		}
		if x := getenv("XDG_CONFIG_HOME"); x != "" {
			return filepath.Join(x, "kilo"), nil
		}
		home := UserHome(getenv)
		if home == "" {
			return "", errors.New("cannot find Kilo Code's settings: neither HOME nor KILO_CONFIG_DIR nor XDG_CONFIG_HOME is set")
		}
		return filepath.Join(home, ".config", "kilo"), nil
	},
	Hooks: Opencode.Hooks,
	kinds: opencodeKinds,
	Decode: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return asKilo(Opencode.Decode(b, ev, env, now))
	},
	DecodeTruncated: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return asKilo(Opencode.DecodeTruncated(b, ev, env, now))
	},
	Describe:   Opencode.Describe,
	NoDecision: Opencode.NoDecision,
	Render:     Opencode.Render,
	// kilo --session <id>, as opencode's.
	Resume: Opencode.Resume,
}

const kiloID = "kilo"

// asKilo files an event the opencode decoder read under Kilo's id.
func asKilo(e Event, err error) (Event, error) {
	if err != nil {
		return Event{}, err
	}
	e.Agent = kiloID
	return e, nil
}

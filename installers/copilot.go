package installers

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/health"
)

// NewCopilot returns the installer of Copilot CLI's hooks: a file of
// clawd's own, hooks/clawd.json in Copilot's folder ($COPILOT_HOME, else
// ~/.copilot), which Copilot reads beside any other *.json there. Install
// writes it in Copilot's native format, every event of agents.Copilot.Hooks
// running `<clawd> hook copilot <event>`; uninstall deletes it. A file at
// that place that clawd did not write is left alone (ErrNotOurs).
func NewCopilot(getenv func(string) string) (*OwnFile, error) {
	p, err := CopilotHooksPath(getenv)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(filepath.Dir(p))
	return &OwnFile{Agent: agents.Copilot.ID, Path: p, Render: renderCopilot, Ours: copilotOurs, Commands: copilotCommands,
		// Copilot's settings files turn every hook off with
		// "disableAllHooks": true; config.json has comments.
		Check: func(Options) []health.Check {
			return []health.Check{disableAllHooks(agents.Copilot, true, filepath.Join(dir, "settings.json"),
				filepath.Join(dir, "settings.local.json"), filepath.Join(dir, "config.json"))}
		},
	}, nil
}

// copilotCommands lists the commands of clawd's hook file, in the order
// of agents.Copilot.Hooks.
func copilotCommands(data []byte) []Hook {
	var doc struct {
		Hooks map[string][]struct {
			Bash string `json:"bash"`
		} `json:"hooks"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []Hook
	for _, h := range agents.Copilot.Hooks {
		for _, handler := range doc.Hooks[h.Event] {
			out = append(out, Hook{Event: h.Event, Command: handler.Bash})
		}
	}
	return out
}

// CopilotHooksPath returns clawd's hook file for Copilot CLI.
func CopilotHooksPath(getenv func(string) string) (string, error) {
	d, err := agents.Copilot.ConfigDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "hooks", "clawd.json"), nil
}

// copilotCommand is the command clawd's handler for event runs.
func copilotCommand(binary, event string) string {
	return Command(binary, agents.Copilot.ID) + " " + event
}

// renderCopilot is clawd's hook file for binary, in Copilot's native
// format (verified with Copilot CLI 1.0.102):
//
//	{"version": 1, "hooks": {"<event>": [{"type": "command", "bash": "...", "timeoutSec": N}]}}
func renderCopilot(binary string) ([]byte, int) {
	var b bytes.Buffer
	b.WriteString("{\n  \"version\": 1,\n  \"hooks\": {")
	for i, h := range agents.Copilot.Hooks {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    " + jsonString(h.Event) + ": [\n      {\n")
		b.WriteString("        \"type\": \"command\",\n")
		b.WriteString("        \"bash\": " + jsonString(copilotCommand(binary, h.Event)) + ",\n")
		b.WriteString("        \"timeoutSec\": " + strconv.Itoa(h.Timeout) + "\n      }\n    ]")
	}
	b.WriteString("\n  }\n}\n")
	return b.Bytes(), len(agents.Copilot.Hooks)
}

// jsonString is s as a JSON string, HTML characters as they are.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// copilotOurs reports whether data is a hook file clawd wrote for Copilot
// (for any binary known names) and how many hooks it registers: a JSON
// object of "version" and "hooks" only, every handler of which is one of
// clawd's, under the event its command names, with nothing but the fields
// clawd writes. A file with a handler of anyone else's is not clawd's.
func copilotOurs(data []byte, known Known) (int, bool) {
	var doc map[string]json.RawMessage
	if json.Unmarshal(data, &doc) != nil {
		return 0, false
	}
	var hooks map[string][]map[string]json.RawMessage
	for k, v := range doc {
		switch k {
		case "version":
		case "hooks":
			if json.Unmarshal(v, &hooks) != nil {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	n := 0
	for event, handlers := range hooks {
		for _, h := range handlers {
			var bash string
			for k, v := range h {
				switch k {
				case "bash":
					if json.Unmarshal(v, &bash) != nil {
						return 0, false
					}
				case "type", "timeoutSec":
				default:
					return 0, false
				}
			}
			if _, ok := known.Ours(bash, agents.Copilot.ID); !ok || !strings.HasSuffix(bash, " "+event) {
				return 0, false
			}
			n++
		}
	}
	return n, n > 0
}

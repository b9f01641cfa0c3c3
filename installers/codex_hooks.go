package installers

import (
	"strconv"

	"github.com/clawdhq/clawd/agents"
)

// Codex's hooks.json has the Claude Code shape (see hooksConfig), except
// that clawd's command names the event (`<clawd> hook codex <Event>`) and
// a handler's timeout may be spelled timeoutSec.

// codexCommand returns the command clawd's handler for event runs.
func codexCommand(binary, event string) string {
	return Command(binary, agents.Codex.ID) + " " + event
}

// codexHooks says how clawd's handlers look in hooks.json: one for each of
// specs with the commands binary gives (specs nil: every clawd handler is
// removed).
func codexHooks(binary string, specs []agents.HookSpec, known Known) hooksConfig {
	return hooksConfig{
		agentID:      agents.Codex.ID,
		specs:        specs,
		command:      func(event string) string { return codexCommand(binary, event) },
		timeoutAlias: "timeoutSec",
		known:        known,
	}
}

// jsonCodexHandlers lists every handler of a hooks.json (nil or blank:
// none) with its place, what its trust hash covers and whether it is
// clawd's (known).
func jsonCodexHandlers(data []byte, known Known) ([]codexHandler, error) {
	root, err := parse(data)
	if err != nil || root == nil {
		return nil, err
	}
	hooks, _, err := hooksObject(root)
	if err == nil && hooks != nil {
		err = checkEvents(hooks, "hooks")
	}
	if err != nil || hooks == nil {
		return nil, err
	}
	var out []codexHandler
	for _, m := range hooks.members {
		for gi, g := range m.value.elems {
			var matcher *string
			if mt, _ := g.get("matcher"); mt != nil && mt.kind == kindString {
				matcher = &mt.str
			}
			hs, _ := g.get("hooks")
			if hs == nil {
				continue
			}
			for hi, h := range hs.elems {
				ch := codexHandler{group: gi, handler: hi}
				ch.Event = m.key
				ch.Matcher = matcher
				if h.kind == kindObject {
					ch.hashable = true
					if t, _ := h.get("type"); t == nil || t.kind != kindString || t.str != "command" {
						ch.hashable = false
					}
					if c, _ := h.get("command"); c != nil && c.kind == kindString {
						ch.Command = c.str
						_, ch.ours = known.Ours(c.str, agents.Codex.ID)
					} else {
						ch.hashable = false
					}
					t, _ := h.get("timeout")
					if t == nil {
						t, _ = h.get("timeoutSec")
					}
					if t != nil {
						v, err := strconv.Atoi(string(data[t.start:t.end]))
						if t.kind != kindNumber || err != nil {
							ch.hashable = false
						}
						ch.Timeout = &v
					}
					if a, _ := h.get("async"); a != nil {
						ch.Async = a.kind == kindBool && string(data[a.start:a.end]) == "true"
					}
					if sm, _ := h.get("statusMessage"); sm != nil && sm.kind == kindString {
						ch.StatusMessage = &sm.str
					}
				}
				out = append(out, ch)
			}
		}
	}
	return out, nil
}

// extraRootKeys returns the top-level keys of a hooks.json other than
// "hooks" and "description", which make Codex reject the file.
func extraRootKeys(data []byte) []string {
	root, err := parse(data)
	if err != nil || root == nil || root.kind != kindObject {
		return nil
	}
	var out []string
	for _, m := range root.members {
		if m.key != "hooks" && m.key != "description" {
			out = append(out, m.key)
		}
	}
	return out
}

package agents

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Crush (Charm's terminal agent; documented format, read in its source,
// github.com/charmbracelet/crush v0.90.0 and later: docs/hooks/README.md,
// internal/hooks, internal/agent/hooked_tool.go). Not run here: the Go
// module proxy refuses the module and its npm package fetches the binary
// from GitHub as it installs.
//
// Crush fires one hook, PreToolUse, for every call of the top-level agent
// (a sub-agent's are not hooked), before its permission check. Hooks are a
// flat list under "hooks": {"PreToolUse": [{"name", "matcher", "command",
// "timeout" (seconds, default 30)}]} in crush.json ($CRUSH_GLOBAL_CONFIG,
// else $XDG_CONFIG_HOME/crush or ~/.config/crush), run through Crush's
// own POSIX shell with {"event", "session_id", "cwd", "tool_name",
// "tool_input"} on stdin and CRUSH_SESSION_ID, CRUSH_PROJECT_DIR in the
// environment. An answer {"decision": "allow"} pre-approves the call (no
// prompt), {"decision": "deny", "reason": ...} blocks it and the model
// gets the reason; no output leaves it to Crush's own check.
//
// What it becomes (the display state is the state machine's):
//
//	PreToolUse  permission.request  waiting, answered through clawd, when Crush
//	                                would ask first (see crushAsks)
//	            tool.start          working, for every other call
//
// No hook says that a turn ended or a session closed: a Crush session
// stays working after its last call until the state machine's stale
// rules settle it.
var Crush = &Agent{
	ID:       crushID,
	Name:     "Crush",
	Aliases:  []string{"charm-crush"},
	Command:  "crush",
	Package:  "@charmland/crush",
	Supports: Supports{States: true, Permissions: true},
	Verified: VerifiedDocumented,
	Notes: []string{
		"tested from Crush's documented hook format and source: the Go module proxy refuses Crush and its npm package downloads its binary from GitHub, so it does not install here",
		"Crush fires only PreToolUse: clawd sees its calls and its permission requests, not its prompts, turns or exits; a session settles by clawd's stale rules",
		"clawd asks you for the calls Crush would ask about (a shell command that is not one of its safe read-only ones, an edit, a fetch, an MCP tool, a file outside the project): its allowed_tools, --yolo and earlier \"allow for session\" answers are not in its hooks, so clawd asks for those calls too",
	},
	Settings: "crush.json in $CRUSH_GLOBAL_CONFIG, else $XDG_CONFIG_HOME/crush or ~/.config/crush, under hooks.PreToolUse",
	ConfigDir: func(getenv Env) (string, error) {
		if d := getenv("CRUSH_GLOBAL_CONFIG"); d != "" {
			return d, nil
		}
		if x := getenv("XDG_CONFIG_HOME"); x != "" {
			return filepath.Join(x, "crush"), nil
		}
		home := UserHome(getenv)
		if home == "" {
			return "", errors.New("cannot find Crush's settings: neither HOME nor CRUSH_GLOBAL_CONFIG nor XDG_CONFIG_HOME is set")
		}
		return filepath.Join(home, ".config", "crush"), nil
	},
	Hooks: []HookSpec{
		{Event: "PreToolUse", Timeout: CrushPermissionTimeout, Blocking: true},
	},
	kinds: crushKinds,
	Decode: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeCrush(b, ev, env, now, false)
	},
	DecodeTruncated: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeCrush(b, ev, env, now, true)
	},
	Describe:   toolRequest,
	NoDecision: noOutput,
	Render:     crushRender,
}

const crushID = "crush"

// CrushPermissionTimeout is the timeout written beside clawd's PreToolUse
// hook, in seconds; the hook waits this minus PermissionWaitMargin.
const CrushPermissionTimeout = 600

var crushKinds = sync.OnceValue(func() map[string]Kind { return map[string]Kind{"PreToolUse": KindToolStart} })

var crushShape = sync.OnceValue(func() hookShape {
	h := claudeShape(crushID, crushKinds)
	h.event = []string{"event", "hook_event_name"}
	h.sessionEnv = "CRUSH_SESSION_ID"
	return h
})

// crushSafe are the shell commands Crush runs without asking (its
// tools/safe.go), when the command chains nothing (crushChaining).
var crushSafe = []string{
	"cal", "date", "df", "du", "echo", "env", "free", "groups", "hostname", "id", "kill", "killall", "ls", "nice",
	"nohup", "printenv", "ps", "pwd", "set", "time", "timeout", "top", "type", "uname", "unset", "uptime", "whatis",
	"whereis", "which", "whoami",
	"git blame", "git branch", "git config --get", "git config --list", "git describe", "git diff", "git grep",
	"git log", "git ls-files", "git ls-remote", "git remote", "git rev-parse", "git shortlog", "git show",
	"git status", "git tag",
}

// crushChaining are the shell metacharacters that keep a command off
// Crush's safe list.
var crushChaining = []string{";", "|", "&&", "$(", "`"}

// crushAsking are Crush's tools that ask before every call.
var crushAsking = []string{"edit", "multiedit", "write", "download", "fetch", "lsp_rename", "lsp_replace_symbol",
	"list_mcp_resources", "read_mcp_resource"}

// crushAsks says whether Crush would ask the person before it runs the
// call tool with input in the working folder cwd: a bash command unless
// it is one of Crush's safe read-only ones, its editing and fetching
// tools and MCP tools always, view and ls for a path outside cwd, nothing
// else (its searches, diagnostics, todos, sub-agents).
func crushAsks(tool string, input []byte, cwd string) bool {
	switch {
	case tool == "bash":
		cmd := strings.ToLower(inputString(input, "command"))
		if slices.ContainsFunc(crushChaining, func(c string) bool { return strings.Contains(cmd, c) }) {
			return true
		}
		for _, safe := range crushSafe {
			if rest, ok := strings.CutPrefix(cmd, safe); ok && (rest == "" || rest[0] == ' ' || rest[0] == '-') {
				return false
			}
		}
		return true
	case slices.Contains(crushAsking, tool), strings.HasPrefix(tool, "mcp_"):
		return true
	case tool == "view" || tool == "ls":
		p := inputString(input, "file_path")
		if tool == "ls" {
			p = inputString(input, "path")
		}
		if p == "" || !filepath.IsAbs(p) || cwd == "" {
			return false
		}
		rel, err := filepath.Rel(cwd, p)
		return err != nil || strings.HasPrefix(rel, "..")
	}
	return false
}

func decodeCrush(b []byte, hookEvent string, env Env, now time.Time, truncated bool) (Event, error) {
	e, p, err := crushShape().decode(b, hookEvent, env, now, truncated)
	if err != nil {
		return Event{}, err
	}
	e.ProjectDir = clip(env("CRUSH_PROJECT_DIR"), MaxPathLen)
	if !truncated && crushAsks(e.ToolName, []byte(p.get("tool_input").Raw), e.Cwd) {
		e.Kind = KindPermissionRequest
	}
	return e, nil
}

// crushRender prints d as Crush's PreToolUse answer in its own format,
// one line: {"decision": "allow"} pre-approves the call, a deny gives the
// model its reason. A nil decision prints nothing: Crush's own check
// decides.
func crushRender(hookEvent string, d *Decision) []byte {
	if d == nil || hookEvent != "PreToolUse" {
		return noOutput(hookEvent)
	}
	if d.Allow {
		return []byte(`{"decision":"allow"}` + "\n")
	}
	reason := d.Message
	if strings.TrimSpace(reason) == "" {
		reason = droidDenyMessage
	}
	return append(append([]byte(`{"decision":"deny","reason":`), appendJSONString(nil, reason)...), "}\n"...)
}

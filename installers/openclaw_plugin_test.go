//go:build !windows

package installers

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// openclawHarness drives clawd's OpenClaw plugin under node the way
// OpenClaw's typed hooks call it, on a fake clock (setTimeout is the
// harness's), and exits once the hooks of every event sent have run. The
// scenario: a run's first model call, a tool whose params, result and
// error carry secrets, a second call, a completed call cut short by
// another call within the debounce, one that stands for it, a failed call,
// session ends of each kind, and a run whose last call completed as the
// process exits, before its debounce.
const openclawHarness = `
let now = 0
const timers = []
globalThis.setTimeout = (fn, ms) => { const t = { fn, at: now + ms, unref() {} }; timers.push(t); return t }
globalThis.clearTimeout = (t) => { const i = timers.indexOf(t); if (i >= 0) timers.splice(i, 1) }
const advance = (ms) => {
  now += ms
  for (const t of timers.filter((t) => t.at <= now).sort((a, b) => a.at - b.at)) {
    timers.splice(timers.indexOf(t), 1)
    t.fn()
  }
}
const { createClawd, default: def } = await import(process.argv[2])
if (typeof def.register !== "function" || def.id !== "clawd") throw new Error("no plugin object")
const handlers = {}
def.register({ on: (name, fn, opts) => { handlers[name] = fn; if (opts.priority !== -100) throw new Error("priority") } })
const run = { runId: "r1", sessionId: "s1", sessionKey: "agent:main:main" }
const ctx = { agentId: "main", sessionId: "s1", workspaceDir: "/work/p", messages: ["secret-message"] }
const call = (name, ev) => { if (handlers[name](ev, ctx) !== undefined) throw new Error(name + " answered") }
call("session_start", { sessionId: "s1" })
call("model_call_started", { ...run, callId: "r1:model:1" })
call("before_tool_call", { ...run, toolName: "exec", toolCallId: "c1", params: { command: "secret-command" } })
call("after_tool_call", { ...run, toolName: "exec", toolCallId: "c1", params: { command: "secret-command" },
  result: { content: [{ type: "text", text: "secret-result" }] }, error: "secret-error" })
call("model_call_started", { ...run, callId: "r1:model:2" })
call("model_call_ended", { ...run, outcome: "completed" })
advance(1000)
call("model_call_started", { ...run, callId: "r1:model:3" })
advance(5000)
call("model_call_ended", { ...run, outcome: "completed" })
advance(1499)
console.log("before-debounce")
advance(2)
call("model_call_ended", { ...run, outcome: "error", failureKind: "timeout", errorMessage: "secret-error-text" })
call("session_end", { sessionId: "s1", reason: "new" })
call("session_end", { sessionId: "s1", reason: "idle" })
call("model_call_started", { runId: "r2", sessionId: "s1" })
call("model_call_ended", { runId: "r2", sessionId: "s1", outcome: "completed" })
`

// TestOpenClawPlugin runs the harness and reads what reached the fake
// clawd: the events in order (the first model call a first one, the tool
// failed, one turn end 1.5 s after the last completed call and none for
// the one another call followed, the failure at once, the idle session
// end but not the new one, and the turn end still waiting for its
// debounce when the process exited), each body an allowlist without the
// secrets.
func TestOpenClawPlugin(t *testing.T) {
	node := nodePath(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "hooks.log")
	clawd := filepath.Join(dir, "clawd")
	fake := "#!/bin/sh\nprintf '%s ' \"$3\" >>" + log + "\ncat >>" + log + "\necho >>" + log + "\n"
	if err := os.WriteFile(clawd, []byte(fake), 0o700); err != nil {
		t.Fatal(err)
	}
	plugin := filepath.Join(dir, "plugin.mjs")
	if err := os.WriteFile(plugin, OpenClawPlugin(clawd), 0o600); err != nil {
		t.Fatal(err)
	}
	harness := filepath.Join(dir, "harness.mjs")
	if err := os.WriteFile(harness, []byte(openclawHarness), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, harness, plugin)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "before-debounce") {
		t.Fatalf("harness: %v\n%s", err, out)
	}
	want := []string{"session_start", "model_call_started", "before_tool_call", "after_tool_call", "model_call_started",
		"model_call_started", "model_call_ended", "model_call_ended", "session_end", "model_call_started", "model_call_ended"}
	var lines []string
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(log)
		lines = nil
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		if len(lines) >= len(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(lines) != len(want) {
		t.Fatalf("hooks ran %d times, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i, l := range lines {
		name, body, _ := strings.Cut(l, " ")
		if name != want[i] {
			t.Errorf("hook %d is %s, want %s", i, name, want[i])
		}
		if strings.Contains(body, "secret") {
			t.Errorf("%s leaks a secret: %s", name, body)
		}
		var b map[string]any
		if err := json.Unmarshal([]byte(body), &b); err != nil {
			t.Fatalf("%s: %v: %s", name, err, body)
		}
		if b["type"] != name || b["session_id"] != "s1" || b["cwd"] != "/work/p" {
			t.Errorf("%s body %s, want its type, session s1 and folder /work/p", name, body)
		}
		for k := range b {
			switch k {
			case "type", "session_id", "session_key", "run_id", "agent_id", "tool_name", "tool_call_id", "cwd", "pid",
				"headless", "first", "outcome", "failure_kind", "error_present", "reason":
			default:
				t.Errorf("%s sends %q, which is not in the allowlist", name, k)
			}
		}
		switch i {
		case 1:
			if b["first"] != true {
				t.Errorf("the run's first model call is not first: %s", body)
			}
		case 4, 5:
			if b["first"] != false {
				t.Errorf("a later model call is first: %s", body)
			}
		case 3:
			if b["error_present"] != true || b["tool_call_id"] != "c1" {
				t.Errorf("the failed tool: %s", body)
			}
		case 6:
			if b["outcome"] != "completed" {
				t.Errorf("the turn end: %s", body)
			}
		case 7:
			if b["outcome"] != "error" || b["failure_kind"] != "timeout" {
				t.Errorf("the failed call: %s", body)
			}
		case 8:
			if b["reason"] != "idle" {
				t.Errorf("the session end: %s", body)
			}
		case 10:
			if b["outcome"] != "completed" || b["run_id"] != "r2" {
				t.Errorf("the turn end at exit: %s", body)
			}
		}
	}
}

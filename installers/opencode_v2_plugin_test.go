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

// opencodeV2Stream is a v2 event stream as opencode 2.0.15 sent it for one
// `opencode run` with a shell call (the envelopes and data fields of the
// evidence in clawd-on-desk's docs/investigations/opencode-v2-e1-evidence.md,
// with fixed ids), plus a child session's created and succeeded, a
// renamed, and events clawd does not use.
const opencodeV2Stream = `[
 {"type":"model.updated","data":{}},
 {"type":"session.created","data":{"sessionID":"ses_1","agent":"build"},"location":{"directory":"/work/p"}},
 {"type":"session.step.started","data":{"sessionID":"ses_1","assistantMessageID":"msg_1","agent":"build","model":{"id":"m","providerID":"p"}},"location":{"directory":"/work/p"}},
 {"type":"session.text.delta","data":{"sessionID":"ses_1","delta":"secret-text"}},
 {"type":"session.tool.input.ended","data":{"sessionID":"ses_1","id":"call_1","text":"{\"command\":\"secret-command\"}"}},
 {"type":"session.tool.called","data":{"sessionID":"ses_1","assistantMessageID":"msg_1","id":"call_1","name":"shell","input":{"command":"secret-command"},"executed":false},"location":{"directory":"/work/p"}},
 {"type":"session.tool.success","data":{"sessionID":"ses_1","id":"call_1","name":"shell","content":[{"type":"text","text":"secret-output"}],"metadata":{"status":"completed"}},"location":{"directory":"/work/p"}},
 {"type":"session.step.ended","data":{"sessionID":"ses_1","finish":"tool-calls"}},
 {"type":"session.step.started","data":{"sessionID":"ses_1","assistantMessageID":"msg_2"},"location":{"directory":"/work/p"}},
 {"type":"session.created","data":{"sessionID":"ses_child","parentID":"ses_1","agent":"explore"},"location":{"directory":"/work/p"}},
 {"type":"session.execution.succeeded","data":{"sessionID":"ses_child"},"location":{"directory":"/work/p"}},
 {"type":"session.step.ended","data":{"sessionID":"ses_1","finish":"stop"}},
 {"type":"session.renamed","data":{"sessionID":"ses_1","title":"Say hello"},"location":{"directory":"/work/p"}},
 {"type":"session.execution.succeeded","data":{"sessionID":"ses_1"},"location":{"directory":"/work/p"}}
]`

// opencodeV2Harness loads clawd's v2 plugin as opencode 2 does (its
// default export's setup, with a context whose event stream plays
// opencodeV2Stream and whose permission domain records the evaluate
// hook), then asks the hook the evaluations of argv[4] in order and
// prints each one's effect and message.
const opencodeV2Harness = `
const def = (await import(process.argv[2])).default
if (typeof def?.setup !== "function" || def.id !== "clawd" || Object.keys(def).sort().join() !== "id,setup") throw new Error("not a v2 definition: " + Object.keys(def))
const stream = JSON.parse(process.argv[3])
let evaluate = null
let disposed = 0
let played
const done = new Promise((r) => (played = r))
const ctx = {
  location: { directory: "/elsewhere" },
  event: { subscribe: async function* ({ signal }) { for (const ev of stream) { if (signal?.aborted) return; yield ev } played() } },
  permission: { hook: async (name, fn) => { if (name === "evaluate") evaluate = fn; return { dispose: async () => { disposed++ } } } },
}
const cleanup = await def.setup(ctx)
if (!evaluate) throw new Error("no evaluate hook")
await done
for (const ev of JSON.parse(process.argv[4])) {
  await evaluate(ev)
  console.log(JSON.stringify({ effect: ev.effect, message: ev.message }))
}
await cleanup()
console.log("disposed " + disposed)
`

// TestOpencodeV2Plugin: clawd's v2 plugin is a {id, setup} definition;
// it sends the events clawd uses in order, slimmed (no tool input or
// output, no text), with the envelope's folder, the first step of the turn
// marked, and a child session under its root; an evaluation that would
// ask gets clawd's answer as its effect (allow, deny with the message,
// always: allow, and the same action again without asking clawd), no
// answer leaves it to opencode, and one opencode's rules decided is never
// sent.
func TestOpencodeV2Plugin(t *testing.T) {
	node := nodePath(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "hooks.log")
	clawd := filepath.Join(dir, "clawd")
	fake := `#!/bin/sh
in=$(cat)
printf '%s %s\n' "$3" "$in" >>` + log + `
case "$in" in
*ANSWER_ALLOW*) echo '{"decision":"allow"}' ;;
*ANSWER_ALWAYS*) echo '{"decision":"always"}' ;;
*ANSWER_DENY*) echo '{"decision":"deny","message":"not now"}' ;;
*ANSWER_GARBAGE*) echo 'nope' ;;
*) echo '{}' ;;
esac
`
	if err := os.WriteFile(clawd, []byte(fake), 0o700); err != nil {
		t.Fatal(err)
	}
	plugin := filepath.Join(dir, "clawd-v2", "index.mjs")
	if err := os.MkdirAll(filepath.Dir(plugin), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plugin, OpencodeV2Plugin(clawd), 0o600); err != nil {
		t.Fatal(err)
	}
	harness := filepath.Join(dir, "harness.mjs")
	if err := os.WriteFile(harness, []byte(opencodeV2Harness), 0o600); err != nil {
		t.Fatal(err)
	}
	ask := func(res, action string, effect string) map[string]any {
		return map[string]any{"sessionID": "ses_1", "agent": "build", "action": action, "resources": []string{res},
			"source": map[string]any{"type": "tool", "messageID": "msg_1", "id": "call_" + res}, "effect": effect}
	}
	asks, _ := json.Marshal([]any{
		ask("ANSWER_ALLOW", "shell", "ask"),
		ask("ANSWER_DENY", "shell", "ask"),
		ask("ANSWER_NONE", "shell", "ask"),
		ask("ANSWER_GARBAGE", "shell", "ask"),
		ask("ANSWER_ALLOW", "shell", "allow"),
		ask("ANSWER_ALWAYS", "edit", "ask"),
		ask("ANSWER_DENY", "edit", "ask"),
	})
	cmd := exec.Command(node, harness, plugin, opencodeV2Stream, string(asks))
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("harness: %v\n%s", err, out)
	}
	wantEffects := []string{`{"effect":"allow"}`, `{"effect":"deny","message":"not now"}`, `{"effect":"ask"}`, `{"effect":"ask"}`,
		`{"effect":"allow"}`, `{"effect":"allow"}`, `{"effect":"allow"}`, "disposed 1"}
	if got := strings.Split(strings.TrimSpace(string(out)), "\n"); strings.Join(got, "\n") != strings.Join(wantEffects, "\n") {
		t.Errorf("effects:\n%s\nwant:\n%s", out, strings.Join(wantEffects, "\n"))
	}

	// The state events went first (the evaluations wait for them), then
	// the evaluations clawd was asked.
	want := []string{"session.created", "session.step.started", "session.tool.called", "session.tool.success",
		"session.step.started", "session.created", "session.execution.succeeded", "session.renamed",
		"session.execution.succeeded", "permission.evaluate", "permission.evaluate", "permission.evaluate",
		"permission.evaluate", "permission.evaluate"}
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
			t.Errorf("%s leaks: %s", name, body)
		}
		var b struct {
			Type     string         `json:"type"`
			Data     map[string]any `json:"data"`
			Location struct{ Directory string }
			Clawd    map[string]any `json:"clawd"`
		}
		if err := json.Unmarshal([]byte(body), &b); err != nil {
			t.Fatalf("%s: %v: %s", name, err, body)
		}
		if b.Type != name || b.Clawd["v"] != float64(2) {
			t.Errorf("%s body %s, want its type and the v2 mark", name, body)
		}
		if name != "permission.evaluate" && b.Location.Directory != "/work/p" {
			t.Errorf("%s has folder %q, want the envelope's /work/p", name, b.Location.Directory)
		}
		switch i {
		case 1:
			if b.Clawd["first"] != true {
				t.Errorf("the turn's first step is not first: %s", body)
			}
		case 4:
			if b.Clawd["first"] != false {
				t.Errorf("the second step is first: %s", body)
			}
		case 2, 3:
			if b.Data["id"] != "call_1" || b.Data["name"] != "shell" || len(b.Data) != 3 {
				t.Errorf("the tool event: %s", body)
			}
		case 5, 6:
			if b.Clawd["root"] != "ses_1" || b.Data["sessionID"] != "ses_child" {
				t.Errorf("the child's event: %s", body)
			}
		case 7:
			if b.Data["title"] != "Say hello" {
				t.Errorf("the rename: %s", body)
			}
		case 9:
			if b.Data["action"] != "shell" || b.Data["source"].(map[string]any)["id"] != "call_ANSWER_ALLOW" {
				t.Errorf("the evaluation: %s", body)
			}
		}
	}
}

//go:build !windows

package e2e

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/runtime/client"
)

// No opencode 2.x is on npm (opencode-ai's newest is 1.18.33), so this
// test stands in for opencode 2 twice: an `opencode` on PATH that says it
// is 2.0.15 (what clawd install reads), and a host under node that loads
// the plugin clawd installed the way opencode 2 does (the default
// export's setup, an event stream and the evaluate hook of its published
// plugin API) and plays the events a real opencode 2.0.15 was seen to
// send (testdata/opencode/README.md). Everything on clawd's side is real:
// install, the hook the plugin runs, the runtime, the person's answer
// with `clawd permissions`, uninstall.

// opencodeV2Host is the stand-in host: argv[2] is the plugin. It plays the
// first part of the turn, asks the evaluation, prints its effect, then a
// second evaluation, and plays the rest; "ask N" lines on stdout say an
// evaluation is asked, "effect N ..." what became of it.
const opencodeV2Host = `
const def = (await import(process.argv[2])).default
const loc = { directory: process.argv[3] }
const ev = (type, data) => ({ type, data, location: loc })
const part1 = [
  ev("session.created", { sessionID: "ses_v2e2e", agent: "build" }),
  ev("session.step.started", { sessionID: "ses_v2e2e", assistantMessageID: "msg_1" }),
  ev("session.tool.called", { sessionID: "ses_v2e2e", id: "call_v2_1", name: "shell", input: { command: "echo hello > out.txt" }, executed: false }),
]
const part2 = [
  ev("session.tool.success", { sessionID: "ses_v2e2e", id: "call_v2_1", name: "shell", content: [{ type: "text", text: "hello-output" }] }),
  ev("session.step.started", { sessionID: "ses_v2e2e", assistantMessageID: "msg_2" }),
  ev("session.renamed", { sessionID: "ses_v2e2e", title: "Write hello" }),
  ev("session.execution.succeeded", { sessionID: "ses_v2e2e" }),
]
let evaluate
// The stream plays what the host pushes, as opencode publishes it.
const queue = []
let wake = () => {}
const push = (...evs) => { queue.push(...evs); wake() }
let idle = () => {}
const consumed = () => new Promise((r) => { idle = r; if (queue.length === 0) setImmediate(r) })
const ctx = {
  event: { subscribe: async function* () {
    for (;;) {
      while (queue.length > 0) { const e = queue.shift(); if (e === null) { idle(); return } yield e }
      setImmediate(() => idle())
      await new Promise((r) => (wake = r))
    }
  } },
  permission: { hook: async (name, fn) => { evaluate = fn; return { dispose() {} } } },
}
const cleanup = await def.setup(ctx)
const ask = async (n, res) => {
  const e = { sessionID: "ses_v2e2e", agent: "build", action: "shell", resources: [res], source: { type: "tool", id: "call_v2_" + n }, effect: "ask" }
  console.log("ask " + n)
  await evaluate(e)
  console.log("effect " + n + " " + e.effect + (e.message ? " " + e.message : ""))
}
// The first call is announced, then evaluated (the events before an
// evaluation reach clawd first); the second is announced while clawd is
// asked about it, which leaves its request waiting.
push(...part1)
await consumed()
await ask(1, "echo hello > out.txt")
const second = ask(2, "rm -rf build")
push(ev("session.tool.called", { sessionID: "ses_v2e2e", id: "call_v2_2", name: "shell", input: { command: "rm -rf build" }, executed: false }))
await second
push(...part2, null)
await consumed()
await cleanup()
`

// TestOpencodeV2Evaluate: with an opencode 2 on PATH, clawd install
// registers its v2 plugin in opencode.json's plugins (v1's key and plugin
// as they were); the stand-in host's events reach clawd (idle, thinking,
// working, a request waiting for the person, done, titled as opencode
// named it, in the envelope's folder); `clawd permissions allow` makes the
// evaluation's effect allow and `deny --message` deny with the message;
// uninstall gives opencode.json back byte for byte.
func TestOpencodeV2Evaluate(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed as the stand-in opencode 2 host: %v", err)
	}
	w := newWorld(t)
	bin := filepath.Join(w.dir, "fakebin")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "opencode"), []byte("#!/bin/sh\necho 'opencode v2.0.15'\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	w.pathPrefix = bin
	configDir := filepath.Join(w.home, ".config", "opencode")
	if err := os.MkdirAll(configDir, 0o700); err != nil {
		t.Fatal(err)
	}
	config := "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"plugin\": [\"opencode-example-plugin\"],\n  \"model\": \"fake/fake-model\"\n}\n"
	cfgFile := filepath.Join(configDir, "opencode.json")
	if err := os.WriteFile(cfgFile, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)

	r := w.mustClawd(ctx, "install", "opencode")
	plugin := filepath.Join(configDir, "clawd-v2", "index.mjs")
	for _, s := range []string{"plugin/clawd.js", "installed 8 hooks in " + cfgFile, plugin} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("clawd install opencode printed %q, want %q in it", r.stdout, s)
		}
	}
	if data, _ := os.ReadFile(cfgFile); !strings.Contains(string(data), `"plugins": [`) || !strings.Contains(string(data), `"plugin": ["opencode-example-plugin"],`) {
		t.Errorf("opencode.json after install:\n%s\nwant clawd's folder in plugins and v1's plugin key as it was", data)
	}

	host := filepath.Join(w.dir, "host.mjs")
	if err := os.WriteFile(host, []byte(opencodeV2Host), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, node, host, plugin, w.project)
	cmd.Env = w.clawdEnv()
	cmd.Dir = w.project
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	expect := func(want string) {
		t.Helper()
		if !lines.Scan() || lines.Text() != want {
			log, _ := os.ReadFile(filepath.Join(w.clawdHome, "logs", "hook.log"))
			t.Fatalf("the host said %q (%v), want %q; hook log:\n%s", lines.Text(), lines.Err(), want, log)
		}
	}
	answer := func(n int, call string, args ...string) {
		t.Helper()
		expect("ask " + string(rune('0'+n)))
		list := w.waitPermissions(ctx, 20*time.Second, "request of "+call, func(l []client.PermissionView) bool { return len(l) == 1 })
		p := list[0]
		if p.Agent != "opencode" || p.Tool != "shell" || p.SessionID != "ses_v2e2e" || len(p.Suggestions) != 1 {
			t.Errorf("pending request %+v, want opencode's shell with the always suggestion", p)
		}
		w.mustPerm(ctx, append([]string{args[0], p.ID}, args[1:]...)...)
	}
	answer(1, "call_v2_1", "allow")
	expect("effect 1 allow")
	answer(2, "call_v2_2", "deny", "--message", "not the build folder")
	expect("effect 2 deny not the build folder")
	io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the host: %v", err)
	}

	evs := events.waitFor(15*time.Second, "turn.end of the v2 session", func(evs []event) bool {
		return anyEvent(evs, func(e event) bool { return e.SessionID == "ses_v2e2e" && e.Kind == "turn.end" })
	})
	sess := forSession(evs, "ses_v2e2e")
	t.Logf("events: %v", sess)
	want := []string{"session.start:idle", "prompt.submit:thinking", "tool.start:working", "permission.request:",
		"tool.end:working", "prompt.continue:thinking", "session.update:", "turn.end:attention"}
	got := kindStates(sess)
	for i, g := range got {
		// The state a request and a title update leave is the one before.
		if strings.HasPrefix(g, "permission.request:") || strings.HasPrefix(g, "session.update:") {
			got[i] = g[:strings.IndexByte(g, ':')+1]
		}
	}
	if !subsequence(got, want) {
		t.Errorf("events %v, want %v in this order", got, want)
	}
	for _, e := range sess {
		if e.Agent != "opencode" || e.Cwd != w.project && e.Kind != "permission.request" && e.Kind != "permission.granted" && e.Kind != "permission.denied" {
			t.Errorf("event not opencode's in the project: %s", e.raw)
		}
		if e.Kind == "session.update" && e.Title != "Write hello" {
			t.Errorf("titled %q, want opencode's Write hello", e.Title)
		}
	}
	checkPrivate(t, evs, "hello-output", "echo hello", "rm -rf")
	w.checkHookLog(t)

	w.mustClawd(ctx, "uninstall", "opencode")
	if data, err := os.ReadFile(cfgFile); err != nil || string(data) != config {
		t.Errorf("after uninstall opencode.json =\n%s\n(%v), want as before:\n%s", data, err, config)
	}
	for _, p := range []string{plugin, filepath.Join(configDir, "plugin", "clawd.js")} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there after uninstall (%v)", p, err)
		}
	}
	events.close()
	serve.shutdown()
	t.Logf("TestOpencodeV2Evaluate took %v", time.Since(started).Round(time.Millisecond))
}

package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

func codexFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "codex", "hooks", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// codexReply is a reply verified against Codex 0.169.0 as the hook prints
// it: compact, one line.
func codexReply(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "codex", "hook-replies", name))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.String() + "\n"
}

// runCodexHook runs `clawd hook codex EVENT` with stdin against home,
// bounded, as Codex runs it: the event name on the command line, no
// environment of Codex's own.
func runCodexHook(t *testing.T, ctx context.Context, home, event string, stdin []byte) (code int, stdout, stderr string) {
	t.Helper()
	e, out, errb := testEnv(t, home, stdin, nil)
	done := make(chan int, 1)
	go func() { done <- run(ctx, e, []string{"clawd", "hook", "codex", event}) }()
	select {
	case code = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("hook did not return")
	}
	return code, out.String(), errb.String()
}

func TestHookCodexPermissionDecision(t *testing.T) {
	shortWait(t, 5*time.Second)
	allow := codexReply(t, "PermissionRequest.allow.json")
	deny := codexReply(t, "PermissionRequest.deny.json")
	cases := []struct {
		name    string
		fixture string
		answer  string
		want    string
	}{
		{"allow", "PermissionRequest.json", `{"id":"p1","decision":{"behavior":"allow"}}`, allow},
		{"deny", "PermissionRequest.json", `{"id":"p1","decision":{"behavior":"deny","message":"Denied from clawd"}}`, deny},
		{"deny without a message", "PermissionRequest.json", `{"id":"p1","decision":{"behavior":"deny"}}`, deny},
		// Codex rejects interrupt and updatedPermissions: they are dropped.
		{"deny and interrupt", "PermissionRequest.json", `{"id":"p1","decision":{"behavior":"deny","message":"Denied from clawd","interrupt":true}}`, deny},
		{"always", "PermissionRequest.json", `{"id":"p1","decision":{"behavior":"allow","updated_permissions":[{"type":"addRules"}]}}`, allow},
		{"allow a patch", "PermissionRequest.apply_patch.json", `{"id":"p1","decision":{"behavior":"allow"}}`, allow},
		{"no decision", "PermissionRequest.json", `{"id":"p1","decision":null,"reason":"dnd"}`, "{}\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeRuntime(t, 200, c.answer, 50*time.Millisecond)
			payload := codexFixture(t, c.fixture)
			code, out, errb := runCodexHook(t, context.Background(), f.home, "PermissionRequest", payload)
			if code != 0 || errb != "" || out != c.want {
				t.Errorf("exit %d stdout %q stderr %q; want 0 and %q", code, out, errb, c.want)
			}
			if l := hookLog(t, f.home); l != "" {
				t.Errorf("hook.log = %q, want nothing logged for an answer", l)
			}
			rb := f.body(t)
			ev := rb.Event
			tool := gjson.GetBytes(payload, "tool_name").String()
			if ev.Agent != "codex" || ev.Kind != agents.KindPermissionRequest || ev.ToolName != tool ||
				ev.SessionID != gjson.GetBytes(payload, "session_id").String() || ev.InputHash == "" ||
				ev.Transcript != gjson.GetBytes(payload, "transcript_path").String() {
				t.Errorf("event = %+v", ev)
			}
			if rb.WaitSeconds != 5 || rb.InputTruncated || rb.Suggestions != nil {
				t.Errorf("wait_seconds %d input_truncated %v suggestions %s, want 5, false, none", rb.WaitSeconds, rb.InputTruncated, rb.Suggestions)
			}
			if !sameJSON(t, rb.ToolInput, []byte(gjson.GetBytes(payload, "tool_input").Raw)) {
				t.Errorf("tool_input = %s", rb.ToolInput)
			}
		})
	}
}

// TestHookCodexWait checks the hook asks the runtime to hold a Codex
// request for Codex's hook timeout minus the margin: 570 s.
func TestHookCodexWait(t *testing.T) {
	f := newFakeRuntime(t, 200, `{"decision":{"behavior":"allow"}}`, 0)
	code, out, _ := runCodexHook(t, context.Background(), f.home, "PermissionRequest", codexFixture(t, "PermissionRequest.json"))
	if code != 0 || out != codexReply(t, "PermissionRequest.allow.json") {
		t.Errorf("exit %d stdout %q", code, out)
	}
	if rb := f.body(t); rb.WaitSeconds != agents.CodexPermissionTimeout-30 {
		t.Errorf("wait_seconds = %d, want %d", rb.WaitSeconds, agents.CodexPermissionTimeout-30)
	}
}

// TestHookCodexRealRuntime decides a Codex request in a real runtime with
// `clawd permissions`, as a person would.
func TestHookCodexRealRuntime(t *testing.T) {
	home := t.TempDir()
	s := startRuntime(t, home)
	shortWait(t, 30*time.Second)
	cases := []struct {
		verb []string
		want string
	}{
		{[]string{"allow"}, codexReply(t, "PermissionRequest.allow.json")},
		{[]string{"deny", "--message", "Denied from clawd"}, codexReply(t, "PermissionRequest.deny.json")},
	}
	for _, c := range cases {
		hookOut := make(chan string, 1)
		go func() {
			_, out, _ := runCodexHook(t, context.Background(), home, "PermissionRequest", codexFixture(t, "PermissionRequest.json"))
			hookOut <- out
		}()
		code, out, errb := runCLI(t, home, "permissions", "--wait", "--json")
		var list []client.PermissionView
		if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil || len(list) != 1 {
			t.Fatalf("permissions --wait --json = %d %v %q %q", code, err, out, errb)
		}
		p := list[0]
		if p.Agent != "codex" || p.Tool != "Bash" || p.State != "pending" {
			t.Errorf("pending request = %+v", p)
		}
		snap := s.Snapshot()
		if len(snap.Sessions) != 1 || snap.Sessions[0].State != "waiting" || snap.Sessions[0].Agent != "codex" {
			t.Errorf("sessions while the request is pending = %+v", snap.Sessions)
		}
		args := append(append([]string{"permissions"}, c.verb[0], p.ID), c.verb[1:]...)
		if code, out, errb := runCLI(t, home, args...); code != 0 {
			t.Fatalf("%v = %d %q %q", args, code, out, errb)
		}
		select {
		case got := <-hookOut:
			if got != c.want {
				t.Errorf("after %v the hook printed %q, want %q", c.verb, got, c.want)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the hook did not print the decision")
		}
	}
}

// codexCall is one hook call of a recorded Codex run.
type codexCall struct {
	Event string          `json:"event"`
	Stdin json.RawMessage `json:"stdin"`
}

// readCodexRun returns the hook calls of a recorded Codex run, in order.
func readCodexRun(t *testing.T, run string) []codexCall {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "codex", "hooks", "sequence."+run+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []codexCall
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c codexCall
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil || len(out) == 0 {
		t.Fatalf("sequence.%s.jsonl: %d calls, %v", run, len(out), err)
	}
	return out
}

// TestHookCodexForwardsRun plays a whole `codex exec` run through `clawd
// hook codex EVENT` into a real runtime: every call answers `{}` and the
// session follows.
func TestHookCodexForwardsRun(t *testing.T) {
	home := t.TempDir()
	s := startRuntime(t, home)
	seq := readCodexRun(t, "exec")
	if seq[len(seq)-1].Event != "SessionEnd" {
		t.Fatalf("the exec run ends with %s, want SessionEnd", seq[len(seq)-1].Event)
	}
	for i, r := range seq {
		code, out, errb := runCodexHook(t, context.Background(), home, r.Event, r.Stdin)
		if code != 0 || out != "{}\n" || errb != "" {
			t.Errorf("hook %d %s: exit %d stdout %q stderr %q, want 0, {}, nothing", i, r.Event, code, out, errb)
		}
		snap := s.Snapshot()
		switch {
		case r.Event == "SessionEnd":
			if len(snap.Sessions) != 0 {
				t.Errorf("after SessionEnd: sessions %+v, want none", snap.Sessions)
			}
		case len(snap.Sessions) != 1:
			t.Fatalf("after %s: sessions %+v, want one", r.Event, snap.Sessions)
		case r.Event == "PreToolUse":
			got := snap.Sessions[0]
			if got.State != "working" || got.Agent != "codex" || got.Title != "write hi, add hello.txt, search the web" ||
				got.Cwd != "/home/user/project" || got.Tool != gjson.GetBytes(r.Stdin, "tool_name").String() {
				t.Errorf("after PreToolUse: session %+v", got)
			}
		case r.Event == "Stop":
			if got := snap.Sessions[0]; got.State != "attention" {
				t.Errorf("after Stop: session %+v, want attention", got)
			}
		}
	}
	if l := hookLog(t, home); l != "" {
		t.Errorf("hook.log = %q, want nothing logged on success", l)
	}
}

func TestHookCodexFailsOpen(t *testing.T) {
	shortWait(t, 500*time.Millisecond)
	big := codexFixture(t, "PostToolUse.json")
	big = bytes.Replace(big, []byte(`"tool_response": ""`), []byte(`"tool_response": "`+strings.Repeat("x", maxHookInput)+`"`), 1)
	cases := []struct {
		name    string
		event   string
		stdin   []byte
		wantLog string
	}{
		{"runtime down", "Stop", codexFixture(t, "Stop.json"), spooledLog},
		{"runtime down, interrupt", "Interrupt", codexFixture(t, "Interrupt.json"), spooledLog},
		{"runtime down, permission", "PermissionRequest", codexFixture(t, "PermissionRequest.json"), "runtime not reachable"},
		{"not json", "Interrupt", []byte("hello"), "decode payload"},
		{"empty stdin", "PermissionRequest", nil, "decode payload"},
		{"unknown event", "PreModelRequest", []byte(`{"session_id":"s","hook_event_name":"PreModelRequest"}`), "unknown hook event"},
		{"over the cap", "PostToolUse", big, "over the stdin cap"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			code, out, errb := runCodexHook(t, context.Background(), home, c.event, c.stdin)
			if code != 0 || out != "{}\n" || errb != "" {
				t.Errorf("exit %d stdout %q stderr %q; want 0, {}, no stderr", code, out, errb)
			}
			checkHookLog(t, home, c.wantLog)
		})
	}
}

// A payload over the stdin cap (a huge command output) still reaches the
// runtime, from the fields before the cut.
func TestHookCodexTruncatedPayloadStillForwarded(t *testing.T) {
	home := t.TempDir()
	s := startRuntime(t, home)
	big := codexFixture(t, "PostToolUse.subagent.json")
	big = bytes.Replace(big, []byte(`"tool_response": ""`), []byte(`"tool_response": "`+strings.Repeat("x", maxHookInput)+`"`), 1)
	code, out, _ := runCodexHook(t, context.Background(), home, "PostToolUse", big)
	if code != 0 || out != "{}\n" {
		t.Fatalf("exit %d stdout %q", code, out)
	}
	snap := s.Snapshot()
	if len(snap.Sessions) != 1 || snap.Sessions[0].Agent != "codex" || snap.Sessions[0].Subagents != 1 || snap.Sessions[0].State != "juggling" {
		t.Fatalf("sessions after a truncated sub-agent PostToolUse = %+v", snap.Sessions)
	}
}

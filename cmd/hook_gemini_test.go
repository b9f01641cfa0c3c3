package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// geminiCall is one hook call of a captured Gemini CLI run.
type geminiCall struct {
	event string
	stdin []byte
	env   map[string]string // the GEMINI_* variables the hook saw
}

// readGeminiRun returns the calls of a captured run that an installed
// clawd gets (the events it registers), in firing order.
func readGeminiRun(t *testing.T, scenario string) []geminiCall {
	t.Helper()
	dir := filepath.Join("..", "testdata", "gemini", scenario)
	envs := map[string]map[string]any{}
	b, err := os.ReadFile(filepath.Join(dir, "env.json"))
	if err == nil {
		err = json.Unmarshal(b, &envs)
	}
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "[0-9][0-9]-*.json"))
	slices.Sort(files)
	var out []geminiCall
	for _, f := range files {
		name := filepath.Base(f)
		c := geminiCall{event: strings.TrimSuffix(name[3:], ".json"), env: map[string]string{}}
		if _, ok := agents.Gemini.Hook(c.event); !ok {
			continue
		}
		if c.stdin, err = os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
		for k, v := range envs[name] {
			if s, ok := v.(string); ok {
				c.env[k] = s
			}
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		t.Fatalf("no registered calls in %s", dir)
	}
	return out
}

// runGeminiHook runs `clawd hook gemini EVENT` with stdin and env against
// home, bounded, as Gemini runs it.
func runGeminiHook(t *testing.T, home string, c geminiCall) (code int, stdout, stderr string) {
	t.Helper()
	e, out, errb := testEnv(t, home, c.stdin, c.env)
	done := make(chan int, 1)
	go func() { done <- run(context.Background(), e, []string{"clawd", "hook", "gemini", c.event}) }()
	select {
	case code = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("hook did not return")
	}
	return code, out.String(), errb.String()
}

// TestHookGeminiForwardsRun plays a captured TUI run (a tool allowed in
// Gemini's dialog, /clear, /quit) through `clawd hook gemini EVENT` into a
// real runtime: every call prints nothing (Gemini's "no effect") and the
// sessions follow, the dialog shown as waiting.
func TestHookGeminiForwardsRun(t *testing.T) {
	home := t.TempDir()
	s := startRuntime(t, home)
	wantState := map[string]string{"SessionStart": "idle", "BeforeAgent": "thinking", "BeforeTool": "working",
		"Notification": "waiting", "AfterTool": "working", "AfterAgent": "attention"}
	ends := 0
	for i, c := range readGeminiRun(t, "interactive-shell-confirm") {
		code, out, errb := runGeminiHook(t, home, c)
		if code != 0 || out != "" || errb != "" {
			t.Errorf("hook %d %s: exit %d stdout %q stderr %q, want 0 and no output", i, c.event, code, out, errb)
		}
		snap := s.Snapshot()
		if c.event == "SessionEnd" {
			ends++
			if len(snap.Sessions) != 0 {
				t.Errorf("after SessionEnd %d: sessions %+v, want none", ends, snap.Sessions)
			}
			continue
		}
		if len(snap.Sessions) != 1 {
			t.Fatalf("after %s: sessions %+v, want one", c.event, snap.Sessions)
		}
		got := snap.Sessions[0]
		if got.Agent != "gemini" || got.SessionID != c.env["GEMINI_SESSION_ID"] || got.State != wantState[c.event] ||
			got.Cwd != "/home/user/project" || got.ProjectDir != "/home/user/project" {
			t.Errorf("after %s: session %+v, want gemini %s %s in /home/user/project", c.event, got, c.env["GEMINI_SESSION_ID"], wantState[c.event])
		}
		if c.event == "BeforeTool" && (got.Tool != "run_shell_command" || got.Title != "say hello using the shell") {
			t.Errorf("after BeforeTool: tool %q title %q, want run_shell_command, the prompt", got.Tool, got.Title)
		}
	}
	if ends != 3 {
		t.Errorf("%d SessionEnd calls, want 3 (/clear, then /quit twice)", ends)
	}
	if l := hookLog(t, home); l != "" {
		t.Errorf("hook.log = %q, want nothing logged on success", l)
	}
}

// TestHookGeminiFailsOpen: whatever goes wrong, Gemini gets no output and
// exit 0 (no effect), and the reason is logged.
func TestHookGeminiFailsOpen(t *testing.T) {
	run := readGeminiRun(t, "headless-yolo-shell")
	for _, c := range []struct {
		name    string
		call    geminiCall
		wantLog string
	}{
		{"runtime down", run[0], spooledLog},
		{"not json", geminiCall{event: "BeforeTool", stdin: []byte("hello")}, "decode payload"},
		{"a model event", geminiCall{event: "BeforeModel", stdin: []byte(`{"session_id":"s","hook_event_name":"AfterEverything"}`)}, "unknown hook event"},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			code, out, errb := runGeminiHook(t, home, c.call)
			if code != 0 || out != "" || errb != "" {
				t.Errorf("exit %d stdout %q stderr %q; want 0 and no output", code, out, errb)
			}
			checkHookLog(t, home, c.wantLog)
		})
	}
}

// A tool output over the stdin cap (a big file read) still ends the call:
// the fields before the cut, the whole tool input among them, reach the
// runtime.
func TestHookGeminiTruncatedPayloadStillForwarded(t *testing.T) {
	home := t.TempDir()
	s := startRuntime(t, home)
	run := readGeminiRun(t, "headless-yolo-shell")
	var after geminiCall
	for _, c := range run {
		if c.event == "AfterTool" {
			after = c
			break
		}
		if code, out, _ := runGeminiHook(t, home, c); code != 0 || out != "" {
			t.Fatalf("hook %s: exit %d stdout %q", c.event, code, out)
		}
	}
	var m map[string]any
	if err := json.Unmarshal(after.stdin, &m); err != nil {
		t.Fatal(err)
	}
	m["tool_response"] = map[string]any{"llmContent": strings.Repeat("x", maxHookInput), "returnDisplay": "big"}
	after.stdin, _ = json.Marshal(m)
	if code, out, _ := runGeminiHook(t, home, after); code != 0 || out != "" {
		t.Fatalf("hook AfterTool: exit %d stdout %q", code, out)
	}
	snap := s.Snapshot()
	if len(snap.Sessions) != 1 || snap.Sessions[0].State != "working" || snap.Sessions[0].LastEvent != "tool.end" {
		t.Errorf("sessions after a cut AfterTool = %+v, want the session working, its last event tool.end", snap.Sessions)
	}
	if l := hookLog(t, home); !strings.Contains(l, "over the stdin cap") {
		t.Errorf("hook.log = %q, want the cut logged", l)
	}
}

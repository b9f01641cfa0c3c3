package codex

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/golden"
)

// The captured Codex 0.169.0 files, shared by every Codex test.
const (
	rollouts = "../../../testdata/codex/rollout"
	hooksDir = "../../../testdata/codex/hooks"
)

// fixture is a captured rollout and the path Codex wrote it to, which is
// what its hooks name as transcript_path.
type fixture struct {
	file, path string
}

const sessions = "/home/user/.codex/sessions/2026/11/30/"

var (
	execFixture = fixture{"rollout-exec.jsonl",
		sessions + "rollout-2026-11-30T03-13-30-01a22a71-7da8-7150-9c21-ba982dfb8d63.jsonl"}
	tuiFixture = fixture{"rollout-tui-session.jsonl",
		sessions + "rollout-2026-11-30T03-20-42-01a22a78-156e-7373-a74d-0cd4a178e045.jsonl"}
	subFixture = fixture{"rollout-subagent.jsonl",
		sessions + "rollout-2026-11-30T03-21-15-01a22a78-9664-7052-a91e-64ee877daddb.jsonl"}
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(rollouts, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fixtureTitles is the captured session_index.jsonl.
func fixtureTitles(t testing.TB) func(string) string {
	t.Helper()
	m := New(Options{Home: t.TempDir()})
	sc := bufio.NewScanner(bytes.NewReader(readFixture(t, "session_index.jsonl")))
	for sc.Scan() {
		m.indexLine(sc.Bytes())
	}
	return m.title
}

// parseAll feeds every line of data to a live parser.
func parseAll(path string, data []byte, titles func(string) string) []agents.Event {
	p := newParser(path, time.Time{}, titles)
	for _, l := range bytes.Split(data, []byte{'\n'}) {
		p.line(l)
	}
	return p.take()
}

func encode(t testing.TB, evs []agents.Event) []byte {
	t.Helper()
	var b []byte
	for _, e := range evs {
		var err error
		if b, err = e.AppendJSON(b); err != nil {
			t.Fatal(err)
		}
		b = append(b, '\n')
	}
	return b
}

// checkGolden compares got with testdata/name (see internal/golden).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

func TestParserGolden(t *testing.T) {
	for _, fx := range []fixture{execFixture, tuiFixture, subFixture} {
		t.Run(fx.file, func(t *testing.T) {
			evs := parseAll(fx.path, readFixture(t, fx.file), fixtureTitles(t))
			for _, e := range evs {
				if err := e.Validate(); err != nil {
					t.Errorf("event %+v: %v", e, err)
				}
			}
			checkGolden(t, strings.TrimSuffix(fx.file, ".jsonl")+".golden", encode(t, evs))
		})
	}
}

// key is what a hook event and the monitor's event of the same thing
// must agree on. Times, titles (the monitor has the thread's name, the
// hook only the prompt) and the hook's own event name differ.
type key struct {
	Kind                    agents.Kind
	SessionID, Transcript   string
	SubagentID, SubagentTyp string
	ToolName, ToolUseID     string
	InputHash               string
	Source, Reason          string
}

func keyOf(e agents.Event) key {
	k := key{e.Kind, e.SessionID, e.Transcript, e.SubagentID, e.SubagentType,
		e.ToolName, e.ToolUseID, e.InputHash, e.Source, e.Reason}
	if e.Kind == agents.KindSessionStart && e.Source != "compact" {
		// Hooks say startup/resume; the rollout says which client
		// (exec, vscode).
		k.Source = ""
	}
	return k
}

// streams splits events by thread: the root's and each sub-agent's.
// Across threads the order depends on which file was read first.
func streams(evs []agents.Event) map[string][]key {
	out := map[string][]key{}
	for _, e := range evs {
		out[e.SubagentID] = append(out[e.SubagentID], keyOf(e))
	}
	return out
}

// hookEvents decodes a captured hook sequence, without the events the
// rollout cannot show: the approval request and the end of the session.
func hookEvents(t *testing.T, name string) []agents.Event {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(hooksDir, name))
	if err != nil {
		t.Fatal(err)
	}
	var out []agents.Event
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte{'\n'}) {
		var rec struct {
			Event string          `json:"event"`
			Stdin json.RawMessage `json:"stdin"`
		}
		if err := json.Unmarshal(l, &rec); err != nil {
			t.Fatal(err)
		}
		e, err := agents.Codex.Decode(rec.Stdin, rec.Event, func(string) string { return "" }, time.Now())
		if err != nil {
			t.Fatalf("decode %s: %v", rec.Event, err)
		}
		if e.Kind == agents.KindPermissionRequest || e.Kind == agents.KindSessionEnd {
			continue
		}
		out = append(out, e)
	}
	return out
}

// TestParserMatchesHooks holds the monitor to the contract: for the same
// session, its events are the hooks' events (same kinds, ids, tool names,
// input hashes), thread by thread, plus the web searches hooks never see.
func TestParserMatchesHooks(t *testing.T) {
	for _, tc := range []struct {
		hooks    string
		fixtures []fixture
	}{
		{"sequence.exec.jsonl", []fixture{execFixture}},
		{"sequence.tui-session.jsonl", []fixture{tuiFixture, subFixture}},
	} {
		t.Run(tc.hooks, func(t *testing.T) {
			var mon []agents.Event
			for _, fx := range tc.fixtures {
				for _, e := range parseAll(fx.path, readFixture(t, fx.file), nil) {
					if e.ToolName != "web_search" {
						mon = append(mon, e)
					}
				}
			}
			got, want := streams(mon), streams(hookEvents(t, tc.hooks))
			if len(got) != len(want) {
				t.Errorf("monitor has %d threads, hooks %d", len(got), len(want))
			}
			for thread, w := range want {
				g := got[thread]
				for i := range max(len(g), len(w)) {
					var gk, wk key
					if i < len(g) {
						gk = g[i]
					}
					if i < len(w) {
						wk = w[i]
					}
					if gk != wk {
						t.Errorf("thread %q event %d: monitor %+v, hooks %+v", thread, i, gk, wk)
					}
				}
			}
		})
	}
}

// TestParserWebSearchOnce: 0.169 writes a search twice (item_completed
// WebSearch, then web_search_call); it is one tool call.
func TestParserWebSearchOnce(t *testing.T) {
	var n int
	for _, e := range parseAll(execFixture.path, readFixture(t, execFixture.file), nil) {
		if e.ToolName == "web_search" && e.Kind == agents.KindToolStart {
			n++
		}
	}
	if n != 1 {
		t.Errorf("web searches started = %d, want 1", n)
	}
}

// TestSplitEverywhere feeds a file in two writes split at every byte: the
// lines that come out are the file's lines, whole, wherever the cut was.
func TestSplitEverywhere(t *testing.T) {
	for _, fx := range []fixture{execFixture, subFixture} {
		t.Run(fx.file, func(t *testing.T) {
			data := readFixture(t, fx.file)
			want := bytes.Split(bytes.TrimSuffix(data, []byte{'\n'}), []byte{'\n'})
			m := New(Options{Home: t.TempDir()})
			for k := 0; k <= len(data); k++ {
				var n int
				f := &tailFile{path: fx.path, line: func(l []byte) {
					if n >= len(want) || !bytes.Equal(l, want[n]) {
						t.Fatalf("split at byte %d: line %d is %.80q…", k, n, l)
					}
					n++
				}}
				m.feed(f, data[:k])
				m.feed(f, data[k:])
				if n != len(want) {
					t.Fatalf("split at byte %d: %d lines, want %d", k, n, len(want))
				}
			}
		})
	}
}

// TestParserSplit: the events of a file fed in two writes are those of
// the whole file (every 97th cut: parsing per cut is slow under -race).
func TestParserSplit(t *testing.T) {
	for _, fx := range []fixture{execFixture, subFixture, tuiFixture} {
		t.Run(fx.file, func(t *testing.T) {
			data := readFixture(t, fx.file)
			want := encode(t, parseAll(fx.path, data, nil))
			m := New(Options{Home: t.TempDir()})
			for k := 0; k <= len(data); k += 97 {
				f := m.newTail(fx.path, time.Time{})
				m.feed(f, data[:k])
				m.feed(f, data[k:])
				if got := encode(t, f.p.take()); !bytes.Equal(got, want) {
					t.Fatalf("split at byte %d: events differ:\ngot:\n%s\nwant:\n%s", k, got, want)
				}
			}
		})
	}
}

// TestParserCatchUp: records older than the cutoff only build state; the
// state goes out as events when the parser goes live.
func TestParserCatchUp(t *testing.T) {
	data := readFixture(t, tuiFixture.file)
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	type ev struct {
		Kind agents.Kind
		Tool string
		Time time.Time
	}
	for _, tc := range []struct {
		name   string
		cutoff time.Time
		want   []ev // the first events
	}{
		{"during a running command", at("2026-11-30T03:21:02Z"), []ev{
			{agents.KindSessionStart, "", at("2026-11-30T03:20:42.953Z")},
			{agents.KindPromptSubmit, "", at("2026-11-30T03:21:01.357Z")},
			{agents.KindToolStart, "Bash", at("2026-11-30T03:21:01.722Z")},
			{agents.KindTurnEnd, "", at("2026-11-30T03:21:05.145Z")},
		}},
		{"between turns", at("2026-11-30T03:20:49Z"), []ev{
			{agents.KindSessionStart, "", at("2026-11-30T03:20:42.953Z")},
			{agents.KindPromptSubmit, "", at("2026-11-30T03:20:49.940Z")},
			{agents.KindToolStart, "apply_patch", at("2026-11-30T03:20:50.188Z")},
		}},
		{"after everything", at("2027-01-01T00:00:00Z"), []ev{
			{agents.KindSessionStart, "", at("2026-11-30T03:20:42.953Z")},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newParser(tuiFixture.path, tc.cutoff, nil)
			for _, l := range bytes.Split(data, []byte{'\n'}) {
				p.line(l)
			}
			p.goLive()
			evs := p.take()
			if len(evs) < len(tc.want) {
				t.Fatalf("got %d events, want at least %d: %+v", len(evs), len(tc.want), evs)
			}
			if tc.name == "after everything" && len(evs) != 1 {
				t.Errorf("got %d events after the end, want only the session: %+v", len(evs), evs)
			}
			for i, w := range tc.want {
				g := ev{evs[i].Kind, evs[i].ToolName, evs[i].Time}
				if g != w || !g.Time.Equal(w.Time) {
					t.Errorf("event %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// TestParserRecords covers record shapes the fixtures lack: failures,
// older Codex versions, a sub-agent cut short, titles.
func TestParserRecords(t *testing.T) {
	const (
		meta    = `{"timestamp":"2026-11-30T10:00:00.000Z","type":"session_meta","payload":{"id":"T1","session_id":"T1","cwd":"/p","originator":"codex-tui","source":"cli","thread_source":"user"}}`
		subMeta = `{"timestamp":"2026-11-30T10:00:00.000Z","type":"session_meta","payload":{"id":"S1","session_id":"T1","parent_thread_id":"T1","cwd":"/p","originator":"codex-tui","source":{"subagent":{"thread_spawn":{"parent_thread_id":"T1","depth":1,"agent_role":null}}},"thread_source":"subagent"}}`
		started = `{"timestamp":"2026-11-30T10:00:01.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"u1"}}`
		user    = `{"timestamp":"2026-11-30T10:00:02.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"PROMPT"}]}}`
		aborted = `{"timestamp":"2026-11-30T10:00:09.000Z","type":"event_msg","payload":{"type":"turn_aborted","turn_id":"u1","reason":"interrupted"}}`
		done    = `{"timestamp":"2026-11-30T10:00:09.000Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"u1"}}`
	)
	prompt := func(s string) string { return strings.Replace(user, "PROMPT", s, 1) }
	failed := func(info string) string {
		return `{"timestamp":"2026-11-30T10:00:09.000Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"u1","error":{"message":"boom","codex_error_info":` + info + `}}}`
	}
	type ev struct {
		Kind                   agents.Kind
		Tool, ID, Title, Extra string
	}
	for _, tc := range []struct {
		name  string
		lines []string
		want  []ev
	}{
		{"model error", []string{meta, started, prompt("hi"), failed(`"internal_server_error"`)}, []ev{
			{Kind: agents.KindSessionStart, Extra: "cli"},
			{Kind: agents.KindPromptSubmit, Title: "hi"},
			{Kind: agents.KindTurnFailure, Extra: "internal_server_error"},
		}},
		{"error kind in an object", []string{meta, started, prompt("hi"), failed(`{"http_connection_failed":{"http_status_code":502}}`)}, []ev{
			{Kind: agents.KindSessionStart, Extra: "cli"},
			{Kind: agents.KindPromptSubmit, Title: "hi"},
			{Kind: agents.KindTurnFailure, Extra: "http_connection_failed"},
		}},
		{"interrupted before anything", []string{meta, started, aborted}, []ev{
			{Kind: agents.KindSessionStart, Extra: "cli"},
			{Kind: agents.KindPromptSubmit},
			{Kind: agents.KindTurnEnd, Extra: "interrupt"},
		}},
		{"a secret is no title", []string{meta, started, prompt("use api_key=abc123 please"), done}, []ev{
			{Kind: agents.KindSessionStart, Extra: "cli"},
			{Kind: agents.KindPromptSubmit},
			{Kind: agents.KindTurnEnd},
		}},
		{"context messages are not the prompt", []string{meta, started, prompt("<environment_context>x</environment_context>"), prompt("# AGENTS.md instructions for /p"), prompt("fix the bug\\nin main.go"), done}, []ev{
			{Kind: agents.KindSessionStart, Extra: "cli"},
			{Kind: agents.KindPromptSubmit, Title: "fix the bug"},
			{Kind: agents.KindTurnEnd},
		}},
		{"sub-agent cut short", []string{subMeta, started, prompt("sub work"), aborted}, []ev{
			{Kind: agents.KindSubagentStart, ID: "S1"},
			{Kind: agents.KindPromptSubmit, ID: "S1"},
			{Kind: agents.KindSubagentStop, ID: "S1"},
		}},
		{"sub-agent's second turn", []string{subMeta, started, prompt("one"), done, started, prompt("two"), done}, []ev{
			{Kind: agents.KindSubagentStart, ID: "S1"},
			{Kind: agents.KindPromptSubmit, ID: "S1"},
			{Kind: agents.KindSubagentStop, ID: "S1"},
			{Kind: agents.KindSubagentStart, ID: "S1"},
			{Kind: agents.KindPromptSubmit, ID: "S1"},
			{Kind: agents.KindSubagentStop, ID: "S1"},
		}},
		{"resumed thread writes its meta again", []string{meta, started, prompt("a"), done, meta}, []ev{
			{Kind: agents.KindSessionStart, Extra: "cli"},
			{Kind: agents.KindPromptSubmit, Title: "a"},
			{Kind: agents.KindTurnEnd},
			{Kind: agents.KindSessionStart, Extra: "resume"},
		}},
		{"older event shapes", []string{
			`{"timestamp":"2025-06-01T10:00:00.000Z","type":"session_meta","payload":{"id":"T2","cwd":"/p","originator":"codex_cli_rs"}}`,
			`{"timestamp":"2025-06-01T10:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"list files"}}`,
			`{"timestamp":"2025-06-01T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls\"]}","call_id":"c1"}}`,
			`{"timestamp":"2025-06-01T10:00:02.100Z","type":"event_msg","payload":{"type":"exec_command_begin","call_id":"c1","command":["bash","-lc","ls"]}}`,
			`{"timestamp":"2025-06-01T10:00:03.000Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c1","exit_code":0}}`,
			`{"timestamp":"2025-06-01T10:00:03.100Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"a b"}}`,
			`{"timestamp":"2025-06-01T10:00:04.000Z","type":"event_msg","payload":{"type":"patch_apply_begin","call_id":"c2"}}`,
			`{"timestamp":"2025-06-01T10:00:05.000Z","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"c2"}}`,
			`{"timestamp":"2025-06-01T10:00:06.000Z","type":"compacted","payload":{"message":"s"}}`,
			`{"timestamp":"2025-06-01T10:00:06.500Z","type":"event_msg","payload":{"type":"context_compacted"}}`,
			`{"timestamp":"2025-06-01T10:00:07.000Z","type":"event_msg","payload":{"type":"agent_message","message":"done"}}`,
			`{"timestamp":"2025-06-01T10:00:08.000Z","type":"event_msg","payload":{"type":"task_complete","last_agent_message":"done"}}`,
		}, []ev{
			{Kind: agents.KindSessionStart},
			{Kind: agents.KindPromptSubmit, Title: "list files"},
			{Kind: agents.KindToolStart, Tool: "Bash"},
			{Kind: agents.KindToolEnd, Tool: "Bash"},
			{Kind: agents.KindToolStart, Tool: "apply_patch"},
			{Kind: agents.KindToolEnd, Tool: "apply_patch"},
			{Kind: agents.KindCompactStart, Extra: "auto"},
			{Kind: agents.KindCompactEnd, Extra: "auto"},
			{Kind: agents.KindTurnEnd},
		}},
		{"garbage is skipped", []string{meta, `not json`, `{"type":`, `{}`, started, prompt("ok"), done}, []ev{
			{Kind: agents.KindSessionStart, Extra: "cli"},
			{Kind: agents.KindPromptSubmit, Title: "ok"},
			{Kind: agents.KindTurnEnd},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := parseAll("/x/rollout-2026-11-30T10-00-00-T1.jsonl", []byte(strings.Join(tc.lines, "\n")), nil)
			var got []ev
			for _, e := range evs {
				g := ev{Kind: e.Kind, Tool: e.ToolName, ID: e.SubagentID, Title: e.Title}
				g.Extra = e.Source + e.Reason + e.ErrorKind
				got = append(got, g)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("events = %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("event %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestToolName(t *testing.T) {
	for _, tc := range []struct{ name, ns, want string }{
		{"exec_command", "", "Bash"},
		{"shell", "", "Bash"},
		{"apply_patch", "", "apply_patch"},
		{"spawn_agent", "multi_agent_v1", "spawn_agent"},
		{"wait_agent", "multi_agent_v1", "multi_agent_v1wait_agent"},
		{"update_plan", "", "update_plan"},
	} {
		if got := toolName(tc.name, tc.ns); got != tc.want {
			t.Errorf("toolName(%q, %q) = %q, want %q", tc.name, tc.ns, got, tc.want)
		}
	}
}

// TestParserBounds: a turn with more open calls than maxCalls keeps the
// newest, and they still end.
func TestParserBounds(t *testing.T) {
	p := newParser(subFixture.path, time.Time{}, nil) // no session_meta: the name says the thread
	p.line([]byte(`{"timestamp":"2026-11-30T10:00:01.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"u1"}}`))
	call := func(typ, id string) []byte {
		return []byte(`{"timestamp":"2026-11-30T10:00:02.000Z","type":"response_item","payload":{"type":"` + typ + `","name":"view_image","arguments":"{}","call_id":"` + id + `"}}`)
	}
	for i := range maxCalls + 50 {
		p.line(call("function_call", fmt.Sprint("c", i)))
	}
	if len(p.calls) != maxCalls {
		t.Errorf("open calls = %d, want %d", len(p.calls), maxCalls)
	}
	p.take()
	p.line(call("function_call_output", fmt.Sprint("c", maxCalls+49)))
	p.line(call("function_call_output", "c0"))
	evs := p.take()
	if len(evs) != 1 || evs[0].Kind != agents.KindToolEnd || evs[0].ToolUseID != fmt.Sprint("c", maxCalls+49) {
		t.Errorf("after ending the newest and the oldest call: %+v, want one tool.end of the newest", evs)
	}
}

package codex

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// world is a $CODEX_HOME in a temporary directory, a fake clock and a
// monitor that records what it emits.
type world struct {
	t      *testing.T
	home   string
	now    time.Time
	m      *Monitor
	events []agents.Event
}

func newWorld(t *testing.T, now time.Time, o Options) *world {
	w := &world{t: t, home: t.TempDir(), now: now}
	o.Home = w.home
	o.Now = func() time.Time { return w.now }
	o.Emit = func(e agents.Event) { w.events = append(w.events, e) }
	w.m = New(o)
	return w
}

func at(t testing.TB, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// path is where Codex would write the fixture's rollout on day.
func (w *world) path(fx fixture, day time.Time) string {
	return filepath.Join(dayDir(filepath.Join(w.home, "sessions"), day), filepath.Base(fx.path))
}

// write writes (or, with appendTo, appends) data and sets the file's
// modification time, which is what the monitor goes by.
func (w *world) write(path string, data []byte, mtime time.Time, appendTo bool) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.t.Fatal(err)
	}
	flag := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if appendTo {
		flag = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		w.t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		w.t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		w.t.Fatal(err)
	}
}

// poll polls until no file has more to read and returns what came out.
func (w *world) poll() []agents.Event {
	w.t.Helper()
	w.events = nil
	for range 10000 {
		behind, err := w.m.poll()
		if err != nil {
			w.t.Fatal(err)
		}
		if !behind {
			return w.events
		}
	}
	w.t.Fatal("the monitor never caught up")
	return nil
}

// shift moves a fixture's records to another hour of the same day.
func shift(data []byte, hour string) []byte {
	return bytes.ReplaceAll(data, []byte(`"timestamp":"2026-11-30T03:`), []byte(`"timestamp":"2026-11-30T`+hour+`:`))
}

func kinds(evs []agents.Event) string {
	var s []string
	for _, e := range evs {
		k := string(e.Kind)
		if e.ToolName != "" {
			k += ":" + e.ToolName
		}
		s = append(s, k)
	}
	return strings.Join(s, " ")
}

func sameEvents(t *testing.T, got, want []agents.Event) {
	t.Helper()
	if g, w := encode(t, got), encode(t, want); !bytes.Equal(g, w) {
		t.Errorf("events differ:\ngot:\n%s\nwant:\n%s", g, w)
	}
}

// TestMonitorFollowsSession: a TUI session and its sub-agent appear
// after the monitor started; it emits both files' events, merged by
// time, with the thread's name from session_index.jsonl.
func TestMonitorFollowsSession(t *testing.T) {
	w := newWorld(t, at(t, "2026-11-30T03:20:00Z"), Options{})
	if evs := w.poll(); len(evs) != 0 {
		t.Fatalf("first poll of an empty home emitted %v", kinds(evs))
	}
	tui, sub := w.path(tuiFixture, w.now), w.path(subFixture, w.now)
	w.write(filepath.Join(w.home, "session_index.jsonl"), readFixture(t, "session_index.jsonl"), w.now, false)
	w.write(tui, readFixture(t, tuiFixture.file), at(t, "2026-11-30T03:21:27Z"), false)
	w.write(sub, readFixture(t, subFixture.file), at(t, "2026-11-30T03:21:28Z"), false)
	w.now = at(t, "2026-11-30T03:21:30Z")

	got := w.poll()
	titles := fixtureTitles(t)
	want := merge([][]agents.Event{
		parseAll(sub, readFixture(t, subFixture.file), titles),
		parseAll(tui, readFixture(t, tuiFixture.file), titles),
	})
	sameEvents(t, got, want)
	for i := 1; i < len(got); i++ {
		if got[i].Time.Before(got[i-1].Time) {
			t.Errorf("event %d (%s) is older than the one before it", i, got[i].Kind)
		}
	}

	root := "01a22a78-156e-7373-a74d-0cd4a178e045"
	if lw, ok := w.m.LastWrite(root); !ok || !lw.Equal(at(t, "2026-11-30T03:21:28Z")) {
		t.Errorf("LastWrite(root) = %v, %v; want the sub-agent's newer write 03:21:28", lw, ok)
	}
	if evs := w.poll(); len(evs) != 0 {
		t.Errorf("a poll with nothing new emitted %v", kinds(evs))
	}
}

// TestMonitorPartialWrites: a file read while Codex writes it, cut in
// the middle of a line, in small reads, gives the same events as the
// whole file.
func TestMonitorPartialWrites(t *testing.T) {
	data := readFixture(t, execFixture.file)
	for _, cut := range []int{1, 700, len(data) / 2, len(data) - 1} {
		w := newWorld(t, at(t, "2026-11-30T03:13:00Z"), Options{MaxRead: 300})
		path := w.path(execFixture, w.now)
		w.poll()
		w.write(path, data[:cut], at(t, "2026-11-30T03:13:31Z"), false)
		w.now = at(t, "2026-11-30T03:13:32Z")
		got := w.poll()
		w.write(path, data[cut:], at(t, "2026-11-30T03:13:34Z"), true)
		w.now = at(t, "2026-11-30T03:13:35Z")
		got = append(got, w.poll()...)
		sameEvents(t, got, parseAll(path, data, nil))
	}
}

// TestMonitorOldFiles: files not written since before StartAt are
// ignored; when one is written again (`codex exec resume` appends to
// it), only what is new becomes events, after the session itself.
func TestMonitorOldFiles(t *testing.T) {
	data := readFixture(t, execFixture.file)
	i := bytes.IndexByte(data, '\n') + 1
	turn := shift(data[i:], "04") // the same turn, resumed an hour later

	for _, tc := range []struct {
		name  string
		day   time.Time // the file's day folder
		after time.Duration
	}{
		{"in today's folder", at(t, "2026-11-30T04:13:25Z"), 0},
		// Only every Rescan are old folders listed.
		{"in an old folder", at(t, "2026-11-20T04:13:25Z"), 15 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, at(t, "2026-11-30T04:13:25Z"), Options{})
			path := w.path(execFixture, tc.day)
			w.write(path, data, at(t, "2026-11-30T03:13:34Z"), false)
			if evs := w.poll(); len(evs) != 0 {
				t.Fatalf("an old file at start emitted %v", kinds(evs))
			}
			if len(w.m.files) != 0 {
				t.Errorf("the monitor follows %d files, want none", len(w.m.files))
			}

			w.write(path, turn, at(t, "2026-11-30T04:13:34Z"), true)
			w.now = at(t, "2026-11-30T04:13:35Z")
			if tc.after > 0 {
				if evs := w.poll(); len(evs) != 0 {
					t.Fatalf("an old folder was listed before Rescan: %v", kinds(evs))
				}
				w.now = w.now.Add(tc.after)
			}
			got := w.poll()
			const want = "session.start prompt.submit tool.start:Bash tool.end:Bash tool.start:apply_patch tool.end:apply_patch tool.start:web_search tool.end:web_search turn.end"
			if kinds(got) != want {
				t.Fatalf("after the resume: %s, want %s", kinds(got), want)
			}
			for _, e := range got[1:] {
				if e.Time.Hour() != 4 {
					t.Errorf("%s at %v: an event of the old run", e.Kind, e.Time)
				}
			}
		})
	}
}

// TestMonitorRunningAtStart: a session that was already working when
// clawd started shows what it is doing now, not its history.
func TestMonitorRunningAtStart(t *testing.T) {
	data := readFixture(t, tuiFixture.file)
	// The file up to the running `sleep 25` (call_fake_8).
	cut := bytes.Index(data, []byte(`"ordinal":57,`))
	cut = bytes.LastIndexByte(data[:cut], '\n') + 1
	w := newWorld(t, at(t, "2026-11-30T03:21:40Z"), Options{StartAt: at(t, "2026-11-30T03:21:30Z")})
	w.write(w.path(tuiFixture, w.now), data[:cut], at(t, "2026-11-30T03:21:35Z"), false)
	got := w.poll()
	if want := "session.start prompt.submit tool.start:Bash"; kinds(got) != want {
		t.Errorf("a running session at start: %s, want %s", kinds(got), want)
	}
}

// TestMonitorNewDayFolders: the day folders are today's, yesterday's and
// tomorrow's as the clock moves on.
func TestMonitorNewDayFolders(t *testing.T) {
	w := newWorld(t, at(t, "2026-11-30T03:13:00Z"), Options{})
	w.poll()
	for _, day := range []time.Duration{24 * time.Hour, 3 * 24 * time.Hour} {
		w.now = at(t, "2026-11-30T03:13:00Z").Add(day)
		w.poll()
		hour := w.now.Format("2006-01-02T15")
		data := bytes.ReplaceAll(readFixture(t, execFixture.file), []byte(`"timestamp":"2026-11-30T03`), []byte(`"timestamp":"`+hour))
		path := w.path(execFixture, w.now)
		w.write(path, data, w.now.Add(40*time.Second), false)
		w.now = w.now.Add(time.Minute)
		got := w.poll()
		sameEvents(t, got, parseAll(path, data, nil))
	}
}

// TestMonitorReplacedFiles: a file truncated or replaced by another is
// read again from its start.
func TestMonitorReplacedFiles(t *testing.T) {
	for _, replace := range []bool{false, true} {
		w := newWorld(t, at(t, "2026-11-30T03:20:00Z"), Options{})
		path := w.path(tuiFixture, w.now)
		w.poll()
		w.write(path, readFixture(t, tuiFixture.file), at(t, "2026-11-30T03:21:30Z"), false)
		w.now = at(t, "2026-11-30T03:21:31Z")
		w.poll()

		w.now = at(t, "2026-11-30T04:00:00Z")
		w.poll()
		if len(w.m.files) != 1 {
			t.Fatalf("the monitor follows %d files, want 1", len(w.m.files))
		}
		fresh := shift(readFixture(t, subFixture.file), "04")
		if replace {
			// A bigger file renamed over the old one: only its
			// identity tells it is another file.
			fresh = bytes.Repeat(fresh, 8)
			tmp := filepath.Join(w.home, "tmp.jsonl")
			w.write(tmp, fresh, at(t, "2026-11-30T04:21:20Z"), false)
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		} else {
			w.write(path, fresh, at(t, "2026-11-30T04:21:20Z"), false)
		}
		w.now = at(t, "2026-11-30T04:21:30Z")
		sameEvents(t, w.poll(), parseAll(path, fresh, nil))
	}
}

// TestMonitorForgets: deleted files and files quiet for ForgetAfter are
// dropped, and with them the session's last write.
func TestMonitorForgets(t *testing.T) {
	const root = "01a22a78-156e-7373-a74d-0cd4a178e045"
	setup := func() (*world, string) {
		w := newWorld(t, at(t, "2026-11-30T03:20:00Z"), Options{})
		path := w.path(tuiFixture, w.now)
		w.poll()
		w.write(path, readFixture(t, tuiFixture.file), at(t, "2026-11-30T03:21:30Z"), false)
		w.now = at(t, "2026-11-30T03:21:31Z")
		w.poll()
		if _, ok := w.m.LastWrite(root); !ok {
			t.Fatal("LastWrite of a followed session is unknown")
		}
		return w, path
	}

	w, path := setup()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	w.poll()
	if _, ok := w.m.LastWrite(root); ok || len(w.m.files) != 0 {
		t.Errorf("after deletion: %d files followed, LastWrite known %v; want none", len(w.m.files), ok)
	}

	w, _ = setup()
	w.now = w.now.Add(59 * time.Minute)
	w.poll()
	if len(w.m.files) != 1 {
		t.Errorf("after 59 minutes: %d files followed, want 1", len(w.m.files))
	}
	w.now = w.now.Add(2 * time.Minute)
	if evs := w.poll(); len(evs) != 0 {
		t.Errorf("forgetting emitted %v", kinds(evs))
	}
	if _, ok := w.m.LastWrite(root); ok || len(w.m.files) != 0 {
		t.Errorf("after an hour unwritten: %d files followed, LastWrite known %v; want none", len(w.m.files), ok)
	}
}

// TestMonitorLongLines: lines longer than MaxLine are skipped without
// being held, and the records around them still count.
func TestMonitorLongLines(t *testing.T) {
	data := readFixture(t, tuiFixture.file)
	want := kinds(parseAll(tuiFixture.path, data, nil))

	// Every line over 3000 bytes of the fixture (turn contexts, the
	// compacted record) is skipped: the compaction still shows from its
	// ContextCompaction item.
	w := newWorld(t, at(t, "2026-11-30T03:20:00Z"), Options{MaxLine: 3000, MaxRead: 512})
	path := w.path(tuiFixture, w.now)
	w.poll()
	w.write(path, data, at(t, "2026-11-30T03:21:30Z"), false)
	w.now = at(t, "2026-11-30T03:21:31Z")
	if got := kinds(w.poll()); got != want {
		t.Errorf("with MaxLine 3000:\n%s\nwant\n%s", got, want)
	}

	// A 5 MiB line in the middle of a turn.
	i := bytes.Index(data, []byte(`"ordinal":12,`))
	i = bytes.LastIndexByte(data[:i], '\n') + 1
	huge := append([]byte(`{"timestamp":"2026-11-30T03:20:44.100Z","type":"response_item","payload":{"type":"function_call_output","call_id":"x","output":"`),
		bytes.Repeat([]byte{'x'}, 5<<20)...)
	huge = append(huge, "\"}}\n"...)
	big := append(append(append([]byte{}, data[:i]...), huge...), data[i:]...)
	w = newWorld(t, at(t, "2026-11-30T03:20:00Z"), Options{})
	path = w.path(tuiFixture, w.now)
	w.poll()
	// First up to the middle of the long line, still being written.
	cut := i + len(huge) - 10
	w.write(path, big[:cut], at(t, "2026-11-30T03:21:30Z"), false)
	w.now = at(t, "2026-11-30T03:21:31Z")
	got := w.poll()
	for _, f := range w.m.files {
		if cap(f.partial) > defaultMaxLine {
			t.Errorf("a partial line of %d bytes is kept", cap(f.partial))
		}
	}
	w.write(path, big[cut:], at(t, "2026-11-30T03:21:32Z"), true)
	w.now = at(t, "2026-11-30T03:21:33Z")
	if got := kinds(append(got, w.poll()...)); got != want {
		t.Errorf("with a 5 MiB line:\n%s\nwant\n%s", got, want)
	}
}

// TestMonitorRename: a later session_index.jsonl line for the thread (the
// person renamed it) names the session from the next event on.
func TestMonitorRename(t *testing.T) {
	const root = "01a22a78-156e-7373-a74d-0cd4a178e045"
	data := readFixture(t, tuiFixture.file)
	w := newWorld(t, at(t, "2026-11-30T03:20:00Z"), Options{})
	index := filepath.Join(w.home, "session_index.jsonl")
	path := w.path(tuiFixture, w.now)
	w.poll()
	w.write(index, readFixture(t, "session_index.jsonl"), w.now, false)
	w.write(path, data, at(t, "2026-11-30T03:21:30Z"), false)
	w.now = at(t, "2026-11-30T03:21:31Z")
	w.poll()

	w.write(index, []byte(`{"id":"`+root+`","thread_name":"my alias","updated_at":"2026-11-30T05:00:00Z"}`+"\n"), w.now, true)
	// The last turn again, two hours later.
	i := bytes.Index(data, []byte(`"ordinal":74,`))
	i = bytes.LastIndexByte(data[:i], '\n') + 1
	w.write(path, shift(data[i:], "05"), at(t, "2026-11-30T05:30:00Z"), true)
	w.now = at(t, "2026-11-30T05:30:01Z")
	got := w.poll()
	if len(got) == 0 || got[0].Title != "my alias" || got[0].TitleSource != agents.TitleFromAgent {
		t.Fatalf("after the rename the first event is %+v, want title %q from the agent", got, "my alias")
	}
	for _, e := range got[1:] {
		if e.Title != "" && e.Title != "my alias" {
			t.Errorf("%s carries the old title %q", e.Kind, e.Title)
		}
	}
}

// TestRun: Run polls until its context ends and emits from its
// goroutine.
func TestRun(t *testing.T) {
	home := t.TempDir()
	now := at(t, "2026-11-30T03:13:00Z")
	path := filepath.Join(dayDir(filepath.Join(home, "sessions"), now), filepath.Base(execFixture.path))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, readFixture(t, execFixture.file), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, now, now); err != nil {
		t.Fatal(err)
	}
	got := make(chan agents.Event, 100)
	m := New(Options{Home: home, Now: func() time.Time { return now }, Poll: 10 * time.Millisecond,
		Emit: func(e agents.Event) { got <- e }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- m.Run(ctx) }()
	select {
	case e := <-got:
		if e.Kind != agents.KindSessionStart {
			t.Errorf("first event = %s, want %s", e.Kind, agents.KindSessionStart)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run emitted nothing")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want %v", err, context.Canceled)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}

func TestReadMeta(t *testing.T) {
	for _, tc := range []struct {
		file string
		want Meta
	}{
		{execFixture.file, Meta{ThreadID: "01a22a71-7da8-7150-9c21-ba982dfb8d63", SessionID: "01a22a71-7da8-7150-9c21-ba982dfb8d63",
			Originator: "codex_exec", Cwd: "/home/user/project", Source: "exec", ThreadSource: "user", CLIVersion: "0.169.0",
			Time: at(t, "2026-11-30T03:13:30.661Z")}},
		{subFixture.file, Meta{ThreadID: "01a22a78-9664-7052-a91e-64ee877daddb", SessionID: "01a22a78-156e-7373-a74d-0cd4a178e045",
			ParentThreadID: "01a22a78-156e-7373-a74d-0cd4a178e045", Originator: "codex-tui", Cwd: "/home/user/project",
			Source: "subagent", ThreadSource: "subagent", CLIVersion: "0.169.0", AgentNickname: "Hume",
			Time: at(t, "2026-11-30T03:21:15.680Z")}},
	} {
		got, err := ReadMeta(filepath.Join(rollouts, tc.file))
		if err != nil || got != tc.want {
			t.Errorf("ReadMeta(%s) = %+v, %v; want %+v", tc.file, got, err, tc.want)
		}
	}
	m, _ := ReadMeta(filepath.Join(rollouts, execFixture.file))
	s, _ := ReadMeta(filepath.Join(rollouts, subFixture.file))
	if !m.Headless() || m.Subagent() || s.Headless() || !s.Subagent() {
		t.Errorf("exec: Headless %v Subagent %v; sub-agent: Headless %v Subagent %v; want true false false true",
			m.Headless(), m.Subagent(), s.Headless(), s.Subagent())
	}

	dir := t.TempDir()
	for name, data := range map[string]string{
		"empty":     "",
		"not meta":  `{"timestamp":"2026-11-30T03:13:30.661Z","type":"event_msg","payload":{"type":"task_started"}}` + "\n",
		"too long":  `{"type":"session_meta","payload":{"id":"x","base_instructions":"` + strings.Repeat("a", defaultMaxLine) + `"}}` + "\n",
		"not json":  "hello\n",
		"no thread": `{"type":"session_meta","payload":{"cwd":"/p"}}` + "\n",
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadMeta(path); !errors.Is(err, ErrNoMeta) {
			t.Errorf("ReadMeta(%s) error = %v, want %v", name, err, ErrNoMeta)
		}
	}
	if _, err := ReadMeta(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadMeta(missing) error = %v, want %v", err, os.ErrNotExist)
	}
}

package agents

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// checkAppendJSON fails t unless e.AppendJSON gives json.Marshal's bytes,
// or json.Marshal's error.
func checkAppendJSON(t testing.TB, name string, e Event) {
	t.Helper()
	want, wantErr := json.Marshal(&e)
	got, err := e.AppendJSON(nil)
	switch {
	case wantErr != nil:
		if err == nil || err.Error() != wantErr.Error() {
			t.Errorf("%s: AppendJSON() error = %v, want %v (json.Marshal)", name, err, wantErr)
		}
	case err != nil:
		t.Errorf("%s: AppendJSON() error = %v, want %s", name, err, want)
	case !bytes.Equal(got, want):
		t.Errorf("%s: AppendJSON() =\n%s\nwant (json.Marshal)\n%s", name, got, want)
	}
}

func TestAppendJSONFixtures(t *testing.T) {
	env := envOf(map[string]string{
		"CLAUDE_PID":                   "42",
		"CLAUDE_PROJECT_DIR":           "/home/user/project",
		"CLAUDE_CODE_SESSION_ATTENDED": "1",
	})
	for _, name := range hookFixtures(t) {
		e, err := Claude.Decode(readFixture(t, name), "", env, now)
		if err != nil {
			t.Errorf("Decode(%s) error: %v", name, err)
			continue
		}
		checkAppendJSON(t, name, e)
	}
}

func TestAppendJSON(t *testing.T) {
	nasty := "q\"b\\s/<script>&amp;\x00\x01\x1f\x7f\b\f\n\r\t é 🦀 \u2028\u2029 \xff\xfe \xe2\x80 \xed\xa0\x80 \uFFFD end"
	all := Event{
		Agent: "claude", Kind: KindToolStart, SessionID: nasty,
		Time:      time.Date(2026, 5, 1, 12, 0, 0, 123456700, time.FixedZone("", -(5*3600+30*60))),
		HookEvent: "<PreToolUse>", Cwd: "C:\\Users\\me\\\"proj\"", ProjectDir: "/home/\u2028/p",
		ToolName: "mcp__x__y&z", ToolUseID: "\x00", ToolUseIDs: []string{"a", "", nasty, "\xff"},
		InputHash: "ab12", SubagentID: "\u2029", SubagentType: "🦀",
		Title: nasty, TitleSource: TitleFromPrompt, Source: "startup", Reason: "clear",
		NotificationType: "idle_prompt", ErrorKind: "rate_limit", Action: "accept",
		State: "working", PermissionMode: "default", Interrupt: true,
		BackgroundTasks: -3, Headless: true, AgentPID: 1<<31 + 7, Truncated: true,
	}
	tests := []struct {
		name string
		e    Event
	}{
		{"zero", Event{}},
		{"every field", all},
		{"nil ids", Event{Agent: "claude", ToolUseIDs: nil}},
		{"empty ids", Event{Agent: "claude", ToolUseIDs: []string{}}},
		{"one empty id", Event{Agent: "claude", ToolUseIDs: []string{""}}},
		{"only invalid utf-8", Event{Agent: "\x80", Kind: "\xc3", SessionID: "\xf0\x9f\xa6"}},
		{"utc nanos", Event{Time: time.Date(2026, 1, 2, 3, 4, 5, 1, time.UTC)}},
		{"trailing zero nanos", Event{Time: time.Date(2026, 1, 2, 3, 4, 5, 120000000, time.UTC)}},
		{"local", Event{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)}},
		{"monotonic", Event{Time: time.Now()}},
		{"year 0", Event{Time: time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"year 9999", Event{Time: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)}},
		{"offset 23:59", Event{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 23*3600+59*60))}},
		{"offset -23:59", Event{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", -(23*3600+59*60)))}},
		{"offset -1s", Event{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", -1))}},
		// json.Marshal fails on these; AppendJSON must fail the same way.
		{"year -1", Event{Time: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"year 10000", Event{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"offset 24:00", Event{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600))}},
		{"offset -100:00", Event{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", -100*3600))}},
	}
	for _, tt := range tests {
		checkAppendJSON(t, tt.name, tt.e)
	}
}

func TestAppendJSONAppends(t *testing.T) {
	e := Event{Agent: "claude", Kind: KindTurnEnd, SessionID: "s", Time: now}
	want, _ := json.Marshal(&e)
	got, err := e.AppendJSON([]byte("prefix"))
	if err != nil || string(got) != "prefix"+string(want) {
		t.Errorf("AppendJSON(prefix) = %q, %v, want %q", got, err, "prefix"+string(want))
	}

	e.Time = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	got, err = e.AppendJSON([]byte("prefix"))
	if err == nil || string(got) != "prefix" {
		t.Errorf("AppendJSON(prefix) with year 10000 = %q, %v, want %q and an error", got, err, "prefix")
	}
}

// fillEvent sets every field of e through reflection, so a field added to
// Event is filled (and so compared) without anyone remembering to: field i
// is set when bit i of mask is, strings come round-robin from strs, ints
// from ints, the ids are strs[0] split on commas, and the time is tm. A
// field of a type it does not know fails t, to make whoever adds it teach
// both AppendJSON and this function.
func fillEvent(t testing.TB, e *Event, mask uint64, strs []string, ints []int, tm time.Time) {
	t.Helper()
	v := reflect.ValueOf(e).Elem()
	for i := range v.NumField() {
		f, sf := v.Field(i), v.Type().Field(i)
		if mask&(1<<(i%64)) == 0 {
			continue
		}
		switch {
		case sf.Type == reflect.TypeFor[time.Time]():
			f.Set(reflect.ValueOf(tm))
		case sf.Type == reflect.TypeFor[[]string]():
			f.Set(reflect.ValueOf(strings.Split(strs[0], ",")))
		case sf.Type.Kind() == reflect.String:
			f.SetString(strs[i%len(strs)])
		case sf.Type.Kind() == reflect.Bool:
			f.SetBool(true)
		case sf.Type.Kind() == reflect.Int:
			f.SetInt(int64(ints[i%len(ints)]))
		default:
			t.Fatalf("Event.%s has type %v, which fillEvent does not know: teach AppendJSON and fillEvent", sf.Name, sf.Type)
		}
	}
}

// TestAppendJSONCoversEveryField fails when a field is added to Event (or a
// field's tag or type changes) and AppendJSON does not follow.
func TestAppendJSONCoversEveryField(t *testing.T) {
	var e Event
	fillEvent(t, &e, ^uint64(0), []string{"a,b", "x<y", "z"}, []int{1, -2, 3}, now)
	for i := range reflect.TypeFor[Event]().NumField() {
		if reflect.ValueOf(e).Field(i).IsZero() {
			t.Fatalf("fillEvent left Event.%s zero", reflect.TypeFor[Event]().Field(i).Name)
		}
	}
	want, err := json.Marshal(&e)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	keys := func(b []byte) []string {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("Unmarshal(%s) error: %v", b, err)
		}
		return slices.Sorted(maps.Keys(m))
	}
	if k, wk := keys(got), keys(want); !slices.Equal(k, wk) {
		t.Fatalf("AppendJSON() keys = %v\nwant (json.Marshal) %v\nAppendJSON must handle every field of Event", k, wk)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendJSON() =\n%s\nwant (json.Marshal)\n%s", got, want)
	}
}

func FuzzAppendJSON(f *testing.F) {
	f.Add("claude", "tool.start", "sess-1", uint64(0), 0, 0, int64(1777636800), int64(0), 0)
	f.Add("a,b,,c", "<>&\"\\", "\x00\x1f\x7f", ^uint64(0), 3, 42, int64(1777636800), int64(999999999), -19800)
	f.Add("\xff\xe2\x80\xa8", "\u2028\u2029", "🦀\xf0\x9f", uint64(0x5555555555555555), -1, 1<<40, int64(-62135596800), int64(1), 3600)
	f.Add("", "", "", uint64(0xaaaaaaaaaaaaaaaa), 0, -7, int64(253402300800), int64(0), 0)              // year 10000
	f.Add("x", "y", "z", ^uint64(0), 1, 2, int64(-62167219201), int64(0), 0)                            // year -1
	f.Add("x", "y", "z", ^uint64(0), 1, 2, int64(1777636800), int64(500), 24*3600)                      // offset 24:00
	f.Add("\t\n\r\b\f", "ok", "&amp;", uint64(1)<<4|1<<5, 9, 9, int64(0), int64(-1), -(23*3600 + 3599)) // offset -23:59:59
	f.Fuzz(func(t *testing.T, s0, s1, s2 string, mask uint64, n0, n1 int, sec, nsec int64, off int) {
		tm := time.Unix(sec, nsec).In(time.FixedZone("", off))
		if mask&(1<<63) != 0 {
			tm = time.Unix(sec, nsec).UTC()
		}
		var e Event
		fillEvent(t, &e, mask, []string{s0, s1, s2}, []int{n0, n1}, tm)
		checkAppendJSON(t, "fuzzed", e)
	})
}

// benchEvent is a typical tool.start, what the hook marshals most often.
func benchEvent(b *testing.B) Event {
	env := envOf(map[string]string{"CLAUDE_PID": "42", "CLAUDE_PROJECT_DIR": "/home/user/project"})
	payload, err := os.ReadFile(filepath.Join(hooksDir, "PreToolUse.json"))
	if err != nil {
		b.Fatal(err)
	}
	e, err := Claude.Decode(payload, "", env, now)
	if err != nil {
		b.Fatal(err)
	}
	return e
}

func BenchmarkAppendJSON(b *testing.B) {
	e := benchEvent(b)
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = e.AppendJSON(buf[:0]); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkMarshal(b *testing.B) {
	e := benchEvent(b)
	var n int
	b.ReportAllocs()
	for b.Loop() {
		buf, err := json.Marshal(&e)
		if err != nil {
			b.Fatal(err)
		}
		n = len(buf)
	}
	b.SetBytes(int64(n))
}

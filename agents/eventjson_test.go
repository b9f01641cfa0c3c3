package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// checkAppendJSON fails t unless e.AppendJSON gives the bytes of a
// json.Encoder without HTML escaping (marshalJSON), or its error.
func checkAppendJSON(t testing.TB, name string, e Event) {
	t.Helper()
	want, wantErr := marshalJSON(&e)
	got, err := e.AppendJSON(nil)
	switch {
	case wantErr != nil:
		if err == nil || err.Error() != wantErr.Error() {
			t.Errorf("%s: AppendJSON() error = %v, want %v (json.Encoder)", name, err, wantErr)
		}
	case err != nil:
		t.Errorf("%s: AppendJSON() error = %v, want %s", name, err, want)
	case !bytes.Equal(got, want):
		t.Errorf("%s: AppendJSON() =\n%s\nwant (json.Encoder)\n%s", name, got, want)
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
		// encoding/json fails on these; AppendJSON must fail the same way.
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
	want, _ := marshalJSON(&e)
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

func TestAppendJSONWithinTooLarge(t *testing.T) {
	e := Event{Agent: "claude", Kind: KindTurnEnd, SessionID: "s", Time: now, Cwd: strings.Repeat("/d", 200), Response: "text"}
	out, cut, err := e.AppendJSONWithin([]byte("prefix"), 300)
	if !errors.Is(err, ErrEventTooLarge) || string(out) != "prefix" || cut {
		t.Errorf("AppendJSONWithin(300) with a 400-byte cwd = %q, %v, %v; want the prefix alone and ErrEventTooLarge", out, cut, err)
	}
	// Room for the rest, none for a byte of text: the key is left out.
	rest := e
	rest.Response = ""
	b, _ := rest.AppendJSON(nil)
	out, cut, err = e.AppendJSONWithin(nil, len(b)+len(`,"response":""`))
	if err != nil || !cut || !bytes.Equal(out, b) {
		t.Errorf("AppendJSONWithin with no room for text = %s, %v, %v; want %s", out, cut, err, b)
	}
}

func FuzzAppendJSONWithin(f *testing.F) {
	f.Add("done", "/p", 200)
	f.Add(strings.Repeat("\x01<\xff\u2028é", 100), "/home/\x00", 300)
	f.Add(strings.Repeat("🦀", 100), "", 150)
	f.Fuzz(func(t *testing.T, response, cwd string, max int) {
		e := Event{Agent: "claude", Kind: KindTurnEnd, SessionID: "s", Time: now, Cwd: cwd, Response: response}
		rest := e
		rest.Response = ""
		b, _ := rest.AppendJSON(nil)
		if max < len(b) || max > 1<<20 {
			return // too small even without text: TestAppendJSONWithinTooLarge
		}
		checkWithin(t, "fuzzed", e, max)
	})
}

// TestAppendJSONStringIsMarshal: the fingerprints of Codex's and
// Copilot's commands hash appendJSONString, which stays json.Marshal's
// HTML-escaped string, so that they do not change with AppendJSON's.
func TestAppendJSONStringIsMarshal(t *testing.T) {
	for _, s := range []string{"", "echo hi > out.txt", "a<b&&c", "q\"b\\\x00\x1f\x7f\u2028 é\xff\xe2\x80"} {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("appendJSONString(%q) = %s, want %s (json.Marshal)", s, got, want)
		}
	}
}

// TestAppendJSONKeepsMarkup: <, > and & go out as they are, one byte
// each; json.Marshal's \u003c would make an answer full of code six times
// as long.
func TestAppendJSONKeepsMarkup(t *testing.T) {
	e := Event{Agent: "claude", Kind: KindTurnEnd, SessionID: "s", Time: now, Response: "if a < b && c > d {}"}
	got, err := e.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got, []byte(`"response":"if a < b && c > d {}"`)) {
		t.Errorf("AppendJSON() = %s, want the response's <, > and & unescaped", got)
	}
}

// consumed returns how many bytes of orig decoded reads as, rune by rune,
// where encoding/json turned each invalid byte into U+FFFD; false when
// decoded is no such prefix of orig.
func consumed(orig, decoded string) (int, bool) {
	i, j := 0, 0
	for j < len(decoded) {
		if i == len(orig) {
			return 0, false
		}
		r, n := utf8.DecodeRuneInString(orig[i:])
		d, m := utf8.DecodeRuneInString(decoded[j:])
		if r != d {
			return 0, false
		}
		i, j = i+n, j+m
	}
	return i, true
}

// checkWithin checks e.AppendJSONWithin(dst, max): what dst held stays,
// the body is at most max bytes and is AppendJSON of e with its response
// cut to a prefix that ends on a rune boundary, and one rune more would
// not have fitted. It returns the body's response.
func checkWithin(t *testing.T, name string, e Event, max int) (response string, cut bool) {
	t.Helper()
	dst := []byte("prefix")
	out, cut, err := e.AppendJSONWithin(dst, max)
	if err != nil {
		t.Fatalf("%s: AppendJSONWithin(%d) error: %v", name, max, err)
	}
	if !bytes.HasPrefix(out, dst) {
		t.Fatalf("%s: AppendJSONWithin dropped what dst held: %.20q", name, out)
	}
	body := out[len(dst):]
	if len(body) > max {
		t.Errorf("%s: AppendJSONWithin(%d) = %d bytes, over the cap", name, max, len(body))
	}
	var got Event
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("%s: the body does not decode: %v", name, err)
	}
	k, ok := consumed(e.Response, got.Response)
	if !ok {
		t.Fatalf("%s: the response sent (%d bytes) is not a prefix of the agent's (%d bytes)", name, len(got.Response), len(e.Response))
	}
	if cut != (k < len(e.Response)) {
		t.Errorf("%s: cut = %v, but %d of %d bytes were sent", name, cut, k, len(e.Response))
	}
	sent := e
	sent.Response = e.Response[:k]
	if want, _ := sent.AppendJSON(nil); !bytes.Equal(body, want) {
		t.Errorf("%s: AppendJSONWithin = %.200s...\nwant AppendJSON of the cut event %.200s...", name, body, want)
	}
	if cut {
		_, n := utf8.DecodeRuneInString(e.Response[k:])
		more := e
		more.Response = e.Response[:k+n]
		if b, _ := more.AppendJSON(nil); len(b) <= max {
			t.Errorf("%s: cut at %d bytes, but %d (one rune more) encode in %d <= %d", name, k, k+n, len(b), max)
		}
	}
	return got.Response, cut
}

func TestAppendJSONWithin(t *testing.T) {
	base := Event{Agent: "claude", Kind: KindTurnEnd, SessionID: "s-1", Time: now, HookEvent: "Stop",
		Cwd: "/home/user/project", Transcript: "/home/user/.claude/projects/p/s-1.jsonl"}
	huge := base
	huge.Cwd = strings.Repeat("\x01", MaxPathLen) // 6 bytes each in JSON
	code := strings.Repeat("func f(a, b int) bool {\n\tif a < b && b > 0 {\n\t\treturn \"<ok>\"\n\t}\n}\n", 40<<10/60)
	tests := []struct {
		name     string
		e        Event
		response string
		whole    bool // the response fits as it is
	}{
		{"short", base, "done", true},
		{"40 KB of code", base, code, true},
		{"11,000 <", base, strings.Repeat("<", 11000), true},
		{"64 KiB of text", base, strings.Repeat("a", MaxResponseLen), false},
		{"64 KiB of control bytes", base, strings.Repeat("\x01", MaxResponseLen), false},
		{"64 KiB of quotes", base, strings.Repeat(`"`, MaxResponseLen), false},
		{"64 KiB of invalid UTF-8", base, strings.Repeat("\xff", MaxResponseLen), false},
		{"U+2028", base, strings.Repeat("\u2028", MaxResponseLen/3), false},
		{"4-byte runes", base, strings.Repeat("🦀", MaxResponseLen/4), false},
		{"mixed runes", base, strings.Repeat("é\x02🦀a\u2029\"", MaxResponseLen/14), false},
		{"control bytes, huge cwd", huge, strings.Repeat("\x1f", MaxResponseLen), false},
		{"text, huge cwd", huge, code, false},
	}
	for _, tt := range tests {
		e := tt.e
		e.Response = tt.response
		got, cut := checkWithin(t, tt.name, e, MaxEventBody)
		if cut == tt.whole {
			t.Errorf("%s: cut = %v, want %v", tt.name, cut, !tt.whole)
		}
		if !utf8.ValidString(got) || got == "" {
			t.Errorf("%s: response of %d bytes, valid UTF-8 %v: want a non-empty valid text", tt.name, len(got), utf8.ValidString(got))
		}
		e.Response = got
		if err := e.Validate(); err != nil {
			t.Errorf("%s: the runtime would refuse it: %v", tt.name, err)
		}
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
	want, err := marshalJSON(&e)
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
		t.Fatalf("AppendJSON() keys = %v\nwant (json.Encoder) %v\nAppendJSON must handle every field of Event", k, wk)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendJSON() =\n%s\nwant (json.Encoder)\n%s", got, want)
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
		buf, err := marshalJSON(&e)
		if err != nil {
			b.Fatal(err)
		}
		n = len(buf)
	}
	b.SetBytes(int64(n))
}

// BenchmarkAppendJSONWithin is the hook's worst case: a 64 KiB answer of
// control bytes, encoded, found too long, and cut.
func BenchmarkAppendJSONWithin(b *testing.B) {
	e := benchEvent(b)
	e.Response = strings.Repeat("\x01", MaxResponseLen)
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, _, err = e.AppendJSONWithin(buf[:0], MaxEventBody); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(buf)))
}

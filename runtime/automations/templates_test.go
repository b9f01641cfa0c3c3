package automations

import (
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestJSONTemplateHoldsAnyValue: whatever the title holds (quotes,
// backslashes, a "}], "x": "" that would close the object, newlines,
// U+2028), a JSON template makes JSON: inside a string the value is the
// string's text, elsewhere it is the value itself with its type (a number
// stays a number, the workspaces an array, nothing is null).
func TestJSONTemplateHoldsAnyValue(t *testing.T) {
	doc, err := document(titled(hostileTitle, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tmpl string
		want any
	}{
		{`{"t": "${session.title}"}`, map[string]any{"t": hostileTitle}},
		{`{"t": "<${session.title}> in ${workspaces.0.name}"}`, map[string]any{"t": "<" + hostileTitle + "> in shop"}},
		{`{"v": ${session.title}}`, map[string]any{"v": hostileTitle}},
		{`{"n": ${payload.durationMs}, "w": ${workspaces.0}, "none": ${payload.nope}}`,
			map[string]any{"n": 1200.0, "w": map[string]any{"id": "/src/shop", "name": "shop"}, "none": nil}},
		{`["${session.title}", ${session.title}, "${payload.durationMs} ms"]`, []any{hostileTitle, hostileTitle, "1200 ms"}},
		{`{"backslash": "\\${session.title}"}`, map[string]any{"backslash": `\` + hostileTitle}},
		{`{"quote": "\"${agent.id}\""}`, map[string]any{"quote": `"claude"`}},
		{`{"literal": "$${session.title}"}`, map[string]any{"literal": "${session.title}"}},
	} {
		s, ok, err := expandJSON(tc.tmpl, doc, maxBody, nil)
		if err != nil || !ok {
			t.Errorf("expandJSON(%s) = %v, %v", tc.tmpl, ok, err)
			continue
		}
		var got any
		if err := json.Unmarshal([]byte(s), &got); err != nil {
			t.Errorf("expandJSON(%s) = %s, not JSON: %v", tc.tmpl, s, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("expandJSON(%s) = %#v, want %#v", tc.tmpl, got, tc.want)
		}
	}
}

// TestCheckJSONTemplate: a template that would not make JSON is refused
// when the file is read, saying where.
func TestCheckJSONTemplate(t *testing.T) {
	for _, tc := range []struct {
		tmpl  string
		array bool
		want  string // "" for none
	}{
		{`{"text": "${session.title} done", "n": ${payload.durationMs}}`, false, ""},
		{`[{"type": "section"}]`, true, ""},
		{`{"text": "${session.title}"`, false, "not JSON with its placeholders filled in"},
		{`{"a": "\${session.title}"}`, false, "a placeholder right after a backslash"},
		{`{${session.title}: 1}`, false, "not JSON"},
		{`[1 ${session.title}]`, false, "not JSON"},
		{`{"a": ${session.title}${agent.id}}`, false, "not JSON"},
		{`{"a": "${payload.text}"}`, false, `path "payload.text" cannot be read for turn.completed`},
		{`{"type": "section"}`, true, "a JSON array"},
		{`{"a": 1} trailing`, false, "not JSON"},
	} {
		err := checkJSONTemplate(tc.tmpl, TurnCompleted, "action.body_template", tc.array)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("checkJSONTemplate(%s) = %v, want nil", tc.tmpl, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("checkJSONTemplate(%s) = %v, want %q", tc.tmpl, err, tc.want)
		}
	}
}

// TestWebhookBodyTemplate: a webhook with a body_template POSTs the
// template's JSON instead of {"event", "input"}, with its headers, the
// event's name and, keyed, the Idempotency-Key; the hostile title stays
// inside its string.
func TestWebhookBodyTemplate(t *testing.T) {
	clock := newFakeClock()
	svc := newService(t, serviceAnswer{code: 503})
	e := testEngine(t, clock, `[[automation]]
id = "w"
event = "turn.completed"
policy = { retry = "keyed", backoff = "1s" }
[automation.action]
type = "webhook"
url = "`+svc.URL+`/in"
headers = { X-Api-Key = "k-123" }
body_template = '''
{"summary": "${session.title} is done", "ms": ${payload.durationMs}, "agent": ${agent}}
'''
`)
	runOnce(t, e, "w", titled(hostileTitle, clock.Now()))
	clock.Advance(time.Second)
	drain(t, e)
	calls := svc.got()
	if len(calls) != 2 {
		t.Fatalf("%d calls, want 2 (a 503, then the retry)", len(calls))
	}
	var got map[string]any
	if err := json.Unmarshal(calls[1].body, &got); err != nil {
		t.Fatalf("body %s: %v", calls[1].body, err)
	}
	want := map[string]any{"summary": hostileTitle + " is done", "ms": 1200.0, "agent": map[string]any{"id": "claude", "name": "Claude Code"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("body = %#v, want %#v", got, want)
	}
	h := calls[1].header
	if h.Get("Content-Type") != "application/json" || h.Get("X-Api-Key") != "k-123" || h.Get("X-Clawd-Event") != "turn.completed" ||
		h.Get("Idempotency-Key") == "" || h.Get("Idempotency-Key") != calls[0].header.Get("Idempotency-Key") {
		t.Errorf("headers = %v, want JSON, the API key, the event and one Idempotency-Key on both attempts", h)
	}
}

// TestJSONTemplateBombSendsNothing: a body_template of 10,000 copies of a
// 30 KB answer (300 MB unbounded) fails its run past maxBody, having
// allocated a small multiple of that, and sends nothing; the same in a
// Slack text is cut (as a notification's is) and sent.
func TestJSONTemplateBombSendsNothing(t *testing.T) {
	clock := newFakeClock()
	svc := newService(t)
	jsonBomb := "[" + strings.Repeat(`"${payload.text}",`, 10000) + "0]"
	e := testEngine(t, clock, `[[automation]]
id = "w"
event = "response.committed"
action = { type = "webhook", url = "`+svc.URL+`/w", body_template = '`+jsonBomb+`' }

[[automation]]
id = "s"
event = "response.committed"
action = { type = "slack", url = "`+svc.URL+`/s", text = "`+bomb+`" }
`)
	trust(t, e, "w")
	answer := strings.Repeat("a", 30_000)
	doc, err := document(responded("s", "t", answer, clock.Now()))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = renderJSON(jsonBomb, doc, nil)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "1024 KiB") {
		t.Errorf("renderJSON(bomb) = %v, want over the 1024 KiB of a body", err)
	}
	const bound = 16 << 20 // 16 × maxBody
	n := after.TotalAlloc - before.TotalAlloc
	t.Logf("renderJSON(bomb) allocated %d bytes", n)
	if n > bound {
		t.Errorf("renderJSON(bomb) allocated %d bytes, want at most %d", n, bound)
	}

	runOnce(t, e, "s", responded("s", "t", answer, clock.Now()))
	var webhook Run
	for _, r := range runsOf(t, e) {
		if r.AutomationID == "w" {
			webhook = r
		}
	}
	if webhook.State != StateFailed || webhook.ErrorCode != CodeActionFailed || !strings.Contains(webhook.ErrorMessage, "body_template") {
		t.Errorf("the bomb's run = %+v, want failed naming body_template", webhook)
	}
	calls := svc.got()
	if len(calls) != 1 || calls[0].path != "/s" {
		t.Fatalf("calls %d, want the slack one only", len(calls))
	}
	var msg struct{ Text string }
	json.Unmarshal(calls[0].body, &msg)
	if n := len([]rune(msg.Text)); n != slackMaxText || !strings.HasSuffix(msg.Text, "…") {
		t.Errorf("slack text of %d runes, want cut to %d", n, slackMaxText)
	}
}

// TestCuts: each service's cut keeps within its bound, whole runes, an
// ellipsis at the end only when something was cut.
func TestCuts(t *testing.T) {
	for _, tc := range []struct {
		name string
		cut  func(string, int) string
		s    string
		n    int
		want string
	}{
		{"runes short", cutRunes, "héllo", 5, "héllo"},
		{"runes cut", cutRunes, "héllo!", 5, "héll…"},
		{"utf16 short", cutUTF16, "a🦀", 3, "a🦀"},
		{"utf16 pair at the cut", cutUTF16, "a🦀b", 3, "a…"},
		{"utf16 cut", cutUTF16, "abcd", 3, "ab…"},
		{"bytes short", cutBytes, "ééé", 6, "ééé"},
		{"bytes cut", cutBytes, "éééé", 7, "éé…"},
	} {
		if got := tc.cut(tc.s, tc.n); got != tc.want {
			t.Errorf("%s: cut(%q, %d) = %q, want %q", tc.name, tc.s, tc.n, got, tc.want)
		}
	}
}

// TestJSONTemplateRefusesWhatItCannotMake: the runtime check behind the
// load-time one: a template that is not JSON (one that skipped Parse)
// sends nothing.
func TestJSONTemplateRefusesWhatItCannotMake(t *testing.T) {
	_, _, err := expandJSON(`{"a": ${session.title}`, nil, maxBody, nil)
	if err == nil {
		t.Error("expandJSON of an unterminated object succeeded")
	}
	_, _, err = expandJSON(`{"a": "\${session.title}"}`, nil, maxBody, nil)
	if !errors.Is(err, errAfterBackslash) {
		t.Errorf("expandJSON after a backslash = %v, want errAfterBackslash", err)
	}
}

package automations

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// TestWebhookNeverFollowsRedirects: a trusted receiver that redirects to
// another host gets the run failed for good, naming where it pointed; the
// other host sees no request at all (so neither the event nor the
// definition's API key), whatever client the engine was given.
func TestWebhookNeverFollowsRedirects(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var stolen []http.Header
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		stolen = append(stolen, r.Header.Clone())
		mu.Unlock()
	}))
	defer other.Close()
	clients := map[string]*http.Client{
		"default": nil, // testEngine's: the engine's own default
		"follows": {CheckRedirect: func(*http.Request, []*http.Request) error { return nil }},
	}
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		for name, client := range clients {
			t.Run(fmt.Sprintf("%d/%s", code, name), func(t *testing.T) {
				mu.Lock()
				stolen = nil
				mu.Unlock()
				trusted := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, other.URL+"/collect", code)
				}))
				defer trusted.Close()
				clock := newFakeClock()
				e := testEngine(t, clock, "[[automation]]\nid = \"w\"\nevent = \"turn.completed\"\n"+
					"action = { type = \"webhook\", url = \""+trusted.URL+"\", headers = { X-Api-Key = \"k-123\" } }\n"+
					"policy = { retry = \"safe\" }\n")
				if client != nil {
					e.o.HTTP = client
				}
				trust(t, e, "w")
				e.Observe(ctx, completed("s", "t", clock.Now()))
				drain(t, e)
				clock.Advance(time.Hour)
				drain(t, e)
				r := runsOf(t, e)[0]
				if r.State != StateFailed || r.ErrorCode != CodeActionFailed || r.Attempts != 1 {
					t.Errorf("run = %+v, want failed/action_failed after one attempt (never retried)", r)
				}
				if !strings.Contains(r.ErrorMessage, fmt.Sprint(code)) || !strings.Contains(r.ErrorMessage, other.URL+"/collect") {
					t.Errorf("message %q, want the status %d and the Location %s", r.ErrorMessage, code, other.URL+"/collect")
				}
				mu.Lock()
				defer mu.Unlock()
				if len(stolen) != 0 {
					t.Errorf("the other host got %d requests (headers %v), want none", len(stolen), stolen)
				}
			})
		}
	}
}

// responded is a response.committed envelope of session sid whose answer
// is text.
func responded(sid, turn, text string, at time.Time) *Envelope {
	env := completed(sid, turn, at)
	env.EventName, env.EventID = ResponseCommitted, EventID(ResponseCommitted, sid+":"+turn)
	env.Payload = map[string]any{"text": text, "messageId": turn + ":response"}
	return env
}

// bomb is a template of 10,000 copies of the answer: 300 MB for a 30 KB
// answer, unbounded.
var bomb = strings.Repeat("${payload.text}", 10000)

// TestTemplateBombCostsLittle: mapping the bomb fails as soon as the value
// passes maxValue, having allocated a small multiple of that, not the
// 300 MB the template asks for; a notification's text is cut the same
// way.
func TestTemplateBombCostsLittle(t *testing.T) {
	doc, err := document(responded("s", "t", strings.Repeat("a", 30_000), time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	in := Input{"text": {Template: bomb}}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = in.eval(doc)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, errTooLarge) || !strings.Contains(err.Error(), "input.text") || !strings.Contains(err.Error(), "128 KiB") {
		t.Errorf("eval(bomb) = %v, want input.text over the 128 KiB of one value", err)
	}
	const bound = 2 << 20 // 16 × maxValue
	n := after.TotalAlloc - before.TotalAlloc
	t.Logf("eval(bomb) allocated %d bytes", n)
	if n > bound {
		t.Errorf("eval(bomb) allocated %d bytes, want at most %d (unbounded: %d)", n, bound, 10000*30_000)
	}

	runtime.GC()
	runtime.ReadMemStats(&before)
	s, ok := expand(bomb, doc, maxValue)
	runtime.ReadMemStats(&after)
	if ok || len(s) != maxValue {
		t.Errorf("expand(bomb) = %d bytes, %v; want cut at %d, false", len(s), ok, maxValue)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > bound {
		t.Errorf("expand(bomb) allocated %d bytes, want at most %d", n, bound)
	}
}

// TestMappingBounds: a path to more than maxValue (an object's JSON
// counts), and values that pass maxInput together, fail the mapping; the
// largest answer an agent hands over fits one value with words around it.
func TestMappingBounds(t *testing.T) {
	big := strings.Repeat("é", maxValue/2) // maxValue bytes of text
	doc, err := document(responded("s", "t", big, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		in   Input
		want string // "" for no error
	}{
		{"the text, exactly maxValue", Input{"v": {Path: "payload.text"}}, ""},
		{"the payload's JSON, over maxValue", Input{"v": {Path: "payload"}}, "one value"},
		{"a template one byte over", Input{"v": {Template: "x${payload.text}"}}, "one value"},
		{"five values over maxInput together", Input{"a": {Path: "payload.text"}, "b": {Path: "payload.text"},
			"c": {Path: "payload.text"}, "d": {Path: "payload.text"}, "e": {Path: "payload.text"}}, "whole input"},
	} {
		got, err := tc.in.eval(doc)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: eval = %v, want no error", tc.name, err)
		case tc.want == "" && got["v"] != big:
			t.Errorf("%s: eval gave %d bytes, want the text", tc.name, len(fmt.Sprint(got["v"])))
		case tc.want != "" && (!errors.Is(err, errTooLarge) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: eval = %v, want an error naming %q", tc.name, err, tc.want)
		}
	}

	answer, err := document(responded("s", "t", strings.Repeat("a", agents.MaxResponseLen), time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	quote := Input{"v": {Template: "The agent said: ${payload.text}"}, "p": {Path: "payload"}}
	if _, err := quote.eval(answer); err != nil {
		t.Errorf("quoting the largest answer an agent hands over: %v", err)
	}
}

// TestBombsSendNothing: end to end, the bomb in a webhook's input fails
// its run with mapping_failed and the receiver sees no request; an event
// and input over maxBody fail a webhook and a command before anything is
// sent or run; the bomb in a notification is shown cut to a line.
func TestBombsSendNothing(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	rec := newReceiver(t)
	ran := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "hook.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	doc := `[[automation]]
id = "bomb"
event = "response.committed"
action = { type = "webhook", url = "` + rec.URL + `" }
input = { text = { template = "` + bomb + `" } }

[[automation]]
id = "plain"
event = "response.committed"
condition = { path = "turn.id", op = "eq", value = "huge" }
action = { type = "webhook", url = "` + rec.URL + `" }

[[automation]]
id = "cmd"
event = "response.committed"
condition = { path = "turn.id", op = "eq", value = "huge" }
action = { type = "command", argv = ["` + script + `", "` + ran + `"] }

[[automation]]
id = "note"
event = "response.committed"
action = { type = "notification", title = "` + bomb + `", body = "` + bomb + `" }
`
	e := testEngine(t, clock, doc)
	d := &fakeDesktop{}
	e.o.Desktop = d
	for _, id := range []string{"bomb", "plain", "cmd", "note"} {
		trust(t, e, id)
	}
	e.Observe(ctx, responded("s", "small", strings.Repeat("a", 30_000), clock.Now()))
	// No agent hands over such an answer; an event this big stands for
	// any envelope and input over maxBody.
	e.Observe(ctx, responded("s", "huge", strings.Repeat("a", maxBody), clock.Now()))
	drain(t, e)
	byKey := map[string]Run{}
	for _, r := range runsOf(t, e) {
		byKey[r.AutomationID+"/"+r.EventID] = r
	}
	small, huge := EventID(ResponseCommitted, "s:small"), EventID(ResponseCommitted, "s:huge")
	if r := byKey["bomb/"+small]; r.State != StateFailed || r.ErrorCode != CodeMappingFailed || !strings.Contains(r.ErrorMessage, "input.text") {
		t.Errorf("the bomb's run = %+v, want failed/mapping_failed naming input.text", r)
	}
	for _, id := range []string{"plain", "cmd"} {
		if r := byKey[id+"/"+huge]; r.State != StateFailed || r.ErrorCode != CodeActionFailed || !strings.Contains(r.ErrorMessage, "KiB") {
			t.Errorf("%s with a body over maxBody = %+v, want failed/action_failed naming the size", id, r)
		}
	}
	for _, c := range rec.got() {
		t.Errorf("the receiver got a request for turn %s, want none", c.body.Event.Turn.ID)
	}
	if _, err := os.Stat(ran); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command ran (%v) with a body over maxBody", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.notes) != 2 || len([]rune(d.notes[0])) != 120+1+300 {
		t.Errorf("notes = %d, first of %d runes; want 2, of a 120-rune title and a 300-rune body", len(d.notes), len([]rune(d.notes[0])))
	}
}

//go:build linux

package e2e

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeopenai"
	"github.com/clawdhq/clawd/runtime/client"
)

// opencodeQuestionArgs are the arguments of a call of opencode's question
// tool: a single-select, a multi-select and one more.
var opencodeQuestionArgs = map[string]any{"questions": []any{
	map[string]any{"question": "Which database should we use?", "header": "Database", "options": []any{
		map[string]any{"label": "Postgres", "description": "Relational"},
		map[string]any{"label": "SQLite", "description": "Embedded"},
		map[string]any{"label": "Redis", "description": "KV"}}},
	map[string]any{"question": "Which features do you want?", "header": "Features", "multiple": true, "options": []any{
		map[string]any{"label": "Auth", "description": "Login"},
		map[string]any{"label": "Search", "description": "FTS"},
		map[string]any{"label": "Export", "description": "CSV"}}},
	map[string]any{"question": "Which language?", "header": "Language", "options": []any{
		map[string]any{"label": "Go", "description": "Go"},
		map[string]any{"label": "Rust", "description": "Rust"}}},
}}

// opencodeQuestionView is opencode's own view of a question tool's call:
// a tab per question, then Confirm.
var opencodeQuestionView = regexp.MustCompile(`Database\s+Features\s+Language\s+Confirm`)

// TestOpencodeTUIQuestions: in the opencode TUI the model calls the
// question tool; clawd's plugin hands the question to clawd, which lists
// it with its questions, answerable; `clawd answer` answers it (an option,
// two of a multi-select, and text of one's own) and the model reads the
// answers as opencode gives them, while the question in opencode's own
// view goes away. The event stream records the labels, never the text. A
// question dismissed in opencode's own view instead (Esc) is withdrawn
// from clawd.
func TestOpencodeTUIQuestions(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
	defer cancel()
	deadline, _ := ctx.Deadline()
	const (
		marker    = "E2E_OC_QUESTION"
		ownMarker = "E2E_OC_DISMISS"
		done      = "Thanks, noted your answers."
		typed     = "Zig, maybe"
	)
	w := newOpencodeWorld(t)
	w.startOpencodeAPI(fakeopenai.Script{Title: "Pick a stack", Conversations: []fakeopenai.Conversation{
		{Match: marker, Steps: []fakeopenai.Step{fakeopenai.Tool("question", opencodeQuestionArgs), fakeopenai.Text(done)}},
		{Match: ownMarker, Steps: []fakeopenai.Step{fakeopenai.Tool("question", opencodeQuestionArgs), fakeopenai.Text("Never said: dismissed.")}},
	}}, nil)
	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	w.installOpencode(ctx)
	c := w.startOpencodeTUI(deadline)

	c.submit("Please " + marker + " now")
	list := w.waitPermissions(ctx, 60*time.Second, "opencode's question", func(l []client.PermissionView) bool { return len(l) == 1 })
	p := list[0]
	if p.Agent != "opencode" || p.Kind != client.KindQuestion || !p.Answerable || len(p.Questions) != 3 || !p.Questions[1].MultiSelect ||
		p.Questions[0].Options[1].Label != "SQLite" || p.Summary != "Which database should we use?" {
		t.Fatalf("clawd lists %s, want opencode's question, answerable, with its 3 questions", dumpPermissions(list))
	}
	id := p.SessionID
	w.checkOpencodeState(ctx, t, id, "waiting")
	if r := w.mustClawd(ctx, "answer", p.ID, "SQLite", "2.1", "Export", "--text", "3:"+typed); !strings.HasPrefix(r.stdout, "answered "+p.ID) {
		t.Errorf("clawd answer printed %q", r.stdout)
	}
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(done)), 60*time.Second)
	calls := w.api.IssuedCalls(marker)
	if len(calls) != 1 {
		t.Fatalf("the fake issued %+v, want one question call", calls)
	}
	out, ok := w.api.CallOutput(calls[0].CallID)
	for _, s := range []string{`"Which database should we use?"="SQLite"`, `"Which features do you want?"="Auth, Export"`, `"Which language?"="Zig, maybe"`} {
		if !ok || !strings.Contains(out.Text, s) {
			t.Errorf("the question call's output = %+v (found %v), want the model told %s", out, ok, s)
		}
	}
	w.waitPermissions(ctx, 10*time.Second, "the question gone", func(l []client.PermissionView) bool { return len(l) == 0 })
	evs := turnEnds(events, id, 1)
	var answered []string
	for _, e := range evs {
		if strings.Contains(e.raw, typed) {
			t.Errorf("an event record carries what the person typed: %s", e.raw)
		}
		if a := e.Answer; a != nil && e.SessionID == id {
			answered = append(answered, a.Decision+" "+a.Source)
			if len(a.Answers) != 3 || strings.Join(a.Answers[1].Labels, ",") != "Auth,Export" || !a.Answers[2].Typed {
				t.Errorf("the answer's record = %+v, want the labels and that text was typed", a)
			}
		}
	}
	if strings.Join(answered, ";") != "answer cli" {
		t.Errorf("permission.answered records %q, want one answer from the cli", answered)
	}

	// Dismissed in opencode's own view (Esc rejects it): clawd's request
	// goes away, withdrawn, and nothing more reaches the model.
	c.submit("Please " + ownMarker + " now")
	list = w.waitPermissions(ctx, 60*time.Second, "the second question", func(l []client.PermissionView) bool { return len(l) == 1 })
	c.WaitFor(opencodeQuestionView, 30*time.Second)
	c.SendKeys("Escape")
	w.waitPermissions(ctx, 15*time.Second, "the dismissed question gone", func(l []client.PermissionView) bool { return len(l) == 0 })
	evs = events.waitFor(15*time.Second, "the dismissed question's answer record", func(evs []event) bool {
		return len(answersTo(evs, list[0].ID)) == 1
	})
	if a := answersTo(evs, list[0].ID)[0].Answer; a.Decision != "none" || a.Reason != client.ReasonWithdrawn {
		t.Errorf("the dismissed question closed as %+v, want withdrawn", a)
	}
	if calls := w.api.IssuedCalls(ownMarker); len(calls) != 1 {
		t.Errorf("the fake issued %+v for the dismissed question, want one call", calls)
	} else if out, ok := w.api.CallOutput(calls[0].CallID); ok && strings.Contains(out.Text, "SQLite") {
		t.Errorf("the dismissed question's output = %+v, want no answer", out)
	}
	if rc := c.quit(); rc != 0 {
		t.Errorf("opencode exited %d after Ctrl-C, want 0", rc)
	}
	w.checkHookLog(t)
	w.uninstallOpencode(ctx)
	events.close()
	serve.shutdown()
	t.Logf("TestOpencodeTUIQuestions took %v", time.Since(started).Round(time.Millisecond))
}

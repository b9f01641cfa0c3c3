package qodermon

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

const sid = "7f3e0000-0000-4000-8000-0000000000q1"

// transcript lines as Qoder writes them (Claude Code's transcript
// records): messages, and the title records the reader looks for.
const (
	userLine   = `{"type":"user","sessionId":"` + sid + `","message":{"role":"user","content":"Fix the flaky test"}}` + "\n"
	aiLine     = `{"type":"ai-title","sessionId":"` + sid + `","aiTitle":"Fix flaky parser test"}` + "\n"
	customLine = `{"type":"custom-title","sessionId":"` + sid + `","customTitle":"Parser flake"}` + "\n"
	otherLine  = `{"type":"custom-title","sessionId":"another-session","customTitle":"Not this one"}` + "\n"
	aiLine2    = `{"type":"ai-title","sessionId":"` + sid + `","aiTitle":"A later AI title"}` + "\n"
)

func write(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l); err != nil {
			t.Fatal(err)
		}
	}
}

func hook(kind agents.Kind, path string) agents.Event {
	return agents.Event{Agent: agents.Qoder.ID, Kind: kind, SessionID: sid, Transcript: path, Time: time.Now()}
}

// TestReadIncrementally: each read takes only what was appended since the
// last one; the AI's name counts until the person's, which wins over
// later AI names; another session's records and an unchanged name give
// nothing.
func TestReadIncrementally(t *testing.T) {
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	s := New(Options{})
	write(t, path, userLine, aiLine)
	if got, ok := s.read(hook(agents.KindSessionStart, path)); !ok || got != "Fix flaky parser test" {
		t.Fatalf("first read = %q, %v; want the AI title", got, ok)
	}
	if got, ok := s.read(hook(agents.KindPromptSubmit, path)); ok {
		t.Errorf("read with nothing new = %q, want no change", got)
	}
	before := s.sessions[sid].scanned
	write(t, path, otherLine, customLine, aiLine2)
	if got, ok := s.read(hook(agents.KindTurnEnd, path)); !ok || got != "Parser flake" {
		t.Errorf("after a rename = %q, %v; want the person's title", got, ok)
	}
	if n := s.sessions[sid].scanned - before; n != len(otherLine+customLine+aiLine2) {
		t.Errorf("the third read took %d bytes, want only the %d appended", n, len(otherLine+customLine+aiLine2))
	}
}

// TestReadPartialAndLongLines: a line cut by Qoder's write is taken whole
// at the next read; an overlong line is skipped, not held.
func TestReadPartialAndLongLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	s := New(Options{})
	write(t, path, userLine, aiLine[:20])
	if got, ok := s.read(hook(agents.KindSessionStart, path)); ok {
		t.Errorf("half a title line read as %q", got)
	}
	long := `{"type":"user","sessionId":"` + sid + `","x":"` + string(make([]byte, maxLine)) + `"}` + "\n"
	write(t, path, aiLine[20:], long[:maxLine/2])
	if got, ok := s.read(hook(agents.KindPromptSubmit, path)); !ok || got != "Fix flaky parser test" {
		t.Errorf("the title line completed = %q, %v", got, ok)
	}
	write(t, path, long[maxLine/2:], customLine)
	if got, ok := s.read(hook(agents.KindTurnEnd, path)); !ok || got != "Parser flake" {
		t.Errorf("after an overlong line = %q, %v; want the title after it", got, ok)
	}
	if n := len(s.sessions[sid].partial); n != 0 {
		t.Errorf("%d bytes held after whole lines", n)
	}
}

// TestReadReplacedFile: a transcript replaced (another file at the path)
// or cut short is read again from the start.
func TestReadReplacedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	s := New(Options{})
	write(t, path, userLine, customLine)
	if got, _ := s.read(hook(agents.KindSessionStart, path)); got != "Parser flake" {
		t.Fatalf("first read = %q", got)
	}
	other := filepath.Join(dir, "new.jsonl")
	write(t, other, aiLine2)
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.read(hook(agents.KindPromptSubmit, path)); !ok || got != "A later AI title" {
		t.Errorf("after the file was replaced = %q, %v; want its own title", got, ok)
	}
}

// TestSawHookReadsOnlyOnTitleEvents: tool, permission and notification
// hooks queue no read; a session start, prompt and turn end do, and Run
// emits the name as the agent's own title of the session.
func TestSawHookReadsOnlyOnTitleEvents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	write(t, path, aiLine)
	s := New(Options{Now: func() time.Time { return time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC) }})
	for _, k := range []agents.Kind{agents.KindToolStart, agents.KindToolEnd, agents.KindNotification, agents.KindPermissionRequest} {
		s.SawHook(hook(k, path))
	}
	if n := len(s.reqs); n != 0 {
		t.Fatalf("%d reads queued by tool and notification hooks, want none", n)
	}
	s.SawHook(hook(agents.KindPromptSubmit, path))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan agents.Event, 1)
	go s.Run(ctx, func(e agents.Event) { got <- e })
	select {
	case e := <-got:
		if e.Kind != agents.KindSessionUpdate || e.SessionID != sid || e.Title != "Fix flaky parser test" || e.TitleSource != agents.TitleFromAgent {
			t.Errorf("emitted %+v, want a session.update titled by the agent", e)
		}
		if err := e.Validate(); err != nil {
			t.Error(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no title emitted")
	}
}

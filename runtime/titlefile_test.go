package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/statemachine"
)

// sessionView returns session id of the runtime's snapshot.
func sessionView(s *Server, agent, id string) (client.SessionView, bool) {
	for _, v := range s.Snapshot().Sessions {
		if v.Agent == agent && v.SessionID == id {
			return v, true
		}
	}
	return client.SessionView{}, false
}

// titleOf waits until session id shows want, and fails otherwise.
func titleOf(t *testing.T, s *Server, id, want string) {
	t.Helper()
	eventually(t, "session "+id+" titled "+want, func() bool {
		v, _ := sessionView(s, "claude", id)
		return v.Title == want
	})
}

// agentTitleIs waits until session k's title from its agent (whatever
// title shows) is want.
func agentTitleIs(t *testing.T, s *Server, k statemachine.Key, want string) {
	t.Helper()
	eventually(t, k.Agent+" session "+k.ID+"'s own title "+want, func() bool {
		ss, _ := s.sessions.Session(k)
		return ss.Titles.Agent == want
	})
}

func appendLines(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// Transcript lines in the shape Claude Code 2.1.328 writes them (see
// agents.TestClaudeTitleLine).
func customTitle(name, sid string) string {
	return `{"type":"custom-title","customTitle":"` + name + `","sessionId":"` + sid + `"}`
}

func aiTitle(name, sid string) string {
	return `{"type":"ai-title","aiTitle":"` + name + `","sessionId":"` + sid + `"}`
}

func userLine(text string) string {
	return `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"` + text + `"}}`
}

// TestTitleFromTranscript follows a session whose transcript names it:
// read on session start, prompt and turn end only, a name the person gave
// over the title Claude generated, the prompt's title under both.
func TestTitleFromTranscript(t *testing.T) {
	s, _, _ := startServer(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "s1.jsonl")
	other := filepath.Join(dir, "s2.jsonl")
	appendLines(t, file, userLine("fix the login bug"), aiTitle("Login bug hunt", "s1"))
	ev := func(kind agents.Kind, id, transcript string) agents.Event {
		return agents.Event{Agent: "claude", Kind: kind, SessionID: id, Time: time.Now(), Transcript: transcript, Cwd: dir}
	}

	s.Ingest(ev(agents.KindSessionStart, "s1", file))
	titleOf(t, s, "s1", "Login bug hunt")
	// settled waits until every look asked for so far is done: the looks
	// run in order, so once s2's next one (asked for after them) named it
	// anew, s1's are done too.
	n := 0
	settled := func() {
		t.Helper()
		n++
		want := fmt.Sprintf("Other, look %d", n)
		s.Ingest(ev(agents.KindPromptSubmit, "s2", other))
		appendLines(t, other, customTitle(want, "s2"))
		s.Ingest(ev(agents.KindTurnEnd, "s2", other))
		titleOf(t, s, "s2", want)
	}

	// A tool call asks for no look: the rename appended meanwhile shows
	// only with the next prompt.
	appendLines(t, file, customTitle("Shop refactor", "s1"))
	s.Ingest(ev(agents.KindToolStart, "s1", file))
	settled()
	if v, _ := sessionView(s, "claude", "s1"); v.Title != "Login bug hunt" {
		t.Fatalf("after a tool call: title %q, want still \"Login bug hunt\": only start, prompt and turn end look", v.Title)
	}

	p := ev(agents.KindPromptSubmit, "s1", file)
	p.Title, p.TitleSource = "fix the login bug", agents.TitleFromPrompt
	s.Ingest(p)
	titleOf(t, s, "s1", "Shop refactor")

	// A generated title later does not replace the name a person gave.
	appendLines(t, file, aiTitle("Something generated", "s1"))
	s.Ingest(ev(agents.KindTurnEnd, "s1", file))
	settled()
	if v, _ := sessionView(s, "claude", "s1"); v.Title != "Shop refactor" || v.TitleSource != "agent" {
		t.Errorf("after a generated title: %q (%s), want the person's name in the agent, \"Shop refactor\" (agent)", v.Title, v.TitleSource)
	}

	// The hook reports a rename the file does not show yet: the hook's
	// is the latest.
	r := ev(agents.KindPromptSubmit, "s1", file)
	r.Title, r.TitleSource = "Renamed in the hook", agents.TitleFromAgent
	s.Ingest(r)
	s.Ingest(ev(agents.KindTurnEnd, "s1", file))
	settled()
	if v, _ := sessionView(s, "claude", "s1"); v.Title != "Renamed in the hook" {
		t.Errorf("after a rename only the hook reported: %q, want \"Renamed in the hook\"", v.Title)
	}

	// Titles from files pass the secret filter like any other.
	appendLines(t, file, customTitle("rotate the api_key", "s1"))
	s.Ingest(ev(agents.KindTurnEnd, "s1", file))
	settled()
	if v, _ := sessionView(s, "claude", "s1"); v.Title != "Renamed in the hook" {
		t.Errorf("after a secret-looking rename: %q, want the title before", v.Title)
	}
}

// TestTitleFileWindow: a look reads at most titleWindow bytes, from the
// end; later looks read only what was added; a line too long to hold is
// passed over; a replaced (shorter) file is read afresh.
func TestTitleFileWindow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	long := userLine(strings.Repeat("x", titleWindow))
	appendLines(t, path, customTitle("Too far back", "s1"), long, aiTitle("Near the end", "s1"))
	f := &titleFile{path: path}
	tf := agents.Claude.TitleFile
	if err := f.look(tf, "s1"); err != nil {
		t.Fatal(err)
	}
	if f.named != "" || f.generated != "Near the end" {
		t.Errorf("first look: named %q, generated %q; want none (out of the window) and \"Near the end\"", f.named, f.generated)
	}
	// A title line inside a line longer than agents.MaxTitleFileLine is
	// not read; the whole lines around it are.
	huge := `{"type":"custom-title","customTitle":"hidden` + strings.Repeat(" ", agents.MaxTitleFileLine) + `","sessionId":"s1"}`
	appendLines(t, path, huge, customTitle("Appended", "s1"))
	before := f.off
	if err := f.look(tf, "s1"); err != nil {
		t.Fatal(err)
	}
	if f.named != "Appended" {
		t.Errorf("second look: named %q, want \"Appended\"", f.named)
	}
	if fi, _ := os.Stat(path); f.off != fi.Size() || before == 0 {
		t.Errorf("offsets %d then %d, want the file's size %d after each look", before, f.off, fi.Size())
	}
	// Half a line: read once it ends.
	appendLines(t, path) // nothing
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	half := customTitle("Written in two parts", "s1")
	fh.WriteString(half[:20])
	f.look(tf, "s1")
	if f.named != "Appended" {
		t.Errorf("after half a line: named %q, want still \"Appended\"", f.named)
	}
	fh.WriteString(half[20:] + "\n")
	fh.Close()
	f.look(tf, "s1")
	if f.named != "Written in two parts" {
		t.Errorf("after the line ended: named %q, want \"Written in two parts\"", f.named)
	}
	// Replaced by a shorter file.
	if err := os.WriteFile(path, []byte(aiTitle("Fresh", "s1")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.look(tf, "s1")
	if f.named != "" || f.generated != "Fresh" {
		t.Errorf("after the file was replaced: named %q, generated %q; want none and \"Fresh\"", f.named, f.generated)
	}
}

// TestTitleFromWholeFile: a title file the agent rewrites (Copilot CLI's
// workspace.yaml) is read whole at each look: a generated name, then the
// person's, shorter, in its place; a file too long to be one says nothing
// and the session keeps its title.
func TestTitleFromWholeFile(t *testing.T) {
	s, _, _ := startServer(t)
	const id, other = "a5929913-eae9-4e0a-8dc9-6f7dc3ac4477", "00000000-0000-4000-8000-000000000002"
	dir := t.TempDir()
	file, otherFile := filepath.Join(dir, "workspace.yaml"), filepath.Join(dir, "other.yaml")
	write := func(path, content string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ev := func(kind agents.Kind, sid, path string) agents.Event {
		return agents.Event{Agent: "copilot", Kind: kind, SessionID: sid, Time: time.Now(), Transcript: path}
	}
	titled := func(sid, want string) {
		t.Helper()
		eventually(t, "copilot session "+sid+" titled "+want, func() bool {
			v, _ := sessionView(s, "copilot", sid)
			return v.Title == want
		})
	}
	write(file, "id: "+id+"\nname: Fix the login redirect\nuser_named: false\n")
	s.Ingest(ev(agents.KindSessionStart, id, file))
	titled(id, "Fix the login redirect")
	write(file, "id: "+id+"\nname: Shop\nuser_named: true\n")
	s.Ingest(ev(agents.KindPromptSubmit, id, file))
	titled(id, "Shop")
	write(file, "id: "+id+"\nname: Too long\nuser_named: true\n"+strings.Repeat("# padding\n", agents.MaxTitleFileLine/10+1))
	s.Ingest(ev(agents.KindTurnEnd, id, file))
	// The looks run in order: once the other session's, asked for after
	// it, named that one, the look at the long file is done.
	write(otherFile, "id: "+other+"\nname: Other\nuser_named: true\n")
	s.Ingest(ev(agents.KindSessionStart, other, otherFile))
	titled(other, "Other")
	if v, _ := sessionView(s, "copilot", id); v.Title != "Shop" {
		t.Errorf("after a look at a file too long to be one: %q, want still \"Shop\"", v.Title)
	}
}

// TestTitleFromQoderTranscript: a Qoder session whose hooks name its
// transcript takes the name Qoder wrote there over its first prompt's,
// through the same reader as Claude Code's.
func TestTitleFromQoderTranscript(t *testing.T) {
	s, _, _ := startServer(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "q1.jsonl")
	appendLines(t, file, `{"type":"ai-title","sessionId":"q1","aiTitle":"Parser flake hunt"}`)
	for _, kind := range []agents.Kind{agents.KindSessionStart, agents.KindPromptSubmit} {
		e := agents.Event{Agent: "qoder", Kind: kind, SessionID: "q1", Time: time.Now(), Transcript: file, Cwd: dir}
		if kind == agents.KindPromptSubmit {
			e.Title, e.TitleSource = "find the flake", agents.TitleFromPrompt
		}
		s.Ingest(e)
	}
	eventually(t, "qoder session q1 titled from its transcript", func() bool {
		v, _ := sessionView(s, "qoder", "q1")
		return v.Title == "Parser flake hunt"
	})
}

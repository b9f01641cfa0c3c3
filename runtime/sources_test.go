package runtime

import (
	"context"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/statemachine"
)

func codexEvent(kind agents.Kind, sid, call string) agents.Event {
	return agents.Event{Agent: "codex", Kind: kind, SessionID: sid, ToolUseID: call, ToolName: "Bash", Time: time.Now()}
}

// testSource is a Source for Codex whose transcripts say what kinds says
// ("" for a headless one's kind marks it headless); it counts the reads.
type testSource struct {
	kinds map[string]string
	reads int
}

func (s *testSource) Agent() string { return "codex" }

func (s *testSource) Run(ctx context.Context, emit func(agents.Event)) error {
	<-ctx.Done()
	return ctx.Err()
}

func (s *testSource) SessionKind(path string) (kind string, headless bool, ok bool) {
	s.reads++
	kind, ok = s.kinds[path]
	return kind, kind == "codex_exec", ok
}

func TestSourceEventsGiveWayToHooks(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	s := New(Config{Home: t.TempDir(), Now: func() time.Time { return now }, Sources: []Source{&testSource{}}, SourceGrace: -1})
	changes, cancel := s.Subscribe(64)
	defer cancel()
	count := eventCounter(changes)

	// No hooks for this session: the monitor alone keeps it.
	s.IngestSource(codexEvent(agents.KindPromptSubmit, "mon", ""))
	if got := count(); got != 1 {
		t.Fatalf("monitor event of a session without hooks: %d events applied, want 1", got)
	}

	// The hooks speak for "both": the monitor's copies are dropped.
	hook := codexEvent(agents.KindToolStart, "both", "call-1")
	s.sources.sawHook(&hook, now)
	s.Ingest(hook)
	count()
	s.IngestSource(codexEvent(agents.KindToolStart, "both", "call-1"))
	s.IngestSource(codexEvent(agents.KindTurnEnd, "both", ""))
	if got := count(); got != 0 {
		t.Fatalf("monitor events of a session with live hooks: %d applied, want 0", got)
	}

	// A name from Codex's session index still reaches the session.
	renamed := codexEvent(agents.KindToolStart, "both", "call-2")
	renamed.Title, renamed.TitleSource = "Fix the login", agents.TitleFromAgent
	s.IngestSource(renamed)
	if got := count(); got != 0 {
		t.Fatalf("renaming monitor event: %d events applied, want 0", got)
	}
	if ss, _ := s.sessions.Session(statemachine.Key{Agent: "codex", ID: "both"}); ss.Title != "Fix the login" {
		t.Errorf("title after the monitor saw a rename = %q, want the index's name", ss.Title)
	}

	// Hooks silent past the TTL: the monitor takes over, except for a
	// call the hooks already reported.
	now = now.Add(hookTTL + time.Second)
	s.IngestSource(codexEvent(agents.KindToolEnd, "both", "call-1"))
	if got := count(); got != 0 {
		t.Fatalf("monitor copy of a call the hooks reported: %d applied, want 0", got)
	}
	s.IngestSource(codexEvent(agents.KindTurnEnd, "both", ""))
	if got := count(); got != 1 {
		t.Fatalf("monitor event after the hooks went silent: %d applied, want 1", got)
	}
	// Other agents never count as Codex hooks.
	claude := agents.Event{Agent: "claude", Kind: agents.KindToolStart, SessionID: "mon", ToolUseID: "x"}
	s.sources.sawHook(&claude, now)
	if s.sources.covered(&agents.Event{Agent: "codex", SessionID: "mon"}, now) {
		t.Error("a Claude hook event covered a Codex session")
	}
}

// eventCounter returns a function that counts the events applied since
// its last call.
func eventCounter(changes <-chan client.Change) func() int {
	return func() int {
		n := 0
		for {
			select {
			case c := <-changes:
				if c.Event != nil {
					n++
				}
			default:
				return n
			}
		}
	}
}

// TestSourceWaitsForTheHooks: a source's events of a session nobody has
// reported yet wait for the grace to end; when the session's hooks speak
// meanwhile, the source's copies never apply, so a session start shows
// once.
func TestSourceWaitsForTheHooks(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	timers := make(chan chan time.Time, 4)
	s := New(Config{Home: t.TempDir(), Now: func() time.Time { return now }, Sources: []Source{&testSource{}},
		After: func(d time.Duration) <-chan time.Time {
			if d != DefaultSourceGrace {
				t.Errorf("grace %v, want %v", d, DefaultSourceGrace)
			}
			c := make(chan time.Time, 1)
			timers <- c
			return c
		}})
	changes, cancel := s.Subscribe(64)
	defer cancel()
	count := eventCounter(changes)
	released := func() {
		t.Helper()
		eventually(t, "the held events released", func() bool {
			s.sources.mu.Lock()
			defer s.sources.mu.Unlock()
			return len(s.sources.held) == 0
		})
		s.sources.ingest.Lock() // the release applies under it
		s.sources.ingest.Unlock()
	}

	// The log speaks first, then the hooks.
	s.IngestSource(codexEvent(agents.KindSessionStart, "both", ""))
	s.IngestSource(codexEvent(agents.KindPromptSubmit, "both", ""))
	if got := count(); got != 0 {
		t.Fatalf("source events of a new session applied at once: %d, want 0 until the grace ends", got)
	}
	hook := codexEvent(agents.KindSessionStart, "both", "")
	if _, err := s.accept(&hook); err != nil {
		t.Fatal(err)
	}
	s.Ingest(hook)
	(<-timers) <- now
	released()
	if got := count(); got != 1 {
		t.Errorf("events applied with the hooks speaking in the grace: %d, want 1 (the hook's)", got)
	}

	// No hooks: after the grace the source's events apply, in order;
	// later ones at once.
	s.IngestSource(codexEvent(agents.KindSessionStart, "quiet", ""))
	s.IngestSource(codexEvent(agents.KindPromptSubmit, "quiet", ""))
	if got := count(); got != 0 {
		t.Fatalf("held events applied early: %d", got)
	}
	(<-timers) <- now
	released()
	ss, ok := s.sessions.Session(statemachine.Key{Agent: "codex", ID: "quiet"})
	if got := count(); got != 2 || !ok || ss.State != statemachine.Thinking {
		t.Errorf("after the grace: %d events applied, session %+v (%v); want 2, thinking", got, ss, ok)
	}
	s.IngestSource(codexEvent(agents.KindTurnEnd, "quiet", ""))
	if got := count(); got != 1 {
		t.Errorf("event of a session already shown: %d applied, want 1 at once", got)
	}
	if len(timers) != 0 {
		t.Errorf("%d more timers started, want none", len(timers))
	}
}

// TestSourceKinds: a source says which sessions nobody watches and what
// kind they are, which permission modes are keyed by.
func TestSourceKinds(t *testing.T) {
	src := &testSource{kinds: map[string]string{"/r/exec.jsonl": "codex_exec", "/r/tui.jsonl": "codex-tui"}}
	env := startPerm(t, func(c *Config) {
		c.Sources = []Source{src}
		c.Native = func(agent, kind string) bool { return agent == "codex" && kind == "codex-ide" }
	})
	e := codexEvent(agents.KindPromptSubmit, "exec", "")
	e.Transcript = "/r/exec.jsonl"
	env.s.accept(&e)
	env.s.accept(&e)
	if !e.Headless {
		t.Error("an event of a codex exec rollout is not headless")
	}
	tui := codexEvent(agents.KindPromptSubmit, "tui", "")
	tui.Transcript = "/r/tui.jsonl"
	env.s.accept(&tui)
	if tui.Headless {
		t.Error("an event of a TUI rollout is headless")
	}
	if src.reads != 2 {
		t.Errorf("transcripts read %d times for two files, want 2 (cached)", src.reads)
	}
	// Another agent's transcript is not the source's business.
	other := agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: "c", Time: time.Now(), Transcript: "/r/exec.jsonl"}
	env.s.accept(&other)
	if other.Headless || src.reads != 2 {
		t.Errorf("a Claude event was read by Codex's source: headless %v, reads %d", other.Headless, src.reads)
	}

	// A session kind configured native gets no decision at once and
	// stays waiting; another kind is held for the person.
	src.kinds["/r/ide.jsonl"] = "codex-ide"
	req := bashRequest("ide", "h1", "make")
	req.Event.Agent, req.Event.Transcript = "codex", "/r/ide.jsonl"
	r := wait(t, env.hook(req))
	if r.ans.Decision != nil || r.ans.Reason != client.ReasonNative {
		t.Fatalf("native session kind: answer %+v, want no decision (native)", r.ans)
	}
	if st := sessionState(t, env.s, "ide"); st != string(statemachine.Waiting) {
		t.Errorf("native session after its request: state %s, want waiting (the agent's own prompt is up)", st)
	}
	req = bashRequest("tui", "h2", "make")
	req.Event.Agent, req.Event.Transcript = "codex", "/r/tui.jsonl"
	res := env.hook(req)
	var list []client.PermissionView
	for deadline := time.Now().Add(5 * time.Second); len(list) == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		list = env.list(t)
	}
	if len(list) != 1 || list[0].Agent != "codex" {
		t.Fatalf("intercepted request not listed: %+v", list)
	}
	if _, err := env.s.Decide(list[0].ID, client.DecisionBody{Behavior: "allow"}); err != nil {
		t.Fatal(err)
	}
	if r := wait(t, res); r.ans.Decision == nil || !r.ans.Decision.Allow {
		t.Errorf("intercepted request: answer %+v, want allow", r.ans)
	}
}

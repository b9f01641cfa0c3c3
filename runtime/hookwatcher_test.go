package runtime

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/qodermon"
)

// TestHookWatcherNamesSession: a Qoder session whose hooks name its
// transcript takes the name Qoder wrote there, as the agent's own title
// over the first prompt's, once a hook says one may have come; the
// hooks' events are not held up meanwhile.
func TestHookWatcherNamesSession(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s1.jsonl")
	if err := os.WriteFile(path, []byte(`{"type":"ai-title","sessionId":"s1","aiTitle":"Parser flake hunt"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := New(Config{Home: t.TempDir(), Sources: []Source{qodermon.New(qodermon.Options{})}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { s.RunSources(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	for _, kind := range []agents.Kind{agents.KindSessionStart, agents.KindPromptSubmit} {
		e := agents.Event{Agent: "qoder", Kind: kind, SessionID: "s1", Time: time.Now(), Transcript: path, Title: "Find the flake", TitleSource: agents.TitleFromPrompt}
		if kind == agents.KindSessionStart {
			e.Title, e.TitleSource = "", ""
		}
		if _, err := s.accept(&e); err != nil {
			t.Fatal(err)
		}
		s.Ingest(e)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		snap := s.Snapshot()
		if len(snap.Sessions) == 1 && snap.Sessions[0].Title == "Parser flake hunt" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sessions %+v, want s1 titled from its transcript", snap.Sessions)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

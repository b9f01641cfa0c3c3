package automations

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// running runs e until the test ends.
func running(t *testing.T, e *Engine) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-e.watching:
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher did not start within 10 s")
	}
}

// settleUntil moves clock past the watcher's settle time until ok holds:
// the watcher asks the clock for its timer only once it has seen the
// write, which the test cannot know; it fails after 10 s.
func settleUntil(t *testing.T, clock *fakeClock, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s of the edit", what)
		}
		clock.Advance(ReloadSettle)
		time.Sleep(2 * time.Millisecond) // the watcher takes its turn
	}
}

func writeFile(t *testing.T, e *Engine, doc string) {
	t.Helper()
	if err := os.WriteFile(e.file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestWatchReloads: a running engine notices an edited automations.toml.
// A good edit is applied; a bad one keeps the definitions in force and
// says why, with the file's line, until a fixed edit clears it; and a
// changed execution field is not trusted until trusted anew.
func TestWatchReloads(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	e := testEngine(t, clock, soundDef("a"))
	trust(t, e, "a")
	running(t, e)

	// A good edit: b appears, a stays trusted.
	writeFile(t, e, soundDef("a")+soundDef("b"))
	settleUntil(t, clock, "the good edit", func() bool { _, ok := e.Definition("b"); return ok })
	if err := e.LoadError(); err != nil || e.Kept() {
		t.Fatalf("after a good edit: LoadError %v, Kept %v; want nil, false", err, e.Kept())
	}

	// A bad edit: a and b stay in force, the error names the line.
	writeFile(t, e, soundDef("a")+"[[automation]]\nid = \"c\"\nevent = \"turn.nope\"\naction = { type = \"sound\" }\n")
	settleUntil(t, clock, "the bad edit", func() bool { return e.LoadError() != nil })
	if err := e.LoadError(); !strings.Contains(err.Error(), "automations.toml:7:") || !strings.Contains(err.Error(), "turn.nope") {
		t.Errorf("LoadError = %v, want the file's line 7 and the bad event", err)
	}
	if !e.Kept() {
		t.Error("Kept = false after a bad edit, want true")
	}
	if _, ok := e.Definition("b"); !ok || !e.Listens(TurnCompleted) {
		t.Error("after a bad edit the definitions read before are no longer in force")
	}
	views, err := e.Definitions(ctx)
	if err != nil || len(views) != 2 || views[0].Bindings[0].State != BindingActive {
		t.Errorf("Definitions after a bad edit = %+v, %v; want a (active) and b kept", views, err)
	}

	// A fixed edit that changes a's action: the report clears, and a
	// needs a new trust.
	writeFile(t, e, strings.Replace(soundDef("a"), `{ type = "sound" }`, `{ type = "notification", title = "done" }`, 1))
	settleUntil(t, clock, "the fixed edit", func() bool { return e.LoadError() == nil })
	if e.Kept() {
		t.Error("Kept = true after the fixed edit")
	}
	if _, ok := e.Definition("b"); ok {
		t.Error("b is still in force after the fixed edit removed it")
	}
	views, err = e.Definitions(ctx)
	if err != nil || len(views) != 1 || views[0].Bindings[0].State != BindingNeedsReview {
		t.Errorf("Definitions after changing a's action = %+v, %v; want a needing review", views, err)
	}
}

// TestReloadBadFileAtStart: a file with problems when the engine opens
// leaves nothing in force (there was nothing before), and says so.
func TestReloadBadFileAtStart(t *testing.T) {
	e := testEngine(t, newFakeClock(), "[[automation]]\nid = \"x\"\n")
	if e.LoadError() == nil || e.Kept() || e.Listens(TurnCompleted) {
		t.Errorf("bad file at start: LoadError %v, Kept %v; want an error, nothing kept", e.LoadError(), e.Kept())
	}
}

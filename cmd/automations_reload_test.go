package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/atomicfile"
	"github.com/clawdhq/clawd/internal/handtimers"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/automations"
	"github.com/clawdhq/clawd/runtime/client"
)

// TestServeEditedAutomationsInStatusAndDoctor: under a real runtime, a bad
// edit of automations.toml keeps the definitions in force, and says so in
// one line of clawd status and in a check of clawd doctor with the parse
// error and its line; clawd automations list shows what stays in force;
// the fixed edit clears both. The watcher's settle timers are the test's.
func TestServeEditedAutomationsInStatusAndDoctor(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, automations.File)
	good := "[[automation]]\nid = \"beep\"\nevent = \"turn.completed\"\naction = { type = \"sound\" }\n"
	if err := os.WriteFile(file, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	timers := &handtimers.Timers{D: automations.ReloadSettle}
	s := runtime.New(runtime.Config{Home: home, Version: "test", OpenAutomations: func(ctx context.Context) (*automations.Engine, error) {
		return automations.Open(ctx, automations.Options{Home: home, After: timers.After, RepoRoot: func(string) string { return "" }})
	}})
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() { done <- s.Run(ctx, 0, func(client.Info) { close(ready) }) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("runtime: %v", err)
	}
	t.Cleanup(func() { cancel(); <-done })

	clawd := func(args ...string) (int, string) {
		e, out, errb := testEnv(t, home, nil, nil)
		code := run(t.Context(), e, append([]string{"clawd"}, args...))
		return code, out.String() + errb.String()
	}
	// until writes doc (again while the watcher may not follow the file
	// yet) and fires the settle timers until clawd status says ok.
	until := func(what, doc string, ok func(status string) bool) string {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			if err := atomicfile.Write(file, []byte(doc), 0o600, false, nil); err != nil { // as an editor saves
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond)
			timers.Fire()
			if _, out := clawd("status"); ok(out) {
				return out
			}
			if time.Now().After(deadline) {
				_, out := clawd("status")
				t.Fatalf("%s: clawd status never said so; it says\n%s", what, out)
			}
		}
	}

	bad := good + "[[automation]]\nid = \"oops\"\nevent = \"turn.nope\"\naction = { type = \"sound\" }\n"
	status := until("the bad edit", bad, func(out string) bool { return strings.Contains(out, "automations.toml has problems") })
	var lines []string
	for _, l := range strings.Split(status, "\n") {
		if strings.Contains(l, "automations.toml") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "the definitions read before stay in force") || !strings.Contains(lines[0], "automations.toml:7:") {
		t.Errorf("clawd status about the bad file = %q, want one line: kept, with the file's line 7", lines)
	}
	_, doctor := clawd("doctor")
	if !strings.Contains(doctor, "automations.toml:7: automation oops: event:") || !strings.Contains(doctor, "stay in force") {
		t.Errorf("clawd doctor does not report the bad file with its line:\n%s", doctor)
	}
	code, list := clawd("automations", "list")
	if code != 1 || !strings.Contains(list, "clawd serve keeps the definitions it read before") || !strings.Contains(list, "beep ") {
		t.Errorf("clawd automations list = %d\n%s\nwant 1, the problems and beep still in force", code, list)
	}

	fixed := good + "[[automation]]\nid = \"oops\"\nevent = \"turn.failed\"\naction = { type = \"sound\" }\n"
	until("the fixed edit", fixed, func(out string) bool { return !strings.Contains(out, "automations.toml") })
	if _, doctor := clawd("doctor"); strings.Contains(doctor, "automations.toml:") {
		t.Errorf("clawd doctor still reports the fixed file:\n%s", doctor)
	}
	if code, list := clawd("automations", "list"); code != 0 || !strings.Contains(list, "oops ") {
		t.Errorf("clawd automations list after the fix = %d\n%s\nwant 0 and oops listed", code, list)
	}
}

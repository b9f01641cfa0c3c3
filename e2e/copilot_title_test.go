//go:build !windows

package e2e

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeopenai"
	"github.com/clawdhq/clawd/runtime/client"
)

var (
	// copilotTrust is Copilot's folder-trust dialog, shown at the first
	// start in a folder.
	copilotTrust = regexp.MustCompile(`Do you trust the files in this folder\?`)
	// copilotReady is the footer under Copilot's input line.
	copilotReady = regexp.MustCompile(`/ commands · \? help`)
)

// copilotTUI is Copilot CLI's TUI under tmux in a copilot world.
type copilotTUI struct {
	*tmux
	w *copilotWorld
}

// startCopilotTUI starts `copilot` in the project folder, trusts the
// folder for this session and waits for the input line. Waits end by
// deadline.
func (w *copilotWorld) startCopilotTUI(deadline time.Time) *copilotTUI {
	w.t.Helper()
	argv := []string{w.bin, "--disable-client-telemetry"}
	c := &copilotTUI{tmux: startTmux(w.t, w.project, 160, 50, w.copilotEnv(), argv), w: w}
	c.deadline = deadline
	c.WaitFor(copilotTrust, 60*time.Second)
	c.SendKeys("Enter") // 1. Yes
	c.WaitFor(copilotReady, 30*time.Second)
	return c
}

// submit types a line, waits until it shows, then presses Enter as a key
// of its own (else it is taken as pasted).
func (c *copilotTUI) submit(line string) {
	c.t.Helper()
	c.WaitFor(copilotReady, 30*time.Second)
	c.Type(line)
	c.WaitFor(regexp.MustCompile(`❯ `+regexp.QuoteMeta(line)), 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	c.SendKeys("Enter")
}

// sessionID returns the id of the one session Copilot keeps state for in
// the world: its session-state folder's name.
func (w *copilotWorld) sessionID() string {
	w.t.Helper()
	m, _ := filepath.Glob(filepath.Join(w.copilotHome, "session-state", "*", "workspace.yaml"))
	if len(m) != 1 {
		w.t.Fatalf("Copilot's workspace files: %v, want one", m)
	}
	return filepath.Base(filepath.Dir(m[0]))
}

// TestCopilotTUINames follows an interactive Copilot CLI session's name
// through its workspace.yaml. Offline, the name Copilot gives a session
// itself is its first prompt, word for word (user_named: false): naming
// by a model call needs a GitHub login, and Copilot asks the BYOK
// provider nothing for it. clawd shows that name as the agent's, over the
// prompt's; `/rename` in the TUI (user_named: true) replaces it from the
// next prompt on; `clawd rename` wins over both, and taking it away shows
// Copilot's again, in status and history.
func TestCopilotTUINames(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	deadline, _ := ctx.Deadline()
	const (
		first  = "fix the login redirect E2E_COPILOT_FIRST"
		second = "now add a test E2E_COPILOT_SECOND"
		named  = "Shop refactor"
	)
	w := newCopilotWorld(t)
	w.startCopilotAPI(fakeopenai.Script{Conversations: []fakeopenai.Conversation{
		{Match: "E2E_COPILOT_FIRST", Steps: []fakeopenai.Step{fakeopenai.Text("E2E_COPILOT_FIRST_DONE")}},
		{Match: "E2E_COPILOT_SECOND", Steps: []fakeopenai.Step{fakeopenai.Text("E2E_COPILOT_SECOND_DONE")}},
	}})
	w.startServe()
	w.installCopilot(ctx)
	c := w.startCopilotTUI(deadline)
	id := w.sessionID()
	workspace := filepath.Join(w.copilotHome, "session-state", id, "workspace.yaml")

	// Copilot's own name: the first prompt, written as the turn starts.
	c.submit(first)
	c.WaitFor(regexp.MustCompile("E2E_COPILOT_FIRST_DONE"), 45*time.Second)
	w.transcriptHasFile(workspace, "name: "+first+"\nuser_named: false\n")
	s := w.awaitTitleFrom(ctx, id, first, "agent")
	if s.Agent != "copilot" || s.Headless || s.Cwd != w.project {
		t.Errorf("session in clawd status = %+v, want copilot, interactive, in the project", s)
	}
	// A bare /rename asks Copilot to name the session by a model call,
	// which it will not make without a GitHub login.
	c.submit("/rename")
	c.WaitFor(regexp.MustCompile(`Unable to generate a session name \(authentication unavailable\)`), 15*time.Second)
	for _, r := range w.api.Requests() {
		if r.Kind != fakeopenai.KindTurn {
			t.Errorf("the fake got a %s request (%s %s): Copilot asked the provider for something besides the turns", r.Kind, r.Method, r.Path)
		}
	}

	// The person's name in Copilot wins over Copilot's from the next
	// prompt on.
	c.submit("/rename " + named)
	c.WaitFor(regexp.MustCompile(`Session renamed to: `+named), 15*time.Second)
	w.transcriptHasFile(workspace, "name: "+named+"\nuser_named: true\n")
	c.submit(second)
	c.WaitFor(regexp.MustCompile("E2E_COPILOT_SECOND_DONE"), 45*time.Second)
	w.awaitTitleFrom(ctx, id, named, "agent")

	// The person's title in clawd wins over Copilot's; taking it away
	// shows Copilot's again.
	w.mustClawd(ctx, "rename", id, "Mine")
	w.awaitTitleFrom(ctx, id, "Mine", "person")
	w.mustClawd(ctx, "rename", "--clear", id)
	w.awaitTitleFrom(ctx, id, named, "agent")

	c.submit("/exit")
	if rc := c.WaitExit(30 * time.Second); rc != 0 {
		t.Errorf("copilot exited %d after /exit, want 0", rc)
	}
	e := w.awaitHistory(ctx, id, func(e client.HistoryEntry) bool { return e.Ended })
	if e.Title != named || e.TitleSource != "agent" || e.Headless || e.Turns != 2 {
		t.Errorf("history entry = %+v, want Copilot's name for it from the agent, interactive, 2 turns", e)
	}
	checkOpenAIOffline(t, "copilot", w.api, copilotAPIKey)
}

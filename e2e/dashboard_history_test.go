//go:build linux

package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/history"
)

// TestDashboardHistory: with the history kept, the dashboard lists the
// sessions that ended, each with a button that copies the command that
// resumes it in its folder (on its remote machine, for a remote's), and
// draws the recap's days, agents and folders as bars, saying how much of
// the days clawd saw.
func TestDashboardHistory(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	srv := runInProcess(t, runtime.Config{Home: home, Alive: func(int) bool { return true },
		OpenHistory: func(ctx context.Context) (*history.Store, error) {
			return history.Open(ctx, history.Options{Home: home})
		}})
	now := time.Now()
	for _, e := range []agents.Event{
		{Agent: "claude", Kind: agents.KindSessionStart, SessionID: "5e550000-0000-4000-8000-000000000001", Cwd: "/home/ada/shop"},
		{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: "5e550000-0000-4000-8000-000000000001", Cwd: "/home/ada/shop",
			Title: "fix the login bug", TitleSource: agents.TitleFromPrompt},
		{Agent: "claude", Kind: agents.KindTurnEnd, SessionID: "5e550000-0000-4000-8000-000000000001", Cwd: "/home/ada/shop"},
		{Agent: "claude", Kind: agents.KindSessionEnd, SessionID: "5e550000-0000-4000-8000-000000000001", Cwd: "/home/ada/shop"},
		{Agent: "codex", Kind: agents.KindPromptSubmit, SessionID: "box:019a0000-0000-7000-8000-000000000002", Host: "box",
			Cwd: "/srv/it's here", Title: "deploy", TitleSource: agents.TitleFromPrompt},
		{Agent: "codex", Kind: agents.KindSessionEnd, SessionID: "box:019a0000-0000-7000-8000-000000000002", Host: "box", Cwd: "/srv/it's here"},
	} {
		e.Time = now
		srv.Ingest(e)
	}
	tab := newBrowser(t)
	if err := chromedp.Do(tab, chromedp.Navigate(srv.DashboardLogin().URL), chromedp.WaitVisible(chromedp.CSS("#conn.live"))); err != nil {
		t.Fatal(err)
	}
	goView(t, tab, "history")
	waitPage(t, tab, "the history", `document.querySelectorAll("#history-list li.card").length === 2`, 20*time.Second)
	commands := pageEval[[]string](t, tab, `[...document.querySelectorAll("#history-list button.copy")].map((b) => b.dataset.command).sort()`)
	want := []string{"cd '/srv/it'\\''s here' && codex resume 019a0000-0000-7000-8000-000000000002",
		"cd /home/ada/shop && claude --resume 5e550000-0000-4000-8000-000000000001"}
	if !slices.Equal(commands, want) {
		t.Errorf("the resume commands the buttons copy = %q, want %q", commands, want)
	}
	text := pageEval[string](t, tab, `document.getElementById("history").innerText`)
	for _, s := range []string{"fix the login bug", "deploy", "codex @box", "box:/srv/it's here", "on box: cd"} {
		if !strings.Contains(text, s) {
			t.Errorf("the History section lacks %q:\n%s", s, text)
		}
	}
	waitPage(t, tab, "the recap", `document.querySelectorAll("#recap-days li.bar-row").length === 7`, 20*time.Second)
	recap := pageEval[string](t, tab, `document.getElementById("recap").innerText`)
	for _, s := range []string{"clawd was running to see", "Busiest agents", "claude", "codex", "0%: clawd was not running", "2 sessions, 2 turns,", "0s busy, 1 turn, waited"} {
		if !strings.Contains(recap, s) {
			t.Errorf("the Recap section lacks %q:\n%s", s, recap)
		}
	}
	// The folders by name on this machine (the recap's API keeps hashes
	// unless asked), the whole path on hover; one turn is "1 turn".
	folders := pageEval[[]string](t, tab, `[...document.querySelectorAll("#recap-folders li")].map((li) => li.querySelector(".bar-label").textContent + " = " + li.title + " | " + li.querySelector(".bar-detail").textContent)`)
	if !slices.ContainsFunc(folders, func(f string) bool {
		return strings.HasPrefix(f, "shop = /home/ada/shop | ") && strings.HasSuffix(f, ", 1 turn")
	}) {
		t.Errorf("the recap's folders read %q, want shop (/home/ada/shop on hover) with 1 turn", folders)
	}
}

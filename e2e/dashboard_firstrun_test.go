//go:build linux

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/client"
)

// TestDashboardFirstRun: with agents found here but none hooked up, and
// nothing reported yet, the inbox says what to do (clawd install --all,
// with the agents found here) instead of empty sections; Setup lists the
// agents found here and folds the rest into one line; Activity shows no
// empty filters or runs table. The first session that reports ends the
// first run.
func TestDashboardFirstRun(t *testing.T) {
	t.Parallel()
	srv := runInProcess(t, runtime.Config{Home: t.TempDir(),
		Agents: func(ctx context.Context) ([]client.AgentInfo, error) {
			return []client.AgentInfo{{ID: "claude", Name: "Claude Code", Detected: true}, {ID: "codex", Name: "Codex", Detected: true},
				{ID: "gemini", Name: "Gemini CLI"}, {ID: "qwen", Name: "Qwen Code"}}, nil
		}})
	tab := newBrowser(t)
	if err := chromedp.Do(tab, chromedp.Navigate(srv.DashboardLogin().URL), chromedp.WaitVisible(chromedp.CSS("#conn.live"))); err != nil {
		t.Fatal(err)
	}
	waitPage(t, tab, "the first run", `!document.getElementById("firstrun").hidden`, 10*time.Second)
	inbox := pageEval[string](t, tab, `document.getElementById("view-inbox").innerText`)
	for _, want := range []string{"No agent is hooked up to clawd yet", "clawd install --all", "Found here: Claude Code, Codex."} {
		if !strings.Contains(inbox, want) {
			t.Errorf("the first run's inbox lacks %q:\n%s", want, inbox)
		}
	}
	if strings.Contains(inbox, "Needs you") || strings.Contains(inbox, "Nothing waits") {
		t.Errorf("the first run's inbox shows its empty sections:\n%s", inbox)
	}
	goView(t, tab, "setup")
	if cards := pageEval[[]string](t, tab, `[...document.querySelectorAll("#agent-list li")].map((li) => li.dataset.agent)`); strings.Join(cards, ",") != "claude,codex" {
		t.Errorf("Setup has cards for %v, want the agents found here: claude, codex", cards)
	}
	if more := pageEval[string](t, tab, `document.getElementById("agents-more-sum").textContent`); more != "2 more agents, not found here" {
		t.Errorf("the folded agents read %q, want 2 more agents, not found here", more)
	}
	goView(t, tab, "activity")
	if shown := pageEval[bool](t, tab, `!document.getElementById("e-filters").hidden || !document.getElementById("runs-section").hidden`); shown {
		t.Error("Activity shows its filters or the runs table with nothing in them")
	}
	goView(t, tab, "inbox")
	srv.Ingest(agents.Event{Agent: "claude", Kind: agents.KindSessionStart, SessionID: "5e550000-0000-4000-8000-0000000f0001", Cwd: "/home/ada/src/shop", Time: time.Now()})
	waitPage(t, tab, "the first run over", `document.getElementById("firstrun").hidden && !document.getElementById("needs").hidden`, 10*time.Second)
}

package present

import (
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/statemachine"
)

// TestStateLabels checks every state the state machine has, and every
// status a session has, reads as words in every language, not as its id
// or a missing key.
func TestStateLabels(t *testing.T) {
	words := func(l i18n.Lang, what, got, id string) {
		t.Helper()
		if strings.HasPrefix(got, "state.") || strings.Contains(got, "%!") || (l != i18n.English && got == id) || got == "" {
			t.Errorf("%s in %s = %q, want words", what, l, got)
		}
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, l := range i18n.Langs() {
		p := i18n.For(l)
		for _, st := range []statemachine.State{statemachine.Sleeping, statemachine.Idle, statemachine.Thinking,
			statemachine.Working, statemachine.Juggling, statemachine.Carrying, statemachine.Attention,
			statemachine.Sweeping, statemachine.Notification, statemachine.Waiting, statemachine.Error} {
			words(l, "DisplayLabel("+string(st)+")", DisplayLabel(p, string(st)), string(st))
			words(l, "StateLabel("+string(st)+")", StateLabel(p, client.SessionView{State: string(st)}), string(st))
		}
		for _, s := range []client.SessionView{
			{State: "waiting", BaseState: "working", Pending: 1, Questions: 1},
			{State: "idle", BaseState: "idle", Outcome: "failed", FailReason: "API Error: 429"},
			{State: "idle", BaseState: "idle", Outcome: "done", OutcomeAt: now.Add(-3 * time.Minute)},
			{State: "idle", BaseState: "idle", Outcome: "done", OutcomeAt: now},
		} {
			words(l, "StatusLabel("+s.Outcome+")", StatusLabel(p, s, now), s.Outcome)
		}
	}
}

// TestLinkStates: every link state reads as a word in every language.
func TestLinkStates(t *testing.T) {
	for _, l := range i18n.Langs() {
		for _, st := range []string{client.LinkUp, client.LinkConnecting, client.LinkDown} {
			if got := LinkState(i18n.For(l), st); strings.HasPrefix(got, "remote.") || (l != i18n.English && got == st) || got == "" {
				t.Errorf("LinkState(%s, %s) = %q, want a word", l, st, got)
			}
		}
	}
}

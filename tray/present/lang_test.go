package present

import (
	"strings"
	"testing"

	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/statemachine"
)

// TestStateLabels checks every state the state machine has reads as
// words in every language, not as its id or a missing key.
func TestStateLabels(t *testing.T) {
	for _, l := range i18n.Langs() {
		p := i18n.For(l)
		for _, st := range []statemachine.State{statemachine.Sleeping, statemachine.Idle, statemachine.Thinking,
			statemachine.Working, statemachine.Juggling, statemachine.Carrying, statemachine.Attention,
			statemachine.Sweeping, statemachine.Notification, statemachine.Waiting, statemachine.Error} {
			got := StateLabel(p, client.SessionView{State: string(st)})
			if strings.HasPrefix(got, "state.") || (l != i18n.English && got == string(st)) || got == "" {
				t.Errorf("StateLabel(%s, %s) = %q, want words", l, st, got)
			}
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

package present

import (
	"testing"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/icons"
	"github.com/clawdhq/clawd/runtime/client"
)

// TestCustomAgentShown: a declared custom agent's sessions show its
// display name, and its icon while idle; a busy or waiting one shows the
// state's icon like any session.
func TestCustomAgentShown(t *testing.T) {
	if err := agents.SetCustom([]agents.CustomSpec{{Name: "bot", Display: "My Bot", Icon: "juggling"}, {Name: "plain", Display: "Plain"}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agents.SetCustom(nil) })
	if got := AgentName("custom-bot"); got != "My Bot" {
		t.Errorf("AgentName(custom-bot) = %q, want its display name", got)
	}
	if got := AgentName("custom-ghost"); got != "custom-ghost" {
		t.Errorf("AgentName(custom-ghost) = %q, want the id of an undeclared agent", got)
	}
	for _, tt := range []struct {
		s    client.SessionView
		want icons.Name
	}{
		{client.SessionView{Agent: "custom-bot", State: "idle"}, icons.Juggling},
		{client.SessionView{Agent: "custom-bot", State: "working"}, icons.Working},
		{client.SessionView{Agent: "custom-bot", State: "error"}, icons.Error},
		{client.SessionView{Agent: "custom-plain", State: "idle"}, icons.Idle},
		{client.SessionView{Agent: "claude", State: "idle"}, icons.Idle},
	} {
		if got := SessionIcon(tt.s, false); got != tt.want {
			t.Errorf("SessionIcon(%s %s) = %s, want %s", tt.s.Agent, tt.s.State, got, tt.want)
		}
	}
}

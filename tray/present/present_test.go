package present

import (
	"testing"

	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/tray/icons"
)

func TestRequestSummary(t *testing.T) {
	tests := []struct{ tool, summary, want string }{
		{"Bash", "npm test", "Bash: npm test"},
		{"Bash", "Bash: npm test", "Bash: npm test"},
		{"Bash", "", "Bash"},
		{"Write", "Write", "Write"},
		{"", "something", "something"},
	}
	for _, tt := range tests {
		if got := RequestSummary(client.PermissionView{Tool: tt.tool, Summary: tt.summary}); got != tt.want {
			t.Errorf("RequestSummary(%q, %q) = %q, want %q", tt.tool, tt.summary, got, tt.want)
		}
	}
}

func TestSessionIcon(t *testing.T) {
	tests := []struct {
		s    client.SessionView
		asks bool
		want icons.Name
	}{
		{client.SessionView{State: "working"}, false, icons.Working},
		{client.SessionView{State: "working", Pending: 1}, false, icons.NeedsYou},
		{client.SessionView{State: "waiting"}, true, icons.Question},
		{client.SessionView{State: "thinking"}, false, icons.Thinking},
		{client.SessionView{State: "juggling"}, false, icons.Juggling},
		{client.SessionView{State: "attention"}, false, icons.Done},
		{client.SessionView{State: "error"}, false, icons.Error},
		{client.SessionView{State: "idle"}, false, icons.Idle},
		{client.SessionView{State: "sleeping"}, false, icons.Sleeping},
		{client.SessionView{State: "something-new"}, false, icons.Sleeping},
	}
	for _, tt := range tests {
		if got := SessionIcon(tt.s, tt.asks); got != tt.want {
			t.Errorf("SessionIcon(%s, pending %d, asks %v) = %s, want %s", tt.s.State, tt.s.Pending, tt.asks, got, tt.want)
		}
	}
}

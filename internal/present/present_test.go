package present

import (
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/icons"
	"github.com/clawdhq/clawd/runtime/client"
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

func TestAge(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "now"}, {4 * time.Second, "now"}, {45 * time.Second, "45s"}, {90 * time.Second, "1m"},
		{59 * time.Minute, "59m"}, {3 * time.Hour, "3h"}, {47 * time.Hour, "47h"}, {72 * time.Hour, "3d"},
	}
	for _, tt := range tests {
		if got := Age(i18n.Printer{}, tt.d); got != tt.want {
			t.Errorf("Age(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestSessionStatus: what a session is, in the order the tray, `clawd
// status` and the dashboard list sessions. What runs now comes before the
// last turn's outcome; the outcome outlasts the one-shot that showed it.
func TestSessionStatus(t *testing.T) {
	tests := []struct {
		s    client.SessionView
		want Status
	}{
		{client.SessionView{State: "waiting", BaseState: "working", Pending: 3}, NeedsYou},
		{client.SessionView{State: "waiting", BaseState: "working", Pending: 2, Questions: 1}, NeedsYou},
		{client.SessionView{State: "waiting", BaseState: "working", Pending: 1, Questions: 1}, Asks},
		{client.SessionView{State: "waiting", BaseState: "idle", Pending: 1, Outcome: "failed"}, NeedsYou},
		{client.SessionView{State: "error", BaseState: "idle", Outcome: "failed"}, Failed},
		{client.SessionView{State: "idle", BaseState: "idle", Outcome: "failed"}, Failed},
		{client.SessionView{State: "error", BaseState: "working"}, Working}, // a tool failed, the turn goes on
		{client.SessionView{State: "juggling", BaseState: "juggling"}, Working},
		{client.SessionView{State: "sweeping", BaseState: "idle", Outcome: "done"}, Working},
		{client.SessionView{State: "thinking", BaseState: "thinking"}, Thinking},
		{client.SessionView{State: "attention", BaseState: "idle", Outcome: "done"}, Done},
		{client.SessionView{State: "idle", BaseState: "idle", Outcome: "done"}, Done},
		{client.SessionView{State: "notification", BaseState: "idle"}, Idle},
		{client.SessionView{State: "idle", BaseState: "idle"}, Idle},
		{client.SessionView{State: "sleeping", BaseState: "sleeping"}, Ended},
		// Bare states: the display's, an older runtime's sessions.
		{client.SessionView{State: "error"}, Failed},
		{client.SessionView{State: "attention"}, Done},
		{client.SessionView{State: "something-new"}, Ended},
	}
	for _, tt := range tests {
		if got := SessionStatus(tt.s); got != tt.want {
			t.Errorf("SessionStatus(%s/%s pending %d questions %d outcome %q) = %d, want %d",
				tt.s.State, tt.s.BaseState, tt.s.Pending, tt.s.Questions, tt.s.Outcome, got, tt.want)
		}
	}
}

// TestStatusLabel: the outcome of the last turn in words, with its age
// or its reason, one line.
func TestStatusLabel(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	p := i18n.Printer{}
	tests := []struct {
		s    client.SessionView
		want string
	}{
		{client.SessionView{State: "idle", BaseState: "idle", Outcome: "done", OutcomeAt: now.Add(-3 * time.Minute)}, "done 3m ago"},
		{client.SessionView{State: "attention", BaseState: "idle", Outcome: "done", OutcomeAt: now.Add(-time.Second)}, "done just now"},
		{client.SessionView{State: "idle", BaseState: "idle", Outcome: "failed", FailReason: "API Error: 429 {\"type\":\"error\"}"},
			"failed: API Error: 429 {\"type\":\"error\"}"},
		{client.SessionView{State: "idle", BaseState: "idle", Outcome: "failed", FailReason: "bad\x1b[2J\u202e\nthing"}, "failed: bad[2J thing"},
		{client.SessionView{State: "idle", BaseState: "idle", Outcome: "failed"}, "failed"},
		{client.SessionView{State: "waiting", BaseState: "working", Pending: 1, Questions: 1}, "has a question"},
		{client.SessionView{State: "waiting", BaseState: "idle", Pending: 3, Outcome: "failed", FailReason: "x"}, "needs you"},
		{client.SessionView{State: "error", BaseState: "working", Tool: "Bash"}, "working (Bash)"},
		{client.SessionView{State: "sweeping", BaseState: "idle"}, "compacting"},
		{client.SessionView{State: "juggling", BaseState: "juggling", Subagents: 2}, "juggling 2 subagents"},
	}
	for _, tt := range tests {
		if got := StatusLabel(p, tt.s, now); got != tt.want {
			t.Errorf("StatusLabel(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

func TestSubagentMark(t *testing.T) {
	en, zh := i18n.Printer{}, i18n.For(i18n.Chinese)
	tests := []struct {
		p                      i18n.Printer
		id, typ                string
		mark, requester, withs string
	}{
		{en, "afc7", "Explore", "subagent: Explore", "Claude Code (subagent: Explore)", "claude (subagent: Explore)"},
		{en, "afc7", "", "subagent: afc7", "Claude Code (subagent: afc7)", "claude (subagent: afc7)"},
		{en, "", "reviewer", "", "Claude Code", "claude"}, // a type alone: the main thread of an --agent session
		{en, "", "", "", "Claude Code", "claude"},
		{en, "afc7", "bad\ntype", "subagent: bad type", "Claude Code (subagent: bad type)", "claude (subagent: bad type)"},
		{zh, "afc7", "Explore", "子智能体：Explore", "Claude Code（子智能体：Explore）", "claude（子智能体：Explore）"},
	}
	for _, tt := range tests {
		v := client.PermissionView{Agent: "claude", SubagentID: tt.id, SubagentType: tt.typ}
		if got := Subagent(tt.p, v); got != tt.mark {
			t.Errorf("Subagent(%s, %q %q) = %q, want %q", tt.p.Lang(), tt.id, tt.typ, got, tt.mark)
		}
		if got := Requester(tt.p, v); got != tt.requester {
			t.Errorf("Requester(%s, %q %q) = %q, want %q", tt.p.Lang(), tt.id, tt.typ, got, tt.requester)
		}
		if got := WithSubagent(tt.p, "claude", v); got != tt.withs {
			t.Errorf("WithSubagent(%s, %q %q) = %q, want %q", tt.p.Lang(), tt.id, tt.typ, got, tt.withs)
		}
	}
}

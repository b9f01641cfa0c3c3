package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/client"
)

// eventsRun is a running `clawd events ...` and what it printed.
type eventsRun struct {
	out  *syncBuffer
	errb string
	done chan int
	stop context.CancelFunc
}

func startEvents(t *testing.T, home string, vars map[string]string, args ...string) *eventsRun {
	t.Helper()
	e, _, errb := testEnv(t, home, nil, vars)
	r := &eventsRun{out: &syncBuffer{}, done: make(chan int, 1)}
	e.stdout = r.out
	ctx, cancel := context.WithCancel(context.Background())
	r.stop = cancel
	go func() { r.done <- run(ctx, e, append([]string{"clawd", "events"}, args...)) }()
	t.Cleanup(func() {
		cancel()
		if code := <-r.done; code != 0 {
			t.Errorf("clawd events %v = %d: %s", args, code, errb)
		}
	})
	return r
}

// lines waits until the command printed n lines and returns them.
func (r *eventsRun) lines(t *testing.T, n int) []string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if ls := strings.Split(strings.TrimSpace(r.out.String()), "\n"); r.out.String() != "" && len(ls) >= n {
			return ls
		}
		if time.Now().After(deadline) {
			t.Fatalf("clawd events printed %q, want %d lines", r.out.String(), n)
		}
	}
}

// seqs are the seq of each line of --json.
func seqs(t *testing.T, lines []string) []uint64 {
	t.Helper()
	var out []uint64
	for _, l := range lines {
		var r client.EventRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		out = append(out, r.Seq)
	}
	return out
}

func ingestN(s *runtime.Server, agent string, n int) {
	for i := range n {
		s.Ingest(agents.Event{Agent: agent, Kind: agents.KindSessionStart, SessionID: fmt.Sprintf("%s-%d", agent, i), Time: time.Now()})
	}
}

// TestEventsBacklog: clawd events prints the runtime's recent events
// first, then follows; --since starts after a seq, --no-backlog prints
// none of what came before.
func TestEventsBacklog(t *testing.T) {
	home := t.TempDir()
	s := startRuntime(t, home)
	ingestN(s, "claude", 3) // seqs 1-3

	all := startEvents(t, home, nil, "--json")
	if got := fmt.Sprint(seqs(t, all.lines(t, 3))); got != "[1 2 3]" {
		t.Errorf("clawd events --json starts with seqs %s, want the backlog [1 2 3]", got)
	}
	since := startEvents(t, home, nil, "--json", "--since", "2")
	if got := fmt.Sprint(seqs(t, since.lines(t, 1))); got != "[3]" {
		t.Errorf("clawd events --since 2 starts with seqs %s, want [3]", got)
	}
	live := startEvents(t, home, nil, "--json", "--no-backlog")
	// It subscribes at some point: post until a line comes.
	for n := 0; live.out.String() == ""; n++ {
		if n == 1000 {
			t.Fatal("clawd events --no-backlog printed nothing")
		}
		ingestN(s, "codex", 1)
		time.Sleep(10 * time.Millisecond)
	}
	if first := seqs(t, live.lines(t, 1))[0]; first <= 3 {
		t.Errorf("clawd events --no-backlog printed seq %d from before it started", first)
	}
	// Each goes on live, with nothing twice.
	s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindTurnEnd, SessionID: "claude-0", Time: time.Now()})
	last := uint64(0)
	for _, r := range []*eventsRun{all, since, live} {
		ls := r.lines(t, 1)
		for !strings.Contains(ls[len(ls)-1], `"turn.end"`) {
			ls = r.lines(t, len(ls)+1)
		}
		got := seqs(t, ls)
		for i := 1; i < len(got); i++ {
			if got[i] != got[i-1]+1 {
				t.Errorf("seqs %v: not one after the other", got)
				break
			}
		}
		if last != 0 && got[len(got)-1] != last {
			t.Errorf("last seq %d, want %d as the others", got[len(got)-1], last)
		}
		last = got[len(got)-1]
	}
}

// TestEventsMissedAndFlags: a --since whose events the runtime no longer
// holds says how many are lost, in the person's language; --since and
// --no-backlog together are refused.
func TestEventsMissedAndFlags(t *testing.T) {
	home := t.TempDir()
	s := startRuntime(t, home)
	ingestN(s, "claude", client.EventBacklog+5) // seqs 1-205, 1-5 gone
	en := startEvents(t, home, map[string]string{"LANG": "C.UTF-8"}, "--since", "1")
	if got := en.lines(t, 2); got[0] != "(4 events before these are no longer held by the runtime)" || !strings.Contains(got[1], "session.start") {
		t.Errorf("clawd events --since 1 printed %q, want the 4 lost, then the events", got[:2])
	}
	zh := startEvents(t, home, map[string]string{"LANG": "zh_CN.UTF-8"}, "--since", "1")
	if got := zh.lines(t, 1); got[0] != "（此前的 4 个事件运行时已不再保留）" {
		t.Errorf("LANG=zh_CN clawd events --since 1 printed %q first", got[0])
	}

	e, out, errb := testEnv(t, home, nil, nil)
	if code := run(context.Background(), e, []string{"clawd", "events", "--since", "3", "--no-backlog"}); code != 2 ||
		out.Len() != 0 || !strings.Contains(errb.String(), "do not go together") {
		t.Errorf("clawd events --since 3 --no-backlog = %d, %q, %q; want 2 and why", code, out, errb)
	}
}

// TestEventsAnsweredFormat: a request's answer reads as a sentence with
// who answered, in the person's language, and its id.
func TestEventsAnsweredFormat(t *testing.T) {
	rec := func(a client.PermissionAnswer) client.EventRecord {
		a.ID = "k3j5abcdef"
		return client.EventRecord{Seq: 9, Event: agents.Event{Agent: "claude", Kind: client.KindPermissionAnswered,
			SessionID: "5e550000-0000-4000-8000-000000000001", Time: time.Now(), ToolName: "Bash"}, State: "working", Answer: &a}
	}
	zh := i18n.For(i18n.Chinese)
	for _, tt := range []struct {
		p    i18n.Printer
		a    client.PermissionAnswer
		want string
	}{
		{i18n.Printer{}, client.PermissionAnswer{Decision: "allow", Source: "cli"}, "Allowed Bash — from the command line"},
		{i18n.Printer{}, client.PermissionAnswer{Decision: "deny", Source: "tray"}, "Denied Bash — from the tray"},
		{i18n.Printer{}, client.PermissionAnswer{Decision: "always", Rule: "Always allow Bash(npm test)", Source: "dashboard"},
			"Allowed Bash (Always allow Bash(npm test)) — from the dashboard"},
		{i18n.Printer{}, client.PermissionAnswer{Decision: "none", Reason: "terminal", Source: "cli"},
			"Left Bash to the agent's terminal — from the command line"},
		{i18n.Printer{}, client.PermissionAnswer{Decision: "none", Reason: "withdrawn", Source: "terminal"},
			"Bash was answered in the agent's terminal"},
		{i18n.Printer{}, client.PermissionAnswer{Decision: "none", Reason: "timeout", Source: "timeout"},
			"No answer to Bash in time: the agent asks in its terminal"},
		{i18n.Printer{}, client.PermissionAnswer{Decision: "none", Reason: "dnd", Source: "dnd"},
			"Bash went to the agent's terminal: do not disturb"},
		{zh, client.PermissionAnswer{Decision: "allow", Source: "cli"}, "已允许 Bash — 来自命令行"},
	} {
		line := formatEvent(tt.p, rec(tt.a))
		for _, want := range []string{"claude", "…000001", "permission.answered", "working", tt.want, "k3j5abcdef"} {
			if !strings.Contains(line, want) {
				t.Errorf("formatEvent(%+v) = %q, lacks %q", tt.a, line, want)
			}
		}
	}
	if got := formatEvent(i18n.Printer{}, client.EventRecord{Event: agents.Event{Kind: client.StreamMissed}, Reset: true}); !strings.Contains(got, "restarted") {
		t.Errorf("the reset line reads %q", got)
	}
}

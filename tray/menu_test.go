package tray

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/clawdhq/clawd/internal/icons"
	"github.com/clawdhq/clawd/runtime/client"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func sess(agent, id, state string, ago time.Duration, mod ...func(*client.SessionView)) client.SessionView {
	s := client.SessionView{Agent: agent, SessionID: id, State: state, Cwd: "/home/u/" + id, UpdatedAt: t0.Add(-ago)}
	for _, f := range mod {
		f(&s)
	}
	return s
}

func perm(id, agent, sid string, kind client.RequestKind, mod ...func(*client.PermissionView)) client.PermissionView {
	p := client.PermissionView{ID: id, Kind: kind, Agent: agent, SessionID: sid, Tool: "Bash", Summary: "Bash: npm test", Cwd: "/home/u/" + sid,
		Folder: sid, CreatedAt: t0.Add(-2 * time.Minute), State: "pending"}
	for _, f := range mod {
		f(&p)
	}
	return p
}

// outline renders the menu as lines: one per item, children indented,
// "-" for separators, "[x]"/"[ ]" for checkboxes, "(off)" for disabled
// items. It is what the table tests compare.
func outline(items []Item, depth int) []string {
	var out []string
	for _, it := range items {
		pad := strings.Repeat("  ", depth)
		switch {
		case it.Separator:
			out = append(out, pad+"-")
			continue
		case it.Checkbox && it.Checked:
			out = append(out, pad+"[x] "+it.Label)
		case it.Checkbox:
			out = append(out, pad+"[ ] "+it.Label)
		case !it.Enabled:
			out = append(out, pad+it.Label+" (off)")
		default:
			out = append(out, pad+it.Label)
		}
		out = append(out, outline(it.Children, depth+1)...)
	}
	return out
}

func TestBuild(t *testing.T) {
	tests := []struct {
		name string
		view View
		icon icons.Name
		want []string
	}{{
		name: "nothing running",
		view: View{Now: t0, View: client.View{Snapshot: client.Snapshot{DisplayState: "sleeping"}}},
		icon: icons.Sleeping,
		want: []string{
			"clawd: no agents running (off)",
			"-",
			"No agent sessions (off)",
			"-",
			"[ ] Do Not Disturb",
			"Pause notifications for 1 h",
			"Open config folder",
			"-",
			"Quit clawd",
		},
	}, {
		name: "most urgent first, headless after its peers",
		view: View{Now: t0, View: client.View{Snapshot: client.Snapshot{DisplayState: "waiting", Sessions: []client.SessionView{
			sess("claude", "idle1", "idle", 3*time.Hour),
			sess("claude", "work", "working", 10*time.Second, func(s *client.SessionView) { s.Tool = "Bash"; s.Title = "fix login" }),
			sess("claude", "ci", "working", time.Second, func(s *client.SessionView) { s.Headless = true }),
			sess("claude", "wait", "waiting", 2*time.Minute, func(s *client.SessionView) { s.Pending = 1 }),
			sess("claude", "boom", "error", 3*time.Second),
			sess("claude", "sub", "juggling", time.Minute, func(s *client.SessionView) { s.Subagents = 2 }),
		}}, Permissions: []client.PermissionView{
			perm("p1", "claude", "wait", client.KindPermission, func(p *client.PermissionView) {
				p.Suggestions = []string{"Allow Bash(npm test:*) in this project"}
			}),
		}}},
		icon: icons.NeedsYouCount(1),
		want: []string{
			"Needs you (1) (off)",
			"wait · Bash: npm test · 2m",
			"  Allow",
			"  Deny",
			"  Allow Bash(npm test:*) in this project",
			"  Answer in terminal",
			"-",
			"clawd: 1 needs you, 1 failed, 2 working, 1 idle (off)",
			"-",
			"Sessions (6) (off)",
			"wait · needs you · 2m",
			"boom · failed · now",
			"work · fix login · working (Bash) · 10s",
			"sub · juggling 2 subagents · 1m",
			"ci (headless) · working · now",
			"idle1 · idle · 3h",
			"-",
			"[ ] Do Not Disturb",
			"Pause notifications for 1 h",
			"Open config folder",
			"-",
			"Quit clawd",
		},
	}, {
		// Three requests wait while another session's turn failed: the
		// icon says needs you; each session says what it is, the
		// outcomes of finished turns included, most urgent first.
		name: "outcomes stay, in priority order",
		view: View{Now: t0, View: client.View{Snapshot: client.Snapshot{DisplayState: "waiting", Sessions: []client.SessionView{
			sess("claude", "idle", "idle", time.Hour, func(s *client.SessionView) { s.BaseState = "idle" }),
			sess("claude", "done", "idle", 3*time.Minute, func(s *client.SessionView) {
				s.BaseState, s.Outcome, s.OutcomeAt = "idle", "done", t0.Add(-3*time.Minute)
			}),
			sess("claude", "fresh", "attention", 0, func(s *client.SessionView) {
				s.BaseState, s.Outcome, s.OutcomeAt = "idle", "done", t0
			}),
			sess("claude", "think", "thinking", 0, func(s *client.SessionView) { s.BaseState = "thinking" }),
			sess("claude", "work", "working", 0, func(s *client.SessionView) { s.BaseState, s.Tool = "working", "Bash" }),
			sess("claude", "boom", "idle", 2*time.Minute, func(s *client.SessionView) {
				s.BaseState, s.Outcome, s.OutcomeAt = "idle", "failed", t0.Add(-2*time.Minute)
				s.FailReason = "API Error: 429 rate limited"
			}),
			sess("claude", "ask", "waiting", 0, func(s *client.SessionView) { s.BaseState, s.Pending, s.Questions = "working", 1, 1 }),
			sess("claude", "wait", "waiting", time.Minute, func(s *client.SessionView) {
				s.BaseState, s.Pending, s.Outcome, s.OutcomeAt = "working", 3, "failed", t0.Add(-time.Hour)
			}),
		}}}},
		icon: icons.NeedsYou,
		want: []string{
			"clawd: 1 needs you, 1 question, 1 failed, 2 working, 2 done, 1 idle (off)",
			"-",
			"Sessions (8) (off)",
			"wait · needs you · 1m",
			"ask · has a question · now",
			"boom · failed: API Error: 429 rate limited · 2m",
			"work · working (Bash) · now",
			"think · thinking · now",
			"fresh · done just now",
			"done · done 3m ago",
			"idle · idle · 1h",
			"-",
			"[ ] Do Not Disturb",
			"Pause notifications for 1 h",
			"Open config folder",
			"-",
			"Quit clawd",
		},
	}, {
		name: "question and plan",
		view: View{Now: t0, View: client.View{Snapshot: client.Snapshot{DisplayState: "waiting", Sessions: []client.SessionView{
			sess("claude", "q", "waiting", 0, func(s *client.SessionView) { s.Pending = 1; s.Title = "pick a colour" }),
		}}, Permissions: []client.PermissionView{
			perm("p2", "claude", "q", client.KindQuestion, func(p *client.PermissionView) {
				p.Tool, p.Summary, p.Options, p.Title = "AskUserQuestion", "Which colour?", []string{"Red", "Blue"}, "pick a colour"
			}),
			perm("p3", "claude", "other", client.KindPlan),
		}}},
		icon: icons.NeedsYouCount(2),
		want: []string{
			"Needs you (2) (off)",
			"q asks: Which colour? · 2m",
			"  • Red (off)",
			"  • Blue (off)",
			"  Answer in terminal",
			"other: review the plan · 2m",
			"  Approve plan",
			"  Keep planning",
			"  Answer in terminal",
			"-",
			"clawd: 1 question (off)",
			"-",
			"Sessions (1) (off)",
			"q · pick a colour · needs you · now",
			"-",
			"[ ] Do Not Disturb",
			"Pause notifications for 1 h",
			"Open config folder",
			"-",
			"Quit clawd",
		},
	}, {
		// A subagent's requests say which subagent asks (its type, else
		// its id); the session's own and a type without an id say nothing.
		name: "subagents' requests marked",
		view: View{Now: t0, View: client.View{Snapshot: client.Snapshot{DisplayState: "waiting", Sessions: []client.SessionView{
			sess("claude", "w", "waiting", 0, func(s *client.SessionView) { s.Pending = 4 }),
		}}, Permissions: []client.PermissionView{
			perm("p1", "claude", "w", client.KindPermission, func(p *client.PermissionView) { p.SubagentID, p.SubagentType = "afc7", "Explore" }),
			perm("p2", "claude", "w", client.KindQuestion, func(p *client.PermissionView) {
				p.SubagentID, p.Tool, p.Summary = "afc8", "AskUserQuestion", "Which?"
			}),
			perm("p3", "claude", "w", client.KindPermission),
			perm("p4", "claude", "w", client.KindPermission, func(p *client.PermissionView) { p.SubagentType = "reviewer" }),
		}}},
		icon: icons.NeedsYouCount(4),
		want: []string{
			"Needs you (4) (off)",
			"w · Bash: npm test · 2m · subagent: Explore",
			"  Allow",
			"  Deny",
			"  Answer in terminal",
			"w asks: Which? · 2m · subagent: afc8",
			"  Answer in terminal",
			"w · Bash: npm test · 2m",
			"  Allow",
			"  Deny",
			"  Answer in terminal",
			"w · Bash: npm test · 2m",
			"  Allow",
			"  Deny",
			"  Answer in terminal",
			"-",
			"clawd: 1 question (off)",
			"-",
			"Sessions (1) (off)",
			"w · needs you · now",
			"-",
			"[ ] Do Not Disturb",
			"Pause notifications for 1 h",
			"Open config folder",
			"-",
			"Quit clawd",
		},
	}, {
		name: "a remote's session and the links",
		view: View{Now: t0, View: client.View{Snapshot: client.Snapshot{DisplayState: "working",
			Sessions: []client.SessionView{
				sess("claude", "box:r1", "working", 0, func(s *client.SessionView) { s.Host = "box"; s.Title = "deploy" }),
			},
			Remotes: []client.RemoteLink{
				{Profile: "box", Label: "box", State: client.LinkUp},
				{Profile: "ubuntu", Label: "wsl:Ubuntu", State: client.LinkDown, Error: "listen on 127.0.0.1:41000: address in use"},
			}}}},
		icon: icons.Working,
		want: []string{
			"clawd: 1 working (off)",
			"-",
			"Sessions (1) (off)",
			"box:r1 @box · deploy · working · now (off)",
			"-",
			"Remote box: up (off)",
			"Remote wsl:Ubuntu: down (listen on 127.0.0.1:41000: address in… (off)",
			"-",
			"[ ] Do Not Disturb",
			"Pause notifications for 1 h",
			"Open config folder",
			"-",
			"Quit clawd",
		},
	}, {
		name: "do not disturb and paused",
		view: View{Now: t0, Dashboard: true, View: client.View{DND: true, NotificationsPausedUntil: t0.Add(30 * time.Minute), Snapshot: client.Snapshot{DisplayState: "attention", Sessions: []client.SessionView{
			sess("claude", "d", "attention", 0),
		}}}},
		icon: icons.DND,
		want: []string{
			"Open dashboard",
			"-",
			"clawd: 1 done · do not disturb (off)",
			"-",
			"Sessions (1) (off)",
			"d · done · now",
			"-",
			"[x] Do Not Disturb",
			"Resume notifications (paused until " + t0.Add(30*time.Minute).Local().Format("15:04") + ")",
			"Open config folder",
			"-",
			"Quit clawd",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Build(tt.view)
			got := outline(m.Items, 0)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Build(%s) menu =\n%s\nwant\n%s", tt.name, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if m.Icon != tt.icon {
				t.Errorf("Build(%s) icon = %s, want %s", tt.name, m.Icon, tt.icon)
			}
			if sum, _ := findItem(m.Items, "summary"); m.Tooltip != sum.Label {
				t.Errorf("Build(%s) tooltip = %q, want the summary line %q", tt.name, m.Tooltip, sum.Label)
			}
		})
	}
}

func TestBuildActions(t *testing.T) {
	v := View{Now: t0, View: client.View{Snapshot: client.Snapshot{DisplayState: "waiting", Sessions: []client.SessionView{
		sess("claude", "s1", "waiting", 0, func(s *client.SessionView) { s.AgentPID = 4242; s.Pending = 1 }),
	}}, Permissions: []client.PermissionView{
		perm("p1", "claude", "s1", client.KindPermission, func(p *client.PermissionView) { p.Suggestions = []string{"a", "b"} }),
	}}, Dashboard: true}
	m := Build(v)
	find := func(key string) Item {
		var walk func([]Item) (Item, bool)
		walk = func(items []Item) (Item, bool) {
			for _, it := range items {
				if it.Key == key {
					return it, true
				}
				if c, ok := walk(it.Children); ok {
					return c, true
				}
			}
			return Item{}, false
		}
		it, ok := walk(m.Items)
		if !ok {
			t.Fatalf("no item %q in %v", key, outline(m.Items, 0))
		}
		return it
	}
	tests := []struct {
		key  string
		want Action
	}{
		{"request:p1:allow", Action{Kind: ActDecide, Request: "p1", Decision: client.DecisionBody{Behavior: "allow", Via: "tray"}}},
		{"request:p1:deny", Action{Kind: ActDecide, Request: "p1", Decision: client.DecisionBody{Behavior: "deny", Via: "tray"}}},
		{"request:p1:always:2", Action{Kind: ActDecide, Request: "p1", Decision: client.DecisionBody{Behavior: "allow", Suggestion: 2, Via: "tray"}}},
		{"request:p1:terminal", Action{Kind: ActDecide, Request: "p1", Decision: client.DecisionBody{Behavior: "terminal", Via: "tray"}}},
		{"session:claude/s1", Action{Kind: ActFocus}},
		{"dnd", Action{Kind: ActDND}},
		{"pause", Action{Kind: ActPause}},
		{"config", Action{Kind: ActOpenConfig}},
		{"dashboard", Action{Kind: ActDashboard}},
		{"quit", Action{Kind: ActQuit}},
	}
	wantRef := SessionRef{Agent: "claude", ID: "s1", PID: 4242, Cwd: "/home/u/s1"}
	for _, tt := range tests {
		got := find(tt.key)
		if !got.Enabled {
			t.Errorf("item %s is disabled", tt.key)
		}
		a := got.Action
		if tt.want.Kind == ActDecide || tt.want.Kind == ActFocus {
			if a.Session != wantRef {
				t.Errorf("item %s session = %+v, want %+v", tt.key, a.Session, wantRef)
			}
			a.Session = SessionRef{}
		}
		if fmt.Sprint(a) != fmt.Sprint(tt.want) {
			t.Errorf("item %s action = %+v, want %+v", tt.key, a, tt.want)
		}
	}
}

func TestBuildLimits(t *testing.T) {
	v := View{Now: t0, View: client.View{Snapshot: client.Snapshot{DisplayState: "idle"}}}
	for i := range MaxSessions + 3 {
		v.Snapshot.Sessions = append(v.Snapshot.Sessions, sess("claude", fmt.Sprintf("s%02d", i), "idle", time.Duration(i)*time.Minute))
	}
	for i := range MaxRequests + 2 {
		v.Permissions = append(v.Permissions, perm(fmt.Sprintf("p%d", i), "claude", "s00", client.KindPermission,
			func(p *client.PermissionView) { p.Summary = strings.Repeat("x", 300) }))
	}
	m := Build(v)
	lines := outline(m.Items, 0)
	var requests, sessions int
	for _, it := range m.Items {
		switch {
		case strings.HasPrefix(it.Key, "request:"):
			requests++
			if n := len([]rune(it.Label)); n > maxLabel {
				t.Errorf("request label has %d runes, want at most %d: %q", n, maxLabel, it.Label)
			}
		case strings.HasPrefix(it.Key, "session:"):
			sessions++
		}
	}
	if requests != MaxRequests || sessions != MaxSessions {
		t.Errorf("menu lists %d requests and %d sessions, want %d and %d", requests, sessions, MaxRequests, MaxSessions)
	}
	joined := strings.Join(lines, "\n")
	for _, want := range []string{"… 2 more: see clawd permissions", "… 3 more: see clawd status"} {
		if !strings.Contains(joined, want) {
			t.Errorf("menu lacks %q:\n%s", want, joined)
		}
	}
}

func TestIconFor(t *testing.T) {
	q := perm("q", "claude", "s", client.KindQuestion)
	p := perm("p", "claude", "s", client.KindPermission)
	tests := []struct {
		display string
		pending []client.PermissionView
		dnd     bool
		want    icons.Name
	}{
		{"sleeping", nil, false, icons.Sleeping},
		{"idle", nil, false, icons.Idle},
		{"thinking", nil, false, icons.Thinking},
		{"sweeping", nil, false, icons.Thinking},
		{"working", nil, false, icons.Working},
		{"carrying", nil, false, icons.Working},
		{"juggling", nil, false, icons.Juggling},
		{"attention", nil, false, icons.Done},
		{"notification", nil, false, icons.NeedsYou},
		{"error", nil, false, icons.Error},
		{"waiting", nil, false, icons.NeedsYou},
		{"waiting", []client.PermissionView{p}, false, icons.NeedsYouCount(1)},
		{"waiting", []client.PermissionView{q}, false, icons.Question},
		{"waiting", []client.PermissionView{q, p}, false, icons.NeedsYouCount(2)},
		{"waiting", slices.Repeat([]client.PermissionView{p}, 12), false, "needs-you-9plus"},
		{"sleeping", []client.PermissionView{p}, false, icons.NeedsYouCount(1)},
		{"waiting", []client.PermissionView{p}, true, icons.DND},
		{"working", nil, true, icons.DND},
	}
	for _, tt := range tests {
		v := View{Now: t0, View: client.View{Snapshot: client.Snapshot{DisplayState: tt.display}, Permissions: tt.pending, DND: tt.dnd}}
		if got := iconFor(v); got != tt.want {
			t.Errorf("iconFor(%s, %d pending, dnd %v) = %s, want %s", tt.display, len(tt.pending), tt.dnd, got, tt.want)
		}
	}
}

// TestBuildLabelsInert: a session's title, folder, tool and a request's
// summary, suggestions and options reach the menu as one line each,
// without control or format characters.
func TestBuildLabelsInert(t *testing.T) {
	evil := "\u202eevil\u2066\x1b[2J\u200b\nline"
	v := View{Now: t0, View: client.View{Snapshot: client.Snapshot{DisplayState: "waiting", Sessions: []client.SessionView{
		sess("claude", "s1", "waiting", 0, func(s *client.SessionView) { s.Title, s.Tool, s.Pending = evil, evil, 1 }),
		sess("codex", "s2", "working", 0, func(s *client.SessionView) { s.Cwd, s.Tool = "/tmp/"+evil, evil }),
		sess("codex", "s3", "idle", 0, func(s *client.SessionView) { s.Outcome, s.FailReason = "failed", evil }),
	}},
		Permissions: []client.PermissionView{
			perm("p1", "claude", "s1", client.KindPermission, func(p *client.PermissionView) {
				p.Tool, p.Summary, p.Suggestions = evil, evil, []string{evil}
			}),
			perm("q1", "claude", "s1", client.KindQuestion, func(p *client.PermissionView) { p.Summary, p.Options = evil, []string{evil} }),
		}}}
	var walk func([]Item)
	walk = func(items []Item) {
		for _, it := range items {
			for _, s := range []string{it.Label, it.Tooltip} {
				for _, r := range s {
					if r != ' ' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r)) {
						t.Errorf("item %s: %q holds %U", it.Key, s, r)
					}
				}
			}
			walk(it.Children)
		}
	}
	m := Build(v)
	walk(m.Items)
	if o := strings.Join(outline(m.Items, 0), "\n"); !strings.Contains(o, "evil[2J line") || !strings.Contains(o, "failed: evil[2J line") {
		t.Errorf("the labels lost the text around what was dropped:\n%s", strings.Join(outline(m.Items, 0), "\n"))
	}
}

// TestBuildIntegrations: an agent whose hooks the runtime gave up on shows
// right under the summary, with why in its tooltip; the others do not.
func TestBuildIntegrations(t *testing.T) {
	v := View{Now: t0, View: client.View{Snapshot: client.Snapshot{DisplayState: "idle", Integrations: []client.Integration{
		{Agent: "claude", State: client.IntegrationNeedsManualFix, Detail: "another program keeps rewriting ~/.claude/settings.json"},
		{Agent: "codex", State: client.IntegrationRepaired, Repairs: 1},
		{Agent: "gemini", State: client.IntegrationOK},
	}}}}
	m := Build(v)
	if len(m.Items) < 2 || m.Items[1].Key != "integration:claude" ||
		m.Items[1].Label != "Claude Code: hooks need a manual fix (run clawd doctor)" ||
		m.Items[1].Tooltip != "another program keeps rewriting ~/.claude/settings.json" || m.Items[1].Enabled {
		t.Fatalf("menu:\n%s\nwant Claude Code's manual fix, disabled, second", strings.Join(outline(m.Items, 0), "\n"))
	}
	for _, it := range m.Items[2:] {
		if strings.HasPrefix(it.Key, "integration:") {
			t.Errorf("menu shows %q: only a needed manual fix shows", it.Label)
		}
	}
}

// TestBuildOrder: what wants the person comes first, "Needs you (N)" with
// the requests, then "Open dashboard"; with nothing pending the dashboard
// is the first item.
func TestBuildOrder(t *testing.T) {
	v := View{Now: t0, Dashboard: true, View: client.View{Snapshot: client.Snapshot{DisplayState: "waiting", Sessions: []client.SessionView{
		sess("claude", "s1", "waiting", 0, func(s *client.SessionView) { s.Pending = 2 }),
	}}, Permissions: []client.PermissionView{
		perm("p1", "claude", "s1", client.KindPermission),
		perm("p2", "claude", "s1", client.KindPermission),
	}}}
	keys := func(m Menu) []string {
		var out []string
		for _, it := range m.Items {
			out = append(out, it.Key)
		}
		return out
	}
	got := keys(Build(v))
	want := []string{"pending-header", "request:p1", "request:p2", "dashboard", "sep-summary", "summary"}
	if len(got) < len(want) || strings.Join(got[:len(want)], " ") != strings.Join(want, " ") {
		t.Errorf("Build with 2 requests: items start %q, want %q", got, want)
	}
	v.Permissions = nil
	if got := keys(Build(v)); got[0] != "dashboard" || got[1] != "sep-summary" {
		t.Errorf("Build with nothing pending: items %q, want Open dashboard first", got)
	}
}

// TestBuildLabelsWhereFirst: a session's and a request's label start with
// the folder, named by its repository, and stay within maxLabel by
// cutting what they do, not the status and the age after it.
func TestBuildLabelsWhereFirst(t *testing.T) {
	long := "rm -rf " + strings.Repeat("node_modules/.cache/", 8)
	v := View{Now: t0, Folders: map[string]string{"/src/web-frontend": "web-frontend"},
		View: client.View{Snapshot: client.Snapshot{DisplayState: "waiting", Sessions: []client.SessionView{
			sess("claude", "s1", "waiting", 3*time.Minute, func(s *client.SessionView) {
				s.Cwd, s.Pending, s.Title = "/src/web-frontend", 1, "clean the build caches and "+strings.Repeat("then some more ", 6)
			}),
			sess("codex", "s2", "working", 0, func(s *client.SessionView) { s.Cwd, s.Tool = "/tmp/scratch", "Bash" }),
		}}, Permissions: []client.PermissionView{
			perm("p1", "claude", "s1", client.KindPermission, func(p *client.PermissionView) {
				p.Folder, p.Summary, p.CreatedAt = "web-frontend", long, t0.Add(-3*time.Minute)
			}),
		}}}
	m := Build(v)
	for key, want := range map[string]struct{ prefix, suffix, tip string }{
		"request:p1":        {"web-frontend · Bash: rm -rf node_modules/", "… · 3m", "Claude Code"},
		"session:claude/s1": {"web-frontend · clean the build caches", "… · needs you · 3m", "Claude Code · clean the build caches"},
		"session:codex/s2":  {"scratch · working (Bash) · now", "", "Codex · /tmp/scratch"},
	} {
		it, ok := findItem(m.Items, key)
		if !ok {
			t.Fatalf("no item %s in\n%s", key, strings.Join(outline(m.Items, 0), "\n"))
		}
		if !strings.HasPrefix(it.Label, want.prefix) || !strings.HasSuffix(it.Label, want.suffix) {
			t.Errorf("label of %s = %q, want %q…%q", key, it.Label, want.prefix, want.suffix)
		}
		if n := len([]rune(it.Label)); n > maxLabel {
			t.Errorf("label of %s has %d runes, want at most %d", key, n, maxLabel)
		}
		if !strings.HasPrefix(it.Tooltip, want.tip) {
			t.Errorf("tooltip of %s = %q, want it to start with %q", key, it.Tooltip, want.tip)
		}
	}
}

// TestBuildAutostart: "Start at login" shows once the entry was read,
// checked when an entry starts this clawd, unchecked with why when the
// entry there starts another.
func TestBuildAutostart(t *testing.T) {
	base := View{Now: t0, View: client.View{Snapshot: client.Snapshot{DisplayState: "idle"}}}
	for _, tt := range []struct {
		name   string
		st     AutostartState
		want   string // outline line, "" for no item
		tipHas string
	}{
		{"not read yet", AutostartState{}, "", ""},
		{"off", AutostartState{Known: true}, "[ ] Start at login", "clawd autostart"},
		{"on", AutostartState{Known: true, On: true}, "[x] Start at login", "clawd autostart"},
		{"stale", AutostartState{Known: true, On: true, Stale: "its binary /old/clawd is gone"}, "[ ] Start at login", "/old/clawd is gone"},
	} {
		v := base
		v.Autostart = tt.st
		m := Build(v)
		it, ok := findItem(m.Items, "autostart")
		if tt.want == "" {
			if ok {
				t.Errorf("%s: menu has %q, want no Start at login", tt.name, it.Label)
			}
			continue
		}
		if !ok || outline([]Item{it}, 0)[0] != tt.want || it.Action.Kind != ActAutostart || !strings.Contains(it.Tooltip, tt.tipHas) {
			t.Errorf("%s: item = %+v, want %q with a tooltip holding %q", tt.name, it, tt.want, tt.tipHas)
		}
	}
}

package tray

import (
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/config"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/tray/notify"
)

// cardRequests are permission requests as the runtime lists them with
// their cards: an Edit with its diff, a Bash call with its description, an
// MCP tool, a request whose folder and texts carry escapes and overrides.
func cardRequests() []client.PermissionView {
	base := func(id string, ago time.Duration) client.PermissionView {
		return client.PermissionView{ID: id, Kind: client.KindPermission, Agent: "claude", SessionID: "s1",
			Title: "Fix the login bug", Cwd: "/home/ann/src/shop/api", Folder: "shop/api", CreatedAt: t0.Add(-ago), State: "pending"}
	}
	edit := base("e1", 3*time.Minute)
	edit.Tool, edit.Summary = "Edit", "/home/ann/src/shop/api/main.go"
	edit.Diff = &client.Diff{Path: "api/main.go", Lines: []string{"-a", "+b"}}
	edit.Suggestions = []string{"Auto-accept edits this session"}
	bash := base("b1", 45*time.Second)
	bash.Tool, bash.Summary, bash.Description = "Bash", "npm test", "Run the unit tests"
	mcp := base("m1", 2*time.Hour)
	mcp.Tool, mcp.Summary, mcp.MCPServer, mcp.MCPTool = "mcp__github__create_issue", "clawdhq/clawd", "github", "create_issue"
	hostile := base("h1", 0)
	hostile.Folder, hostile.Tool, hostile.Summary, hostile.Description = "shop\x1b[2J\u202e/api", "Bash", "rm -rf\u2066 /tmp/x", "evil\x1b]0;pwned\x07"
	return []client.PermissionView{edit, bash, mcp, hostile}
}

// TestBuildRequestCard: a permission request's item reads folder · tool:
// what · waited (an edit by its file as its diff names it, an MCP tool by
// server and tool), who asks and the rest on hover; an "always" offer
// reads as the agent's own label, once; nothing an agent wrote adds an
// escape or a bidi control.
func TestBuildRequestCard(t *testing.T) {
	for _, tt := range []struct {
		lang   i18n.Lang
		labels []string
	}{
		{i18n.English, []string{
			"shop/api · Edit: api/main.go · 3m",
			"shop/api · Bash: npm test · 45s",
			"shop/api · github · create_issue: clawdhq/clawd · 2h",
			"shop[2J/api · Bash: rm -rf /tmp/x · now",
		}},
		{i18n.Chinese, []string{
			"shop/api · Edit: api/main.go · 3 分钟",
			"shop/api · Bash: npm test · 45 秒",
			"shop/api · github · create_issue: clawdhq/clawd · 2 小时",
			"shop[2J/api · Bash: rm -rf /tmp/x · 刚刚",
		}},
	} {
		m := Build(View{Now: t0, Printer: i18n.For(tt.lang), View: client.View{Permissions: cardRequests()}})
		var items []Item
		for _, it := range m.Items {
			if strings.HasPrefix(it.Key, "request:") {
				items = append(items, it)
			}
		}
		if len(items) != len(tt.labels) {
			t.Fatalf("%s: %d request items, want %d", tt.lang, len(items), len(tt.labels))
		}
		for i, it := range items {
			if it.Label != tt.labels[i] {
				t.Errorf("%s: request %d reads %q, want %q", tt.lang, i, it.Label, tt.labels[i])
			}
			if strings.ContainsAny(it.Label+it.Tooltip, "\x1b\x07\u202e\u2066") {
				t.Errorf("%s: request %d holds an escape or a bidi control: %q / %q", tt.lang, i, it.Label, it.Tooltip)
			}
		}
		if tip := items[1].Tooltip; tip != "Claude Code · Fix the login bug · Bash: npm test · Run the unit tests · /home/ann/src/shop/api" {
			t.Errorf("%s: the Bash request's tooltip = %q", tt.lang, tip)
		}
		var always []string
		for _, c := range items[0].Children {
			if strings.Contains(c.Key, ":always:") {
				always = append(always, c.Label)
			}
		}
		if len(always) != 1 || always[0] != "Auto-accept edits this session" {
			t.Errorf("%s: the always offers read %q, want Claude's own label alone", tt.lang, always)
		}
	}
}

// TestNotificationRequestCard: a permission's note says the folder, the
// session's title, what the call would do and the agent's description of
// it, all on one safe line.
func TestNotificationRequestCard(t *testing.T) {
	p := i18n.For(i18n.English)
	reqs := cardRequests()
	for _, tt := range []struct {
		req  client.PermissionView
		want string
	}{
		{reqs[0], "shop/api · Fix the login bug — Edit: api/main.go"},
		{reqs[1], "shop/api · Fix the login bug — Bash: npm test — Run the unit tests"},
		{reqs[2], "shop/api · Fix the login bug — github · create_issue: clawdhq/clawd"},
		{reqs[3], "shop[2J/api · Fix the login bug — Bash: rm -rf /tmp/x — evil]0;pwned"},
	} {
		oc, ok := occurrence(p, client.Change{Permission: &client.PermissionChange{Type: client.ChangeAdded, Permission: tt.req}})
		if !ok {
			t.Fatalf("occurrence(%s) = false", tt.req.ID)
		}
		notes := notify.NewPolicy(config.DefaultNotifications(), p).Observe(oc, notify.Gate{}, t0)
		if len(notes) != 1 || notes[0].Body != tt.want {
			t.Errorf("the note of %s = %+v, want the body %q", tt.req.ID, notes, tt.want)
		}
	}
}

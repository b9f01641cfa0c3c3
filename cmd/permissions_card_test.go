package cmd

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/golden"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

// TestPermissionsTable draws `clawd permissions` with each kind of card
// against testdata/permissions.golden.txt and, in Chinese,
// testdata/permissions.zh-CN.golden.txt: the FOLDER column (the folder by
// its repository, else its path), the session's title, an MCP tool by
// server and tool, an edit by its file as its diff names it, Bash's
// description and a fetch's prompt beside the summary, how long each has
// waited; nothing an agent wrote adds an escape or a bidi override.
func TestPermissionsTable(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	v := func(id string, ago time.Duration, mod func(*client.PermissionView)) client.PermissionView {
		p := client.PermissionView{ID: id, Kind: client.KindPermission, Agent: "claude", SessionID: "s-" + id,
			Title: "Fix the login bug", Cwd: "/home/ann/src/shop/api", Folder: "shop/api", CreatedAt: now.Add(-ago), State: "pending"}
		mod(&p)
		return p
	}
	list := []client.PermissionView{
		v("bash1", 45*time.Second, func(p *client.PermissionView) {
			p.Tool, p.Summary, p.Description = "Bash", "npm test", "Run the unit tests"
			p.Suggestions = []string{"Always allow Bash(npm test:*)"}
		}),
		v("edit1", 3*time.Minute, func(p *client.PermissionView) {
			p.Tool, p.Summary = "Edit", "/home/ann/src/shop/api/main.go"
			p.Diff = &client.Diff{Path: "api/main.go", Lines: []string{"-a", "+b"}}
			p.Suggestions = []string{"Auto-accept edits this session"}
		}),
		v("fetch1", 2*time.Hour, func(p *client.PermissionView) {
			p.Tool, p.Summary, p.URL, p.Prompt = "WebFetch", "https://example.com/docs", "https://example.com/docs", "Summarize the install steps"
			p.Title = ""
		}),
		v("mcp1", 10*time.Second, func(p *client.PermissionView) {
			p.Tool, p.Summary, p.MCPServer, p.MCPTool = "mcp__github__create_issue", "clawdhq/clawd", "github", "create_issue"
		}),
		v("loose1", time.Minute, func(p *client.PermissionView) {
			p.Tool, p.Summary, p.Folder, p.Cwd, p.Title = "Bash", "ls", "", "/home/ann/notes", ""
		}),
		v("evil1", 0, func(p *client.PermissionView) {
			p.Tool, p.Summary, p.Description = "Bash", "rm -rf\u2066 /tmp/x", "tidy\x1b[2J up\u202e"
		}),
	}
	for _, tt := range []struct{ lang, golden string }{
		{"C.UTF-8", "permissions.golden.txt"},
		{"zh_CN.UTF-8", "permissions.zh-CN.golden.txt"},
	} {
		e, out, _ := testEnv(t, t.TempDir(), nil, map[string]string{"LANG": tt.lang, "HOME": "/home/ann"})
		renderPermissions(e.stdout, e.printer(), list, now, "/home/ann", 0)
		golden.Check(t, filepath.Join("testdata", tt.golden), out.Bytes())
		if strings.ContainsAny(out.String(), "\x1b\u202e\u2066") {
			t.Errorf("LANG=%s: the table holds an escape or a bidi control:\n%s", tt.lang, out)
		}
		// In 60 columns: the ids, agents and ages whole, every line in it.
		out.Reset()
		renderPermissions(e.stdout, e.printer(), list, now, "/home/ann", 60)
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if text.Width(l) > 60 {
				t.Errorf("LANG=%s, 60 columns: line %q is %d columns", tt.lang, l, text.Width(l))
			}
		}
		checkAligned(t, out.String(), []string{"bash1", "claude", "shop/api"}, []string{"fetch1", "claude", "shop/api"},
			[]string{"loose1", "claude", "~/notes"})
	}
}

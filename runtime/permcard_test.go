package runtime

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// TestPermissionCard: a request that comes in is listed with its card
// worked out once: the folder by its repository (a checkout on this
// machine), the agent's description, a fetch's address and prompt, an MCP
// tool by server and tool, an Edit as its diff with the file relative to
// the repository; all of it one safe line each (the diff's lines keep
// their indentation). A remote machine's folder is not looked for here.
func TestPermissionCard(t *testing.T) {
	env := startPerm(t, nil)
	st := env.follow(t)
	checkout := filepath.Join(t.TempDir(), "shop")
	cwd := filepath.Join(checkout, "api")
	if err := os.MkdirAll(filepath.Join(checkout, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	at := func(e agents.Event) agents.Event {
		e.Cwd = cwd
		return e
	}

	bash := hookBody(at(permEvent("s1", "Bash", "h1")), `{"tool_input":{"command":"npm test","description":"Run the\u001b[2J unit\u202e tests"}}`)
	env.hook(bash)
	p := st.next(t, "added", 5*time.Second).Permission
	if p.Folder != "shop/api" || p.Description != "Run the[2J unit tests" || p.Diff != nil {
		t.Errorf("Bash request: folder %q, description %q, diff %+v; want shop/api, the description made safe, no diff", p.Folder, p.Description, p.Diff)
	}

	edit := hookBody(at(permEvent("s2", "Edit", "h2")), `{"tool_input":{"file_path":"`+filepath.Join(cwd, "main.go")+
		`","old_string":"\told()\n","new_string":"\tnew()\u202e\n\tmore()\n"}}`)
	env.hook(edit)
	p = st.next(t, "added", 5*time.Second).Permission
	if d := p.Diff; d == nil || d.Path != "api/main.go" || !slices.Equal(d.Lines, []string{"-\told()", "+\tnew()", "+\tmore()"}) {
		t.Errorf("Edit request: diff %+v, want api/main.go with its three lines, indented, the override dropped", d)
	}

	fetch := hookBody(at(permEvent("s3", "WebFetch", "h3")), `{"tool_input":{"url":"https://example.com/docs","prompt":"Summarize\nthe steps"}}`)
	env.hook(fetch)
	p = st.next(t, "added", 5*time.Second).Permission
	if p.URL != "https://example.com/docs" || p.Prompt != "Summarize the steps" {
		t.Errorf("WebFetch request: url %q, prompt %q", p.URL, p.Prompt)
	}

	mcp := hookBody(at(permEvent("s4", "mcp__mini__ask_user", "h4")), `{"tool_input":{"question":"color?"},"mcp_server":{"name":"mini"}}`)
	env.hook(mcp)
	p = st.next(t, "added", 5*time.Second).Permission
	if p.MCPServer != "mini" || p.MCPTool != "ask_user" {
		t.Errorf("MCP request: server %q, tool %q, want mini, ask_user", p.MCPServer, p.MCPTool)
	}

	remote := hookBody(at(permEvent("s5", "Bash", "h5")), `{"tool_input":{"command":"ls"}}`)
	remote.Event.Host = "box"
	// As the ingress names a remote session (it checks the profile).
	remote.Event.SessionID = "box:s5"
	env.s.register(&remote)
	p = st.next(t, "added", 5*time.Second).Permission
	if p.Folder != "api" {
		t.Errorf("a remote machine's request: folder %q, want the folder's own name (nothing looked for here)", p.Folder)
	}

	// The list carries the same card.
	for _, l := range env.list(t) {
		if l.SessionID == "s2" && (l.Diff == nil || len(l.Diff.Lines) != 3 || !strings.HasPrefix(l.Folder, "shop")) {
			t.Errorf("listed Edit request = %+v, want its card", l)
		}
	}
}

// TestPermissionCardOfSession: a request whose event names no folder
// (opencode's permission.asked has none) takes its session's.
func TestPermissionCardOfSession(t *testing.T) {
	env := startPerm(t, nil)
	st := env.follow(t)
	checkout := filepath.Join(t.TempDir(), "shop")
	if err := os.MkdirAll(filepath.Join(checkout, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	env.s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindSessionStart, SessionID: "s1", Cwd: checkout, Time: time.Now()})
	e := permEvent("s1", "Bash", "h1")
	e.Cwd = ""
	env.hook(client.RequestBody{Event: e, Request: agents.Request{Kind: agents.RequestPermission, Summary: "ls"}, WaitSeconds: 60})
	if p := st.next(t, "added", 5*time.Second).Permission; p.Folder != "shop" {
		t.Errorf("request without a folder of its own: folder %q, want its session's, shop", p.Folder)
	}
}

package present

import (
	"strings"
	"time"

	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

// ToolLabel names v's tool for people: an MCP tool by its server and its
// own name ("github · create_issue"), else as the agent names it.
func ToolLabel(v client.PermissionView) string {
	if v.MCPServer != "" && v.MCPTool != "" {
		return v.MCPServer + " · " + v.MCPTool
	}
	return v.Tool
}

// Waited says how long v has waited by now, as Age does ("3m").
func Waited(p i18n.Printer, v client.PermissionView, now time.Time) string {
	return Age(p, now.Sub(v.CreatedAt))
}

// RequestLine is a permission request in the one line the tray shows:
// where it runs, what it would do, how long it has waited: "clawd/runtime
// · Bash: npm test · 3m", and last, when a subagent asks, which. An edit
// names its file as its diff does, relative to the repository.
func RequestLine(p i18n.Printer, v client.PermissionView, now time.Time) string {
	return joinParts(" · ", v.Folder, RequestWhat(v), Waited(p, v, now), Subagent(p, v))
}

// RequestWhat is what a request would do, in one line: RequestSummary,
// but an edit by its file as its diff names it, relative to the
// repository ("Edit: api/main.go").
func RequestWhat(v client.PermissionView) string {
	if v.Diff != nil && v.Diff.Path != "" {
		return ToolLabel(v) + ": " + v.Diff.Path
	}
	return RequestSummary(v)
}

// RequestTooltip is what the tray shows of a request on hover: who asks,
// in which session, the whole summary with what the agent says of it
// (Bash's description, a fetch's prompt), and the folder's whole path.
func RequestTooltip(p i18n.Printer, v client.PermissionView) string {
	return joinParts(" · ", Requester(p, v), v.Title, RequestSummary(v), v.Description, v.Prompt, v.Cwd)
}

// joinParts joins the parts that are not empty, each as one safe line.
func joinParts(sep string, parts ...string) string {
	var out []string
	for _, s := range parts {
		if s = text.Line(s, 0); s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, sep)
}

package runtime

import (
	"cmp"

	"github.com/clawdhq/clawd/internal/repo"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/card"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/sessions"
	"github.com/clawdhq/clawd/statemachine"
)

// Limits of what a request's card says in the agent's words, in runes.
const (
	maxDescription = 300
	maxURL         = 500
	maxPrompt      = 500
)

// requestCard is what a request's card shows beyond its one line: the
// folder, named by its repository, and the change as a diff. It is worked
// out once when the request comes, outside the broker's lock, since
// finding the repository looks at the disk.
type requestCard struct {
	folder string
	diff   *client.Diff
}

// cardOf works out body's card. Its folder is the event's, else the one
// its session knows; a remote machine's is never looked for here.
func (s *Server) cardOf(body *client.RequestBody) requestCard {
	e := &body.Event
	cwd, host := e.Cwd, e.Host
	if cwd == "" {
		if ss, ok := s.sessions.Session(statemachine.Key{Agent: e.Agent, ID: e.SessionID}); ok {
			cwd, host = ss.Cwd, cmp.Or(host, ss.Host)
		}
	}
	folder, root := card.Where(cwd, host == "")
	return requestCard{folder: text.Line(folder, sessions.MaxLabel), diff: card.Diff(body.Change, cmp.Or(root, cwd))}
}

// card works out body's card and returns what fills a request's view
// with it (sessions.BrokerConfig.Card).
func (s *Server) card(body *client.RequestBody) func(*client.PermissionView) {
	c := s.cardOf(body)
	return func(v *client.PermissionView) { c.fill(v, body) }
}

// fill puts the card, and what the agent said of the call, into v.
func (c requestCard) fill(v *client.PermissionView, body *client.RequestBody) {
	v.Folder = c.folder
	if v.Folder == "" {
		v.Folder = text.Line(repo.Name(v.Cwd, ""), sessions.MaxLabel) // the session's folder, known only now
	}
	v.Description = text.Line(body.Description, maxDescription)
	v.URL = text.Line(body.URL, maxURL)
	v.Prompt = text.Line(body.Prompt, maxPrompt)
	v.MCPServer, v.MCPTool = text.Line(body.MCPServer, sessions.MaxLabel), text.Line(body.MCPTool, sessions.MaxLabel)
	if v.MCPServer == "" || v.MCPTool == "" {
		v.MCPServer, v.MCPTool = "", ""
	}
	v.Diff = c.diff
}

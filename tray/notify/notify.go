// Package notify decides which session events deserve a desktop
// notification and delivers them as popups and a short chime.
//
// The decision is a Policy: pure, fed by one loop with the session events
// and the time, so it is tested with a fake clock. Delivery is Desktop:
// beeep popups and the platform's sound player, never blocking its caller
// for long.
package notify

import (
	"strings"
	"unicode/utf8"

	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/text"
)

// Kind is what happened in a session. Its values are the names of the
// per-kind switches in config.toml's [notifications] table.
type Kind string

// The kinds that may notify.
const (
	// Done: the session finished its turn and nobody asked it anything
	// since.
	Done Kind = "done"
	// Permission: the session waits for a permission decision.
	Permission Kind = "permission"
	// Question: the session asks the person something.
	Question Kind = "question"
	// Failure: the turn ended with an error.
	Failure Kind = "error"
)

// Occurrence is something that happened in a session that may deserve a
// notification.
type Occurrence struct {
	Kind      Kind
	Agent     string // agent id, e.g. "claude"
	AgentName string // display name, e.g. "Claude Code"
	SessionID string
	Title     string // session title (may be empty)
	Cwd       string // session folder (may be empty)
	// Detail is one line: "Bash: npm test" for a permission, the question,
	// an error kind...
	Detail   string
	Headless bool
	Subagent bool // the event came from a subagent
}

// Note is one notification to deliver: a popup, a sound or both.
type Note struct {
	Kind    Kind
	Summary string
	Body    string
	Popup   bool
	Sound   bool
	// SessionKey names the session ("<agent>/<session id>"), so a
	// deliverer can replace or close the session's earlier popup.
	SessionKey string
}

// Text limits, in characters. Notification daemons cut long text
// anyway; keeping it short also keeps a session's text out of sight.
const (
	maxBody  = 200
	maxPlace = 80 // the title or folder part of the body
)

// summary is the popup's heading in p's language: who, and what it
// wants.
func summary(p i18n.Printer, o Occurrence) string {
	name := oneLine(o.AgentName)
	if name == "" {
		name = oneLine(o.Agent)
	}
	if name == "" {
		name = p.T("notify.an_agent")
	}
	name = clip(name, 60)
	switch o.Kind {
	case Permission, Question, Done, Failure:
		return p.T("notify."+string(o.Kind), name)
	}
	return name
}

// body is "<title or folder> — <detail>", either part alone when the
// other is empty, at most maxBody characters.
func body(o Occurrence) string {
	place := oneLine(o.Title)
	if place == "" {
		place = oneLine(folderName(o.Cwd))
	}
	place = clip(place, maxPlace)
	detail := oneLine(o.Detail)
	switch {
	case place == "":
		return clip(detail, maxBody)
	case detail == "":
		return place
	}
	const sep = " — "
	return place + sep + clip(detail, maxBody-utf8.RuneCountInString(place)-utf8.RuneCountInString(sep))
}

// folderName is the last element of a folder path written with either
// separator: the session may come from another platform's agent.
func folderName(dir string) string {
	d := strings.TrimRight(dir, `/\`)
	if d == "" {
		return dir // "/" stays "/", "" stays ""
	}
	if i := strings.LastIndexAny(d, `/\`); i >= 0 {
		return d[i+1:]
	}
	return d
}

// oneLine keeps a title or detail to one line by internal/text's policy,
// so it cannot add lines to the popup or reorder its text.
func oneLine(s string) string { return text.Line(s, 0) }

// clip shortens s to at most n characters, marking the cut with "…".
func clip(s string, n int) string {
	if n <= 0 {
		return ""
	}
	return text.Line(s, n)
}

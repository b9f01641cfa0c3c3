package client

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/clawdhq/clawd/runtime/recap"
)

// The history API (see runtime/history):
//
//	GET  /api/v1/history                 ?agent=&since=RFC3339&search=&limit= -> History, newest first
//	GET  /api/v1/sessions/resolve        ?session=ID|PREFIX|AGENT:ID -> HistoryEntry
//	                                     (404 no such session, 409 more than one: the message lists them)
//	POST /api/v1/sessions/rename         RenameBody -> HistoryEntry (400 a title that looks like a secret)
//	GET  /api/v1/recap                   ?days=N&folders=1 -> recap.Summary (503 without a history)

// HistoryEntry is one session the runtime tracks or keeps in its history.
type HistoryEntry struct {
	Agent       string `json:"agent"`
	SessionID   string `json:"session_id"`
	Title       string `json:"title"`
	TitleSource string `json:"title_source,omitempty"`
	Cwd         string `json:"cwd"`
	// Host is the remote machine the session ran on (see
	// SessionView.Host); "" for this one. Cwd is a folder there.
	Host       string    `json:"host,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	LastActive time.Time `json:"last_active"`
	Turns      int       `json:"turns"`
	Headless   bool      `json:"headless"`
	// Ended: the session ended; otherwise it went stale, or was running
	// when clawd stopped, or (Live) runs now.
	Ended bool `json:"ended"`
	// Live: the runtime tracks the session right now.
	Live bool `json:"live"`
	// Resume is the command that resumes the session in its folder (the
	// agent's executable and its arguments), on Host when it is set;
	// empty when the agent has none.
	Resume []string `json:"resume,omitempty"`
}

// AgentSessionID is the id a session of host has in its agent: the
// runtime names a remote's sessions "<host>:<the agent's id>" (see
// runtime.Ingress), the agent knows only its own.
func AgentSessionID(host, id string) string {
	if host == "" {
		return id
	}
	return strings.TrimPrefix(id, host+":")
}

// History is GET /api/v1/history.
type History struct {
	Sessions []HistoryEntry `json:"sessions"`
}

// HistoryQuery selects history entries.
type HistoryQuery struct {
	Agent  string
	Since  time.Time
	Search string
	Limit  int
}

// RenameBody is POST /api/v1/sessions/rename: Session names the session
// (its id, a unique start of it, or agent:id), Title is the person's title
// ("" takes it away).
type RenameBody struct {
	Session string `json:"session"`
	Title   string `json:"title"`
}

// History lists the history.
func (c *Client) History(ctx context.Context, q HistoryQuery) (History, error) {
	v := url.Values{}
	if q.Agent != "" {
		v.Set("agent", q.Agent)
	}
	if !q.Since.IsZero() {
		v.Set("since", q.Since.UTC().Format(time.RFC3339))
	}
	if q.Search != "" {
		v.Set("search", q.Search)
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	var h History
	err := c.Call(ctx, "GET", "/api/v1/history?"+v.Encode(), nil, &h)
	return h, err
}

// Resolve finds the session a person named.
func (c *Client) Resolve(ctx context.Context, session string) (HistoryEntry, error) {
	var e HistoryEntry
	err := c.Call(ctx, "GET", "/api/v1/sessions/resolve?"+url.Values{"session": {session}}.Encode(), nil, &e)
	return e, err
}

// Rename gives a session the person's title.
func (c *Client) Rename(ctx context.Context, session, title string) (HistoryEntry, error) {
	var e HistoryEntry
	err := c.Call(ctx, "POST", "/api/v1/sessions/rename", RenameBody{Session: session, Title: title}, &e)
	return e, err
}

// Recap returns the recap of the last days days (today included); with
// folders, the folders' names where the runtime knows them.
func (c *Client) Recap(ctx context.Context, days int, folders bool) (recap.Summary, error) {
	v := url.Values{"days": {strconv.Itoa(days)}}
	if folders {
		v.Set("folders", "1")
	}
	var s recap.Summary
	err := c.Call(ctx, "GET", "/api/v1/recap?"+v.Encode(), nil, &s)
	return s, err
}

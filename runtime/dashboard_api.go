package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/focus"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/icons"
	"github.com/clawdhq/clawd/internal/present"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/sessions"
	"github.com/clawdhq/clawd/statemachine"
)

// Doctor checks an agent's hook setup and repairs it, for the dashboard's
// Agents section (Config.Doctor).
type Doctor interface {
	Check(ctx context.Context, agent string) (client.DoctorReport, error)
	Fix(ctx context.Context, agent string) (client.DoctorFix, error)
}

// The dashboard's data routes, at the dashboard level of the route table
// (routes.go), each behind a login: the token API's handlers where one
// fits, under /ui/api/v1/, plus what only a page needs: one View, one
// stream of views and events, focusing a terminal, the notification
// pause, the agents and the doctor.
//
//	GET  /ui/api/v1/view                          dashView
//	GET  /ui/api/v1/stream[?since=SEQ]            NDJSON: {"type":"view",...}, the backlog, {"type":"event","event":...,"text":...}
//	GET  /ui/api/v1/permissions/{id}              client.PermissionDetail
//	POST /ui/api/v1/permissions/{id}/decision     client.DecisionBody, recorded as the dashboard's whatever its Via says
//	POST /ui/api/v1/dnd                           {"on"}
//	POST /ui/api/v1/pause                         {"on"}: pause notifications for client.PauseFor, or resume
//	POST /ui/api/v1/focus                         {"agent","session_id"}: bring its terminal to the front
//	GET  /ui/api/v1/agents                        []client.AgentInfo (Config.Agents)
//	GET  /ui/api/v1/doctor                        []client.DoctorReport (Config.Doctor)
//	POST /ui/api/v1/doctor/{agent}/fix            client.DoctorFix (Config.Doctor)
//	     /ui/api/v1/automations...                as /api/v1/automations
//	     /ui/api/v1/history, recap, sessions/...  as /api/v1/...

// dashStore is what the dashboard's data routes read and change of the
// runtime: the session store's API as a client sees it, like the tray's
// tray.Runtime, never the store's own fields (TestDashboardOnlyThroughStore
// keeps it so). *Server has it.
type dashStore interface {
	// View is everything the runtime shows, at one moment.
	View() client.View
	// session returns the tracked session k.
	session(k statemachine.Key) (client.SessionView, bool)
	// hasHistory reports whether the runtime keeps the history and the
	// recap.
	hasHistory() bool
	// followChanges follows the runtime's changes from now on, with room
	// for buf, and returns the held records start asked for and, for a
	// resumed reader that lost some, the gap: the backlog and the feed are
	// taken at one moment, so nothing falls between them or comes twice.
	followChanges(start sessions.Start, buf int) (*sessions.Subscription[client.Change], []client.EventRecord, *sessions.Gap)
	// PauseNotifications pauses notifications until then (zero: resumes).
	PauseNotifications(until time.Time)
	// dndView is do-not-disturb and the pause now in force.
	dndView() client.DND
}

// dashAPI serves the dashboard's data routes from its dashStore and what
// the runtime was configured with; it holds nothing of the runtime else.
type dashAPI struct {
	store   dashStore
	now     func() time.Time
	printer i18n.Printer
	log     *slog.Logger
	// agents, doctor and focus are Config's Agents, Doctor and Focus.
	agents func(ctx context.Context) ([]client.AgentInfo, error)
	doctor Doctor
	focus  func(ctx context.Context, t focus.Target) error
	// automations reports whether the runtime runs automations.
	automations func() bool
	// stream writes a stream with the runtime's caps, deadlines and
	// heartbeats (Server.stream); done is closed when the runtime stops.
	stream func(w http.ResponseWriter, r *http.Request, lagKey string, subscribe func() (*sessions.Subscription[sessions.Line], []sessions.Line))
	done   <-chan struct{}
}

// dashView is everything the page shows but automations and agents, at
// one moment: client.View with each session and request as present reads
// it, sessions most urgent first.
type dashView struct {
	Type                     string        `json:"type"` // "view"
	Now                      time.Time     `json:"now"`
	DisplayState             string        `json:"display_state"`
	Icon                     icons.Name    `json:"icon"`
	Sessions                 []dashSession `json:"sessions"`
	Permissions              []dashRequest `json:"permissions"`
	DND                      bool          `json:"dnd"`
	NotificationsPausedUntil *time.Time    `json:"notifications_paused_until,omitempty"`
	// Remotes are the links to remote machines (clawd remote add), as
	// the tray lists them.
	Remotes  []client.RemoteLink `json:"remotes,omitempty"`
	Features dashFeatures        `json:"features"`
}

// dashFeatures says which optional sections the runtime has.
type dashFeatures struct {
	Automations bool `json:"automations"`
	Agents      bool `json:"agents"`
	Doctor      bool `json:"doctor"`
	Focus       bool `json:"focus"`
	// History: the runtime keeps the history and the recap.
	History bool `json:"history"`
}

type dashSession struct {
	client.SessionView
	AgentName string     `json:"agent_name"`
	Icon      icons.Name `json:"icon"`
	Label     string     `json:"label"`
	Urgency   int        `json:"urgency"`
}

type dashRequest struct {
	client.PermissionView
	AgentName string `json:"agent_name"`
	// Line is the request in one line ("Bash: npm test", "Edit:
	// api/main.go").
	Line string `json:"line"`
	// Subagent marks a subagent's request ("subagent: Explore").
	Subagent string `json:"subagent,omitempty"`
	dashAsks
}

// dashboardView takes the runtime's View and dresses it for the page.
func (api *dashAPI) dashboardView() dashView {
	v := api.store.View()
	now := api.now()
	d := dashView{
		Type:         "view",
		Now:          now.UTC(),
		DisplayState: v.DisplayState,
		Sessions:     make([]dashSession, 0, len(v.Sessions)),
		Permissions:  make([]dashRequest, 0, len(v.Permissions)),
		DND:          v.DND,
		Features: dashFeatures{
			Automations: api.automations(),
			Agents:      api.agents != nil,
			Doctor:      api.doctor != nil,
			Focus:       true,
		},
	}
	d.Features.History = api.store.hasHistory()
	for _, l := range v.Remotes {
		l.Profile, l.Label, l.Error = text.Line(l.Profile, 0), text.Line(l.Label, 0), text.Line(l.Error, 0)
		d.Remotes = append(d.Remotes, l)
	}
	if v.NotificationsPausedUntil.After(now) {
		until := v.NotificationsPausedUntil.UTC()
		d.NotificationsPausedUntil = &until
	}
	asks := map[statemachine.Key]bool{}
	for _, p := range v.Permissions {
		if p.Kind == client.KindQuestion {
			asks[statemachine.Key{Agent: p.Agent, ID: p.SessionID}] = true
		}
		p.Title, p.Cwd, p.Tool = text.Line(p.Title, 0), text.Line(p.Cwd, 0), text.Line(p.Tool, 0)
		qa := dashAsksOf(&p)
		d.Permissions = append(d.Permissions, dashRequest{PermissionView: p, AgentName: text.Line(present.AgentName(p.Agent), 0),
			Line: text.Line(present.RequestWhat(p), 0), Subagent: present.Subagent(api.printer, p), dashAsks: qa})
	}
	present.Sort(v.Sessions)
	for _, ss := range v.Sessions {
		icon := present.SessionIcon(ss, asks[statemachine.Key{Agent: ss.Agent, ID: ss.SessionID}])
		ss.Title, ss.Cwd, ss.ProjectDir, ss.Tool, ss.Host = text.Line(ss.Title, 0), text.Line(ss.Cwd, 0), text.Line(ss.ProjectDir, 0), text.Line(ss.Tool, 0), text.Line(ss.Host, 0)
		d.Sessions = append(d.Sessions, dashSession{
			SessionView: ss,
			AgentName:   text.Line(present.AgentName(ss.Agent), 0),
			Icon:        icon,
			Label:       text.Line(present.StateLabel(api.printer, ss), 0),
			Urgency:     present.Urgency(ss),
		})
	}
	d.Icon = icons.Sleeping
	if n, ok := present.StateIcon(v.DisplayState); ok {
		d.Icon = n
	}
	if v.DND {
		d.Icon = icons.DND
	}
	return d
}

func (api *dashAPI) handleDashView(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, api.dashboardView())
}

// dashEvent is an event line of the dashboard's stream: the event record
// as GET /api/v1/events has it, which carries no prompt text or tool
// output (see agents.Event), and, for a permission.answered record, Text:
// the answer in the person's words, with the request's one line that the
// page showed while it waited ("Allowed Bash: npm test — from the
// dashboard").
type dashEvent struct {
	Type  string              `json:"type"` // "event"
	Event *client.EventRecord `json:"event"`
	Text  string              `json:"text,omitempty"`
}

// readable is an event record with the strings the page shows in one
// inert line each (internal/text's policy, as `clawd events` prints
// them).
func readable(r client.EventRecord) *client.EventRecord {
	for _, f := range []*string{&r.Agent, &r.SessionID, &r.ToolName, &r.NotificationType, &r.Title, &r.Cwd, &r.ProjectDir,
		&r.Source, &r.Reason, &r.ErrorKind, &r.State, &r.HookEvent, &r.SubagentType, &r.Host} {
		*f = text.Line(*f, 0)
	}
	if r.Answer != nil {
		a := *r.Answer
		for _, f := range []*string{&a.ID, &a.Decision, &a.Rule, &a.Reason, &a.Source, &a.Summary} {
			*f = text.Line(*f, 0)
		}
		r.Answer = &a
	}
	return &r
}

// dashEventLine is rec as a line of the dashboard's stream.
func (api *dashAPI) dashEventLine(rec client.EventRecord) sessions.Line {
	d := dashEvent{Type: "event", Event: readable(rec)}
	if a := d.Event.Answer; a != nil {
		line := present.RequestSummary(client.PermissionView{Kind: a.Request, Tool: d.Event.ToolName, Summary: a.Summary})
		d.Text = text.Line(present.Answered(api.printer, *a, line), 0)
	}
	b, _ := json.Marshal(d)
	return sessions.Line{JSON: b, ID: rec.Seq}
}

// dashThrottle is the shortest time between two views on a dashboard
// stream: the first change goes out at once, a burst after it as one
// view at the end of the window.
const dashThrottle = 25 * time.Millisecond

// handleDashStream is the page's one stream (NDJSON, through Server.stream
// with its caps, deadlines and heartbeats): the View first, then the
// backlog of events as GET /api/v1/events has it (?since=SEQ: the ones
// after SEQ, which the page sends when it reconnects, with a
// {"type": "stream.missed"} line for those no longer held), then every
// event as it happens and a new View after each change. It follows the
// runtime's change feed (the hub the tray follows); a page that fell
// behind gets {"type": "stream.lagged"} and reconnects with its last seq.
func (api *dashAPI) handleDashStream(w http.ResponseWriter, r *http.Request) {
	st, err := startOf(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	api.stream(w, r, "type", func() (*sessions.Subscription[sessions.Line], []sessions.Line) {
		out := sessions.NewLineHub()
		sub := out.Subscribe(1024)
		// The feed carries the records as the event stream does: the
		// backlog and the feed are taken under one lock.
		feed, recs, lost := api.store.followChanges(st, 1024)
		// Subscribed first, then the View: nothing falls in between.
		first, _ := json.Marshal(api.dashboardView())
		lines := []sessions.Line{{JSON: first}}
		if lost != nil {
			lines = append(lines, lost.Line("type"))
		}
		for _, rec := range recs {
			lines = append(lines, api.dashEventLine(rec))
		}
		go api.feedDashboard(r.Context(), feed, out)
		return sub, lines
	})
}

// feedDashboard turns the change feed into the dashboard stream's lines
// until ctx ends (the stream's request is over) or the runtime stops.
func (api *dashAPI) feedDashboard(ctx context.Context, feed *sessions.Subscription[client.Change], out *sessions.Hub[sessions.Line]) {
	defer feed.Close()
	var throttle <-chan time.Time
	dirty := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-api.done:
			return
		case c := <-feed.C:
			if c.Dropped > 0 {
				// Events may be among the lost: the page reconnects
				// with its last seq and gets them from the backlog.
				lag, _ := json.Marshal(map[string]any{"type": client.StreamLagged, "dropped": c.Dropped})
				out.Publish(sessions.Line{JSON: lag})
			}
			if c.Event != nil {
				out.Publish(api.dashEventLine(*c.Event))
			}
			if throttle != nil {
				dirty = true
				continue
			}
			sessions.PublishJSON(out, api.dashboardView())
			throttle = time.After(dashThrottle)
		case <-throttle:
			throttle = nil
			if dirty {
				dirty = false
				sessions.PublishJSON(out, api.dashboardView())
				throttle = time.After(dashThrottle)
			}
		}
	}
}

// handleDashPause pauses notifications for client.PauseFor ({"on": true})
// or resumes them ({"on": false}), as the tray's menu item does.
func (api *dashAPI) handleDashPause(w http.ResponseWriter, r *http.Request) {
	on, ok := readSwitch(w, r)
	if !ok {
		return
	}
	until := time.Time{}
	if on {
		until = api.now().Add(client.PauseFor)
	}
	api.store.PauseNotifications(until)
	writeJSON(w, http.StatusOK, api.store.dndView())
}

// handleDashFocus brings a session's terminal to the front with the
// tray's focus code. The page names the session; what to look for (the
// agent's pid, folder and title) comes from the runtime's own record. A
// remote machine's session is refused, as the tray never offers it: its
// terminal is not on this desktop, and a window here that happens to
// share its folder or title is not it.
func (api *dashAPI) handleDashFocus(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Agent     string `json:"agent"`
		SessionID string `json:"session_id"`
	}
	if !readBody(w, r, maxStateBody, &body) {
		return
	}
	ss, ok := api.store.session(statemachine.Key{Agent: body.Agent, ID: body.SessionID})
	if !ok {
		writeError(w, http.StatusNotFound, "no session "+body.SessionID+" of "+body.Agent)
		return
	}
	if ss.Host != "" {
		writeError(w, http.StatusConflict, "this session runs on "+text.Line(ss.Host, 0)+": its terminal is not on this machine")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), focusTimeout)
	defer cancel()
	if err := api.focus(ctx, focus.Target{PID: ss.AgentPID, Cwd: ss.Cwd, Title: ss.Title}); err != nil {
		writeError(w, http.StatusConflict, "could not bring its terminal to the front: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// focusTimeout bounds bringing a terminal to the front.
const focusTimeout = 3 * time.Second

func (api *dashAPI) handleDashAgents(w http.ResponseWriter, r *http.Request) {
	if api.agents == nil {
		writeError(w, http.StatusNotFound, "agents are not available in this clawd serve")
		return
	}
	list, err := api.agents(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, list)
}

// handleDoctorCheck runs the doctor's checks for every agent clawd knows.
func (api *dashAPI) handleDoctorCheck(w http.ResponseWriter, r *http.Request) {
	if api.doctor == nil {
		writeError(w, http.StatusNotFound, "the doctor is not available in this clawd serve")
		return
	}
	out := []client.DoctorReport{}
	for _, a := range agents.All() {
		rep, err := api.doctor.Check(r.Context(), a.ID)
		if err != nil {
			rep = client.DoctorReport{Agent: a.ID, Findings: []client.DoctorFinding{{Level: "error", Message: err.Error()}}}
		}
		out = append(out, rep)
	}
	writeJSON(w, http.StatusOK, out)
}

// handleDoctorFix runs `clawd doctor --fix` for one agent and answers
// with the diff it applied.
func (api *dashAPI) handleDoctorFix(w http.ResponseWriter, r *http.Request) {
	if api.doctor == nil {
		writeError(w, http.StatusNotFound, "the doctor is not available in this clawd serve")
		return
	}
	id := r.PathValue("agent")
	if agents.Lookup(id) == nil {
		writeError(w, http.StatusNotFound, "no agent "+id)
		return
	}
	var body struct{}
	if !readBody(w, r, maxStateBody, &body) {
		return
	}
	fix, err := api.doctor.Fix(r.Context(), id)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	api.log.Info("doctor fix from the dashboard", "agent", id, "changed", fix.Changed)
	writeJSON(w, http.StatusOK, fix)
}

// handleDashboardIcon serves one of the tray's icons (32 px PNG).
func (api *dashAPI) handleDashboardIcon(w http.ResponseWriter, r *http.Request) {
	name := icons.Name(r.PathValue("name"))
	for _, n := range icons.All() {
		if string(n)+".png" == string(name) {
			w.Header().Set("Content-Type", "image/png")
			w.Write(icons.PNG(n))
			return
		}
	}
	writeError(w, http.StatusNotFound, "no such icon")
}

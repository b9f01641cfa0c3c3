package tray

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/icons"
	"github.com/clawdhq/clawd/internal/present"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/statemachine"
)

// View is everything the menu shows: the runtime's View, the time the
// ages are counted to and the language of the labels (the zero Printer is
// English). Each change rebuilds the menu from a new View.
type View struct {
	client.View
	Now     time.Time
	Printer i18n.Printer
	// Dashboard offers "Open dashboard" (the tray was given a way to open
	// it).
	Dashboard bool
	// Picks are the options ticked in the menu, not sent yet.
	Picks Picks
	// Folders name the sessions' folders by their repository
	// ("web-frontend/src"), by Cwd; a folder missing here is named by
	// its last element. The controller fills it (it looks on disk, Build
	// does not).
	Folders map[string]string
	// Autostart is the login entry, as last read; the menu offers "Start
	// at login" once it is known.
	Autostart AutostartState
}

// AutostartState is what the login entry was found to be.
type AutostartState struct {
	// Known: the entry was read (the menu shows the item).
	Known bool
	// On: an entry starts this clawd at login.
	On bool
	// Stale says why an entry there no longer starts this clawd ("" when
	// it does, or there is none); the item is unchecked then, and a click
	// writes it again.
	Stale string
	// Err is why the last read or change failed.
	Err string
}

// ActionKind is what clicking a menu item does.
type ActionKind int

// Actions.
const (
	ActNone       ActionKind = iota
	ActFocus                 // bring the session's terminal to the front
	ActDecide                // answer a permission request
	ActDND                   // toggle do-not-disturb
	ActPause                 // pause notifications for PauseFor
	ActResume                // resume notifications
	ActOpenConfig            // open the clawd home in the file manager
	ActDashboard             // open the web dashboard in the browser
	ActQuit                  // stop the runtime and the tray
	ActPick                  // tick or untick a question's option (Pick)
	ActAutostart             // turn "Start at login" on or off
)

// Action is a menu item's effect.
type Action struct {
	Kind ActionKind
	// Session is the session to focus (ActFocus, and "answer in terminal").
	Session SessionRef
	// Request and Decision are the request answered by ActDecide.
	Request  string
	Decision client.DecisionBody
	// Pick is the option ActPick ticks.
	Pick Pick
}

// SessionRef names a session and how to find its terminal.
type SessionRef struct {
	Agent, ID  string
	PID        int
	Cwd, Title string
	// Host is the remote machine the session runs on (see
	// client.SessionView.Host): nothing here is brought to the front
	// for it.
	Host string
}

// Item is one menu entry. Key is stable across rebuilds for the same
// thing (a session, a request's Allow), so the tray can tell a change of
// labels from a change of structure.
type Item struct {
	Key       string
	Label     string
	Tooltip   string
	Enabled   bool
	Checkbox  bool
	Checked   bool
	Separator bool
	Action    Action
	Children  []Item
}

// Menu is the whole tray: icon, tooltip and items.
type Menu struct {
	Icon    icons.Name
	Tooltip string
	Items   []Item
}

// Limits of the menu, so a busy machine still gets a usable one.
const (
	// MaxSessions is how many sessions the menu lists; the rest are
	// counted in one line.
	MaxSessions = 12
	// MaxRequests is how many pending requests get their own submenu.
	MaxRequests = 8
	// PauseFor is how long "Pause notifications" lasts.
	PauseFor = client.PauseFor
	// maxLabel keeps labels to what a menu shows without wrapping.
	maxLabel = 64
	// maxFolder bounds the folder that starts a label, so what the
	// session does keeps its room.
	maxFolder = 28
)

// Build turns a View into the menu. It is pure: same View, same Menu.
//
// What wants the person comes first: "Needs you (N)" with the requests,
// then "Open dashboard"; then the summary and the sessions, most urgent
// first; the settings and Quit last. Every session's and request's label
// starts with where it runs, the folder named by its repository.
func Build(v View) Menu {
	sessions := slices.Clone(v.Sessions)
	present.Sort(sessions)
	byKey := map[[2]string]client.SessionView{}
	for _, s := range sessions {
		byKey[[2]string{s.Agent, s.SessionID}] = s
	}

	p := v.Printer
	m := Menu{Icon: iconFor(v), Tooltip: Tooltip(v)}
	if len(v.Permissions) > 0 {
		m.Items = append(m.Items, Item{Key: "pending-header", Label: p.N("tray.needs_you", len(v.Permissions))})
		for i, r := range v.Permissions {
			if i == MaxRequests {
				m.Items = append(m.Items, Item{Key: "pending-more",
					Label: p.N("tray.pending_more", len(v.Permissions)-MaxRequests)})
				break
			}
			m.Items = append(m.Items, requestItem(p, r, ref(byKey, r.Agent, r.SessionID, r.Cwd, r.Title), v.Picks, v.Now))
		}
	}
	if v.Dashboard {
		m.Items = append(m.Items, Item{Key: "dashboard", Label: p.T("tray.dashboard"), Enabled: true,
			Tooltip: p.T("tray.dashboard_tip"), Action: Action{Kind: ActDashboard}})
	}
	if len(m.Items) > 0 {
		m.Items = append(m.Items, sep("sep-summary"))
	}
	m.Items = append(m.Items, Item{Key: "summary", Label: m.Tooltip})
	for _, in := range v.Integrations {
		if in.State == client.IntegrationNeedsManualFix {
			m.Items = append(m.Items, Item{Key: "integration:" + in.Agent,
				Label:   text.Line(p.T("tray.manual_fix", present.AgentName(in.Agent)), maxLabel),
				Tooltip: text.Line(in.Detail, 0)})
		}
	}

	m.Items = append(m.Items, sep("sep-sessions"))
	if len(sessions) == 0 {
		m.Items = append(m.Items, Item{Key: "sessions-none", Label: p.T("tray.no_sessions")})
	} else {
		m.Items = append(m.Items, Item{Key: "sessions-header", Label: p.N("tray.sessions", len(sessions))})
	}
	for i, s := range sessions {
		if i == MaxSessions {
			m.Items = append(m.Items, Item{Key: "sessions-more",
				Label: p.N("tray.sessions_more", len(sessions)-MaxSessions)})
			break
		}
		r := ref(byKey, s.Agent, s.SessionID, s.Cwd, s.Title)
		it := Item{
			Key:     "session:" + s.Agent + "/" + s.SessionID,
			Label:   sessionLabel(p, s, v.Folders, v.Now),
			Tooltip: joinLine(" · ", sessionWho(p, s), s.Title, s.Cwd),
			Enabled: true,
			Action:  Action{Kind: ActFocus, Session: r},
		}
		if s.Host != "" {
			// Its terminal is on another machine: nothing to click.
			it.Enabled, it.Action = false, Action{}
			it.Tooltip = joinLine(" · ", sessionWho(p, s), p.T("tray.on_host", text.Line(s.Host, 0), text.Line(s.Cwd, 0)))
		}
		m.Items = append(m.Items, it)
	}
	if len(v.Remotes) > 0 {
		m.Items = append(m.Items, sep("sep-remotes"))
		for _, l := range v.Remotes {
			label := p.T("tray.remote", text.Line(l.Label, 0), present.LinkState(p, l.State))
			if l.Error != "" {
				label += " (" + text.Line(l.Error, 0) + ")"
			}
			m.Items = append(m.Items, Item{Key: "remote:" + l.Profile, Label: clip(label), Tooltip: text.Line(l.Error, 0)})
		}
	}

	m.Items = append(m.Items, sep("sep-settings"),
		Item{Key: "dnd", Label: p.T("tray.dnd"), Enabled: true, Checkbox: true, Checked: v.DND,
			Tooltip: p.T("tray.dnd_tip"),
			Action:  Action{Kind: ActDND}})
	if v.NotificationsPausedUntil.After(v.Now) {
		m.Items = append(m.Items, Item{Key: "pause", Enabled: true, Action: Action{Kind: ActResume},
			Label: p.T("tray.resume", v.NotificationsPausedUntil.Local().Format("15:04"))})
	} else {
		m.Items = append(m.Items, Item{Key: "pause", Enabled: true, Action: Action{Kind: ActPause},
			Label: p.T("tray.pause")})
	}
	if a := v.Autostart; a.Known {
		tip := p.T("tray.autostart_tip")
		switch {
		case a.Err != "":
			tip = text.Line(a.Err, 0)
		case a.Stale != "":
			tip = p.T("tray.autostart_stale", text.Line(a.Stale, 0))
		}
		m.Items = append(m.Items, Item{Key: "autostart", Label: p.T("tray.autostart"), Enabled: true,
			Checkbox: true, Checked: a.On && a.Stale == "", Tooltip: tip, Action: Action{Kind: ActAutostart}})
	}
	m.Items = append(m.Items,
		Item{Key: "config", Label: p.T("tray.config"), Enabled: true, Action: Action{Kind: ActOpenConfig}},
		sep("sep-quit"),
		Item{Key: "quit", Label: p.T("tray.quit"), Enabled: true, Action: Action{Kind: ActQuit},
			Tooltip: p.T("tray.quit_tip")})
	return m
}

func sep(key string) Item { return Item{Key: key, Separator: true} }

func ref(byKey map[[2]string]client.SessionView, agent, id, cwd, title string) SessionRef {
	r := SessionRef{Agent: agent, ID: id, Cwd: cwd, Title: title}
	if s, ok := byKey[[2]string{agent, id}]; ok {
		r.PID, r.Host = s.AgentPID, s.Host
		r.Cwd = cmp.Or(s.Cwd, cwd)
		r.Title = cmp.Or(s.Title, title)
	}
	return r
}

func requestItem(pr i18n.Printer, p client.PermissionView, r SessionRef, picks Picks, now time.Time) Item {
	key := "request:" + p.ID
	where := cmp.Or(text.Line(p.Folder, 0), present.Place("", p.Cwd), text.Line(p.Title, 0), present.Requester(pr, p))
	where = text.Line(where, maxFolder)
	tail := joinLine(" · ", present.Waited(pr, p, now), present.Subagent(pr, p))
	var label string
	switch p.Kind {
	case client.KindQuestion:
		label = fitLabel(func(what string) string { return joinLine(" · ", pr.T("tray.asks", where, what), tail) }, p.Summary)
	case client.KindPlan:
		label = clip(joinLine(" · ", pr.T("tray.review_plan", where), tail))
	default:
		label = fitLabel(func(what string) string { return joinLine(" · ", where, what, tail) }, present.RequestWhat(p))
	}
	it := Item{Key: key, Label: label, Tooltip: present.RequestTooltip(pr, p), Enabled: true}
	decide := func(sub, label string, d client.DecisionBody) Item {
		d.Via = "tray"
		return Item{Key: key + ":" + sub, Label: clip(label), Enabled: true,
			Action: Action{Kind: ActDecide, Request: p.ID, Decision: d, Session: r}}
	}
	terminal := pr.T("tray.terminal")
	switch p.Kind {
	case client.KindQuestion:
		if p.Answerable {
			it.Children = append(it.Children, questionItems(pr, p, picks, decide)...)
			terminal = pr.T("tray.other_terminal")
			break
		}
		for i, o := range p.Options {
			it.Children = append(it.Children, Item{Key: fmt.Sprintf("%s:option:%d", key, i), Label: clip("• " + o)})
		}
	case client.KindPlan:
		it.Children = append(it.Children, planItems(pr, p, decide)...)
	default:
		it.Children = append(it.Children,
			decide("allow", pr.T("tray.allow"), client.DecisionBody{Behavior: client.Allow}),
			decide("deny", pr.T("tray.deny"), client.DecisionBody{Behavior: client.Deny}))
		for i, s := range p.Suggestions {
			it.Children = append(it.Children,
				decide(fmt.Sprintf("always:%d", i+1), s, client.DecisionBody{Behavior: client.Allow, Suggestion: i + 1}))
		}
	}
	it.Children = append(it.Children,
		decide("terminal", terminal, client.DecisionBody{Behavior: client.Terminal}))
	return it
}

// sessionLabel is a session in one line, where it runs first: "web-frontend
// · fix login · working (Bash) · 10s"; the title is what gives way to
// keep the line within maxLabel.
func sessionLabel(p i18n.Printer, s client.SessionView, folders map[string]string, now time.Time) string {
	where := ""
	if s.Cwd != "" {
		where = cmp.Or(folders[s.Cwd], present.Place("", s.Cwd))
	}
	title := text.Line(s.Title, 0)
	if where == "" {
		where, title = title, ""
	}
	where = text.Line(where, maxFolder)
	if s.Host != "" {
		where += " @" + text.Line(s.Host, maxFolder)
	}
	if s.Headless {
		where += p.T("tray.headless")
	}
	status := present.StatusLabel(p, s, now)
	// A finished turn's label says when already ("done 3m ago").
	if present.SessionStatus(s) != present.Done || s.OutcomeAt.IsZero() {
		status += " · " + present.Age(p, now.Sub(s.UpdatedAt))
	}
	return fitLabel(func(t string) string { return joinLine(" · ", where, t, status) }, title)
}

// sessionWho is who runs a session, for its tooltip: "Claude Code
// (headless)".
func sessionWho(p i18n.Printer, s client.SessionView) string {
	who := present.AgentName(s.Agent)
	if s.Headless {
		who += p.T("tray.headless")
	}
	return who
}

// fitLabel is the label line(flex), with flex cut (with an ellipsis) as
// far as needed for the whole to fit in maxLabel runes, so what comes
// after it (a status, an age) stays in view.
func fitLabel(line func(flex string) string, flex string) string {
	flex = text.Line(flex, 0)
	l := line(flex)
	if over := utf8.RuneCountInString(l) - maxLabel; over > 0 {
		keep := max(utf8.RuneCountInString(flex)-over, minFlex)
		l = line(text.Line(flex, keep))
	}
	return clip(l)
}

// minFlex is the least fitLabel keeps of the part it cuts.
const minFlex = 8

// joinLine joins the parts that are not empty, each made one safe line.
func joinLine(sep string, parts ...string) string {
	var out []string
	for _, s := range parts {
		if s = text.Line(s, 0); s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, sep)
}

// clip is a menu label: one line by internal/text's policy, at most
// maxLabel characters.
func clip(s string) string { return text.Line(s, maxLabel) }

// Tooltip is the one-line summary: "1 needs you, 2 working".
func Tooltip(v View) string {
	var needs, questions, failed, working, done, idle int
	asks := map[[2]string]bool{}
	for _, p := range v.Permissions {
		if p.Kind == client.KindQuestion {
			asks[[2]string{p.Agent, p.SessionID}] = true
		}
	}
	for _, s := range v.Sessions {
		if s.Headless && s.Pending == 0 {
			continue
		}
		switch st := present.SessionStatus(s); st {
		case present.NeedsYou, present.Asks:
			if st == present.Asks || asks[[2]string{s.Agent, s.SessionID}] {
				questions++
			} else {
				needs++
			}
		case present.Failed:
			failed++
		case present.Working, present.Thinking:
			working++
		case present.Done:
			done++
		case present.Idle:
			idle++
		}
	}
	p := v.Printer
	var parts []string
	add := func(n int, key string) {
		if n > 0 {
			parts = append(parts, p.N(key, n))
		}
	}
	// Most urgent first, in the order sessions are listed (present.Status).
	add(needs, "tooltip.needs_you")
	add(questions, "tooltip.questions")
	add(failed, "tooltip.failed")
	add(working, "tooltip.working")
	add(done, "tooltip.done")
	add(idle, "tooltip.idle")
	s := strings.Join(parts, p.T("tooltip.sep"))
	if s == "" {
		s = p.T("tooltip.none")
	}
	s = "clawd: " + s
	if v.DND {
		s += p.T("tooltip.dnd")
	} else if v.NotificationsPausedUntil.After(v.Now) {
		s += p.T("tooltip.paused")
	}
	return s
}

// iconFor picks the icon: do-not-disturb overrides everything (the person
// asked for quiet and requests go to the agents' own prompts); otherwise
// the display state, with a question told apart from a permission and the
// needs-you icon carrying the number of requests that wait.
func iconFor(v View) icons.Name {
	if v.DND {
		return icons.DND
	}
	hasPermission, hasQuestion := false, false
	for _, p := range v.Permissions {
		if p.Kind == client.KindQuestion {
			hasQuestion = true
		} else {
			hasPermission = true
		}
	}
	if statemachine.State(v.DisplayState) == statemachine.Waiting && hasQuestion && !hasPermission {
		return icons.Question
	}
	if n, ok := present.StateIcon(v.DisplayState); ok {
		if n == icons.NeedsYou {
			// The icon carries how many requests wait, as the
			// "Needs you (N)" line counts them.
			return icons.NeedsYouCount(len(v.Permissions))
		}
		return n
	}
	if hasPermission {
		// A headless session's request, held by policy "ask".
		return icons.NeedsYouCount(len(v.Permissions))
	}
	if hasQuestion {
		return icons.Question
	}
	return icons.Sleeping
}

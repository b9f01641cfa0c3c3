package runtime

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/history"
	"github.com/clawdhq/clawd/runtime/recap"
	"github.com/clawdhq/clawd/statemachine"
)

// The history API (see client/history.go for the routes): the CLI's
// history, resume, rename and recap, and the dashboard's lists.

// maxRenameBody caps POST /api/v1/sessions/rename.
const maxRenameBody = 8 << 10

// maxRecapDays is the most days a recap covers: what the history keeps.
const maxRecapDays = history.DefaultRecapDays

// store returns the history's store, or answers 503 and returns nil.
func (s *Server) store(w http.ResponseWriter) *history.Store {
	h := s.sessions.History()
	if h == nil {
		writeError(w, http.StatusServiceUnavailable, errNoHistory.Error())
	}
	return h
}

// entryOf is a history entry as the API shows it.
func entryOf(e history.Entry, live bool) client.HistoryEntry {
	title, src := e.Titles.Best()
	v := client.HistoryEntry{
		Agent: e.Agent, SessionID: e.SessionID, Title: title, TitleSource: string(src), Cwd: e.Cwd,
		Host: e.Host, StartedAt: e.StartedAt, LastActive: e.LastActive, Turns: e.Turns, Headless: e.Headless,
		Ended: e.Ended, Live: live,
	}
	if a := agents.Lookup(e.Agent); a != nil && a.Resume != nil {
		v.Resume = append([]string{a.Command}, a.Resume(client.AgentSessionID(e.Host, e.SessionID))...)
	}
	return v
}

// liveEntry is a tracked session as a history entry.
func liveEntry(ss statemachine.Session) history.Entry {
	return history.Entry{
		Agent: ss.Agent, SessionID: ss.ID, Titles: ss.Titles, Cwd: recap.Folder(ss), Host: ss.Host,
		StartedAt: ss.StartedAt, LastActive: ss.UpdatedAt, Turns: ss.Turns, Headless: ss.Headless,
	}
}

// liveSessions returns the tracked sessions by key.
func (s *Server) liveSessions() map[statemachine.Key]statemachine.Session {
	return s.sessions.Sessions()
}

// useHistory makes the runtime keep its history in h: the titles people
// gave are loaded, and from now on the runtime tallies the recap.
func (s *Server) useHistory(ctx context.Context, h *history.Store) error {
	return s.sessions.UseHistory(ctx, h)
}

// Rename gives the session k the title a person chose ("" takes it away):
// kept in the history (for a session clawd tracks later too), shown at
// once where the session is live.
func (s *Server) Rename(ctx context.Context, k statemachine.Key, title string) error {
	return s.sessions.Rename(ctx, k, title)
}

func (s *Server) handleHistory(w http.ResponseWriter, r *http.Request) {
	st := s.store(w)
	if st == nil {
		return
	}
	q := history.Query{Agent: r.URL.Query().Get("agent"), Search: r.URL.Query().Get("search")}
	if a := agents.Lookup(q.Agent); a != nil {
		q.Agent = a.ID
	}
	if v := r.URL.Query().Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			writeError(w, http.StatusBadRequest, "bad since: want an RFC 3339 time")
			return
		}
		q.Since = t
	}
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "bad limit: want a number")
			return
		}
		q.Limit = n
	}
	es, err := st.List(r.Context(), q)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	live := s.liveSessions()
	out := client.History{Sessions: []client.HistoryEntry{}}
	for _, e := range es {
		_, on := live[statemachine.Key{Agent: e.Agent, ID: e.SessionID}]
		out.Sessions = append(out.Sessions, entryOf(e, on))
	}
	writeJSON(w, http.StatusOK, out)
}

// Errors of resolve.
var (
	errNoSuchSession = errors.New("no such session")
	errAmbiguous     = errors.New("more than one session matches")
)

// resolve finds the session a person named: an agent's session id, or a
// start of one that only one session has, optionally as agent:id; among
// the live sessions and the history. An exact id wins over ids it starts.
func (s *Server) resolve(ctx context.Context, q string) (history.Entry, bool, error) {
	q = strings.TrimSpace(q)
	if q == "" {
		return history.Entry{}, false, fmt.Errorf("%w: name one by its id", errNoSuchSession)
	}
	live := s.liveSessions()
	agent, id := "", q
	if a, rest, ok := strings.Cut(q, ":"); ok && a != "" {
		if ag := agents.Lookup(a); ag != nil {
			agent, id = ag.ID, rest
		} else {
			for k := range live {
				if k.Agent == a {
					agent, id = a, rest
				}
			}
		}
	}
	found := map[statemachine.Key]history.Entry{}
	for k, ss := range live {
		if (agent == "" || k.Agent == agent) && strings.HasPrefix(k.ID, id) {
			found[k] = liveEntry(ss)
		}
	}
	if h := s.sessions.History(); h != nil {
		es, err := h.Find(ctx, agent, id)
		if err != nil {
			return history.Entry{}, false, err
		}
		for _, e := range es {
			k := statemachine.Key{Agent: e.Agent, ID: e.SessionID}
			if _, on := found[k]; !on {
				found[k] = e
			}
		}
	}
	var exact, all []statemachine.Key
	for k := range found {
		all = append(all, k)
		if k.ID == id {
			exact = append(exact, k)
		}
	}
	if len(exact) > 0 {
		all = exact
	}
	switch len(all) {
	case 0:
		return history.Entry{}, false, fmt.Errorf("%w %q: `clawd status` and `clawd history` list them", errNoSuchSession, q)
	case 1:
		_, on := live[all[0]]
		return found[all[0]], on, nil
	}
	slices.SortFunc(all, func(a, b statemachine.Key) int {
		return cmp.Or(strings.Compare(a.Agent, b.Agent), strings.Compare(a.ID, b.ID))
	})
	var names []string
	for i, k := range all {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(all)-i))
			break
		}
		names = append(names, k.Agent+":"+k.ID)
	}
	return history.Entry{}, false, fmt.Errorf("%w %q: %s; give more of the id, or agent:id", errAmbiguous, q, strings.Join(names, ", "))
}

// writeResolveError answers a resolve error with its status.
func writeResolveError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, errNoSuchSession):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, errAmbiguous):
		writeError(w, http.StatusConflict, err.Error())
	default:
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

func (s *Server) handleResolve(w http.ResponseWriter, r *http.Request) {
	e, live, err := s.resolve(r.Context(), r.URL.Query().Get("session"))
	if err != nil {
		writeResolveError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, entryOf(e, live))
}

func (s *Server) handleRename(w http.ResponseWriter, r *http.Request) {
	var body client.RenameBody
	if !readBody(w, r, maxRenameBody, &body) {
		return
	}
	title, err := agents.PersonTitle(body.Title)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	e, live, err := s.resolve(r.Context(), body.Session)
	if err != nil {
		writeResolveError(w, err)
		return
	}
	k := statemachine.Key{Agent: e.Agent, ID: e.SessionID}
	if err := s.Rename(r.Context(), k, title); err != nil {
		if errors.Is(err, errNoHistory) {
			writeError(w, http.StatusServiceUnavailable, err.Error())
			return
		}
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.log.Info("session renamed", "agent", k.Agent, "session", k.ID)
	e.Titles.Person = title
	writeJSON(w, http.StatusOK, entryOf(e, live))
}

func (s *Server) handleRecap(w http.ResponseWriter, r *http.Request) {
	st := s.store(w)
	if st == nil {
		return
	}
	days := 7
	if v := r.URL.Query().Get("days"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxRecapDays {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("bad days: want 1 to %d", maxRecapDays))
			return
		}
		days = n
	}
	sum, err := s.Recap(r.Context(), days, r.URL.Query().Get("folders") != "")
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, sum)
}

// Recap sums up the last days local days, today included, with what the
// runtime counted since its last write. With folders, the folders are
// named where the runtime knows their names (see folderNames).
func (s *Server) Recap(ctx context.Context, days int, folders bool) (recap.Summary, error) {
	now := s.cfg.Now()
	// What the tally holds counts too: written first, as the journal's
	// next write would.
	st, batch, running, err := s.sessions.TakeRecap(now)
	if err != nil {
		return recap.Summary{}, err
	}
	to := recap.DayOf(now, st.Loc())
	from := to.Add(1 - days)
	if err := st.AddRecap(ctx, batch); err != nil {
		return recap.Summary{}, err
	}
	rows, seen, cov, err := st.Recap(ctx, from, to)
	if err != nil {
		return recap.Summary{}, err
	}
	if !running.IsZero() {
		// The runtime sees now; the store has its coverage up to the
		// journal's last note.
		cov = append(cov, recap.Interval{From: running, To: now})
	}
	var names map[string]string
	if folders {
		if names, err = s.folderNames(ctx, st); err != nil {
			return recap.Summary{}, err
		}
	}
	return recap.Build(rows, seen, cov, from, to, st.Loc(), zoneName(st.Loc()), now, names), nil
}

// folderNames maps folder hashes to names for the folders the runtime
// knows in the clear anyway: those of the sessions in the history (kept
// 30 days, to resume them in their folder) and of the live sessions. No
// mapping is stored: a folder of the recap's older days, which no session
// the history still keeps ran in, stays a hash.
func (s *Server) folderNames(ctx context.Context, st *history.Store) (map[string]string, error) {
	folders, err := st.Folders(ctx)
	if err != nil {
		return nil, err
	}
	for _, ss := range s.liveSessions() {
		folders = append(folders, recap.Place(ss))
	}
	names := map[string]string{}
	for _, f := range folders {
		names[st.Hash(recap.HashFolder, f)] = f
	}
	return names, nil
}

// zoneName names the zone days are local to: the IANA name where the
// machine says it ($TZ, /etc/localtime's target), else the zone's own.
func zoneName(loc *time.Location) string {
	if loc != time.Local {
		return loc.String()
	}
	if tz := strings.TrimPrefix(os.Getenv("TZ"), ":"); tz != "" && !filepath.IsAbs(tz) {
		return tz
	}
	if target, err := os.Readlink("/etc/localtime"); err == nil {
		if _, name, ok := strings.Cut(target, "zoneinfo/"); ok {
			return name
		}
	}
	name, _ := time.Now().In(loc).Zone()
	return name
}

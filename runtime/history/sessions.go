package history

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/sqlitedb"
	"github.com/clawdhq/clawd/runtime/recap"
)

func dayOf(t time.Time, loc *time.Location) recap.Day { return recap.DayOf(t, loc) }

// Entry is one session in the history.
type Entry struct {
	Agent     string
	SessionID string
	// Titles are the session's titles by source; the one shown is
	// Titles.Best().
	Titles agents.Titles
	// Cwd is the folder the session ran in (the project folder, where the
	// agent names one): where `clawd resume` resumes it.
	Cwd string
	// Host is the remote machine the session ran on (a remote profile's
	// label, statemachine.Session.Host); "" for this one. Its Cwd is a
	// folder there.
	Host       string
	StartedAt  time.Time
	LastActive time.Time
	// Turns counts the session's prompts clawd saw. Record adds it to the
	// turns already recorded.
	Turns    int
	Headless bool
	// Ended is set when the session ended; a session that went stale
	// (silent while its agent still ran) or was still running when clawd
	// stopped is recorded with Ended false.
	Ended bool
}

// Record writes sessions into the history: a session seen before keeps
// its first start and gets the rest anew, its turns added up. A person's
// title the runtime did not know of is kept.
func (s *Store) Record(ctx context.Context, entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	err := sqlitedb.InTx(ctx, s.db, func(tx *sql.Tx) error {
		for _, e := range entries {
			_, err := tx.ExecContext(ctx, `INSERT INTO sessions(agent, session_id, person_title, agent_title,
					prompt_title, cwd, host, started_at, last_active, turns, headless, ended)
				VALUES (?, ?, COALESCE((SELECT title FROM person_titles WHERE agent = ? AND session_id = ?), ?),
					?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT(agent, session_id) DO UPDATE SET
					person_title = COALESCE((SELECT title FROM person_titles WHERE agent = excluded.agent
						AND session_id = excluded.session_id), excluded.person_title),
					agent_title = CASE excluded.agent_title WHEN '' THEN agent_title ELSE excluded.agent_title END,
					prompt_title = CASE prompt_title WHEN '' THEN excluded.prompt_title ELSE prompt_title END,
					cwd = CASE excluded.cwd WHEN '' THEN cwd ELSE excluded.cwd END,
					host = excluded.host,
					started_at = MIN(started_at, excluded.started_at),
					last_active = MAX(last_active, excluded.last_active),
					turns = turns + excluded.turns,
					headless = excluded.headless,
					ended = excluded.ended`,
				e.Agent, e.SessionID, e.Agent, e.SessionID, e.Titles.Person, e.Titles.Agent, e.Titles.Prompt,
				e.Cwd, e.Host, ms(e.StartedAt), ms(e.LastActive), e.Turns, e.Headless, e.Ended)
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record history: %w", err)
	}
	return s.Prune(ctx)
}

// Query selects history entries.
type Query struct {
	// Agent keeps one agent's sessions.
	Agent string
	// Since keeps sessions active since then.
	Since time.Time
	// Search keeps sessions whose title, folder or id contains it,
	// case-insensitively.
	Search string
	// Limit caps the entries (0: all the history keeps).
	Limit int
}

const entryColumns = `agent, session_id, person_title, agent_title, prompt_title, cwd, host, started_at,
	last_active, turns, headless, ended`

// entries runs a query of entryColumns and returns its entries.
func (s *Store) entries(ctx context.Context, q string, args ...any) ([]Entry, error) {
	out := []Entry{}
	err := s.query(ctx, q, args, func(scan func(...any) error) error {
		var e Entry
		var started, active int64
		if err := scan(&e.Agent, &e.SessionID, &e.Titles.Person, &e.Titles.Agent, &e.Titles.Prompt, &e.Cwd, &e.Host,
			&started, &active, &e.Turns, &e.Headless, &e.Ended); err != nil {
			return err
		}
		e.StartedAt, e.LastActive = fromMS(started), fromMS(active)
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	return out, nil
}

// List returns the entries q selects, the most recently active first.
func (s *Store) List(ctx context.Context, q Query) ([]Entry, error) {
	where := []string{"last_active >= ?"}
	args := []any{ms(q.Since)}
	if q.Agent != "" {
		where = append(where, "agent = ?")
		args = append(args, q.Agent)
	}
	if q.Search != "" {
		where = append(where, `(person_title LIKE ? ESCAPE '\' OR agent_title LIKE ? ESCAPE '\'
			OR prompt_title LIKE ? ESCAPE '\' OR cwd LIKE ? ESCAPE '\' OR session_id LIKE ? ESCAPE '\')`)
		p := "%" + escapeLike(q.Search) + "%"
		args = append(args, p, p, p, p, p)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = -1
	}
	args = append(args, limit)
	return s.entries(ctx, `SELECT `+entryColumns+` FROM sessions WHERE `+strings.Join(where, " AND ")+
		` ORDER BY last_active DESC, agent, session_id LIMIT ?`, args...)
}

// Find returns the entries whose session id is id or starts with it (of
// agent, when not ""), the most recently active first.
func (s *Store) Find(ctx context.Context, agent, id string) ([]Entry, error) {
	return s.entries(ctx, `SELECT `+entryColumns+` FROM sessions
		WHERE (session_id = ? OR session_id LIKE ? ESCAPE '\') AND (? = '' OR agent = ?)
		ORDER BY last_active DESC LIMIT 50`, id, escapeLike(id)+"%", agent, agent)
}

// Key names a session: agent and id.
type Key struct{ Agent, SessionID string }

// SetTitle keeps the title a person gave a session ("" takes it away),
// in the history too when the session is there.
func (s *Store) SetTitle(ctx context.Context, k Key, title string) error {
	err := sqlitedb.InTx(ctx, s.db, func(tx *sql.Tx) error {
		var err error
		if title == "" {
			_, err = tx.ExecContext(ctx, `DELETE FROM person_titles WHERE agent = ? AND session_id = ?`, k.Agent, k.SessionID)
		} else {
			_, err = tx.ExecContext(ctx, `INSERT INTO person_titles(agent, session_id, title, set_at) VALUES (?, ?, ?, ?)
				ON CONFLICT(agent, session_id) DO UPDATE SET title = excluded.title, set_at = excluded.set_at`,
				k.Agent, k.SessionID, title, ms(s.o.Now()))
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET person_title = ? WHERE agent = ? AND session_id = ?`,
			title, k.Agent, k.SessionID)
		return err
	})
	if err != nil {
		return fmt.Errorf("keep title: %w", err)
	}
	return s.Prune(ctx)
}

// PersonTitles returns every title people gave sessions.
func (s *Store) PersonTitles(ctx context.Context) (map[Key]string, error) {
	out := map[Key]string{}
	err := s.query(ctx, `SELECT agent, session_id, title FROM person_titles`, nil, func(scan func(...any) error) error {
		var k Key
		var t string
		if err := scan(&k.Agent, &k.SessionID, &t); err != nil {
			return err
		}
		out[k] = t
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read titles: %w", err)
	}
	return out, nil
}

// Folders returns the folders the history knows (those of the sessions it
// keeps), a remote's on its host as the recap names them (recap.OnHost).
func (s *Store) Folders(ctx context.Context) ([]string, error) {
	var out []string
	err := s.query(ctx, `SELECT DISTINCT host, cwd FROM sessions WHERE cwd != ''`, nil, func(scan func(...any) error) error {
		var host, f string
		if err := scan(&host, &f); err != nil {
			return err
		}
		out = append(out, recap.OnHost(host, f))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	return out, nil
}

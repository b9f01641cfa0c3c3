package history

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/clawdhq/clawd/internal/sqlitedb"
	"github.com/clawdhq/clawd/runtime/recap"
)

// AddRecap adds what a tally counted to the stored days.
func (s *Store) AddRecap(ctx context.Context, b recap.Batch) error {
	if len(b.Rows) == 0 && len(b.Sessions) == 0 {
		return nil
	}
	err := sqlitedb.InTx(ctx, s.db, func(tx *sql.Tx) error {
		for sc, c := range b.Rows {
			_, err := tx.ExecContext(ctx, `INSERT INTO recap(day, agent, folder, turns, tool_calls, permissions,
					questions, failed_turns, waiting_ms, busy_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT(day, agent, folder) DO UPDATE SET
					turns = turns + excluded.turns, tool_calls = tool_calls + excluded.tool_calls,
					permissions = permissions + excluded.permissions, questions = questions + excluded.questions,
					failed_turns = failed_turns + excluded.failed_turns,
					waiting_ms = waiting_ms + excluded.waiting_ms, busy_ms = busy_ms + excluded.busy_ms`,
				sc.Day, sc.Agent, sc.Folder, c.Turns, c.ToolCalls, c.Permissions, c.Questions, c.FailedTurns,
				c.Waiting.Milliseconds(), c.Busy.Milliseconds())
			if err != nil {
				return err
			}
			for tool, n := range c.Tools {
				_, err := tx.ExecContext(ctx, `INSERT INTO recap_tools(day, agent, folder, tool, calls) VALUES (?, ?, ?, ?, ?)
					ON CONFLICT(day, agent, folder, tool) DO UPDATE SET calls = calls + excluded.calls`,
					sc.Day, sc.Agent, sc.Folder, tool, n)
				if err != nil {
					return err
				}
			}
		}
		for _, seen := range b.Sessions {
			_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO recap_sessions(day, agent, folder, session)
				VALUES (?, ?, ?, ?)`, seen.Day, seen.Agent, seen.Folder, seen.Session)
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record recap: %w", err)
	}
	return nil
}

// Cover notes that the runtime saw [from, to): it extends coverage row id
// (0: starts a new one) and returns the row's id.
func (s *Store) Cover(ctx context.Context, id int64, from, to time.Time) (int64, error) {
	if id != 0 {
		res, err := s.db.ExecContext(ctx, `UPDATE coverage SET to_ms = ? WHERE id = ?`, ms(to), id)
		if err != nil {
			return 0, fmt.Errorf("record coverage: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return id, nil
		}
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO coverage(from_ms, to_ms) VALUES (?, ?)`, ms(from), ms(to))
	if err != nil {
		return 0, fmt.Errorf("record coverage: %w", err)
	}
	return res.LastInsertId()
}

// Recap returns the stored rows, the sessions seen and the coverage of
// the days from from to to (in the store's zone).
func (s *Store) Recap(ctx context.Context, from, to recap.Day) ([]recap.Row, []recap.Seen, []recap.Interval, error) {
	fail := func(err error) ([]recap.Row, []recap.Seen, []recap.Interval, error) {
		return nil, nil, nil, fmt.Errorf("read recap: %w", err)
	}
	byScope := map[recap.Scope]*recap.Counts{}
	var rows []recap.Row
	err := s.query(ctx, `SELECT day, agent, folder, turns, tool_calls, permissions, questions, failed_turns,
			waiting_ms, busy_ms FROM recap WHERE day >= ? AND day <= ? ORDER BY day, agent, folder`,
		[]any{from, to}, func(sc func(...any) error) error {
			var r recap.Row
			var waiting, busy int64
			if err := sc(&r.Day, &r.Agent, &r.Folder, &r.Turns, &r.ToolCalls, &r.Permissions, &r.Questions,
				&r.FailedTurns, &waiting, &busy); err != nil {
				return err
			}
			r.Waiting, r.Busy = time.Duration(waiting)*time.Millisecond, time.Duration(busy)*time.Millisecond
			rows = append(rows, r)
			return nil
		})
	if err != nil {
		return fail(err)
	}
	for i := range rows {
		byScope[rows[i].Scope] = &rows[i].Counts
	}
	err = s.query(ctx, `SELECT day, agent, folder, tool, calls FROM recap_tools WHERE day >= ? AND day <= ?`,
		[]any{from, to}, func(sc func(...any) error) error {
			var k recap.Scope
			var tool string
			var n int
			if err := sc(&k.Day, &k.Agent, &k.Folder, &tool, &n); err != nil {
				return err
			}
			if c := byScope[k]; c != nil {
				if c.Tools == nil {
					c.Tools = map[string]int{}
				}
				c.Tools[tool] += n
			}
			return nil
		})
	if err != nil {
		return fail(err)
	}
	var seen []recap.Seen
	err = s.query(ctx, `SELECT day, agent, folder, session FROM recap_sessions WHERE day >= ? AND day <= ?`,
		[]any{from, to}, func(sc func(...any) error) error {
			var v recap.Seen
			if err := sc(&v.Day, &v.Agent, &v.Folder, &v.Session); err != nil {
				return err
			}
			seen = append(seen, v)
			return nil
		})
	if err != nil {
		return fail(err)
	}
	var cov []recap.Interval
	start, end := from.Start(s.o.Loc), to.Next().Start(s.o.Loc)
	err = s.query(ctx, `SELECT from_ms, to_ms FROM coverage WHERE to_ms > ? AND from_ms < ? ORDER BY from_ms`,
		[]any{ms(start), ms(end)}, func(sc func(...any) error) error {
			var a, b int64
			if err := sc(&a, &b); err != nil {
				return err
			}
			cov = append(cov, recap.Interval{From: fromMS(a), To: fromMS(b)})
			return nil
		})
	if err != nil {
		return fail(err)
	}
	return rows, seen, cov, nil
}

// query runs q and calls each for every row with its Scan.
func (s *Store) query(ctx context.Context, q string, args []any, each func(scan func(...any) error) error) error {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Loc returns the zone the store counts days in.
func (s *Store) Loc() *time.Location { return s.o.Loc }

package runtime

import (
	"slices"
	"strings"
	"sync"

	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

// problems are what is wrong with the runtime itself, by id: no TCP port,
// the automations or the history off or failing. The snapshot carries
// them, so `clawd status`, doctor and the dashboard say what a person is
// missing and why.
type problems struct {
	mu sync.Mutex
	m  map[string]client.Problem
}

// setProblem reports p (replacing the one of its id) and tells the UIs.
func (s *Server) setProblem(p client.Problem) {
	s.problems.mu.Lock()
	if s.problems.m == nil {
		s.problems.m = map[string]client.Problem{}
	}
	old, had := s.problems.m[p.ID]
	s.problems.m[p.ID] = p
	s.problems.mu.Unlock()
	if !had || old != p {
		s.sessions.Announce(client.Change{Display: true})
	}
}

// clearProblem withdraws the problem of id, if any.
func (s *Server) clearProblem(id string) {
	s.problems.mu.Lock()
	_, had := s.problems.m[id]
	delete(s.problems.m, id)
	s.problems.mu.Unlock()
	if had {
		s.sessions.Announce(client.Change{Display: true})
	}
}

// problemList is the problems in id order, nil without any: those
// reported, and the automations' as their engine says them now.
func (s *Server) problemList() []client.Problem {
	out := s.automationProblems()
	s.problems.mu.Lock()
	for _, p := range s.problems.m {
		out = append(out, p)
	}
	s.problems.mu.Unlock()
	if len(out) == 0 {
		return nil
	}
	slices.SortFunc(out, func(a, b client.Problem) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// automationProblems are what keeps the person's automations from
// running as written: the engine that did not open, a store found
// unreadable and moved aside, events waiting for a store that cannot be
// written, an automations.toml that is not used (its last good version
// kept in force meanwhile, or nothing).
func (s *Server) automationProblems() []client.Problem {
	p := s.cfg.Printer
	var out []client.Problem
	if why := s.autoOff.Load(); why != nil {
		out = append(out, client.Problem{ID: "automations", Text: p.T("problem.automations_off", text.Line(*why, 300)),
			Remedy: p.T("problem.automations_off_fix")})
	}
	e := s.auto.Load()
	if e == nil {
		return out
	}
	if r := e.Recovered(); r != "" {
		out = append(out, client.Problem{ID: "automations.store", Text: text.Line(r, 400)})
	}
	if b := e.Backlog(); b.WriteError != "" {
		out = append(out, client.Problem{ID: "automations.queue",
			Text: p.N("problem.automations_waiting", b.Queued, text.Line(b.WriteError, 200)), Remedy: p.T("problem.history_fix")})
	}
	if err := e.LoadError(); err != nil {
		first, _, _ := strings.Cut(err.Error(), "\n")
		key := "problem.automations_file"
		if e.Kept() {
			key = "problem.automations_file_kept"
		}
		out = append(out, client.Problem{ID: "automations.file", Text: p.T(key, text.Line(first, 300)),
			Remedy: p.T("problem.automations_file_fix")})
	}
	return out
}

// journalFailing reports whether the journal's last write of the history
// failed.
func (s *Server) journalFailing() bool {
	s.problems.mu.Lock()
	defer s.problems.mu.Unlock()
	_, failing := s.problems.m[ProblemHistory]
	return failing
}

// historyFailing reports that the history cannot be written now, with
// the sessions waiting for it.
func (s *Server) historyFailing(err error, waiting int) {
	if !s.journalFailing() {
		s.log.Warn("history cannot be written now: keeping what comes until it can", "err", err, "sessions_waiting", waiting)
	}
	p := s.cfg.Printer
	s.setProblem(client.Problem{
		ID:     ProblemHistory,
		Text:   p.N("problem.history", waiting, err.Error()),
		Remedy: p.T("problem.history_fix"),
	})
}

// historyWritten withdraws the history's problem: it is written again.
func (s *Server) historyWritten() { s.clearProblem(ProblemHistory) }

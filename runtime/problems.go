package runtime

import (
	"slices"
	"strings"
	"sync"

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
		s.feeds.publish(client.Change{Display: true})
	}
}

// clearProblem withdraws the problem of id, if any.
func (s *Server) clearProblem(id string) {
	s.problems.mu.Lock()
	_, had := s.problems.m[id]
	delete(s.problems.m, id)
	s.problems.mu.Unlock()
	if had {
		s.feeds.publish(client.Change{Display: true})
	}
}

// problemList is the problems in id order, nil without any.
func (s *Server) problemList() []client.Problem {
	s.problems.mu.Lock()
	defer s.problems.mu.Unlock()
	if len(s.problems.m) == 0 {
		return nil
	}
	out := make([]client.Problem, 0, len(s.problems.m))
	for _, p := range s.problems.m {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b client.Problem) int { return strings.Compare(a.ID, b.ID) })
	return out
}

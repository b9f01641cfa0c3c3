package runtime

import (
	"github.com/clawdhq/clawd/runtime/sessions"
)

// The history's journal is the session store's (runtime/sessions): it
// writes the sessions that end or go stale, the recap and the titles
// people give; the runtime says when it cannot (ProblemHistory).

// DefaultRecapEvery is Config.RecapEvery's default.
const DefaultRecapEvery = sessions.DefaultRecapEvery

// errNoHistory answers what needs the history when the runtime runs
// without one.
var errNoHistory = sessions.ErrNoHistory

// ProblemHistory is the id of the Problem the journal reports while it
// cannot write the history.
const ProblemHistory = "history"

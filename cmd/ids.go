package cmd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

// Every command that takes the id of a request (answer, permissions
// allow|deny|always|terminal, plan) finds it through resolveRequest, one
// that takes an automation's run (automations retry|cancel) through
// resolveRun, and one that takes a session (resume, rename) through the
// runtime's resolve (resolveSession; rename's endpoint resolves with the
// same function), so that each takes the start of an id alike: the id it names when only one
// starts so, an error naming the candidates when several do, and "no
// such …" when none does.

// maxCandidates is how many candidates an ambiguous prefix's error names.
const maxCandidates = 5

// matchPrefix returns the ids of ids that typed names: typed alone when
// it is one of them, else every id it starts, sorted.
func matchPrefix(typed string, ids []string) []string {
	if typed == "" {
		return nil
	}
	var found []string
	for _, id := range ids {
		if id == typed {
			return []string{id}
		}
		if strings.HasPrefix(id, typed) {
			found = append(found, id)
		}
	}
	slices.Sort(found)
	return found
}

// ambiguousError is the exit-1 error of a prefix that more than one id
// starts: what, the kind of id, and the first maxCandidates of them.
func ambiguousError(what, typed string, found []string) error {
	names := make([]string, 0, maxCandidates+1)
	for i, id := range found {
		if i == maxCandidates {
			names = append(names, fmt.Sprintf("and %d more", len(found)-i))
			break
		}
		names = append(names, text.Line(id, 0))
	}
	return exitCode(1, fmt.Errorf("more than one %s matches %q: %s; give more of the id", what, text.Line(typed, 0), strings.Join(names, ", ")))
}

// resolveRequest returns the id of the pending request that typed names
// (the whole id or a unique start of it). A typed id that no pending
// request starts is returned as it is: the runtime then says what it
// knows of it (no such request, or answered already).
func resolveRequest(ctx context.Context, c *client.Client, typed string) (string, error) {
	list, err := c.Permissions(ctx)
	if err != nil {
		return "", permissionError(err, typed)
	}
	ids := make([]string, len(list))
	for i, p := range list {
		ids[i] = p.ID
	}
	found := matchPrefix(typed, ids)
	switch {
	case len(found) == 0:
		return typed, nil
	case found[0] == typed:
		return typed, nil
	case exactRequest(ctx, c, typed):
		// A whole id the runtime knows (answered already) that starts
		// another's: it means itself, never the other.
		return typed, nil
	case len(found) == 1:
		return found[0], nil
	}
	return "", ambiguousError("pending request", typed, found)
}

// resolveRun returns the id of the automation run that typed names (the
// whole id or a unique start of it). A typed id that no run starts is
// returned as it is: the runtime then says it knows no such run.
func resolveRun(ctx context.Context, c *client.Client, typed string) (string, error) {
	runs, err := c.AutomationRuns(ctx, client.RunQuery{Prefix: typed, Limit: client.MaxRunsListed})
	if err != nil {
		return "", apiError(err)
	}
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.ID
	}
	switch found := matchPrefix(typed, ids); {
	case len(found) == 0:
		return typed, nil
	case len(found) == 1:
		return found[0], nil
	default:
		return "", ambiguousError("run", typed, found)
	}
}

// exactRequest reports whether the runtime knows a request of id typed,
// pending or not: anything but "no such request".
func exactRequest(ctx context.Context, c *client.Client, typed string) bool {
	_, err := c.Permission(ctx, typed)
	var apiErr *client.APIError
	return !errors.As(err, &apiErr) || apiErr.Status != http.StatusNotFound
}

// resolveSession returns the session, live or in the history, that typed
// names: its id or a unique start of it, with or without "agent:" before
// it. The runtime resolves it (it holds the history), with the same
// words for an ambiguous start (naming the candidates) and an unknown one.
func resolveSession(ctx context.Context, c *client.Client, typed string) (client.HistoryEntry, error) {
	s, err := c.Resolve(ctx, typed)
	if err != nil {
		return s, apiError(err)
	}
	return s, nil
}

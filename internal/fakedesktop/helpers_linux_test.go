package fakedesktop

import (
	"context"
	"testing"
	"time"
)

// testTimeout bounds each end-to-end test; the round trips take well under
// a second here.
const testTimeout = 30 * time.Second

// pollEvery is how often tests poll state that changes without a signal.
const pollEvery = 10 * time.Millisecond

// testContext is the test's context, ended after testTimeout.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/clawdhq/clawd/runtime/client"
)

// errNotRunning is what the CLI says when no runtime answers.
var errNotRunning = errors.New("clawd is not running (start it with `clawd serve`)")

// connect finds the runtime on the clawd home's socket or returns an
// exit-1 error.
func connect(ctx context.Context, e *env) (*client.Client, error) {
	// Generous bounds: unlike the hook, a person or a script waits here,
	// and a busy machine can take a second to answer. Nothing listening
	// is refused at once anyway.
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := client.Discover(dctx, e.home(), client.Options{DialTimeout: time.Second, ProbeTimeout: 2 * time.Second})
	if errors.Is(err, client.ErrNotOurs) {
		return nil, exitCode(1, fmt.Errorf("%w: not talking to it", err))
	}
	if err != nil {
		return nil, exitCode(1, errNotRunning)
	}
	return c, nil
}

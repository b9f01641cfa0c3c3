package cmd

import (
	"context"
	"errors"
	"time"

	"github.com/clawdhq/clawd/runtime/client"
)

// errNotRunning is what the CLI says when no runtime answers.
var errNotRunning = errors.New("clawd is not running (start it with `clawd serve`)")

// connect finds the running runtime or returns an exit-1 error.
func connect(ctx context.Context, e *env) (*client.Client, error) {
	// Generous bounds: unlike the hook, a person or a script waits here,
	// and a busy machine can take a second to answer. Nothing listening
	// is refused at once anyway.
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := client.Discover(dctx, e.home(), client.Options{DialTimeout: time.Second, ProbeTimeout: 2 * time.Second})
	if err != nil {
		return nil, exitCode(1, errNotRunning)
	}
	return c, nil
}

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
	dctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c, err := client.Discover(dctx, e.home(), client.Options{})
	if err != nil {
		return nil, exitCode(1, errNotRunning)
	}
	return c, nil
}

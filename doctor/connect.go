package doctor

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// connectTimeout bounds the connection test's hook run: a hook that is
// not blocked on a person ends in well under a second.
const connectTimeout = 5 * time.Second

// connectionCheck is the connection test: the first of agent a's
// installed hook commands, run as the agent runs it (the same command
// string, through a shell, with a minimal PATH and the rest of this
// environment), marked as a test (client.ProbeEnv), and whether it
// reached the runtime: "not runnable", "ran but nothing arrived" or
// "arrived in N ms".
func connectionCheck(ctx context.Context, o Options, a *agents.Agent, st *agentState, rt *runtimeState) Check {
	c := Check{ID: a.ID + ".connection", Agent: a.ID}
	if len(st.hooks) == 0 {
		c.Status, c.Finding = Skipped, "no hook command of clawd's to run"
		return c
	}
	h := st.hooks[0]
	command := h.Command
	event := h.Event
	if event == "" {
		// One command for every event (opencode's plugin) gets the
		// event appended.
		event = a.Hooks[0].Event
		command += " " + event
	}
	id := probeID()
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	cmd := shell(ctx, command)
	cmd.Env = append(hookEnv(o), client.ProbeEnv+"="+id)
	cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"hook_event_name":%q,"session_id":"clawd-doctor-%s"}`, event, id))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := o.Now()
	err := cmd.Run()
	fixCmd := "clawd doctor --fix --agent " + a.ID
	if err != nil {
		why := err.Error()
		if line := firstLine(stderr.String()); line != "" {
			why += ": " + line
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			why = fmt.Sprintf("it did not end within %v", connectTimeout)
		}
		c.Status, c.Finding, c.Fix = Fail, fmt.Sprintf("hook not runnable: `%s` failed (%s)", command, why), fixCmd
		return c
	}
	ran := o.Now()
	switch {
	case !rt.reached() && rt.remote != nil:
		c.Status, c.Finding, c.Fix = Warn, fmt.Sprintf("the hook ran, but nothing arrived: the desktop of profile %s does not answer", rt.remote.Profile),
			"on the desktop: clawd serve running, then clawd remote test "+rt.remote.Profile
		return c
	case !rt.reached():
		c.Status, c.Finding, c.Fix = Warn, fmt.Sprintf("the hook ran, but nothing arrived: clawd serve is not running for %s", o.Home), "clawd serve"
		return c
	}
	p, err := rt.probe(ctx, id)
	var apiErr *client.APIError
	switch {
	case errors.As(err, &apiErr) && apiErr.Status == 404:
		c.Status, c.Fix = Fail, fixCmd
		where := "the runtime of " + o.Home
		if rt.remote != nil {
			where = "the desktop (profile " + rt.remote.Profile + ")"
		}
		c.Finding = fmt.Sprintf("the hook ran, but nothing arrived at %s: it talks to another clawd home (CLAWD_HOME), or it runs an older clawd", where)
	case err != nil:
		c.Status, c.Fix = Fail, "restart clawd serve"
		c.Finding = fmt.Sprintf("the hook ran; asking the runtime whether it arrived failed: %v", err)
	case rt.remote != nil:
		// The desktop's clock is not this machine's: the hook's run bounds
		// the arrival.
		c.Status, c.Finding = OK, fmt.Sprintf("the hook's test event arrived at the desktop (profile %s) within %d ms", p.Host, ran.Sub(start).Milliseconds())
	default:
		ms := max(p.ReceivedAt.Sub(start), 0).Milliseconds()
		c.Status, c.Finding = OK, fmt.Sprintf("the hook's test event arrived in %d ms", ms)
	}
	return c
}

// probeID is a fresh random id for one connection test.
func probeID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// hookEnv is the environment the connection test runs the hook with:
// Options.Environ (else HOME and CLAWD_HOME) with a minimal PATH, as an
// agent started from a desktop launcher has.
func hookEnv(o Options) []string {
	env := o.Environ
	if env == nil {
		for _, k := range []string{"HOME", "CLAWD_HOME", "USERPROFILE"} {
			if v := o.Getenv(k); v != "" {
				env = append(env, k+"="+v)
			}
		}
	}
	var out []string
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); strings.EqualFold(k, "PATH") || k == client.ProbeEnv {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PATH="+minimalPath)
}

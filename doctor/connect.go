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
	"github.com/clawdhq/clawd/internal/health"
	"github.com/clawdhq/clawd/internal/i18n"
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
	c := func(s Status, finding, fix i18n.Msg) Check {
		return health.New(a.ID+".connection", a.ID, s, finding, fix)
	}
	var none i18n.Msg
	if len(st.hooks) == 0 {
		return c(Skipped, i18n.M("doctor.finding.no_hook_run"), none)
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
	fixCmd := i18n.Literal(fixCommand(a))
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return c(Fail, i18n.M("doctor.finding.hook_timeout", command, connectTimeout), fixCmd)
		}
		why := err.Error()
		if line := firstLine(stderr.String()); line != "" {
			why += ": " + line
		}
		return c(Fail, i18n.M("doctor.finding.hook_failed", command, why), fixCmd)
	}
	ran := o.Now()
	switch {
	case !rt.reached() && rt.remote != nil:
		return c(Warn, i18n.M("doctor.finding.hook_no_desktop", rt.remote.Profile), i18n.M("doctor.fixes.on_desktop", rt.remote.Profile))
	case !rt.reached():
		return c(Warn, i18n.M("doctor.finding.hook_no_runtime", o.Home), i18n.M("doctor.fixes.start"))
	}
	p, err := rt.probe(ctx, id)
	var apiErr *client.APIError
	switch {
	case errors.As(err, &apiErr) && apiErr.Status == 404 && rt.remote != nil:
		return c(Fail, i18n.M("doctor.finding.hook_lost_desktop", rt.remote.Profile), fixCmd)
	case errors.As(err, &apiErr) && apiErr.Status == 404:
		return c(Fail, i18n.M("doctor.finding.hook_lost", o.Home), fixCmd)
	case err != nil:
		return c(Fail, i18n.M("doctor.finding.probe_failed", err), i18n.M("doctor.fixes.restart"))
	case rt.remote != nil:
		// The desktop's clock is not this machine's: the hook's run bounds
		// the arrival.
		return c(OK, i18n.M("doctor.finding.arrived_desktop", p.Host, ran.Sub(start).Milliseconds()), none)
	}
	ms := max(p.ReceivedAt.Sub(start), 0).Milliseconds()
	return c(OK, i18n.M("doctor.finding.arrived", ms), none)
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

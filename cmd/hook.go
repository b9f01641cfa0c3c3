package cmd

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/rotlog"
	"github.com/clawdhq/clawd/runtime/client"
)

// Limits of the hook process. The agent waits for the hook on every event,
// so a non-blocking event must finish fast whatever the runtime does.
const (
	// maxHookInput caps what the hook reads from stdin. Agents' payloads
	// are kilobytes; a Write of a huge file, a large patch or a large tool
	// response can reach megabytes. Past the cap the hook decodes only the
	// fields before the cut (session, event, tool name come first), marks
	// the event truncated, and drains the rest of stdin unread so the
	// agent's write never fails.
	maxHookInput = 4 << 20
	// hookPostTimeout bounds delivery of a non-blocking event: the socket
	// answers in well under a millisecond, a wedged runtime costs at most
	// this.
	hookPostTimeout = 400 * time.Millisecond
	// hookLogMax is the size at which hook.log is rotated.
	hookLogMax = 1 << 20
)

type hookOptions struct {
	agent string
	event string
}

func newHookCmd(e *env) *cli.Command {
	o := &hookOptions{}
	return &cli.Command{
		Name:  "hook",
		Usage: e.t("help.hook.usage"),
		// The agents run it, not people: out of the root's help and of
		// completion, still there for `clawd hook --help`.
		Hidden:      true,
		ArgsUsage:   "AGENT [EVENT]",
		Description: e.t("help.hook.description"),
		Arguments: []cli.Argument{
			&cli.StringArg{Name: "agent", Destination: &o.agent},
			&cli.StringArg{Name: "event", Destination: &o.event},
		},
		// Agents never pass flags (the fast path takes what they run), but
		// whatever is given here, exit 2 would block the agent.
		OnUsageError: func(ctx context.Context, c *cli.Command, err error, isSubcommand bool) error {
			return exitCode(1, err)
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			runHook(ctx, e, o)
			return nil // never a non-zero exit: exit 2 would block the agent
		},
	}
}

// hookFastArgs recognises `hook AGENT [EVENT]` without flags, which Main
// runs without building the command tree: the hook is on the agent's
// critical path for every event.
func hookFastArgs(args []string) (*hookOptions, bool) {
	if len(args) < 2 || len(args) > 3 || args[0] != "hook" {
		return nil, false
	}
	for _, a := range args[1:] {
		if a == "" || a[0] == '-' {
			return nil, false
		}
	}
	o := &hookOptions{agent: args[1]}
	if len(args) == 3 {
		o.event = args[2]
	}
	return o, true
}

// runHook does the work of `clawd hook`. It never fails: every problem
// ends in the agent's no-decision output and a log line.
func runHook(ctx context.Context, e *env, o *hookOptions) {
	home := e.home()
	// The logger is made on first use: a hook that succeeds never opens
	// the log file.
	var logger *slog.Logger
	log := func() *slog.Logger {
		if logger == nil {
			w := &rotlog.Writer{Path: filepath.Join(home, "logs", "hook.log"), MaxBytes: hookLogMax}
			logger = w.Logger(slog.LevelInfo).With("agent", o.agent, "pid", os.Getpid())
		}
		return logger
	}

	a := agents.Lookup(o.agent)
	if a == nil {
		log().Warn("unknown agent; nothing forwarded")
		return
	}
	if a.Decode == nil {
		log().Warn("clawd does not support this agent; nothing forwarded", "why", a.Unsupported)
		return
	}
	if f := a.ForeignCaller(e.getenv); f != nil {
		// Another agent runs this agent's hook (it reads its settings):
		// its answer at once, and no phantom session.
		e.stdout.Write(f.NoDecision(o.event))
		return
	}
	noDecision := func(event string) { writeNoDecision(ctx, e.stdout, a, event) }

	payload, truncated, err := readHookInput(ctx, e.stdin, e.stdinWait())
	if err != nil {
		if ctx.Err() == nil {
			log().Warn("read stdin", "err", err)
		}
		noDecision(o.event)
		return
	}
	if id := e.getenv(client.ProbeEnv); id != "" {
		// clawd doctor's connection test: it reaches the runtime as a
		// probe, never as the agent's event.
		if err := postProbe(ctx, home, client.Probe{ID: id, Agent: a.ID, HookEvent: o.event}); err != nil {
			log().Warn("runtime not reachable; connection test dropped", "probe", id, "err", err)
		}
		noDecision(o.event)
		return
	}
	if err := tapHook(o, payload); err != nil {
		log().Warn("tap", "err", err)
	}
	decode := a.Decode
	if truncated && a.DecodeTruncated != nil {
		decode = a.DecodeTruncated
	}
	ev, err := decode(payload, o.event, e.getenv, e.now())
	if err != nil {
		log().Warn("decode payload", "event", o.event, "bytes", len(payload), "truncated", truncated, "err", err)
		noDecision(o.event)
		return
	}
	markWSL(&ev, e.getenv)
	if truncated {
		log().Info("payload over the stdin cap; forwarded the fields before the cut",
			"event", ev.HookEvent, "session", ev.SessionID, "cap", maxHookInput)
	}
	spec, _ := a.Hook(ev.HookEvent)
	// A blocking event asks only when its decoder says it does: Factory
	// Droid's PreToolUse is a request for the calls Droid would ask about,
	// a plain tool start for the rest.
	asks := spec.Blocking && (ev.Kind == agents.KindPermissionRequest || ev.Kind == agents.KindQuestion)
	if asks {
		// The agent SIGTERMs a blocking hook when the person answered in
		// the terminal first: end at once, quietly, with exit 0. A
		// non-blocking event keeps the default action, which is just as
		// quiet and costs nothing to set up.
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
		defer stop()
	}
	if asks {
		askPermission(ctx, e, a, ev, payload, truncated, log)
		return
	}
	switch err := postEvent(ctx, home, ev, false); {
	case errors.Is(err, agents.ErrEventTooLarge):
		// Only paths and ids full of escaped bytes get here: the answer
		// is cut to fit.
		log().Warn("event too large for the runtime; dropped", "event", ev.HookEvent, "session", ev.SessionID, "err", err)
	case errors.Is(err, errNoRuntime):
		spoolEvent(home, ev, log)
	case err != nil:
		log().Warn("runtime not reachable; event dropped", "event", ev.HookEvent, "session", ev.SessionID, "err", err)
	}
	noDecision(ev.HookEvent)
}

// writeNoDecision prints the agent's no-decision answer to event, unless
// ctx ended: the agent killed the hook and no longer reads the answer.
func writeNoDecision(ctx context.Context, w io.Writer, a *agents.Agent, event string) {
	if ctx.Err() != nil {
		return
	}
	if out := a.NoDecision(event); len(out) > 0 {
		w.Write(out)
	}
}

// askPermission handles a blocking event: it registers the request with
// the runtime, waits for the person's decision and prints it in the
// agent's format. Every failure prints the no-decision answer and logs
// why; the agent's SIGTERM (ctx ends: the person answered in the terminal)
// ends it at once with no output and no log line.
func askPermission(ctx context.Context, e *env, a *agents.Agent, ev agents.Event, payload []byte, cut bool, log func() *slog.Logger) {
	noDecision := func() { writeNoDecision(ctx, e.stdout, a, ev.HookEvent) }
	wait := e.permissionWaitFor(a, ev.HookEvent)
	// No HTML escaping: it would grow a tool input full of <, > and & up
	// to six times, past what the runtime accepts.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(permissionRequest(a, ev, payload, cut, wait))
	body := buf.Bytes()
	if err != nil {
		log().Warn("encode permission request", "event", ev.HookEvent, "session", ev.SessionID, "err", err)
		noDecision()
		return
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	ans, err := sendPermission(wctx, e.home(), body)
	if ctx.Err() != nil {
		return // SIGTERM
	}
	logFail := func(msg string, err error) {
		log().Warn(msg, "event", ev.HookEvent, "session", ev.SessionID, "tool", ev.ToolName, "err", err)
	}
	var apiErr *client.APIError
	switch {
	case err == nil:
	case wctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
		logFail("no answer from the runtime within the wait; no decision", fmt.Errorf("waited %v", wait))
		noDecision()
		return
	case errors.As(err, &apiErr) && (apiErr.Status == 404 || apiErr.Status == 405):
		// A `clawd serve` older than this hook has no permission API. It
		// still shows the session waiting if it gets the event the old
		// way; the person answers in the terminal, as without clawd.
		if err := postEvent(ctx, e.home(), ev, true); err != nil && ctx.Err() == nil {
			logFail("runtime has no permission API and did not take the event; no decision", err)
		}
		noDecision()
		return
	case errors.Is(err, client.ErrNoAck), errors.Is(err, client.ErrHeartbeatLost):
		// A stopped or wedged runtime: the agent's own prompt takes over
		// now rather than after the whole wait.
		logFail("the runtime stopped answering; no decision", err)
		noDecision()
		return
	case errors.Is(err, client.ErrBadAnswer):
		logFail("bad answer from the runtime; no decision", err)
		noDecision()
		return
	case errors.As(err, &apiErr):
		logFail("runtime refused the permission request; no decision", err)
		noDecision()
		return
	default:
		logFail("runtime not reachable; no decision", err)
		noDecision()
		return
	}
	// A verdict the hook does not know never gets here: it is a bad
	// answer (agents.Decision's UnmarshalJSON).
	if ans.Decision == nil || a.Render == nil {
		noDecision()
		return
	}
	e.stdout.Write(a.Render(ev.HookEvent, ans.Decision))
}

// permissionRequest builds what the hook registers with the runtime: the
// event and what the agent says it asks (Agent.Describe: the tool input or
// a preview of it, the offered "always" rules, a summary). cut says the
// payload was cut at the stdin cap, so its tool input is incomplete.
func permissionRequest(a *agents.Agent, ev agents.Event, payload []byte, cut bool, wait time.Duration) client.RequestBody {
	rb := client.RequestBody{Event: ev, WaitSeconds: int(wait / time.Second)}
	if a.Describe != nil {
		rb.Request = a.Describe(ev, payload, cut)
	}
	return rb
}

// sendPermission delivers a permission request to the runtime's socket in
// the clawd home and waits for the answer. Where nothing listens there,
// and only then, a remote machine's runtime.json leads to its desktop
// (see remoteFallback); nothing else is ever tried: no runtime means no
// decision at once.
func sendPermission(ctx context.Context, home string, body []byte) (client.Answer, error) {
	ans, err := client.AskPermission(ctx, client.SocketPath(home), body)
	if r, ok, ferr := remoteFallback(home, err); ok {
		return r.AskPermission(ctx, body)
	} else if ferr != nil {
		return ans, ferr
	}
	return ans, err
}

// remoteFallback says where a hook goes when the socket failed with err:
// to the desktop of a remote machine's runtime.json (ok), when nothing
// listens on the socket and runtime.json is in remote mode. A
// runtime.json that is not what remote mode writes, or not this user's,
// is an error that joins err.
func remoteFallback(home string, err error) (client.Remote, bool, error) {
	if !errors.Is(err, client.ErrNotRunning) {
		return client.Remote{}, false, nil
	}
	r, rerr := client.ReadRemote(home)
	switch {
	case rerr == nil:
		return r, true, nil
	case errors.Is(rerr, client.ErrNoInfo), errors.Is(rerr, client.ErrNoRemote):
		return r, false, nil
	}
	return r, false, fmt.Errorf("%w; %w", err, rerr)
}

// remoteHookTimeout bounds delivering a non-blocking event to a remote
// machine's desktop: through the tunnel it takes a hello and a request,
// two round trips over the network. A tunnel that is down refuses at once.
const remoteHookTimeout = time.Second

// markWSL marks an event of a hook running in WSL with its distro, which
// the desktop's WSL profile checks and shows the session under.
func markWSL(ev *agents.Event, getenv func(string) string) {
	if d := getenv("WSL_DISTRO_NAME"); d != "" && len(d) <= agents.MaxWordLen {
		ev.Distro = d
	}
}

// readHookInput reads the payload from stdin up to maxHookInput bytes. It
// reports truncated when there was more, which it then drains in the
// background. When stdin is still open after wait, it takes what arrived
// if that is one complete JSON value (an agent that forgot to close the
// pipe), and drains the rest in the background.
func readHookInput(ctx context.Context, stdin io.Reader, wait time.Duration) ([]byte, bool, error) {
	type result struct {
		b         []byte
		truncated bool
		err       error
	}
	// What arrived so far goes into one buffer of the cap's size: the
	// pages it does not use are never touched, and a payload of megabytes
	// is copied once (page faults are most of a big payload's cost).
	var (
		mu  sync.Mutex
		buf = make([]byte, 0, maxHookInput+1) // guarded by mu
	)
	arrived := func() []byte {
		mu.Lock()
		defer mu.Unlock()
		return buf
	}
	ch := make(chan result, 1)
	go func() {
		chunk := make([]byte, 32<<10)
		for {
			n, err := stdin.Read(chunk)
			mu.Lock()
			buf = append(buf, chunk[:min(n, cap(buf)-len(buf))]...)
			full := len(buf) > maxHookInput
			mu.Unlock()
			switch {
			case full:
				go io.Copy(io.Discard, stdin)
				ch <- result{arrived()[:maxHookInput], true, nil}
				return
			case errors.Is(err, io.EOF):
				ch <- result{arrived(), false, nil}
				return
			case err != nil:
				ch <- result{nil, false, err}
				return
			}
		}
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case r := <-ch:
		return r.b, r.truncated, r.err
	case <-t.C:
		// The reader appends past len only: what is below it stays put.
		b := arrived()
		if len(bytes.TrimSpace(b)) > 0 && gjson.ValidBytes(b) {
			return b, false, nil
		}
		return nil, false, errors.New("stdin not closed in time, and what arrived is not a complete JSON value")
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

// postEvent delivers ev to the runtime's socket in the clawd home, and
// nowhere else, within hookPostTimeout. A non-blocking event's delivery
// cannot be interrupted, only bounded, which is the cheapest way (see
// client.PostEventBlocking); a blocking event's delivery must end at the
// agent's SIGTERM.
func postEvent(ctx context.Context, home string, ev agents.Event, interruptible bool) error {
	// AppendJSON writes what encoding/json would, without the reflection
	// that costs a fresh process ~0.17 ms on its first call; Within cuts
	// the turn's answer so that the event fits the runtime's body cap,
	// which would otherwise refuse the whole event, and the session would
	// never leave its turn.
	body, _, err := ev.AppendJSONWithin(make([]byte, 0, 512), agents.MaxEventBody)
	if err != nil {
		return err
	}
	sock := client.SocketPath(home)
	deadline := time.Now().Add(hookPostTimeout)
	if !interruptible {
		err = client.PostEventBlocking(sock, body, deadline)
	} else {
		dctx, cancel := context.WithDeadline(ctx, deadline)
		err = client.PostEventInterruptible(dctx, sock, body)
		cancel()
	}
	return orRemote(ctx, home, err, func(ctx context.Context, r client.Remote) error { return r.PostEvent(ctx, body) })
}

// postProbe delivers doctor's connection test to the runtime's socket in
// the clawd home, or in remote mode to the desktop, as postEvent delivers
// an event.
func postProbe(ctx context.Context, home string, p client.Probe) error {
	body, err := json.Marshal(p)
	if err != nil {
		return err
	}
	err = client.PostProbeBlocking(client.SocketPath(home), body, time.Now().Add(hookPostTimeout))
	return orRemote(ctx, home, err, func(ctx context.Context, r client.Remote) error { return r.PostProbe(ctx, body) })
}

// orRemote is how a non-blocking delivery to the socket ends that failed
// with err (nil: delivered): where remoteFallback leads to a remote
// machine's desktop, send delivers it there within remoteHookTimeout;
// else err stays, marked errNoRuntime when nothing listens here and
// nothing else was tried (the event may wait in the spool).
func orRemote(ctx context.Context, home string, err error, send func(context.Context, client.Remote) error) error {
	r, ok, ferr := remoteFallback(home, err)
	if !ok {
		if ferr == nil && errors.Is(err, client.ErrNotRunning) {
			return fmt.Errorf("%w: %w", errNoRuntime, err)
		}
		return cmp.Or(ferr, err)
	}
	ctx, cancel := context.WithTimeout(ctx, remoteHookTimeout)
	defer cancel()
	return send(ctx, r)
}

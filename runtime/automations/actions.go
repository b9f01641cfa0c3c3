package automations

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/clawdhq/clawd/internal/lazy"
	"github.com/clawdhq/clawd/internal/text"
)

// result is what an action did: a short output summary for the run
// record, the error, and whether the error is transient (worth a retry by
// a safe or keyed policy), with the least wait the receiver asked for
// before the next attempt.
type result struct {
	output     string
	err        error
	transient  bool
	retryAfter time.Duration
}

// fallbackTitles are a notification's titles when its own is empty.
var fallbackTitles = map[EventName]string{
	TurnStarted:       "clawd: a turn started",
	TurnCompleted:     "clawd: a turn is done",
	TurnFailed:        "clawd: a turn failed",
	TurnCancelled:     "clawd: a turn was cancelled",
	ResponseCommitted: "clawd: an answer is ready",
	PermissionRequest: "clawd: needs your approval",
	QuestionRequested: "clawd: needs your input",
}

// act runs d's action for env with input, within ctx's deadline.
func (e *Engine) act(ctx context.Context, d *Definition, env *Envelope, doc any, input map[string]any, key string) result {
	a := &d.Action
	switch a.Type {
	case ActionNotification:
		if e.o.Desktop == nil {
			return result{output: "no desktop: nothing shown"}
		}
		// What a notification shows is cut to a line anyway: a text over
		// maxValue is cut there too, before it is built in full.
		title, _ := expand(a.Title, doc, maxValue)
		if title = text.Line(title, 120); title == "" {
			title = fallbackTitles[env.EventName]
		}
		body, _ := expand(a.Body, doc, maxValue)
		body = text.Line(body, 300)
		if err := e.o.Desktop.Notify(ctx, title, body); err != nil {
			return result{err: fmt.Errorf("notification: %w", err)}
		}
		return result{output: "shown: " + title}
	case ActionSound:
		if e.o.Desktop == nil {
			return result{output: "no desktop: nothing played"}
		}
		if err := e.o.Desktop.Sound(ctx); err != nil {
			return result{err: fmt.Errorf("sound: %w", err)}
		}
		return result{output: "played"}
	case ActionWebhook:
		return e.webhook(ctx, a, env, doc, input, key)
	case ActionCommand:
		return command(ctx, a, env, input)
	case ActionSlack:
		return e.slack(ctx, a, doc)
	case ActionDiscord:
		return e.discord(ctx, a, doc)
	case ActionNtfy:
		return e.ntfy(ctx, a, env, doc)
	}
	return result{err: fmt.Errorf("unknown action %q", a.Type)}
}

// body is what a webhook and a command receive.
type body struct {
	Event *Envelope      `json:"event"`
	Input map[string]any `json:"input"`
}

// request is the JSON of body{env, input}, refused over maxBody: such a
// run fails before anything is sent.
func request(env *Envelope, input map[string]any) ([]byte, error) {
	b, err := json.Marshal(body{env, input})
	if err != nil {
		return nil, err
	}
	if len(b) > maxBody {
		return nil, fmt.Errorf("the event and input make %d KiB, over the %d KiB an action is sent: map less of the event into input", len(b)>>10, maxBody>>10)
	}
	return b, nil
}

// webhook POSTs {"event", "input"}, or the JSON of its body_template, and
// says how it went as post does.
func (e *Engine) webhook(ctx context.Context, a *Action, env *Envelope, doc any, input map[string]any, key string) result {
	var b []byte
	if a.BodyTemplate != "" {
		raw, err := renderJSON(a.BodyTemplate, doc, nil)
		if err != nil {
			return result{err: fmt.Errorf("webhook: body_template: %w", err)}
		}
		b = raw
	} else {
		var err error
		if b, err = request(env, input); err != nil {
			return result{err: fmt.Errorf("webhook: %w", err)}
		}
	}
	req, err := newPost(ctx, a.URL, b, "application/json")
	if err != nil {
		return result{err: fmt.Errorf("webhook: %w", err)}
	}
	req.Header.Set("X-Clawd-Event", string(env.EventName))
	for k, v := range a.Headers {
		req.Header.Set(k, v)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	return e.post(req, ActionWebhook)
}

// transientNet reports whether a request error is the network's, which a
// later attempt may not meet: refused, reset, unreachable, DNS.
func transientNet(err error) bool {
	var ne net.Error
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH), errors.Is(err, io.ErrUnexpectedEOF):
		return true
	case errors.As(err, &ne) && ne.Timeout():
		return true
	}
	return false
}

// command runs argv without a shell, {"event", "input"} as JSON on stdin.
// Exit 0 succeeds; anything else fails for good.
func command(ctx context.Context, a *Action, env *Envelope, input map[string]any) result {
	b, err := request(env, input)
	if err != nil {
		return result{err: fmt.Errorf("command: %w", err)}
	}
	cmd := exec.CommandContext(ctx, a.Argv[0], a.Argv[1:]...)
	var out bytes.Buffer
	err = runGroup(cmd, b, &limitedBuffer{b: &out, n: 4096})
	summary := text.Line(out.String(), 160)
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return result{output: summaryOr(summary, ee.String()), err: fmt.Errorf("command %s", ee)}
		}
		return result{output: summary, err: fmt.Errorf("command: %w", err)}
	}
	return result{output: summaryOr(redact(summary), "exit 0")}
}

// waitDelay bounds how long a command's pipes are waited for once the
// command is gone: what escaped its group may hold them open.
const waitDelay = 2 * time.Second

// runGroup runs cmd in a process group of its own (a job object on
// Windows) with stdin on its standard input and its standard output and
// error into out. The end of cmd's context (the policy's timeout, clawd
// stopping) kills the whole group, and so does the command's own end: a
// child it left in the background (`sleep 100 &`) does not outlive the
// action. The pipes are clawd's own, not exec's, so that the group is
// killed as soon as the command exits, before its pipes are waited for.
func runGroup(cmd *exec.Cmd, stdin []byte, out io.Writer) error {
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, outW
	cmd.WaitDelay = waitDelay
	g := newGroup(cmd)
	defer g.release()
	err = cmd.Start()
	// The command has its own copies; with these closed, the pipes end
	// when the group is gone.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return err
	}
	g.started()
	var wg sync.WaitGroup
	wg.Go(func() {
		inW.Write(stdin) // a command that does not read its stdin gets EPIPE here
		inW.Close()
	})
	wg.Go(func() { io.Copy(out, outR) })
	err = cmd.Wait()
	g.kill()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(waitDelay):
		inW.Close()
		outR.Close()
		<-done
	}
	outR.Close()
	return err
}

func summaryOr(s, or string) string {
	if s == "" {
		return or
	}
	return s
}

// limitedBuffer keeps the first n bytes written and drops the rest.
type limitedBuffer struct {
	b *bytes.Buffer
	n int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// secretLike matches what looks like a credential: long runs of token
// characters, or a key = value where the key says it is one.
var secretLike = lazy.Regexp(`(?i)((token|secret|password|passwd|api[_-]?key|authorization|bearer)["']?\s*[:=]?\s*["']?)[^\s"',;]+|\b[A-Za-z0-9_\-]{32,}\b`)

// redact hides what looks like a secret.
func redact(s string) string {
	return secretLike().ReplaceAllStringFunc(s, func(m string) string {
		if sub := secretLike().FindStringSubmatch(m); sub != nil && sub[1] != "" {
			return sub[1] + "[redacted]"
		}
		return "[redacted]"
	})
}

// summarize is the run record's summary of a mapped input: each field's
// type and a short, redacted view of its value. The input itself is never
// stored.
func summarize(input map[string]any) string {
	if len(input) == 0 {
		return ""
	}
	keys := make([]string, 0, len(input))
	for k := range input {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		var v string
		switch x := input[k].(type) {
		case nil:
			v = "null"
		case string:
			s := redact(text.Line(x, 0))
			if utf8.RuneCountInString(s) > 40 {
				s = string([]rune(s)[:40]) + "…"
			}
			v = fmt.Sprintf("%q (%d chars)", s, utf8.RuneCountInString(x))
		case map[string]any:
			v = fmt.Sprintf("object (%d fields)", len(x))
		case []any:
			v = fmt.Sprintf("array (%d items)", len(x))
		default:
			v = fmt.Sprint(x)
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ", ")
}

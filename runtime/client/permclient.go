package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"
)

// The client side of the permission API (see permissions.go for the
// routes).

// permissionsPath is the route of the permission API.
const permissionsPath = "/api/v1/permissions"

// MaxAnswerBody caps what AskPermission reads of the runtime's answer:
// the heartbeats and the Answer's line. An Answer to a question carries
// the tool's whole input back with the person's answers in it (Claude
// Code's updatedInput), up to agents.MaxRequestInput and the answers.
const MaxAnswerBody = 1 << 20

// MaxAnswerLine caps the Answer's line: the runtime refuses a decision
// whose answer would not fit (a 400 that says so), and leaves the rest of
// MaxAnswerBody to the heartbeats of a long wait (one byte a second: 18
// hours' worth).
const MaxAnswerLine = MaxAnswerBody - 64<<10

// ErrBadAnswer means the runtime's answer to a permission request was not
// an Answer.
var ErrBadAnswer = errors.New("bad answer to the permission request")

// The runtime acknowledges a registered request at once (its response
// headers) and keeps a heartbeat on the held response (a newline every
// second, PermissionHeartbeat) until it sends the answer. A hook that gets
// no acknowledgement, or loses the heartbeat, is talking to a runtime that
// is stopped or wedged: it answers "no decision" at once, and the agent's
// own prompt takes over, instead of holding the agent for its whole wait.
var (
	// AckTimeout is how long AskPermission waits for the runtime to
	// acknowledge a request.
	AckTimeout = time.Second
	// HeartbeatLoss is how long AskPermission waits for the next byte of
	// a held response: three heartbeats.
	HeartbeatLoss = 3 * time.Second
)

// Errors of AskPermission for a runtime that stopped answering.
var (
	ErrNoAck         = errors.New("the runtime did not acknowledge the permission request")
	ErrHeartbeatLost = errors.New("the runtime's heartbeat stopped")
)

// AskPermission registers a permission request with the runtime on its
// socket at sock and waits for its Answer, over one fresh connection held
// open until the runtime answers. The hook calls it for blocking events;
// ending ctx (the agent's SIGTERM, or the hook's own wait) closes the
// connection, which withdraws the request on the runtime's side.
//
// It returns ErrNotClawd when the server does not identify as clawd, an
// *APIError for a non-2xx answer, ErrBadAnswer for a body that is not an
// Answer, ErrNoAck or ErrHeartbeatLost for a runtime that stopped
// answering, and context.DeadlineExceeded when ctx's deadline passed first.
func AskPermission(ctx context.Context, sock string, body []byte) (Answer, error) {
	return socketEndpoint(sock).askPermission(ctx, body)
}

// askPermission is AskPermission to ep.
func (ep endpoint) askPermission(ctx context.Context, body []byte) (Answer, error) {
	conn, hangUp, err := dialFor(ctx, ep.dial)
	if err != nil {
		return Answer{}, err
	}
	defer hangUp()
	end, _ := ctx.Deadline()
	dr := &deadlineReader{ctx: ctx, conn: conn, end: end, within: AckTimeout}
	conn.SetWriteDeadline(dr.deadline())
	if _, err := conn.Write(ep.request(http.MethodPost, permissionsPath, body)); err != nil {
		return Answer{}, waitErr(ctx, err, ErrNoAck)
	}
	resp, err := http.ReadResponse(bufio.NewReaderSize(dr, 4<<10), nil)
	if err != nil {
		return Answer{}, waitErr(ctx, err, ErrNoAck)
	}
	defer resp.Body.Close()
	if resp.Header.Get(IdentityHeader) != IdentityValue {
		return Answer{}, ErrNotClawd
	}
	dr.within = HeartbeatLoss
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswerBody+1))
	if err != nil {
		return Answer{}, waitErr(ctx, err, ErrHeartbeatLost)
	}
	if resp.StatusCode/100 != 2 {
		return Answer{}, &APIError{Status: resp.StatusCode, Message: errorMessage(b)}
	}
	if len(b) > MaxAnswerBody {
		return Answer{}, fmt.Errorf("%w: larger than %d bytes", ErrBadAnswer, MaxAnswerBody)
	}
	// The heartbeats are the newlines before the answer, which
	// json.Unmarshal skips as whitespace.
	var a Answer
	if err := json.Unmarshal(b, &a); err != nil {
		return Answer{}, fmt.Errorf("%w: %v", ErrBadAnswer, err)
	}
	return a, nil
}

// deadlineReader reads conn with a deadline of within from each read
// (but never past end, ctx's deadline): the acknowledgement must come
// within AckTimeout, each heartbeat within HeartbeatLoss. Once ctx ends
// (the agent's SIGTERM), no read waits: ctx's AfterFunc puts the deadline
// in the past, and a read that set its own deadline just before checks
// ctx after it.
type deadlineReader struct {
	ctx    context.Context
	conn   net.Conn
	end    time.Time
	within time.Duration
}

func (d *deadlineReader) deadline() time.Time {
	t := time.Now().Add(d.within)
	if !d.end.IsZero() && d.end.Before(t) {
		return d.end
	}
	return t
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	d.conn.SetReadDeadline(d.deadline())
	if err := d.ctx.Err(); err != nil {
		return 0, err
	}
	return d.conn.Read(p)
}

// waitErr is ctxErr that also reports the connection's own deadline: as
// context.DeadlineExceeded when it was ctx's (which may fire a moment
// sooner than ctx's timer), else as silent, the error of a runtime that
// stopped answering.
func waitErr(ctx context.Context, err error, silent error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
			return context.DeadlineExceeded
		}
		return silent
	}
	return err
}

// errorMessage extracts the runtime's {"error": "..."} text.
func errorMessage(b []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	json.Unmarshal(b, &e)
	return e.Error
}

// Permissions lists the pending permission requests.
func (c *Client) Permissions(ctx context.Context) ([]PermissionView, error) {
	var out []PermissionView
	err := c.getJSON(ctx, permissionsPath, &out)
	return out, err
}

// Permission fetches one request with its full (or truncated) input.
func (c *Client) Permission(ctx context.Context, id string) (PermissionDetail, error) {
	var out PermissionDetail
	err := c.getJSON(ctx, permissionsPath+"/"+url.PathEscape(id), &out)
	return out, err
}

// Decide answers request id. The runtime answers 404 for an unknown id and
// 409 for one already answered or withdrawn, both as an *APIError.
func (c *Client) Decide(ctx context.Context, id string, d DecisionBody) (PermissionView, error) {
	var out PermissionView
	b, err := json.Marshal(d)
	if err != nil {
		return out, err
	}
	resp, err := c.do(ctx, http.MethodPost, permissionsPath+"/"+url.PathEscape(id)+"/decision", b)
	if err != nil {
		return out, err
	}
	defer resp.Body.Close()
	err = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out)
	return out, err
}

// PermissionEvents follows the permission change stream, calling fn with
// each change, until ctx ends (it returns ctx's error), the runtime closes
// the stream (nil) or fn returns an error (which it returns).
func (c *Client) PermissionEvents(ctx context.Context, fn func(PermissionChange) error) error {
	return c.follow(ctx, permissionsPath+"/events", func(line []byte) error {
		var ch PermissionChange
		if err := json.Unmarshal(line, &ch); err != nil {
			return fmt.Errorf("bad stream line: %w", err)
		}
		return fn(ch)
	})
}

// DND reports whether do-not-disturb is on.
func (c *Client) DND(ctx context.Context) (bool, error) {
	var d DND
	err := c.getJSON(ctx, "/api/v1/dnd", &d)
	return d.On, err
}

// SetDND turns do-not-disturb on or off.
func (c *Client) SetDND(ctx context.Context, on bool) error {
	b, _ := json.Marshal(DND{On: on})
	resp, err := c.do(ctx, http.MethodPost, "/api/v1/dnd", b)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	return resp.Body.Close()
}

func (c *Client) getJSON(ctx context.Context, path string, v any) error {
	resp, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(v); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return nil
}

// IsStatus reports whether err is an *APIError with the given status.
func IsStatus(err error, status int) bool {
	var e *APIError
	return errors.As(err, &e) && e.Status == status
}

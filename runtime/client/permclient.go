package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"
)

// The client side of the permission API (see permissions.go for the
// routes).

// MaxAnswerBody caps what AskPermission reads of the runtime's answer. An
// Answer is an id, a verdict and the suggestions the person chose: far
// smaller than this.
const MaxAnswerBody = 64 << 10

// ErrBadAnswer means the runtime's answer to a permission request was not
// an Answer.
var ErrBadAnswer = errors.New("bad answer to the permission request")

// AskPermission registers a permission request with the runtime on its
// socket at sock and waits for its Answer, over one fresh connection held
// open until the runtime answers. The hook calls it for blocking events;
// ending ctx (the agent's SIGTERM, or the hook's own wait) closes the
// connection, which withdraws the request on the runtime's side.
//
// It returns ErrNotClawd when the server does not identify as clawd, an
// *APIError for a non-2xx answer, ErrBadAnswer for a body that is not an
// Answer and context.DeadlineExceeded when ctx's deadline passed first.
func AskPermission(ctx context.Context, sock string, body []byte) (Answer, error) {
	conn, err := dialSocket(ctx, sock)
	if err != nil {
		return Answer{}, err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if _, err := conn.Write(buildRequest("POST", "/api/v1/permissions", body)); err != nil {
		return Answer{}, waitErr(ctx, err)
	}
	resp, err := http.ReadResponse(bufio.NewReaderSize(conn, 4<<10), nil)
	if err != nil {
		return Answer{}, waitErr(ctx, err)
	}
	defer resp.Body.Close()
	if resp.Header.Get(IdentityHeader) != IdentityValue {
		return Answer{}, ErrNotClawd
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswerBody+1))
	if err != nil {
		return Answer{}, waitErr(ctx, err)
	}
	if resp.StatusCode/100 != 2 {
		return Answer{}, &APIError{Status: resp.StatusCode, Message: errorMessage(b)}
	}
	if len(b) > MaxAnswerBody {
		return Answer{}, fmt.Errorf("%w: larger than %d bytes", ErrBadAnswer, MaxAnswerBody)
	}
	var a Answer
	if err := json.Unmarshal(b, &a); err != nil {
		return Answer{}, fmt.Errorf("%w: %v", ErrBadAnswer, err)
	}
	return a, nil
}

// waitErr is ctxErr that also reports the connection's own deadline (set
// from ctx's, which may fire a moment sooner than ctx's timer) as
// context.DeadlineExceeded.
func waitErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if dl, ok := ctx.Deadline(); ok && errors.Is(err, os.ErrDeadlineExceeded) && !time.Now().Before(dl) {
		return context.DeadlineExceeded
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
	err := c.getJSON(ctx, "/api/v1/permissions", &out)
	return out, err
}

// Permission fetches one request with its full (or truncated) input.
func (c *Client) Permission(ctx context.Context, id string) (PermissionDetail, error) {
	var out PermissionDetail
	err := c.getJSON(ctx, "/api/v1/permissions/"+url.PathEscape(id), &out)
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
	resp, err := c.do(ctx, http.MethodPost, "/api/v1/permissions/"+url.PathEscape(id)+"/decision", b)
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
	return c.follow(ctx, "/api/v1/permissions/events", func(line []byte) error {
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

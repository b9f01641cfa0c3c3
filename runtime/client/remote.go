package client

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/clawdhq/clawd/internal/clawdhome"
)

// Remote mode. A machine whose agents report to a desktop's runtime (an
// SSH box, a WSL distro) runs no runtime of its own: `clawd remote add` on
// the desktop writes its runtime.json in remote mode, naming the port on
// its loopback that leads to the desktop (the SSH tunnel's forwarded
// port, or for WSL the desktop's own), the profile's token and the
// generation. A hook that finds no socket reads it, and then talks to
// that port only, and only once the other end proved that it holds the
// token (the hello): a process of another user listening on the port
// while the tunnel is down gets a random nonce and nothing else. No other
// port is ever tried.
//
//	GET  /api/v1/remote/hello   X-Clawd-Nonce, X-Clawd-Generation -> 204, X-Clawd-Proof
//	POST /api/v1/events         Authorization: Bearer <token>, X-Clawd-Generation
//	POST /api/v1/permissions    (the same)
//	POST /api/v1/remote/test    (the same) RemoteTest -> RemoteTest (a connection test, never a session)

// ModeRemote is Info.Mode of a remote machine's runtime.json.
const ModeRemote = "remote"

// Headers of the remote protocol.
const (
	GenerationHeader = "X-Clawd-Generation"
	NonceHeader      = "X-Clawd-Nonce"
	ProofHeader      = "X-Clawd-Proof"
)

// Routes of the remote protocol besides the events and permission
// routes, which are the socket's.
const (
	RemoteHelloPath = "/api/v1/remote/hello"
	RemoteTestPath  = "/api/v1/remote/test"
)

// Proof is what a profile's ingress answers a hello with: an HMAC-SHA256,
// keyed with the profile's token, of the generation and the hook's nonce.
// Only the desktop's runtime (and the remote's runtime.json) knows the
// token, so only it can answer a fresh nonce.
func Proof(token string, generation int64, nonce string) string {
	m := hmac.New(sha256.New, []byte(token))
	io.WriteString(m, "clawd ingress proof\n"+strconv.FormatInt(generation, 10)+"\n"+nonce)
	return hex.EncodeToString(m.Sum(nil))
}

// RemoteTest is the body and the answer of a connection test: the
// remote sends the nonce the desktop's `clawd remote test` gave it, the
// ingress answers with it and the profile's name, and notes it in the
// link's state. It is never an event and never shows as a session.
type RemoteTest struct {
	Nonce   string `json:"nonce"`
	Profile string `json:"profile,omitempty"`
	Version string `json:"version,omitempty"`
}

// ErrNoRemote means the clawd home's runtime.json is not in remote mode:
// there is no desktop to report to.
var ErrNoRemote = errors.New("runtime.json is not in remote mode")

// ErrBadProof means whatever listens on the remote port could not prove
// that it holds the profile's token: nothing was sent to it.
var ErrBadProof = errors.New("the listener on the remote port did not prove it is this profile's desktop")

// Remote is how a remote machine's hooks reach the desktop's runtime:
// runtime.json in remote mode.
type Remote struct {
	Profile    string
	Port       int
	Token      string
	Generation int64
}

// ReadRemote reads the remote-mode runtime.json of the clawd home at
// home. The home must be private (this user's, closed to others' writes)
// and the file this user's: a runtime.json someone else could have
// written never sends anything anywhere. It returns ErrNoInfo when there
// is no runtime.json, an error wrapping ErrNoRemote when it is a
// desktop's, and another error when it is not what remote mode writes.
func ReadRemote(home string) (Remote, error) {
	if err := clawdhome.CheckPrivate(home); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Remote{}, ErrNoInfo
		}
		return Remote{}, fmt.Errorf("%w: %v", ErrNotOurs, err)
	}
	path := filepath.Join(home, InfoFile)
	if err := clawdhome.CheckOwnFile(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Remote{}, ErrNoInfo
		}
		return Remote{}, fmt.Errorf("%w: %v", ErrNotOurs, err)
	}
	in, err := ReadInfo(home)
	if err != nil {
		return Remote{}, err
	}
	if in.Mode != ModeRemote {
		return Remote{}, fmt.Errorf("%w (%s)", ErrNoRemote, path)
	}
	if in.Token == "" || in.Generation <= 0 || in.Profile == "" {
		return Remote{}, fmt.Errorf("%s: remote mode without a profile, token or generation: run `clawd remote add` again on the desktop", path)
	}
	return Remote{Profile: in.Profile, Port: in.Port, Token: in.Token, Generation: in.Generation}, nil
}

// endpoint is the desktop's ingress through the port: every connection
// starts with the hello, and every request carries the token and the
// generation.
func (r Remote) endpoint() endpoint {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(r.Port))
	return endpoint{
		dial: r.dial,
		host: addr,
		header: "Authorization: Bearer " + r.Token + "\r\n" +
			GenerationHeader + ": " + strconv.FormatInt(r.Generation, 10) + "\r\n",
	}
}

// dial connects to the remote port and says hello: a random nonce goes
// out, and the answer must carry its Proof. Only then may the caller
// write its request on the connection.
func (r Remote) dial(ctx context.Context) (net.Conn, error) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(r.Port))
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w: nothing listens on %s (the tunnel is down)", ErrNotRunning, addr)
		}
		return nil, err
	}
	fail := func(err error) (net.Conn, error) {
		conn.Close()
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	var n [16]byte
	if _, err := rand.Read(n[:]); err != nil {
		return fail(err)
	}
	nonce := hex.EncodeToString(n[:])
	hello := "GET " + RemoteHelloPath + " HTTP/1.1\r\nHost: " + addr + "\r\n" +
		NonceHeader + ": " + nonce + "\r\n" +
		GenerationHeader + ": " + strconv.FormatInt(r.Generation, 10) + "\r\n\r\n"
	if _, err := io.WriteString(conn, hello); err != nil {
		return fail(ctxErr(ctx, err))
	}
	head, err := readHead(conn.Read)
	if err != nil {
		return fail(ctxErr(ctx, err))
	}
	resp, err := http.ReadResponse(bufio.NewReader(io.MultiReader(bytes.NewReader(head), strings.NewReader("\r\n"))), nil)
	if err != nil {
		return fail(fmt.Errorf("%w: %v", ErrBadProof, err))
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return fail(fmt.Errorf("%w: it answered %d to the hello (a generation the desktop no longer knows?)", ErrBadProof, resp.StatusCode))
	}
	want := Proof(r.Token, r.Generation, nonce)
	if !hmac.Equal([]byte(resp.Header.Get(ProofHeader)), []byte(want)) {
		return fail(ErrBadProof)
	}
	conn.SetDeadline(time.Time{})
	return conn, nil
}

// PostEvent posts one encoded event to the desktop, given up when ctx
// ends.
func (r Remote) PostEvent(ctx context.Context, event []byte) error {
	return r.endpoint().postEvent(ctx, event)
}

// AskPermission is the package's AskPermission through the desktop's
// ingress: the same acknowledgement, heartbeats and answer.
func (r Remote) AskPermission(ctx context.Context, body []byte) (Answer, error) {
	return r.endpoint().askPermission(ctx, body)
}

// Test sends a connection test with nonce and returns the desktop's
// answer.
func (r Remote) Test(ctx context.Context, nonce, version string) (RemoteTest, error) {
	body, _ := json.Marshal(RemoteTest{Nonce: nonce, Profile: r.Profile, Version: version})
	var out RemoteTest
	if err := r.endpoint().exchange(ctx, http.MethodPost, RemoteTestPath, body, &out); err != nil {
		return RemoteTest{}, err
	}
	return out, nil
}

// exchange sends one request over a fresh connection and decodes a 2xx
// JSON answer into out (nil: the body is not read); an *APIError for
// another status, ErrNotClawd when the server does not identify as clawd.
func (ep endpoint) exchange(ctx context.Context, method, path string, body []byte, out any) error {
	conn, hangUp, err := dialFor(ctx, ep.dial)
	if err != nil {
		return err
	}
	defer hangUp()
	if _, err := conn.Write(ep.request(method, path, body)); err != nil {
		return ctxErr(ctx, err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return ctxErr(ctx, err)
	}
	defer resp.Body.Close()
	if resp.Header.Get(IdentityHeader) != IdentityValue {
		return ErrNotClawd
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil {
		return ctxErr(ctx, err)
	}
	if resp.StatusCode/100 != 2 {
		return &APIError{Status: resp.StatusCode, Message: errorMessage(b)}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("bad answer to %s %s: %w", method, path, err)
	}
	return nil
}

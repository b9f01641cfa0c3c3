// Package client finds a running `clawd serve` and talks to its API. The
// hook, the CLI and the tray all use it.
package client

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tidwall/gjson"

	"github.com/clawdhq/clawd/internal/atomicfile"
)

// Ports is the range the runtime's TCP listener takes the first free port
// of (for the original app's POST /state and browser-side clients; hooks
// and the CLI use the socket).
var Ports = []int{23333, 23334, 23335, 23336, 23337}

// IdentityHeader is set on every runtime response. It proves nothing (any
// server can send it): it only keeps a client from reading a stray server
// as clawd. Who is at the other end of the socket is checked by peer
// credentials (see dialSocket).
const IdentityHeader = "X-Clawd-Server"

// IdentityValue is the IdentityHeader's value.
const IdentityValue = "clawd"

// PortProof is what the runtime answers a GET /state carrying a nonce in
// NonceHeader with, in ProofHeader: an HMAC-SHA256 of the nonce keyed with
// the API token of runtime.json. Any program can send IdentityHeader; only
// the runtime that wrote runtime.json can answer a fresh nonce, and the
// token itself never goes to whoever holds the port.
func PortProof(token, nonce string) string {
	m := hmac.New(sha256.New, []byte(token))
	io.WriteString(m, "clawd port proof\n"+nonce)
	return hex.EncodeToString(m.Sum(nil))
}

// Info is runtime.json: how clients reach the running runtime. Hooks and
// the CLI do not read a desktop's: they compute Socket from the clawd
// home (SocketPath). Port and Token are for TCP clients; Port is 0 while
// the runtime has no TCP port (every port of the range held by others).
//
// On a remote machine (Mode ModeRemote, written by `clawd remote add` on
// the desktop) there is no runtime and no socket: Port is the remote
// port that leads to the desktop's ingress for Profile, and Token and
// Generation are what that ingress takes (see Remote).
type Info struct {
	Mode       string    `json:"mode,omitempty"`
	Profile    string    `json:"profile,omitempty"`
	Generation int64     `json:"generation,omitempty"`
	Port       int       `json:"port"`
	Socket     string    `json:"socket,omitempty"`
	PID        int       `json:"pid,omitempty"`
	Version    string    `json:"version"`
	Token      string    `json:"token"`
	StartedAt  time.Time `json:"started_at"`
}

// InfoFile is the file name of the runtime info in the clawd home.
const InfoFile = "runtime.json"

// ErrNoInfo means runtime.json does not exist.
var ErrNoInfo = errors.New("runtime.json not found")

// ReadInfo reads runtime.json from the clawd home.
func ReadInfo(home string) (Info, error) {
	path := filepath.Join(home, InfoFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Info{}, ErrNoInfo
	}
	if err != nil {
		return Info{}, err
	}
	// gjson rather than encoding/json: every hook process reads this file,
	// and reflection-based decoding costs it a tenth of a millisecond.
	if !gjson.ValidBytes(b) {
		return Info{}, fmt.Errorf("parse %s: not valid JSON", path)
	}
	r := gjson.ParseBytes(b)
	in := Info{
		Port:    int(r.Get("port").Int()),
		PID:     int(r.Get("pid").Int()),
		Socket:  r.Get("socket").String(),
		Version: r.Get("version").String(),
		Token:   r.Get("token").String(),

		Mode:       r.Get("mode").String(),
		Profile:    r.Get("profile").String(),
		Generation: r.Get("generation").Int(),
	}
	if t := r.Get("started_at"); t.Exists() {
		in.StartedAt, _ = time.Parse(time.RFC3339Nano, t.String())
	}
	// A local runtime without a TCP port (all of the range held by other
	// programs) writes 0; a remote machine's port leads to the desktop.
	if in.Port < 0 || in.Port > 65535 || in.Port == 0 && in.Mode == ModeRemote {
		return Info{}, fmt.Errorf("parse %s: bad port %d", path, in.Port)
	}
	return in, nil
}

// WriteInfo writes runtime.json, readable by the owner only: it holds the
// API token.
func WriteInfo(home string, in Info) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(home, InfoFile), append(b, '\n'), 0o600, false, nil)
}

// RemoveInfo deletes runtime.json if it still describes process pid, so a
// runtime that lost a race never deletes its successor's file.
func RemoveInfo(home string, pid int) error {
	in, err := ReadInfo(home)
	if err != nil {
		if errors.Is(err, ErrNoInfo) {
			return nil
		}
		return err
	}
	if in.PID != pid {
		return nil
	}
	return os.Remove(filepath.Join(home, InfoFile))
}

package telegram

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawdhq/clawd/internal/atomicfile"
	"github.com/clawdhq/clawd/internal/boundedfile"
	"github.com/clawdhq/clawd/internal/clawdhome"
)

// The channel's files, in the channels folder of the clawd home; each
// 0600, the folder 0700. The chat file says who clawd listens to, the
// pairing file holds a pairing code waiting to be sent (its hash, not the
// code), the status file what the channel in `clawd serve` is doing, for
// `clawd doctor` and `clawd channels status`.
const (
	dirName     = "channels"
	chatFile    = "telegram.chat.json"
	pairingFile = "telegram.pairing.json"
	statusFile  = "telegram.status.json"
	maxFile     = 16 << 10
)

// Pairing codes: codeLen characters of codeAlphabet (no 0/O, 1/I/L, U),
// about 39 bits, good for DefaultPairingTTL.
const (
	codeAlphabet = "ABCDEFGHJKMNPQRSTVWXYZ23456789"
	codeLen      = 8
	// DefaultPairingTTL is how long a pairing code is good for.
	DefaultPairingTTL = 10 * time.Minute
)

func dir(home string) string { return filepath.Join(home, dirName) }

// Chat is the chat clawd is paired with: requests go there, and only
// presses in it by the person who paired count.
type Chat struct {
	ChatID int64 `json:"chat_id"`
	UserID int64 `json:"user_id"`
	// Name is who paired, as Telegram names them (@username, else their
	// first name): shown through text.Line, never trusted.
	Name     string    `json:"name"`
	PairedAt time.Time `json:"paired_at"`
}

// ReadChat returns the paired chat; ok is false when there is none.
func ReadChat(home string) (c Chat, ok bool, err error) {
	ok, err = readJSON(filepath.Join(dir(home), chatFile), &c)
	if ok && (c.ChatID == 0 || c.UserID == 0) {
		return Chat{}, false, fmt.Errorf("%s names no chat: run clawd channels pair telegram again", filepath.Join(dir(home), chatFile))
	}
	return c, ok, err
}

// Unpair forgets the paired chat and any pairing code waiting, and
// returns the chat it was paired with (ok false: none, or a chat file
// that could not be read, which goes all the same).
func Unpair(home string) (c Chat, ok bool, err error) {
	c, ok, _ = ReadChat(home)
	for _, name := range []string{chatFile, pairingFile} {
		if err := os.Remove(filepath.Join(dir(home), name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return c, ok, err
		}
	}
	return c, ok, nil
}

func writeChat(home string, c Chat) error { return writeJSON(home, chatFile, c) }

// pairing is the pairing file: the code's hash and when it expires.
type pairing struct {
	Hash    string    `json:"hash"`
	Expires time.Time `json:"expires"`
}

// Pairing is a pairing code that waits to be sent to the bot.
type Pairing struct {
	// Code is what the person sends ("K7QM-X2PD"); the dash and the case
	// do not matter.
	Code    string
	Expires time.Time
}

// StartPairing makes a new pairing code, good until now+ttl, and writes
// its hash in the pairing file (replacing any code waiting). The runtime's
// channel pairs with the chat that sends it first, once.
func StartPairing(home string, now time.Time, ttl time.Duration, random io.Reader) (Pairing, error) {
	if random == nil {
		random = rand.Reader
	}
	b := make([]byte, codeLen)
	var code strings.Builder
	for code.Len() < codeLen {
		if _, err := io.ReadFull(random, b); err != nil {
			return Pairing{}, fmt.Errorf("make a pairing code: %w", err)
		}
		for _, x := range b {
			// Rejection sampling: every character equally likely.
			if limit := 256 - 256%len(codeAlphabet); int(x) < limit && code.Len() < codeLen {
				code.WriteByte(codeAlphabet[int(x)%len(codeAlphabet)])
			}
		}
	}
	c := code.String()
	p := Pairing{Code: c[:4] + "-" + c[4:], Expires: now.Add(ttl)}
	if err := writeJSON(home, pairingFile, pairing{Hash: codeHash(c), Expires: p.Expires}); err != nil {
		return Pairing{}, err
	}
	return p, nil
}

// PairingWaits reports whether a pairing code is waiting, unexpired.
func PairingWaits(home string, now time.Time) bool {
	var p pairing
	ok, err := readJSON(filepath.Join(dir(home), pairingFile), &p)
	return ok && err == nil && now.Before(p.Expires)
}

// CancelPairing withdraws the pairing code waiting, if any.
func CancelPairing(home string) error {
	if err := os.Remove(filepath.Join(dir(home), pairingFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func codeHash(code string) string {
	h := sha256.Sum256([]byte("clawd telegram pairing\x00" + code))
	return hex.EncodeToString(h[:])
}

// normalizeCode reads a pairing code out of a message: the code alone or
// after /start (a t.me deep link sends "/start CODE"), any case, with or
// without its dash or spaces.
func normalizeCode(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "/start"); ok {
		s = rest
	}
	s = strings.Map(func(r rune) rune {
		switch r {
		case '-', ' ', '\t':
			return -1
		}
		if r >= 'a' && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, s)
	if len(s) != codeLen {
		return "", false
	}
	for _, r := range s {
		if !strings.ContainsRune(codeAlphabet, r) {
			return "", false
		}
	}
	return s, true
}

// consumePairing reports whether text is the waiting pairing code,
// unexpired, and whether a code waited at all; a code that matches is
// used up (the pairing file goes). An expired code's file goes too.
func consumePairing(home, text string, now time.Time) (matched, waited bool, err error) {
	path := filepath.Join(dir(home), pairingFile)
	var p pairing
	ok, err := readJSON(path, &p)
	if !ok || err != nil {
		return false, false, err
	}
	if !now.Before(p.Expires) {
		os.Remove(path)
		return false, false, nil
	}
	code, ok := normalizeCode(text)
	if !ok || subtle.ConstantTimeCompare([]byte(codeHash(code)), []byte(p.Hash)) != 1 {
		return false, true, nil
	}
	if err := os.Remove(path); err != nil {
		// Not used up, so not used.
		return false, true, fmt.Errorf("use the pairing code: %w", err)
	}
	return true, true, nil
}

// Channel states (Status.State).
const (
	StateStarting      = "starting"
	StateOK            = "ok"
	StateFailing       = "failing"
	StateTokenRejected = "token_rejected"
	StateConflict      = "conflict"
	StateNoToken       = "no_token"
	StateStopped       = "stopped"
)

// Status is what the channel in `clawd serve` is doing, as its status
// file says.
type Status struct {
	// PID is the clawd serve that runs the channel.
	PID   int    `json:"pid"`
	State string `json:"state"`
	// Error says why the state is not ok; never the token.
	Error string `json:"error,omitempty"`
	// Bot is the bot's @username, once getMe answered.
	Bot   string    `json:"bot,omitempty"`
	Since time.Time `json:"since"`
	// LastOK is when Telegram last answered a poll.
	LastOK time.Time `json:"last_ok,omitzero"`
	// SendError is why the last message to the paired chat failed,
	// until one goes through.
	SendError string `json:"send_error,omitempty"`
}

// ReadStatus reads the status file; ok is false when there is none.
func ReadStatus(home string) (s Status, ok bool, err error) {
	ok, err = readJSON(filepath.Join(dir(home), statusFile), &s)
	return s, ok, err
}

func writeStatus(home string, s Status) error { return writeJSON(home, statusFile, s) }

// readJSON decodes the file at path into v; ok is false when there is no
// file. A file others may write to is refused: it decides who answers.
func readJSON(path string, v any) (ok bool, err error) {
	if err := clawdhome.CheckOwnFile(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	data, err := boundedfile.Read(path, maxFile)
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("%s: %w: remove it (clawd channels unpair telegram) and pair again", path, err)
	}
	return true, nil
}

func writeJSON(home, name string, v any) error {
	if err := os.MkdirAll(dir(home), 0o700); err != nil {
		return err
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir(home), name), append(data, '\n'), 0o600, false, nil)
}

// Package dashboard holds the web dashboard's pieces that know nothing of
// the runtime: the one-time login codes and the logins they become, the
// security headers every response carries, and the page's assets,
// embedded in the binary (nothing is fetched from anywhere else).
package dashboard

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"sync"
	"time"
)

// Limits of the logins.
const (
	// CodeTTL is how long a login code minted by `clawd dashboard` can be
	// exchanged: long enough to paste it from an SSH session's output.
	CodeTTL = 5 * time.Minute
	// maxCodes and maxLogins bound what a person's own clients can pile
	// up; past them the oldest goes.
	maxCodes  = 16
	maxLogins = 32
	// failBurst failed redemptions are allowed at once, then one more per
	// failEvery: a code is 256 random bits, nobody guesses one, but each
	// try costs a hash, a page and a log line, and 2,667 a second were
	// seen. Past them a try is refused unread, a real code included, so
	// the flood stops costing anything; on Linux other users never get
	// this far (the runtime refuses their connections), so only the
	// person's own processes can slow the person's logins down.
	failBurst = 10
	failEvery = time.Second
)

// Errors of Redeem.
var (
	// ErrBadCode: the code was never minted, was used already, or ran
	// out. The three look alike on purpose.
	ErrBadCode = errors.New("login code unknown, used or expired: run `clawd dashboard` again")
	// ErrTooMany: too many codes failed lately; the code was not looked
	// at, so a good one still works once the failures have drained.
	ErrTooMany = errors.New("too many failed dashboard logins: try again in a few seconds")
)

// Login is one browser let in: its cookie names it, and every request
// also carries its secret in a header (see Logins.Check).
type Login struct {
	// ID is the cookie's value.
	ID string
	// Secret is handed to the page once, which keeps it in localStorage
	// and sends it as the SecretHeader.
	Secret string
}

// Logins are the one-time codes and the logins they became. Codes and
// login ids are kept only as SHA-256 hashes, compared by map lookup:
// timing says nothing of a 256-bit random value's hash.
type Logins struct {
	now  func() time.Time
	rand func([]byte)

	mu     sync.Mutex
	codes  map[[32]byte]time.Time // code hash -> expiry
	logins map[[32]byte]*login    // login id hash -> login
	seq    uint64
	// fails is the bucket of failed redemptions (see failBurst), as of
	// failsAt.
	fails   float64
	failsAt time.Time
}

type login struct {
	secret []byte
	seq    uint64
}

// NewLogins returns an empty set; now and random (crypto/rand.Read when
// nil) are the clock and the randomness.
func NewLogins(now func() time.Time, random func([]byte)) *Logins {
	if now == nil {
		now = time.Now
	}
	if random == nil {
		random = func(b []byte) { rand.Read(b) } // never fails on supported platforms
	}
	return &Logins{now: now, rand: random, codes: map[[32]byte]time.Time{}, logins: map[[32]byte]*login{}}
}

func (l *Logins) token() string {
	b := make([]byte, 32)
	l.rand(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func hash(s string) [32]byte { return sha256.Sum256([]byte(s)) }

// Mint returns a new one-time login code, good for CodeTTL.
func (l *Logins) Mint() (code string, expires time.Time) {
	code = l.token()
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	for h, exp := range l.codes {
		if !now.Before(exp) {
			delete(l.codes, h)
		}
	}
	for len(l.codes) >= maxCodes {
		var oldest [32]byte
		var first time.Time
		for h, exp := range l.codes {
			if first.IsZero() || exp.Before(first) {
				oldest, first = h, exp
			}
		}
		delete(l.codes, oldest)
	}
	expires = now.Add(CodeTTL)
	l.codes[hash(code)] = expires
	return code, expires
}

// Redeem exchanges a code for a new login, once: the code dies whatever
// happens.
//
// Past failBurst failures (draining one per failEvery) it answers
// ErrTooMany without looking at the code.
func (l *Logins) Redeem(code string) (Login, error) {
	h := hash(code)
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if !l.failsAt.IsZero() {
		l.fails = max(0, l.fails-float64(now.Sub(l.failsAt))/float64(failEvery))
	}
	l.failsAt = now
	if l.fails >= failBurst {
		return Login{}, ErrTooMany
	}
	exp, ok := l.codes[h]
	delete(l.codes, h)
	if !ok || !now.Before(exp) {
		l.fails++
		return Login{}, ErrBadCode
	}
	in := Login{ID: l.token(), Secret: l.token()}
	for len(l.logins) >= maxLogins {
		var oldest [32]byte
		var first uint64
		for k, v := range l.logins {
			if first == 0 || v.seq < first {
				oldest, first = k, v.seq
			}
		}
		delete(l.logins, oldest)
	}
	l.seq++
	l.logins[hash(in.ID)] = &login{secret: []byte(in.Secret), seq: l.seq}
	return in, nil
}

// Check reports whether id (the cookie's value) names a login and secret
// is that login's secret.
func (l *Logins) Check(id, secret string) bool {
	if id == "" || secret == "" {
		return false
	}
	l.mu.Lock()
	in, ok := l.logins[hash(id)]
	l.mu.Unlock()
	return ok && subtle.ConstantTimeCompare(in.secret, []byte(secret)) == 1
}

// Known reports whether id names a login, secret or not: the page is
// served to a browser with the cookie, the data only with the secret too.
func (l *Logins) Known(id string) bool {
	if id == "" {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.logins[hash(id)]
	return ok
}

package dashboard

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestLogins(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	l := NewLogins(func() time.Time { return now }, nil)

	code, exp := l.Mint()
	if len(code) < 40 || !exp.Equal(now.Add(CodeTTL)) {
		t.Fatalf("Mint() = %q, %v; want a 256-bit code good for %v", code, exp, CodeTTL)
	}
	in, err := l.Redeem(code)
	if err != nil || in.ID == "" || in.Secret == "" || in.ID == in.Secret {
		t.Fatalf("Redeem(fresh code) = %+v, %v; want a login with its own id and secret", in, err)
	}
	if _, err := l.Redeem(code); !errors.Is(err, ErrBadCode) {
		t.Errorf("Redeem(used code) = %v, want ErrBadCode", err)
	}
	if _, err := l.Redeem("never-minted"); !errors.Is(err, ErrBadCode) {
		t.Errorf("Redeem(unknown code) = %v, want ErrBadCode", err)
	}
	if _, err := l.Redeem(""); !errors.Is(err, ErrBadCode) {
		t.Errorf("Redeem(\"\") = %v, want ErrBadCode", err)
	}

	if !l.Check(in.ID, in.Secret) || !l.Known(in.ID) {
		t.Error("Check(id, its secret) = false, want true")
	}
	for _, c := range []struct{ id, secret string }{{in.ID, ""}, {"", in.Secret}, {in.ID, in.Secret + "x"}, {in.Secret, in.ID}, {in.ID, "x"}} {
		if l.Check(c.id, c.secret) {
			t.Errorf("Check(%q, %q) = true, want false", c.id, c.secret)
		}
	}
	other, _ := l.Redeem(mint(l))
	if l.Check(in.ID, other.Secret) || l.Check(other.ID, in.Secret) {
		t.Error("one login's cookie passes with another login's secret")
	}

	// A code dies at its expiry, unused.
	late := mint(l)
	now = now.Add(CodeTTL)
	if _, err := l.Redeem(late); !errors.Is(err, ErrBadCode) {
		t.Errorf("Redeem(code at its expiry) = %v, want ErrBadCode", err)
	}
	// Logins do not expire with the codes.
	if !l.Check(in.ID, in.Secret) {
		t.Error("a login died with the codes' clock")
	}
}

func mint(l *Logins) string {
	c, _ := l.Mint()
	return c
}

// TestLoginsCaps: codes and logins are capped; the oldest go first.
func TestLoginsCaps(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	l := NewLogins(func() time.Time { return now }, nil)
	var codes []string
	for i := range maxCodes + 3 {
		now = now.Add(time.Second)
		codes = append(codes, mint(l))
		_ = i
	}
	if len(l.codes) != maxCodes {
		t.Fatalf("%d codes kept, want %d", len(l.codes), maxCodes)
	}
	if _, err := l.Redeem(codes[0]); err == nil {
		t.Error("the oldest code outlived the cap")
	}
	if _, err := l.Redeem(codes[len(codes)-1]); err != nil {
		t.Errorf("the newest code: %v", err)
	}
	var first Login
	for i := range maxLogins + 2 {
		in, err := l.Redeem(mint(l))
		if err != nil {
			t.Fatal(fmt.Sprint(i, err))
		}
		if i == 0 {
			first = in
		}
	}
	if len(l.logins) != maxLogins {
		t.Errorf("%d logins kept, want %d", len(l.logins), maxLogins)
	}
	if l.Known(first.ID) {
		t.Error("the oldest login outlived the cap")
	}
}

// TestFailedLoginsAreLimited: after failBurst bad codes a try is refused
// unread (ErrTooMany), a good code included, which survives it and works
// once a failEvery has passed.
func TestFailedLoginsAreLimited(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	l := NewLogins(func() time.Time { return now }, nil)
	good := mint(l)
	for i := range failBurst {
		if _, err := l.Redeem(fmt.Sprint("guess-", i)); !errors.Is(err, ErrBadCode) {
			t.Fatalf("bad code #%d = %v, want ErrBadCode", i+1, err)
		}
	}
	if _, err := l.Redeem("guess-more"); !errors.Is(err, ErrTooMany) {
		t.Errorf("bad code past the burst = %v, want ErrTooMany", err)
	}
	if _, err := l.Redeem(good); !errors.Is(err, ErrTooMany) {
		t.Errorf("good code while limited = %v, want ErrTooMany", err)
	}
	now = now.Add(failEvery)
	if in, err := l.Redeem(good); err != nil || in.ID == "" {
		t.Errorf("good code a second later = %+v, %v; want a login", in, err)
	}
	// Good logins do not count; the bucket drains at one per failEvery.
	now = now.Add(failBurst * failEvery)
	for range 3 {
		if _, err := l.Redeem(mint(l)); err != nil {
			t.Errorf("good code = %v", err)
		}
	}
}

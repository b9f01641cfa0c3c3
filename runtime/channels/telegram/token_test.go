package telegram

import (
	"errors"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"
)

const goodToken = "7000000001:AAH-test_token_for_clawd_0123456789abc"

func TestReadToken(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	if tok, err := ReadToken(write("ok", goodToken+"\n", 0o600)); err != nil || tok != goodToken {
		t.Errorf("ReadToken(a good file) = %q, %v", tok, err)
	}
	if _, err := ReadToken(filepath.Join(dir, "none")); !errors.Is(err, ErrNoToken) || !strings.Contains(err.Error(), "@BotFather") {
		t.Errorf("ReadToken(no file) = %v, want ErrNoToken saying where to get one", err)
	}
	if _, err := ReadToken(dir); !errors.Is(err, ErrTokenOpen) {
		t.Errorf("ReadToken(a folder) = %v, want ErrTokenOpen", err)
	}
	for _, bad := range []string{"", "hello", "123:short", "abc:AAH-test_token_for_clawd_0123456789abc", goodToken + " extra"} {
		if _, err := ReadToken(write("bad", bad, 0o600)); !errors.Is(err, ErrTokenShape) {
			t.Errorf("ReadToken(%q) = %v, want ErrTokenShape", bad, err)
		} else if bad != "" && strings.Contains(err.Error(), bad) {
			t.Errorf("ReadToken(%q)'s error holds the file's content: %v", bad, err)
		}
	}
	if goruntime.GOOS == "windows" {
		return
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604} {
		p := write("open", goodToken, mode)
		if _, err := ReadToken(p); !errors.Is(err, ErrTokenOpen) || !strings.Contains(err.Error(), "chmod 600 "+p) {
			t.Errorf("ReadToken(mode %v) = %v, want ErrTokenOpen with chmod 600", mode, err)
		}
	}
	// A link to a private token elsewhere is read where it points.
	target := write("target", goodToken, 0o600)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if tok, err := ReadToken(link); err != nil || tok != goodToken {
		t.Errorf("ReadToken(a link to a private file) = %q, %v", tok, err)
	}
}

func TestNormalizeCode(t *testing.T) {
	for in, want := range map[string]string{
		"K7QM-X2PD": "K7QMX2PD", "k7qm-x2pd": "K7QMX2PD", "/start K7QMX2PD": "K7QMX2PD", " K7QM X2PD ": "K7QMX2PD",
		"K7QM-X2P": "", "K7QM-X2PDD": "", "K7QM-X2P0": "", "/startK7QMX2PD": "K7QMX2PD", "": "",
	} {
		got, ok := normalizeCode(in)
		if got != want || ok != (want != "") {
			t.Errorf("normalizeCode(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func TestPairingCodes(t *testing.T) {
	seen := map[string]bool{}
	for range 50 {
		p, err := StartPairing(t.TempDir(), fixedNow, DefaultPairingTTL, nil)
		if err != nil {
			t.Fatal(err)
		}
		code, ok := normalizeCode(p.Code)
		if !ok || seen[code] {
			t.Fatalf("pairing code %q: valid %v, seen before %v", p.Code, ok, seen[code])
		}
		seen[code] = true
	}
}

var fixedNow = mustTime("2026-12-01T10:00:00Z")

func mustTime(s string) (t time.Time) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

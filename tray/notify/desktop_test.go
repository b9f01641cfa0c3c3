package notify

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeNotify stands in for beeep.Notify and records each popup. A
// non-nil block holds every call until it is closed.
type fakeNotify struct {
	mu    sync.Mutex
	calls []popupCall
	err   error
	block chan struct{}
}

type popupCall struct {
	title, message string
	icon           any
}

func (f *fakeNotify) notify(title, message string, icon any) error {
	f.mu.Lock()
	f.calls = append(f.calls, popupCall{title, message, icon})
	f.mu.Unlock()
	if f.block != nil {
		<-f.block
	}
	return f.err
}

func (f *fakeNotify) popups() []popupCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

var pngIcon = []byte("\x89PNG fake")

func icons(k Kind) []byte {
	if k == Permission {
		return pngIcon
	}
	return nil
}

// newTestDesktop returns a Desktop whose popups go to a fakeNotify and
// whose log goes to the returned buffer (read it after Close).
func newTestDesktop(t *testing.T, icon func(Kind) []byte) (*Desktop, *fakeNotify, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	d := NewDesktop("clawd-test", icon, slog.New(slog.NewTextHandler(&logs, nil)), filepath.Join(t.TempDir(), "cache"))
	f := &fakeNotify{}
	d.notify = f.notify
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := d.Close(ctx); err != nil {
			t.Errorf("Close() = %v, want nil", err)
		}
	})
	return d, f, &logs
}

func closeNow(t *testing.T, d *Desktop) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.Close(ctx); err != nil {
		t.Fatalf("Close() = %v, want nil", err)
	}
}

func TestSendPopup(t *testing.T) {
	tests := []struct {
		name string
		icon func(Kind) []byte
		kind Kind
		want any
	}{
		{"icon bytes", icons, Permission, pngIcon},
		{"no icon for the kind", icons, Done, ""},
		{"no icon func", nil, Permission, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, f, _ := newTestDesktop(t, tt.icon)
			n := Note{Kind: tt.kind, Summary: "Claude Code needs you", Body: "clawd — Bash: ls", Popup: true, SessionKey: "claude/s1"}
			if err := d.Send(context.Background(), n); err != nil {
				t.Fatalf("Send(%+v) = %v, want nil", n, err)
			}
			want := []popupCall{{"Claude Code needs you", "clawd — Bash: ls", tt.want}}
			if got := f.popups(); !reflect.DeepEqual(got, want) {
				t.Errorf("Send(%+v) popups = %+v, want %+v", n, got, want)
			}
			// No sound asked, so no sound file.
			if _, err := os.Stat(filepath.Join(d.cacheDir, soundName)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Send(popup only): sound file stat = %v, want not there", err)
			}
		})
	}
}

func TestSendNothing(t *testing.T) {
	d, f, _ := newTestDesktop(t, icons)
	if err := d.Send(context.Background(), Note{Kind: Done, Summary: "x"}); err != nil {
		t.Errorf("Send(neither popup nor sound) = %v, want nil", err)
	}
	if got := f.popups(); len(got) != 0 {
		t.Errorf("Send(neither popup nor sound) popups = %+v, want none", got)
	}
}

func TestSendPopupError(t *testing.T) {
	d, f, _ := newTestDesktop(t, icons)
	f.err = errors.New("beeep: dbus: no daemon")
	err := d.Send(context.Background(), Note{Kind: Failure, Summary: "Claude Code failed", Popup: true})
	if !errors.Is(err, f.err) || !strings.Contains(err.Error(), "Claude Code failed") {
		t.Errorf("Send(failing popup) = %v, want the beeep error, naming the popup", err)
	}
}

func TestSendPopupBounded(t *testing.T) {
	d, f, _ := newTestDesktop(t, icons)
	d.popupTimeout = 20 * time.Millisecond
	f.block = make(chan struct{})
	n := Note{Kind: Question, Summary: "Claude Code has a question", Popup: true}

	if err := d.Send(context.Background(), n); err == nil || !strings.Contains(err.Error(), "no answer after 20ms") {
		t.Errorf("Send(hung popup) = %v, want a timeout error", err)
	}
	// The hung call holds the only slot: the next popup gives up waiting
	// for it instead of piling up goroutines.
	if err := d.Send(context.Background(), n); err == nil || !strings.Contains(err.Error(), "previous popup is still being sent") {
		t.Errorf("Send(while a popup hangs) = %v, want a busy error", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := d.Send(ctx, n); !errors.Is(err, context.Canceled) {
		t.Errorf("Send(cancelled ctx) = %v, want context.Canceled", err)
	}
	if got := len(f.popups()); got != 1 {
		t.Errorf("notify called %d times, want 1", got)
	}

	// Close waits for the hung call, within its ctx.
	short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := d.Close(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Close(while a popup hangs) = %v, want context.DeadlineExceeded", err)
	}
	close(f.block)
	closeNow(t, d)
}

func TestSendAfterClose(t *testing.T) {
	d, f, _ := newTestDesktop(t, icons)
	closeNow(t, d)
	if err := d.Send(context.Background(), Note{Kind: Done, Popup: true}); !errors.Is(err, ErrClosed) {
		t.Errorf("Send(after Close) = %v, want ErrClosed", err)
	}
	if got := f.popups(); len(got) != 0 {
		t.Errorf("Send(after Close) popups = %+v, want none", got)
	}
}

func TestSendSoundNoPlayer(t *testing.T) {
	d, f, _ := newTestDesktop(t, icons)
	t.Setenv("PATH", t.TempDir())
	n := Note{Kind: Permission, Summary: "Claude Code needs you", Popup: true, Sound: true}
	err := d.Send(context.Background(), n)
	if !errors.Is(err, ErrNoPlayer) {
		t.Errorf("Send(sound, no player on PATH) = %v, want ErrNoPlayer", err)
	}
	// The popup still went out.
	if got := f.popups(); len(got) != 1 {
		t.Errorf("Send(sound, no player on PATH) popups = %+v, want one", got)
	}
}

func TestSoundFile(t *testing.T) {
	d, _, _ := newTestDesktop(t, nil)
	d.cacheDir = filepath.Join(t.TempDir(), "deep", "cache")
	path, err := d.soundFile()
	if err != nil {
		t.Fatalf("soundFile() in a missing folder = %v, want it created", err)
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, chime) {
		t.Fatalf("soundFile() wrote %d bytes (%v), want the %d of chime.wav", len(got), err, len(chime))
	}
	before, _ := os.Stat(path)
	if again, err := d.soundFile(); err != nil || again != path {
		t.Fatalf("soundFile() again = %q, %v, want %q, nil", again, err, path)
	}
	if after, _ := os.Stat(path); !os.SameFile(before, after) {
		t.Errorf("soundFile() rewrote an identical file, want it reused")
	}

	if err := os.WriteFile(path, []byte("RIFF old sound"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := d.soundFile(); err != nil {
		t.Fatalf("soundFile() over a different file = %v, want nil", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, chime) {
		t.Errorf("soundFile() left a different file of %d bytes, want chime.wav", len(got))
	}

	d.cacheDir = ""
	if _, err := d.soundFile(); err == nil {
		t.Errorf("soundFile() without a cache folder = nil error, want one")
	}
}

package notify

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakePlayer puts an executable script named name in a new folder and
// makes that folder the whole PATH, so no real player is found. The
// script records its arguments in $DIR/argv, DIR being that folder, and
// runs body.
func fakePlayer(t *testing.T, name, body string) (dir string) {
	t.Helper()
	dir = t.TempDir()
	script := "#!/bin/sh\nPATH=/usr/bin:/bin\nDIR='" + dir + "'\nprintf '%s\\n' \"$@\" > \"$DIR/argv\"\n" + body + "\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	return dir
}

func TestPlay(t *testing.T) {
	tests := []struct {
		player string
		opts   []string
	}{
		{"paplay", nil},
		{"pw-play", nil},
		{"aplay", []string{"-q"}},
	}
	for _, tt := range tests {
		t.Run(tt.player, func(t *testing.T) {
			d, f, logs := newTestDesktop(t, icons)
			// The file is the last argument.
			dir := fakePlayer(t, tt.player, `for f; do :; done; cp "$f" "$DIR/played.wav"`)
			if err := d.Send(context.Background(), Note{Kind: Done, Sound: true}); err != nil {
				t.Fatalf("Send(sound) with %s = %v, want nil", tt.player, err)
			}
			closeNow(t, d) // waits for the player
			argv, err := os.ReadFile(filepath.Join(dir, "argv"))
			if err != nil {
				t.Fatalf("%s did not run: %v (log: %s)", tt.player, err, logs)
			}
			want := append(tt.opts, filepath.Join(d.cacheDir, soundName))
			if got := strings.Fields(string(argv)); !reflect.DeepEqual(got, want) {
				t.Errorf("%s got arguments %q, want %q", tt.player, got, want)
			}
			played, err := os.ReadFile(filepath.Join(dir, "played.wav"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(played, chime) {
				t.Errorf("%s played %d bytes, want the %d of the embedded chime", tt.player, len(played), len(chime))
			}
			if w, err := checkWAV(played); err != nil || w.format != 1 {
				t.Errorf("%s played a file that is not PCM WAV: %v, format %d", tt.player, err, w.format)
			}
			if len(f.popups()) != 0 || logs.Len() != 0 {
				t.Errorf("Send(sound only): popups %+v, log %q, want neither", f.popups(), logs)
			}
		})
	}
}

func TestPlayerFailureIsLogged(t *testing.T) {
	d, _, logs := newTestDesktop(t, icons)
	fakePlayer(t, "paplay", "echo 'Connection failure: Connection refused' >&2; exit 1")
	// The player starts, so Send has nothing to report; its failure comes
	// later, in the log.
	if err := d.Send(context.Background(), Note{Kind: Question, Sound: true}); err != nil {
		t.Fatalf("Send(sound) = %v, want nil", err)
	}
	closeNow(t, d)
	for _, want := range []string{"sound player failed", "exit status 1", "Connection refused"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log = %q, want it to contain %q", logs, want)
		}
	}
}

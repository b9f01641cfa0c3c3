package focus

import (
	"errors"
	"slices"
	"testing"
)

func TestFocusMac(t *testing.T) {
	const (
		iterm   = "/Applications/iTerm.app/Contents/MacOS/iTerm2"
		code    = "/Applications/Visual Studio Code.app/Contents/Frameworks/Code Helper (Plugin).app/Contents/MacOS/Code Helper (Plugin)"
		itermSv = "/Users/me/Library/Application Support/iTerm2/iTermServer-3.5.0"
	)
	ps := func(pid string) string { return "ps -o ppid=,comm= -p " + pid }
	osa := func(script string) string { return "osascript -e " + script }
	noID := errors.New("exit status 1")
	tests := []struct {
		name    string
		pid     int
		answers map[string]answer
		want    []string
	}{
		{
			name: "iTerm2 bundle, id from Info.plist",
			pid:  300,
			answers: map[string]answer{
				ps("300"): {out: "  200 /opt/homebrew/bin/node\n"},
				ps("200"): {out: "  100 -zsh\n"},
				ps("100"): {out: "    1 " + iterm + "\n"},
				"defaults read /Applications/iTerm.app/Contents/Info CFBundleIdentifier": {out: "com.googlecode.iterm2\n"},
				osa(`tell application id "com.googlecode.iterm2" to activate`):           {},
			},
			want: []string{ps("300"), ps("200"), ps("100"),
				"defaults read /Applications/iTerm.app/Contents/Info CFBundleIdentifier",
				osa(`tell application id "com.googlecode.iterm2" to activate`)},
		},
		{
			name: "VS Code helper: the outer bundle",
			pid:  300,
			answers: map[string]answer{
				ps("300"): {out: "  200 " + code + "\n"},
				"defaults read /Applications/Visual Studio Code.app/Contents/Info CFBundleIdentifier": {out: "com.microsoft.VSCode\n"},
				osa(`tell application id "com.microsoft.VSCode" to activate`):                         {},
			},
			want: []string{ps("300"),
				"defaults read /Applications/Visual Studio Code.app/Contents/Info CFBundleIdentifier",
				osa(`tell application id "com.microsoft.VSCode" to activate`)},
		},
		{
			name: "no id: by name",
			pid:  300,
			answers: map[string]answer{
				ps("300"): {out: "1 /Applications/My \"Term\".app/Contents/MacOS/term\n"},
				"defaults read /Applications/My \"Term\".app/Contents/Info CFBundleIdentifier": {err: noID},
				osa(`tell application "My \"Term\"" to activate`):                              {},
			},
			want: []string{ps("300"),
				"defaults read /Applications/My \"Term\".app/Contents/Info CFBundleIdentifier",
				osa(`tell application "My \"Term\"" to activate`)},
		},
		{
			name: "iTermServer outside a bundle",
			pid:  300,
			answers: map[string]answer{
				ps("300"): {out: "  200 /bin/zsh\n"},
				ps("200"): {out: "  1 " + itermSv + "\n"},
				osa(`tell application id "com.googlecode.iterm2" to activate`): {},
			},
			want: []string{ps("300"), ps("200"), osa(`tell application id "com.googlecode.iterm2" to activate`)},
		},
		{
			name: "tmux: Terminal as the fallback",
			pid:  300,
			answers: map[string]answer{
				ps("300"): {out: "  200 /opt/homebrew/bin/node\n"},
				ps("200"): {out: "  1 /opt/homebrew/bin/tmux\n"},
				osa(`tell application id "com.apple.Terminal" to activate`): {},
			},
			want: []string{ps("300"), ps("200"), osa(`tell application id "com.apple.Terminal" to activate`)},
		},
		{
			name:    "unknown pid",
			pid:     0,
			answers: map[string]answer{osa(`tell application id "com.apple.Terminal" to activate`): {}},
			want:    []string{osa(`tell application id "com.apple.Terminal" to activate`)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeRun{answers: tt.answers}
			err := focusMac(t.Context(), Target{PID: tt.pid}, system{run: f.run})
			if err != nil {
				t.Errorf("focusMac(%d) = %v", tt.pid, err)
			}
			if !slices.Equal(f.calls, tt.want) {
				t.Errorf("focusMac(%d) ran\n%q\nwant\n%q", tt.pid, f.calls, tt.want)
			}
		})
	}

	// osascript failing is reported.
	f := &fakeRun{answers: map[string]answer{
		`osascript -e tell application id "com.apple.Terminal" to activate`: {err: errors.New("exit status 1")},
	}}
	if err := focusMac(t.Context(), Target{}, system{run: f.run}); err == nil {
		t.Error("focusMac with a failing osascript = nil, want an error")
	}
}

func TestParsePs(t *testing.T) {
	tests := []struct {
		in       string
		wantPPID int
		wantComm string
		wantErr  bool
	}{
		{"  512 /bin/zsh\n", 512, "/bin/zsh", false},
		{"1 /Applications/Visual Studio Code.app/Contents/MacOS/Electron", 1, "/Applications/Visual Studio Code.app/Contents/MacOS/Electron", false},
		{"0 ", 0, "", false},
		{"", 0, "", true},
		{"abc /bin/zsh", 0, "", true},
		{"-3 /bin/zsh", 0, "", true},
	}
	for _, tt := range tests {
		ppid, comm, err := parsePs([]byte(tt.in))
		if ppid != tt.wantPPID || comm != tt.wantComm || (err != nil) != tt.wantErr {
			t.Errorf("parsePs(%q) = %d, %q, %v; want %d, %q, error %v", tt.in, ppid, comm, err, tt.wantPPID, tt.wantComm, tt.wantErr)
		}
	}
}

func TestBundleOf(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/Applications/Utilities/Terminal.app/Contents/MacOS/Terminal", "/Applications/Utilities/Terminal.app"},
		{"/Applications/A.app/Contents/Frameworks/B.app/Contents/MacOS/B", "/Applications/A.app"},
		{"/bin/zsh", ""},
		{"/opt/my.apps/bin/x", ""},
		{"Terminal.app", ""}, // not inside the bundle
	}
	for _, tt := range tests {
		if got := bundleOf(tt.in); got != tt.want {
			t.Errorf("bundleOf(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAppleString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Terminal", `"Terminal"`},
		{`say "hi"`, `"say \"hi\""`},
		{`back\slash`, `"back\\slash"`},
	}
	for _, tt := range tests {
		if got := appleString(tt.in); got != tt.want {
			t.Errorf("appleString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

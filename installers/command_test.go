package installers

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommand(t *testing.T) {
	tests := []struct{ binary, want string }{
		{"/usr/local/bin/clawd", "/usr/local/bin/clawd hook claude"},
		{"/home/ann/go/bin/clawd", "/home/ann/go/bin/clawd hook claude"},
		{"/opt/my tools/clawd", `"/opt/my tools/clawd" hook claude`},
		{"C:/Users/Ann Lee/AppData/Local/clawd/clawd.exe", `"C:/Users/Ann Lee/AppData/Local/clawd/clawd.exe" hook claude`},
		{"C:/tools/clawd.exe", "C:/tools/clawd.exe hook claude"},
		{`/opt/a"b/clawd`, `"/opt/a\"b/clawd" hook claude`},
		{"/opt/$HOME/clawd", `"/opt/\$HOME/clawd" hook claude`},
		{"/opt/a`b`/clawd", "\"/opt/a\\`b\\`/clawd\" hook claude"},
		{`/opt/a\b/clawd`, `"/opt/a\\b/clawd" hook claude`},
		{"/opt/it's/clawd", `"/opt/it's/clawd" hook claude`},
		{"/opt/x;y/clawd", `"/opt/x;y/clawd" hook claude`},
		{"/opt/a=b/clawd", `"/opt/a=b/clawd" hook claude`},
		{"/home/josé/bin/clawd", `"/home/josé/bin/clawd" hook claude`},
		{"/opt/v1.2+3_x-y@z%w,v:u/clawd", "/opt/v1.2+3_x-y@z%w,v:u/clawd hook claude"},
	}
	for _, tt := range tests {
		if filepath.Separator == '\\' && strings.Contains(tt.binary, `\`) {
			continue // Command turns Windows separators into slashes
		}
		got := Command(tt.binary, "claude")
		if got != tt.want {
			t.Errorf("Command(%q) = %s, want %s", tt.binary, got, tt.want)
		}
		// Every command clawd writes is recognised as clawd's, with the
		// same path, whatever the binary is called.
		if bin, ok := NewKnown(tt.binary).Ours(got, "claude"); !ok || bin != tt.binary {
			t.Errorf("Known(%q).Ours(Command(%q)) = %q, %v, want the path back", tt.binary, tt.binary, bin, ok)
		}
	}
}

func TestOurs(t *testing.T) {
	known := NewKnown("/opt/tools/ct", `C:\Tools\watcher.exe`)
	tests := []struct {
		cmd        string
		wantBinary string
		wantOK     bool
	}{
		// Clawd's own, current and stale.
		{"/usr/local/bin/clawd hook claude", "/usr/local/bin/clawd", true},
		{"/usr/local/bin/clawd hook claude PreToolUse", "/usr/local/bin/clawd", true},
		{"clawd hook claude", "clawd", true},
		{"~/go/bin/clawd hook claude", "~/go/bin/clawd", true},
		{`"/home/ann/old builds/clawd" hook claude`, "/home/ann/old builds/clawd", true},
		{`"/home/ann/old builds/clawd" hook claude Stop`, "/home/ann/old builds/clawd", true},
		{`"C:/Users/Ann Lee/AppData/Local/clawd/clawd.exe" hook claude`, "C:/Users/Ann Lee/AppData/Local/clawd/clawd.exe", true},
		{`C:\tools\clawd.exe hook claude`, `C:\tools\clawd.exe`, true},
		{`"C:\Program Files\clawd\CLAWD.EXE" hook claude`, `C:\Program Files\clawd\CLAWD.EXE`, true},
		{`"/opt/\$x/clawd" hook claude`, "/opt/$x/clawd", true},

		// Named like clawd: builds, versions, packages.
		{"/usr/local/bin/clawd-dev hook claude", "/usr/local/bin/clawd-dev", true},
		{"/usr/local/bin/clawd-1.4 hook claude", "/usr/local/bin/clawd-1.4", true},
		{"/home/ann/bin/clawd_test hook claude", "/home/ann/bin/clawd_test", true},
		{"/opt/clawd.1 hook claude Stop", "/opt/clawd.1", true},
		{"/usr/bin/clawd-bin hook claude", "/usr/bin/clawd-bin", true},
		{"/usr/bin/clawd2 hook claude", "/usr/bin/clawd2", true},
		{`"/home/ann/my tools/clawd" hook claude`, "/home/ann/my tools/clawd", true},
		{`D:\bin\Clawd-Dev.EXE hook claude`, `D:\bin\Clawd-Dev.EXE`, true},

		// Any name at all, when clawd wrote it (the install record) or it
		// is the running binary.
		{"/opt/tools/ct hook claude", "/opt/tools/ct", true},
		{"/opt/tools/ct hook claude Stop", "/opt/tools/ct", true},
		{`C:/Tools/watcher.exe hook claude`, `C:/Tools/watcher.exe`, true},
		{"/opt/tools/ct2 hook claude", "", false},
		{"/opt/tools/ct hook claude; rm -rf /", "", false},

		// Lookalikes that are not clawd's.
		{"echo clawd hook claude >> log", "", false},
		{"echo clawd hook claude", "", false},
		{"/opt/myclawd/bin/notclawd hook claude", "", false},
		{"/usr/local/bin/clawdbot hook claude", "", false},
		{"/usr/local/bin/clawd.sh hook claude", "", false},
		{"/usr/local/bin/clawd-wrapper.py hook claude", "", false},
		{`C:\bin\clawd.cmd hook claude`, "", false},
		{"/usr/local/bin/clawd/ hook claude", "", false},
		{"/usr/local/bin/clawd hook claude; rm -rf /", "", false},
		{"/usr/local/bin/clawd hook claude && say hi", "", false},
		{"/usr/local/bin/clawd hook claude Stop extra", "", false},
		{"/usr/local/bin/clawd hook claude ", "", false},
		{"/usr/local/bin/clawd hook claude Pre-Tool", "", false},
		{"/usr/local/bin/clawd  hook claude", "", false},
		{"/usr/local/bin/clawd hook claude-code", "", false},
		{"/usr/local/bin/clawd hook codex", "", false},
		{"/usr/local/bin/clawd hook", "", false},
		{"/usr/local/bin/clawd", "", false},
		{"sudo /usr/local/bin/clawd hook claude", "", false},
		{"$HOME/bin/clawd hook claude", "", false},
		{"a;clawd hook claude", "", false},
		{`"/usr/local/bin/clawd hook claude"`, "", false},
		{`"/usr/local/bin/clawd hook claude`, "", false},
		{`'/usr/local/bin/clawd' hook claude`, "", false},
		{`"" hook claude`, "", false},
		{" hook claude", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		bin, ok := known.Ours(tt.cmd, "claude")
		if ok != tt.wantOK || bin != tt.wantBinary {
			t.Errorf("Ours(%q) = %q, %v, want %q, %v", tt.cmd, bin, ok, tt.wantBinary, tt.wantOK)
		}
	}
	// Without the record, a binary not named like clawd is not clawd's.
	if bin, ok := (Known{}).Ours("/opt/tools/ct hook claude", "claude"); ok {
		t.Errorf("Known{}.Ours(/opt/tools/ct hook claude) = %q, true; want false", bin)
	}
	// With adds to a copy.
	k2 := known.With("/srv/x")
	if _, ok := k2.Ours("/srv/x hook claude", "claude"); !ok {
		t.Error("Known.With(/srv/x) does not own /srv/x hook claude")
	}
	if _, ok := known.Ours("/srv/x hook claude", "claude"); ok {
		t.Error("Known.With changed the Known it was called on")
	}
}

func TestCheckBinary(t *testing.T) {
	if filepath.Separator != '/' {
		t.Skip("the cases are POSIX paths")
	}
	tests := []struct {
		path    string
		wantErr bool
		is      error
	}{
		{"/usr/local/bin/clawd", false, nil},
		{"/tmp/testscript-main123/bin/clawd", false, nil},
		{"/tmp/go-build1234/b001/cmd.test", false, nil},
		{"/tmp/go-build2650417279/b001/exe/clawd", true, ErrTemporaryBinary},
		{"/home/ann/.cache/go-build/tmp/go-build99/b001/exe/clawd", true, ErrTemporaryBinary},
		{"/tmp/go-build77/b001/exe/clawd-fork", true, ErrTemporaryBinary},
		{"/tmp/go-build77/b001/exe/clawd.exe", true, ErrTemporaryBinary},
		{"/root/.cache/go-build/55/55020f962e0d3aa7136e75dcefb5f422da94256b5cd6f9efe439dbe1f09b3e48-d/clawd", true, ErrTemporaryBinary},
		{"/srv/cache/ab/" + strings.Repeat("0a", 32) + "-d/clawd-fork", true, ErrTemporaryBinary},
		{"/opt/ab/" + strings.Repeat("0a", 31) + "-d/clawd", false, nil},
		{"/home/ann/exe/clawd", false, nil},
		{"/home/ann/go-build/bin/clawd", false, nil},
		{"bin/clawd", true, nil},
		{"/opt/\xff/clawd", true, nil},
	}
	for _, tt := range tests {
		err := CheckBinary(tt.path)
		if (err != nil) != tt.wantErr {
			t.Errorf("CheckBinary(%q) = %v, want error %v", tt.path, err, tt.wantErr)
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("CheckBinary(%q) = %v, want %v", tt.path, err, tt.is)
		}
	}
}

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
		// same path.
		if bin, ok := ParseCommand(got, "claude"); !ok || bin != tt.binary {
			t.Errorf("ParseCommand(Command(%q)) = %q, %v, want the path back", tt.binary, bin, ok)
		}
	}
}

func TestParseCommand(t *testing.T) {
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

		// Lookalikes that are not clawd's.
		{"echo clawd hook claude >> log", "", false},
		{"echo clawd hook claude", "", false},
		{"/opt/myclawd/bin/notclawd hook claude", "", false},
		{"/usr/local/bin/clawd-dev hook claude", "", false},
		{"/usr/local/bin/clawd.sh hook claude", "", false},
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
		bin, ok := ParseCommand(tt.cmd, "claude")
		if ok != tt.wantOK || bin != tt.wantBinary {
			t.Errorf("ParseCommand(%q) = %q, %v, want %q, %v", tt.cmd, bin, ok, tt.wantBinary, tt.wantOK)
		}
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

package autostart

import (
	"path/filepath"
	"testing"

	"github.com/clawdhq/clawd/internal/golden"
)

// checkGolden compares got with testdata/name (see internal/golden).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

// TestEntriesGolden pins each platform's entry, for a binary in a folder
// with a blank and a clawd home that is not the default: every platform's
// file is checked on every platform.
func TestEntriesGolden(t *testing.T) {
	env := []string{"CLAWD_HOME=/home/u/.clawd-work"}
	checkGolden(t, "clawd.service", SystemdUnit("/opt/clawd tools/bin/clawd", env))
	checkGolden(t, "clawd.desktop", DesktopEntry("/opt/clawd tools/bin/clawd", env))
	checkGolden(t, "com.clawdhq.clawd.plist", LaunchAgent("/Applications/clawd tools/clawd", env, "/Users/u/.clawd-work/serve.log"))
	checkGolden(t, "run-value.txt", []byte(RunValue(`C:\Users\u\AppData\Local\Programs\clawd\clawd.exe`)+"\n"))
}

// TestPackagedUnit: the .deb and .rpm ship the unit of /usr/bin/clawd
// (goreleaser.yaml takes packaging/clawd.service).
func TestPackagedUnit(t *testing.T) {
	checkGolden(t, filepath.Join("..", "..", "..", "packaging", "clawd.service"), SystemdUnit("/usr/bin/clawd", nil))
}

// TestEntriesRoundTrip checks that Check reads back the binary every
// entry was written with, however odd its path.
func TestEntriesRoundTrip(t *testing.T) {
	for _, bin := range []string{
		"/usr/local/bin/clawd",
		"/opt/clawd tools/clawd",
		`/home/u/100%/$HOME/"q"/back\slash/clawd`,
		"/home/u/用户/clawd",
	} {
		if got := unitBinary(SystemdUnit(bin, []string{"CLAWD_HOME=/x y"})); got != bin {
			t.Errorf("unitBinary(SystemdUnit(%q)) = %q", bin, got)
		}
		if got := desktopBinary(DesktopEntry(bin, []string{"CLAWD_HOME=/x y"})); got != bin {
			t.Errorf("desktopBinary(DesktopEntry(%q)) = %q", bin, got)
		}
		if got := desktopBinary(DesktopEntry(bin, nil)); got != bin {
			t.Errorf("desktopBinary(DesktopEntry(%q, no env)) = %q", bin, got)
		}
		if got := plistBinary(LaunchAgent(bin, []string{"CLAWD_HOME=/x<y>"}, "/l&og")); got != bin {
			t.Errorf("plistBinary(LaunchAgent(%q)) = %q", bin, got)
		}
	}
	win := `C:\Program Files\clawd\clawd.exe`
	if got := runValueBinary(RunValue(win)); got != win {
		t.Errorf("runValueBinary(RunValue(%q)) = %q", win, got)
	}
}

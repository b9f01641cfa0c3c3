package fakedesktop

import (
	"fmt"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Values testdata/traydemo uses and the tests look for.
const (
	demoAppName        = "fakedesktop-demo"
	demoTitle          = "demo"
	demoTooltip        = "demo tooltip"
	demoIconW, demoIcH = 22, 16
)

var (
	demoRed  = color.NRGBA{R: 0xff, A: 0xff}
	demoBlue = color.NRGBA{B: 0xff, A: 0xff}
)

// demoDir holds the demo binary, built once per test run.
var (
	demoDir   string
	demoOnce  sync.Once
	demoPath  string
	demoBuild error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if demoDir != "" {
		os.RemoveAll(demoDir)
	}
	os.Exit(code)
}

// demoCommand returns a command that runs testdata/traydemo in mode. The
// demo is built with go build, without -race: fyne.io/systray v1.12.2 races
// on its own menu version, which is not what these tests are about.
func demoCommand(t *testing.T, mode string) *exec.Cmd {
	t.Helper()
	demoOnce.Do(func() {
		demoDir, demoBuild = os.MkdirTemp("", "traydemo")
		if demoBuild != nil {
			return
		}
		demoPath = filepath.Join(demoDir, "traydemo")
		out, err := exec.Command("go", "build", "-o", demoPath, "./testdata/traydemo").CombinedOutput()
		if err != nil {
			demoBuild = fmt.Errorf("go build ./testdata/traydemo: %v\n%s", err, out)
		}
	})
	if demoBuild != nil {
		t.Fatal(demoBuild)
	}
	return exec.Command(demoPath, mode)
}

package release

import (
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"testing"
)

// runner runs a release binary, maybe of another OS or CPU, here: an
// argv prefix (an emulator) and environment.
type runner struct {
	argv []string
	env  []string
}

// command runs the binary at path with args.
func (r runner) command(path string, args ...string) *exec.Cmd {
	argv := append(append(append([]string{}, r.argv...), path), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), r.env...)
	return cmd
}

// runnerFor returns how to run a binary for goos/goarch on this machine:
// directly for its own, qemu-user for linux/arm64 on linux/amd64, Wine
// for windows/amd64 on linux/amd64 (scripts/install-tools.sh installs
// both). A target with no way to run it here fails the test, unless it is
// macOS, which nothing here runs.
func runnerFor(t *testing.T, goos, goarch string) (runner, bool) {
	t.Helper()
	switch {
	case goos == goruntime.GOOS && goarch == goruntime.GOARCH:
		return runner{}, true
	case goos == "darwin":
		return runner{}, false
	case goruntime.GOOS != "linux" || goruntime.GOARCH != "amd64":
		t.Logf("no way to run %s/%s binaries on %s/%s", goos, goarch, goruntime.GOOS, goruntime.GOARCH)
		return runner{}, false
	case goos == "linux" && goarch == "arm64":
		q, err := exec.LookPath("qemu-aarch64-static")
		if err != nil {
			t.Fatalf("qemu-aarch64-static: %v: run bash scripts/install-tools.sh", err)
		}
		return runner{argv: []string{q}}, true
	case goos == "windows" && goarch == "amd64":
		return wine(t), true
	}
	t.Fatalf("no way to run %s/%s binaries here", goos, goarch)
	return runner{}, false
}

// winePaths are where Debian puts Wine's 64-bit loader.
var winePaths = []string{"/usr/lib/wine/wine64", "/usr/lib/wine/wine"}

// wine makes a Wine prefix in a temporary folder, with the
// bcryptprimitives.dll Go needs (testdata/bcryptprimitives.c), and returns
// the runner of Windows binaries in it. The prefix's wineserver is stopped
// when the test ends.
func wine(t *testing.T) runner {
	t.Helper()
	loader := ""
	for _, p := range winePaths {
		if _, err := os.Stat(p); err == nil {
			loader = p
			break
		}
	}
	if loader == "" {
		t.Fatalf("no Wine (%v): run bash scripts/install-tools.sh", winePaths)
	}
	prefix := filepath.Join(t.TempDir(), "wine")
	r := runner{argv: []string{loader}, env: []string{"WINEPREFIX=" + prefix, "WINEDEBUG=-all", "DISPLAY=", "WAYLAND_DISPLAY="}}
	server := filepath.Join(filepath.Dir(loader), "wineserver")
	t.Cleanup(func() {
		cmd := exec.Command(server, "-k")
		cmd.Env = append(os.Environ(), r.env...)
		cmd.Run() // none may be left to kill
	})
	boot := r.command("wineboot", "--init")
	if out, err := boot.CombinedOutput(); err != nil {
		t.Fatalf("wineboot --init: %v\n%s", err, out)
	}
	wait := exec.Command(server, "-w")
	wait.Env = append(os.Environ(), r.env...)
	if out, err := wait.CombinedOutput(); err != nil {
		t.Fatalf("wineserver -w: %v\n%s", err, out)
	}
	dll := filepath.Join(prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll")
	cc := exec.Command("x86_64-w64-mingw32-gcc", "-shared", "-O2", "-s", "-o", dll,
		filepath.Join("testdata", "bcryptprimitives.c"), "-ladvapi32")
	if out, err := cc.CombinedOutput(); err != nil {
		t.Fatalf("build bcryptprimitives.dll: %v\n%s", err, out)
	}
	return r
}

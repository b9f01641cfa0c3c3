package tray

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// server is the runtime's server package, which the tray must not import.
const server = "github.com/clawdhq/clawd/runtime"

// deps lists what the packages matching pattern import, directly or not.
func deps(t *testing.T, pattern string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pattern).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pattern, err)
	}
	return strings.Fields(string(out))
}

// TestTrayIsAClient: the tray and the notifier know the runtime only by
// runtime/client's types and the small interfaces they declare, so they
// could as well follow a runtime over its local API. No package of the
// tray imports the server.
func TestTrayIsAClient(t *testing.T) {
	if !slices.Contains(deps(t, "../cmd"), server) {
		t.Fatalf("go list -deps ../cmd lacks %s: the check below would prove nothing", server)
	}
	if slices.Contains(deps(t, "./..."), server) {
		t.Errorf("go list -deps ./tray/... has %s: the tray is to be a client of the runtime, with client types only", server)
	}
}

// trayPkgs are the packages of clawd's tray/ among deps.
func trayPkgs(deps []string) []string {
	const tray = "github.com/clawdhq/clawd/tray"
	var out []string
	for _, d := range deps {
		if d == tray || strings.HasPrefix(d, tray+"/") {
			out = append(out, d)
		}
	}
	return out
}

// TestRuntimeImportsNoTray: the runtime is below the tray, which is one
// of its clients; what both need of the desktop (internal/present,
// internal/icons, internal/focus) lives under internal/. No package of
// runtime/ imports one of tray/, directly or not.
func TestRuntimeImportsNoTray(t *testing.T) {
	if len(trayPkgs(deps(t, "../cmd"))) == 0 {
		t.Fatal("go list -deps ../cmd lists no package of tray/: the check below would prove nothing")
	}
	if got := trayPkgs(deps(t, "../runtime/...")); len(got) > 0 {
		t.Errorf("go list -deps ./runtime/... has %v: the runtime must not import the tray's packages", got)
	}
}

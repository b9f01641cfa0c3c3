package release

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"
)

// modulePath is clawd's module path, which README's go install line names.
const modulePath = "github.com/clawdhq/clawd"

// TestGoInstallLatest runs README's `CGO_ENABLED=0 go install
// github.com/clawdhq/clawd@latest` with an empty GOPATH (so an empty module
// cache) against a module proxy that holds this repository as the
// module's one release, v0.0.1, in front of the real proxy, which serves
// every dependency. That is what a person's go install does once clawd is
// tagged: it ignores replace directives and the work tree's state, and
// checks every dependency against go.sum. The binary it builds must be
// static and report the module version (clawd version's fallback to
// debug.ReadBuildInfo).
func TestGoInstallLatest(t *testing.T) {
	t.Parallel()
	const ver = "v0.0.1"
	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	writeModule(t, proxy, ver)

	upstream, err := exec.Command("go", "env", "GOPROXY").Output()
	if err != nil {
		t.Fatalf("go env GOPROXY: %v", err)
	}
	gopath := filepath.Join(tmp, "gopath")
	cmd := exec.Command("go", "install", modulePath+"@latest")
	cmd.Dir = tmp // outside any module
	cmd.Env = append(os.Environ(),
		"GOPATH="+gopath, "GOMODCACHE=", "GOBIN=", "GOWORK=off", "GOFLAGS=-modcacherw",
		"CGO_ENABLED=0", "GOTOOLCHAIN=local",
		// The file proxy answers 404 for everything but clawd: the rest
		// comes from the usual proxy.
		"GOPROXY=file://"+filepath.ToSlash(proxy)+","+strings.TrimSpace(string(upstream)),
		// clawd v0.0.1 is in no checksum database; its dependencies are
		// checked against its go.sum.
		"GONOSUMDB="+modulePath, "GOPRIVATE=", "GONOPROXY=")
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install %s@latest: %v\n%s", modulePath, err, out)
	}
	t.Logf("go install %s@latest with an empty GOPATH: %s", modulePath, time.Since(start).Round(time.Second))

	exe := filepath.Join(gopath, "bin", "clawd")
	if goruntime.GOOS == "windows" {
		exe += ".exe"
	}
	bin, err := os.ReadFile(exe)
	if err != nil {
		t.Fatalf("go install left no binary in GOPATH/bin: %v", err)
	}
	if goruntime.GOOS == "linux" {
		checkStaticELF(t, "go install", bin)
	}
	out, err := exec.Command(exe, "version", "--json").Output()
	if err != nil {
		t.Fatalf("clawd version --json: %v", err)
	}
	var got struct{ Version, Go string }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("clawd version --json = %s: %v", out, err)
	}
	if got.Version != ver || got.Go != goruntime.Version() {
		t.Errorf("clawd version --json = %s, want version %s and %s", out, ver, goruntime.Version())
	}
}

// writeModule lays out a GOPROXY folder (the proxy protocol, as files)
// whose only module is this repository at version ver.
func writeModule(t *testing.T, proxy, ver string) {
	t.Helper()
	dir := filepath.Join(proxy, filepath.FromSlash(modulePath), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	var gomod []byte
	for _, f := range repoFiles(t) {
		if f.name == "go.mod" {
			gomod = f.data
		}
		w, err := zw.Create(modulePath + "@" + ver + "/" + f.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]any{"Version": ver, "Time": time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	for name, data := range map[string][]byte{
		"list": []byte(ver + "\n"), ver + ".info": info, ver + ".mod": gomod, ver + ".zip": buf.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

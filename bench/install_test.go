//go:build unix

package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// largeSettings is a Claude Code settings.json of about size bytes in
// Claude's own layout: a long permissions list (people paste thousands of
// rules) and a hook of another tool, so that install adds to an existing
// "hooks" object.
func largeSettings(size int) []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"permissions\": {\n    \"allow\": [\n")
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "      \"Bash(npm run build:target-%07d -- --flag)\"", i)
	}
	b.WriteString("\n    ]\n  },\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n" +
		"            \"type\": \"command\",\n            \"command\": \"notify-send done\"\n          }\n        ]\n      }\n    ]\n  }\n}\n")
	return b.Bytes()
}

// BenchmarkInstallLargeSettings runs `clawd install claude` and then
// `clawd uninstall claude` as whole processes on a 20 MB settings file,
// and reports each one's wall time and peak resident memory (the target:
// about a second, and 200 MB at most). The uninstall must give the file
// back byte for byte.
func BenchmarkInstallLargeSettings(b *testing.B) {
	bin := clawdBinary(b)
	orig := largeSettings(20 << 20)
	home := b.TempDir()
	settings := filepath.Join(home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		b.Fatal(err)
	}
	env := append(os.Environ(), "HOME="+home, "CLAWD_HOME="+filepath.Join(home, ".clawd"), "CLAUDE_CONFIG_DIR=")
	var install, uninstall time.Duration
	var installRSS, uninstallRSS int64
	for b.Loop() {
		b.StopTimer()
		if err := os.WriteFile(settings, orig, 0o644); err != nil {
			b.Fatal(err)
		}
		os.Remove(settings + ".clawd-backup")
		b.StartTimer()
		d, rss := runClawd(b, bin, env, "install", "claude")
		install += d
		installRSS = max(installRSS, rss)
		d, rss = runClawd(b, bin, env, "uninstall", "claude")
		uninstall += d
		uninstallRSS = max(uninstallRSS, rss)
	}
	got, err := os.ReadFile(settings)
	if err != nil || !bytes.Equal(got, orig) {
		b.Fatalf("settings after install and uninstall differ from the original (%v)", err)
	}
	n := float64(b.N)
	b.ReportMetric(float64(install.Milliseconds())/n, "install-ms/op")
	b.ReportMetric(float64(uninstall.Milliseconds())/n, "uninstall-ms/op")
	b.ReportMetric(float64(installRSS)/1024, "install-maxrss-MB")
	b.ReportMetric(float64(uninstallRSS)/1024, "uninstall-maxrss-MB")
}

// runClawd runs clawd with args and returns its wall time and peak
// resident set in KiB; it fails b unless clawd exits 0.
func runClawd(b *testing.B, bin string, env []string, args ...string) (time.Duration, int64) {
	b.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("clawd %s: %v\n%s", strings.Join(args, " "), err, out.Bytes())
	}
	d := time.Since(start)
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru == nil {
		return d, 0
	}
	return d, ru.Maxrss
}

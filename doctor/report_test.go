package doctor

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/runtime/client"
)

// TestReportRedacts: a report to share carries the version, the OS, the
// checks and hook.log's last lines, and none of the API token, things
// that look like secrets, or the home folder's path.
func TestReportRedacts(t *testing.T) {
	home := t.TempDir()
	clawd := filepath.Join(home, ".clawd")
	token := strings.Repeat("ab12", 16)
	if err := client.WriteInfo(clawd, client.Info{Port: 23333, PID: 1, Token: token}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(clawd, "logs"), 0o700); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	for i := range 60 {
		log.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	log.WriteString(`time=x level=WARN msg="runtime not reachable" cwd=` + home + `/src/app api_key=sk-ant-REDACTME0123456789 Authorization: Bearer tok3n.value` + "\n")
	if err := os.WriteFile(filepath.Join(clawd, "logs", "hook.log"), []byte(log.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	o := Options{Home: clawd, Version: "1.2.3", Binary: home + "/bin/clawd", Now: func() time.Time { return time.Unix(0, 0) },
		Getenv: func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		}}
	r := Report{Checks: []Check{{ID: "runtime.token", Status: Fail, Finding: "token " + token + " in " + clawd + "/runtime.json", Fix: "chmod 600"}}}
	var b bytes.Buffer
	if err := WriteReport(&b, o, r); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, secret := range []string{token, home, "sk-ant-REDACTME", "tok3n.value"} {
		if strings.Contains(got, secret) {
			t.Errorf("the report holds %q:\n%s", secret, got)
		}
	}
	for _, want := range []string{"clawd: 1.2.3\n", "binary: ~/bin/clawd\n", "os: ", "fail    runtime.token: ", "~/.clawd/runtime.json",
		"cwd=~/src/app", "## ~/.clawd/logs/hook.log (last 50 lines)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "line 10\n") || !strings.Contains(got, "\nline 11\n") {
		t.Errorf("the report has more than the last 50 lines:\n%s", got)
	}
}

//go:build !windows

package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/installers"
)

// ompPhasesHost loads clawd's OMP extension under OMP's own Bun (argv[2])
// with a stand-in for OMP's extension API, and fires what one OMP could:
// a turn whose agent_end will continue, one that ends without
// session_stop, one that session_stop and agent_end settle, a switch to
// another session, a branch, and the exit.
const ompPhasesHost = `
const handlers = {}
const omp = { on: (name, fn) => { (handlers[name] ||= []).push(fn) }, getSessionName: () => "" }
;(await import(process.argv[2])).default(omp)
let sid = "A"
const ctx = () => ({ sessionManager: { getSessionId: () => sid, getSessionFile: () => "/s/" + sid + ".jsonl" }, cwd: "/work/p", hasUI: true })
const fire = async (name, ev = {}) => { for (const fn of handlers[name] || []) await fn({ type: name, ...ev }, ctx()) }
await fire("session_start", { reason: "startup" })
await fire("before_agent_start", { prompt: "first" })
await fire("agent_end", { willContinue: true })
await fire("agent_end", {})
await fire("session_stop", {})
await fire("agent_end", { willContinue: true })
await fire("agent_end", {})
sid = "B"
await fire("session_switch", { reason: "resume" })
await fire("before_agent_start", { prompt: "second" })
await fire("session_stop", {})
sid = "C"
await fire("session_branch", {})
await fire("agent_end", {})
await fire("session_shutdown", { reason: "quit" })
`

// TestOMPExtensionPhases: of the agent_ends, clawd's OMP extension sends
// only the one session_stop settled and that will not continue; a switch
// and a branch end the session left (reason switch, branch) before the
// new one starts, a candidate of the session left dies with it; the exit
// ends the last. The extension runs under OMP's own Bun.
func TestOMPExtensionPhases(t *testing.T) {
	t.Parallel()
	bun := cachedCLI(t, "Bun (for OMP)", ompVersion, "CLAWD_E2E_OMP_BUN", "omp", "node_modules", "bun", "bin", "bun.exe")
	dir := t.TempDir()
	log := filepath.Join(dir, "hooks.log")
	clawd := filepath.Join(dir, "clawd")
	fake := "#!/bin/sh\nprintf '%s ' \"$3\" >>" + log + "\ncat >>" + log + "\necho >>" + log + "\n"
	if err := os.WriteFile(clawd, []byte(fake), 0o700); err != nil {
		t.Fatal(err)
	}
	ext, _ := installers.OMPExtension(clawd)
	extFile := filepath.Join(dir, "clawd.ts")
	host := filepath.Join(dir, "host.ts")
	if err := os.WriteFile(extFile, ext, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(host, []byte(ompPhasesHost), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bun, host, extFile)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bun host: %v\n%s", err, out)
	}
	want := []string{
		"session_start A startup", "before_agent_start A", "agent_end A",
		"session_shutdown A switch", "session_switch B resume", "before_agent_start B",
		"session_shutdown B branch", "session_branch C", "session_shutdown C quit",
	}
	var got []string
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(log)
		got = got[:0]
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		for sc.Scan() {
			name, body, _ := strings.Cut(sc.Text(), " ")
			var b struct {
				SessionID string `json:"session_id"`
				Reason    string `json:"reason"`
				Prompt    string `json:"prompt"`
			}
			if err := json.Unmarshal([]byte(body), &b); err != nil {
				t.Fatalf("%s: %v: %s", name, err, body)
			}
			if name == "session_shutdown" && b.Prompt != "" {
				t.Errorf("the synthetic end carries the prompt: %s", body)
			}
			got = append(got, strings.TrimSpace(name+" "+b.SessionID+" "+b.Reason))
		}
		if len(got) >= len(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the extension sent:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

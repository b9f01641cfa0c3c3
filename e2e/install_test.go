package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeopenai"
)

// codexListedHook is one hook as Codex itself lists it (app-server's
// hooks/list): where it is, what it runs and whether Codex trusts it.
type codexListedHook struct {
	Key         string `json:"key"`
	EventName   string `json:"eventName"`
	Command     string `json:"command"`
	SourcePath  string `json:"sourcePath"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
	Enabled     bool   `json:"enabled"`
}

// codexHooksList asks the real Codex which hooks it would run in the
// project folder and whether it trusts them: `codex app-server` on stdio,
// JSON-RPC initialize → initialized → hooks/list (codex-hooks.md §3.8).
func (w *codexWorld) codexHooksList(ctx context.Context) []codexListedHook {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.bin, "app-server")
	cmd.Env = w.codexEnv()
	cmd.Dir = w.project
	stdin, err := cmd.StdinPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		w.t.Fatalf("codex app-server: %v", err)
	}
	defer func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 16<<20)
	send := func(msg map[string]any) {
		b, _ := json.Marshal(msg)
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			w.t.Fatalf("codex app-server: write: %v; stderr:\n%s", err, stderr.String())
		}
	}
	call := func(id int, method string, params any) json.RawMessage {
		send(map[string]any{"id": id, "method": method, "params": params})
		for lines.Scan() {
			var m struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(lines.Bytes(), &m) != nil || m.ID == nil || *m.ID != id {
				continue // a notification, or not ours
			}
			if m.Error != nil {
				w.t.Fatalf("codex app-server %s: %s", method, m.Error)
			}
			return m.Result
		}
		w.t.Fatalf("codex app-server ended before answering %s (%v); stderr:\n%s", method, lines.Err(), stderr.String())
		return nil
	}
	call(1, "initialize", map[string]any{"clientInfo": map[string]any{"name": "clawd-e2e", "version": "0"}})
	send(map[string]any{"method": "initialized"})
	var res struct {
		Data []struct {
			Hooks []codexListedHook `json:"hooks"`
		} `json:"data"`
	}
	raw := call(2, "hooks/list", map[string]any{"cwds": []string{w.project}})
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Data) != 1 {
		w.t.Fatalf("hooks/list answered %s (%v)", raw, err)
	}
	return res.Data[0].Hooks
}

// checkCodexTrusts asks Codex whether it trusts every hook in its files:
// want handlers run binary (one per event of clawd's), and every hook,
// clawd's and the others, is trusted.
func (w *codexWorld) checkCodexTrusts(ctx context.Context, binary string, want int) {
	w.t.Helper()
	hooks := w.codexHooksList(ctx)
	ours := 0
	for _, h := range hooks {
		if strings.HasPrefix(strings.Trim(h.Command, `"`), binary) || strings.HasPrefix(h.Command, `"`+binary+`"`) {
			ours++
		}
		if h.TrustStatus != "trusted" || !h.Enabled {
			w.t.Errorf("Codex lists hook %s (%s) as %s, enabled %v; want trusted", h.Key, h.Command, h.TrustStatus, h.Enabled)
		}
	}
	if ours != want {
		w.t.Errorf("Codex lists %d hooks running %s, want %d; all: %+v", ours, binary, want, hooks)
	}
}

// TestCodexInstallRenamedBinary installs into Codex with a clawd binary
// that has neither clawd's name nor a plain path (a development build in a
// folder with a space), beside another tool's hook that the person
// trusted, and asks the real Codex whether it trusts them all; then the
// binary is renamed to a name of its own and installed again: repaired in
// place, re-trusted, no duplicates; uninstall by the renamed binary gives
// back both files byte for byte.
func TestCodexInstallRenamedBinary(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	w := newCodexWorld(t)
	w.startOpenAI(fakeopenai.Script{})
	foreign := `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "true"
          }
        ]
      }
    ]
  }
}
`
	if err := os.WriteFile(w.hooksFile(), []byte(foreign), 0o600); err != nil {
		t.Fatal(err)
	}
	// The person trusted their own hook in Codex's TUI beforehand.
	before := w.codexHooksList(ctx)
	if len(before) != 1 || before[0].TrustStatus != "untrusted" {
		t.Fatalf("before install Codex lists %+v, want the foreign hook, untrusted", before)
	}
	w.userConfig += fmt.Sprintf("\n[hooks.state.%q]\ntrusted_hash = %q\n", before[0].Key, before[0].CurrentHash)
	if err := os.WriteFile(w.configFile(), []byte(w.userConfig), 0o600); err != nil {
		t.Fatal(err)
	}

	bins := filepath.Join(w.dir, "dev builds")
	dev := filepath.Join(bins, "clawd-dev")
	linkFile(t, clawdBin, dev)
	r := w.clawdAs(ctx, dev, "", "install", "codex")
	if r.code != 0 {
		t.Fatalf("clawd-dev install codex: %s", r)
	}
	w.checkCodexTrusts(ctx, dev, len(codexEvents))
	if r := w.clawdAs(ctx, dev, "", "install", "codex"); r.code != 0 || !strings.Contains(r.stdout, "already installed") {
		t.Errorf("second clawd-dev install codex: %s", r)
	}

	renamed := filepath.Join(bins, "agentwatch")
	if err := os.Rename(dev, renamed); err != nil {
		t.Fatal(err)
	}
	if r := w.clawdAs(ctx, renamed, "", "install", "codex"); r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("repaired %d hooks", len(codexEvents))) {
		t.Fatalf("install codex by the renamed binary: %s", r)
	}
	w.checkCodexTrusts(ctx, renamed, len(codexEvents))
	if n := len(w.codexHooksList(ctx)); n != len(codexEvents)+1 {
		t.Errorf("Codex lists %d hooks after the renamed install, want %d (clawd's and the person's, no duplicates)", n, len(codexEvents)+1)
	}

	if r := w.clawdAs(ctx, renamed, "", "uninstall", "codex"); r.code != 0 {
		t.Fatalf("uninstall codex by the renamed binary: %s", r)
	}
	if got, _ := os.ReadFile(w.hooksFile()); string(got) != foreign {
		t.Errorf("hooks.json after uninstall =\n%s\nwant the original\n%s", got, foreign)
	}
	if got, _ := os.ReadFile(w.configFile()); string(got) != w.userConfig {
		t.Errorf("config.toml after uninstall =\n%s\nwant the original\n%s", got, w.userConfig)
	}
	after := w.codexHooksList(ctx)
	if len(after) != 1 || after[0].TrustStatus != "trusted" {
		t.Errorf("after uninstall Codex lists %+v, want the person's hook alone, still trusted", after)
	}
}

// TestGoRunInstallRefused: `go run . install claude` would write the path
// of a binary that `go run` deletes as it exits (or, from the second run
// on, keeps in the build cache, which is trimmed); clawd refuses and
// writes nothing. Run twice, so both kinds of path are met.
func TestGoRunInstallRefused(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	w := newWorld(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		cmd := exec.CommandContext(ctx, "go", "run", ".", "install", "claude")
		cmd.Dir = root
		cmd.Env = append(w.clawdEnv(), goEnv()...)
		r := run(t, cmd)
		if r.code == 0 {
			t.Fatalf("go run . install claude succeeded: %s", r)
		}
		if !strings.Contains(r.stderr, "clawd: clawd is running from a temporary build (") ||
			!strings.Contains(r.stderr, "made by `go run`, is deleted when it exits): install clawd first with `go install github.com/clawdhq/clawd@latest` or `go build`, then run that binary's install") {
			t.Errorf("go run . install claude: stderr %q, want the temporary-build refusal", r.stderr)
		}
	}
	if _, err := os.Stat(w.settingsFile()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("go run . install claude left %s (%v)", w.settingsFile(), err)
	}
}

// goEnv is what the go command needs from the test's own environment to
// build with the same caches.
func goEnv() []string {
	var env []string
	for _, k := range []string{"GOPATH", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN"} {
		if v := os.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	for _, k := range []string{"GOCACHE", "GOMODCACHE"} {
		if os.Getenv(k) == "" {
			if out, err := exec.Command("go", "env", k).Output(); err == nil {
				env = append(env, k+"="+strings.TrimSpace(string(out)))
			}
		}
	}
	return env
}

// linkFile gives the executable at from a second name, to (its folder
// created), with a hard link: a copy would hold the file open for writing,
// and a process another test forks meanwhile inherits that descriptor
// until it execs, so running the copy could fail with "text file busy".
func linkFile(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(from, to); err != nil {
		t.Fatal(err)
	}
}

package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/clawdhome"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/automations"
	"github.com/clawdhq/clawd/runtime/history"
	"github.com/clawdhq/clawd/runtime/recap"
)

// scriptNames are the names this test binary answers to as clawd: its
// own, ones a build or a package gives it, and plain names clawd may be
// renamed to. A copy under any of these names runs clawd.
var scriptNames = []string{"clawd", "clawd-dev", "clawd.1", "agentwatch", "aw"}

// TestMain lets testscript run this test binary as `clawd` (and the other
// scriptNames).
func TestMain(m *testing.M) {
	cmds := map[string]func(){}
	for _, n := range scriptNames {
		cmds[n] = func() {
			os.Exit(Main(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr))
		}
	}
	testscript.Main(m, cmds)
}

// TestScript runs the CLI scripts in testdata/script. In them, clawd is
// this test binary under the name clawd, and $CLAWD_BIN is its path: the
// path `clawd install` writes into agent settings. A link to it under
// another of scriptNames (link $CLAWD_BIN ...) runs clawd too. The command
// codex-trusted checks Codex's trust entries (see cmdCodexTrusted);
// serve-up runs a clawd serve (see cmdServeUp); fits checks the width of
// what the last command printed (see cmdFits); recap-seed gives the
// history a day's work (see cmdRecapSeed). The condition
// [bash-completion] says whether that package is installed.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"codex-trusted": cmdCodexTrusted,
			"link":          cmdLink,
			"drop-events":   cmdDropEvents,
			"dup-event":     cmdDupEvent,
			"stale-trust":   cmdStaleTrust,
			"serve-up":      cmdServeUp,
			"runtime":       cmdRuntime,
			"pending-id":    cmdPendingID,
			"fits":          cmdFits,
			"recap-seed":    cmdRecapSeed,
		},
		Condition: func(cond string) (bool, error) {
			if cond != "bash-completion" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			_, err := os.Stat(bashCompletionScript)
			return err == nil, nil
		},
		Setup: func(env *testscript.Env) error {
			bin, err := exec.LookPath("clawd")
			if err != nil {
				return err
			}
			if bin, err = filepath.EvalSymlinks(bin); err != nil {
				return err
			}
			if bin, err = filepath.Abs(bin); err != nil {
				return err
			}
			env.Setenv("CLAWD_BIN", filepath.ToSlash(bin))
			return nil
		},
	})
}

// scriptRuntimes are the runtimes cmdRuntime started, by script.
var scriptRuntimes sync.Map // *testscript.TestScript → *runtime.Server

// cmdRuntime is the testscript command `runtime [automations]`: a real
// runtime (runtime.Server, headless, with its history, and with
// automations its automations engine) for the script's clawd home
// ($CLAWD_HOME), in
// this process, until the script ends. The script's clawd commands and
// hooks reach it on its socket.
func cmdRuntime(ts *testscript.TestScript, neg bool, args []string) {
	withAutomations := len(args) == 1 && args[0] == "automations"
	if neg || len(args) != 0 && !withAutomations || ts.Getenv("CLAWD_HOME") == "" {
		ts.Fatalf("usage: runtime [automations] (with CLAWD_HOME set)")
	}
	home := ts.Getenv("CLAWD_HOME")
	cfg := runtime.Config{Home: home, Version: "test",
		OpenHistory: func(ctx context.Context) (*history.Store, error) {
			return history.Open(ctx, history.Options{Home: home, Now: time.Now})
		}}
	if withAutomations {
		cfg.OpenAutomations = func(ctx context.Context) (*automations.Engine, error) {
			return automations.Open(ctx, automations.Options{Home: home, Now: time.Now})
		}
	}
	s := runtime.New(cfg)
	stop, err := serveRuntime(s)
	if err != nil {
		ts.Fatalf("runtime: %v", err)
	}
	scriptRuntimes.Store(ts, s)
	ts.Defer(func() {
		stop()
		scriptRuntimes.Delete(ts)
	})
}

// cmdPendingID is the testscript command `pending-id VAR N`: VAR set to
// the first N characters of the id of the oldest pending request of the
// script's runtime (the ids are random).
func cmdPendingID(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: pending-id VAR N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	v, ok := scriptRuntimes.Load(ts)
	if !ok {
		ts.Fatalf("pending-id: no runtime (run `runtime` first)")
	}
	list := v.(*runtime.Server).Permissions()
	if len(list) == 0 {
		ts.Fatalf("pending-id: no request is pending")
	}
	ts.Setenv(args[0], list[0].ID[:min(n, len(list[0].ID))])
}

// cmdFits is the testscript command `fits N`: every line the last command
// wrote to stdout is at most N terminal columns (text.Width); `! fits N`:
// one is wider. Either fails when it wrote nothing.
func cmdFits(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: fits N")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	out := ts.ReadFile("stdout")
	if out == "" {
		ts.Fatalf("fits: the last command printed nothing to measure")
	}
	widest, line := 0, ""
	for _, l := range strings.Split(out, "\n") {
		if w := text.Width(l); w > widest {
			widest, line = w, l
		}
	}
	switch {
	case neg && widest <= n:
		ts.Fatalf("no line of stdout is wider than %d columns (the widest: %d)", n, widest)
	case !neg && widest > n:
		ts.Fatalf("stdout has a line of %d columns, wider than %d:\n%s", widest, n, line)
	}
}

// cmdRecapSeed is the testscript command `recap-seed`: the history of the
// script's clawd home ($CLAWD_HOME, before `runtime` opens it) holds the
// last two hours as seen, and a day's work of claude in /tmp/shop today,
// as a runtime that ran then would have left it.
func cmdRecapSeed(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 || ts.Getenv("CLAWD_HOME") == "" {
		ts.Fatalf("usage: recap-seed (with CLAWD_HOME set)")
	}
	ctx := context.Background()
	now := time.Now()
	s, err := history.Open(ctx, history.Options{Home: ts.Getenv("CLAWD_HOME"), Now: time.Now})
	ts.Check(err)
	defer s.Close()
	_, err = s.Cover(ctx, 0, now.Add(-2*time.Hour), now)
	ts.Check(err)
	sc := recap.Scope{Day: recap.Day(now.In(s.Loc()).Format(recap.DayLayout)), Agent: "claude",
		Folder: s.Hash(recap.HashFolder, "/tmp/shop")}
	ts.Check(s.AddRecap(ctx, recap.Batch{
		Rows: map[recap.Scope]*recap.Counts{sc: {Turns: 3, ToolCalls: 12, Permissions: 1, FailedTurns: 1,
			Waiting: 40 * time.Second, Busy: 9 * time.Minute, Tools: map[string]int{"Bash": 9, "Read": 3}}},
		Sessions: []recap.Seen{{Scope: sc, Session: s.Hash(recap.HashSession, "claude:feed")}},
	}))
}

// cmdLink is the testscript command `link OLD NEW`: a hard link, so that
// an executable gets another name without being copied. A copy holds a
// file open for writing, and a process that another script forks
// meanwhile inherits that descriptor until it execs: running the copy
// then fails with "text file busy".
func cmdLink(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: link OLD NEW")
	}
	ts.Check(os.Link(ts.MkAbs(args[0]), ts.MkAbs(args[1])))
}

// bashCompletionScript is the bash-completion package's script; the
// condition [bash-completion] is whether it is installed.
const bashCompletionScript = "/usr/share/bash-completion/bash_completion"

// cmdServeUp is the testscript command `serve-up`: a clawd serve of this
// version on the script's clawd home, with the script's environment, run
// in this process until the script ends.
func cmdServeUp(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: serve-up")
	}
	s := runtime.New(runtime.Config{Home: clawdhome.Dir(ts.Getenv), Version: Version(), Getenv: ts.Getenv})
	stop, err := serveRuntime(s)
	if err != nil {
		ts.Fatalf("serve-up: %v", err)
	}
	ts.Defer(stop)
}

// cmdDupEvent is the testscript command `dup-event FILE EVENT`: the
// event's first group of hooks twice over, as a merge of two machines'
// settings leaves it (the file written anew, indented).
func cmdDupEvent(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: dup-event FILE EVENT")
	}
	editSettings(ts, args[0], func(hooks map[string]any) {
		groups, _ := hooks[args[1]].([]any)
		if len(groups) == 0 {
			ts.Fatalf("dup-event: %s has no hooks for %s", args[0], args[1])
		}
		hooks[args[1]] = append(groups, groups[0])
	})
}

// cmdStaleTrust is the testscript command `stale-trust FILE N`: the first
// N trusted_hash values of a Codex config.toml replaced by a hash of
// nothing that matters, as an edit by hand or another tool leaves them.
func cmdStaleTrust(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: stale-trust FILE N")
	}
	var n int
	if _, err := fmt.Sscan(args[1], &n); err != nil {
		ts.Fatalf("stale-trust: N: %v", err)
	}
	path := ts.MkAbs(args[0])
	data, err := os.ReadFile(path)
	ts.Check(err)
	re := regexp.MustCompile(`trusted_hash = "sha256:[0-9a-f]{64}"`)
	done := 0
	out := re.ReplaceAllStringFunc(string(data), func(m string) string {
		if done == n {
			return m
		}
		done++
		return `trusted_hash = "sha256:` + strings.Repeat("0", 64) + `"`
	})
	if done != n {
		ts.Fatalf("stale-trust: %s has %d trust entries, want at least %d", args[0], done, n)
	}
	ts.Check(os.WriteFile(path, []byte(out), 0o644))
}

// editSettings rewrites the hooks of the JSON settings file at path with
// edit, as another tool would: the file written anew, indented.
func editSettings(ts *testscript.TestScript, path string, edit func(hooks map[string]any)) {
	path = ts.MkAbs(path)
	var doc map[string]any
	data, err := os.ReadFile(path)
	ts.Check(err)
	ts.Check(json.Unmarshal(data, &doc))
	hooks, _ := doc["hooks"].(map[string]any)
	if hooks == nil {
		ts.Fatalf("%s has no hooks", path)
	}
	edit(hooks)
	out, err := json.MarshalIndent(doc, "", "  ")
	ts.Check(err)
	ts.Check(os.WriteFile(path, append(out, '\n'), 0o644))
}

// cmdDropEvents is the testscript command `drop-events FILE EVENT...`:
// another tool rewriting a settings file (written anew, indented) without
// the hooks of the events named.
func cmdDropEvents(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: drop-events FILE EVENT...")
	}
	editSettings(ts, args[0], func(hooks map[string]any) {
		for _, ev := range args[1:] {
			if _, ok := hooks[ev]; !ok {
				ts.Fatalf("drop-events: %s has no hooks for %s", args[0], ev)
			}
			delete(hooks, ev)
		}
	})
}

// installTestEnv is an env for running install/uninstall in-process with
// HOME at home and the clawd binary at binary.
func installTestEnv(home, binary string) (*env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &env{
		stdin:  strings.NewReader(""),
		stdout: &out,
		stderr: &errb,
		getenv: func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		},
		now:        time.Now,
		executable: func() (string, error) { return binary, nil },
	}, &out, &errb
}

// TestInstallExitCodes checks the exit status of install and uninstall,
// which testscript cannot tell apart beyond zero and non-zero.
func TestInstallExitCodes(t *testing.T) {
	// No claude on PATH here: no release known (agents.Agent.Required).
	installed := fmt.Sprintf("claude: installed %d hooks in ", len(agents.Claude.Required("")))
	// Every agent of the registry, in its order.
	var ids []string
	for _, a := range agents.All() {
		ids = append(ids, a.ID)
	}
	known := strings.Join(ids, ", ")
	tests := []struct {
		name     string
		args     []string
		binary   string
		settings string // "" means no file
		want     int
		stdout   string
		stderr   string
	}{
		{name: "install", args: []string{"install", "--force", "claude"}, want: 0, stdout: installed},
		{name: "alias", args: []string{"install", "--force", "claude-code", "claude"}, want: 0, stdout: installed},
		{name: "not here", args: []string{"install", "claude"}, want: 1, stderr: "clawd: Claude Code is not on this machine: nothing installed\n  no claude on PATH, nothing in "},
		{name: "all", args: []string{"install", "--all"}, want: 0, stdout: "skipped, not on this machine: claude, codex,"},
		{name: "all force", args: []string{"install", "--all", "--force"}, want: 2, stderr: "--force goes with the agents named"},
		{name: "no agent", args: []string{"install"}, want: 2, stderr: "clawd: name the agent to install (clawd install claude) or use --all; agents: " + known + "\n"},
		{name: "no agent uninstall", args: []string{"uninstall"}, want: 2, stderr: "or use --all"},
		{name: "unknown agent", args: []string{"install", "claude", "kodex"}, want: 2, stderr: "clawd: unknown agent \"kodex\"; known agents: " + known + "\n"},
		{name: "unknown agent uninstall", args: []string{"uninstall", "kodex"}, want: 2, stderr: "unknown agent \"kodex\""},
		{name: "bad flag", args: []string{"install", "--forse", "claude"}, want: 2, stderr: "flag provided but not defined"},
		{
			name: "go run binary", args: []string{"install", "--force", "claude"}, binary: "/tmp/go-build42/b001/exe/clawd",
			want: 1, stderr: "clawd: clawd is running from a temporary build (/tmp/go-build42/b001/exe/clawd, made by `go run`, is deleted when it exits): install clawd first",
		},
		{
			name: "malformed", args: []string{"install", "claude"}, settings: "{\n  \"a\": 1,\n}\n",
			want: 1, stderr: "clawd: claude: ", // then the path and position, see install_malformed.txtar
		},
		{
			name: "malformed uninstall", args: []string{"uninstall", "--all"}, settings: "{\n  \"a\": 1,\n}\n",
			want: 1, stderr: "invalid JSON at line 2, column 9: trailing comma before '}'",
		},
		{name: "uninstall nothing", args: []string{"uninstall", "claude"}, want: 0, stdout: "claude: not installed in "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if tt.settings != "" {
				if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(tt.settings), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			binary := tt.binary
			if binary == "" {
				binary = "/usr/local/bin/clawd"
			}
			e, out, errb := installTestEnv(home, binary)
			got := run(context.Background(), e, append([]string{"clawd"}, tt.args...))
			if got != tt.want {
				t.Errorf("clawd %s exited %d, want %d; stderr %q", strings.Join(tt.args, " "), got, tt.want, errb)
			}
			if !strings.Contains(out.String(), tt.stdout) {
				t.Errorf("clawd %s stdout = %q, want it to contain %q", strings.Join(tt.args, " "), out, tt.stdout)
			}
			if tt.stderr == "" && errb.Len() > 0 || !strings.Contains(errb.String(), tt.stderr) {
				t.Errorf("clawd %s stderr = %q, want it to contain %q", strings.Join(tt.args, " "), errb, tt.stderr)
			}
			if tt.settings != "" {
				b, err := os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
				if err != nil || string(b) != tt.settings {
					t.Errorf("settings changed to %q (%v)", b, err)
				}
			}
			if tt.want != 0 && tt.settings == "" {
				if _, err := os.Stat(filepath.Join(home, ".claude")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("a failed clawd %s created %s", strings.Join(tt.args, " "), filepath.Join(home, ".claude"))
				}
			}
		})
	}
}

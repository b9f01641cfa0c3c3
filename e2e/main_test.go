package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/fakeanthropic"
	"github.com/clawdhq/clawd/runtime/client"
)

// clawdBin is the clawd binary TestMain built for this run; clawdTrayBin
// is the one `clawd serve` runs with a tray (see testMain).
var clawdBin, clawdTrayBin string

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "clawd-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	root, err := filepath.Abs("..")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	// CLAWD_E2E_TAP names a folder where every clawd hook of the run
	// leaves a copy of its payload (cmd.hookTapDir): scripts/drift.sh
	// compares what a new release of an agent sends with the pinned one.
	tap := os.Getenv("CLAWD_E2E_TAP")
	if tap != "" {
		if tap, err = filepath.Abs(tap); err == nil {
			err = os.MkdirAll(tap, 0o700)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "e2e: CLAWD_E2E_TAP:", err)
			return 1
		}
	}
	build := func(name string, race bool) (string, error) {
		bin := filepath.Join(dir, name)
		if goruntime.GOOS == "windows" {
			bin += ".exe"
		}
		args := []string{"build", "-o", bin}
		if race {
			args = append(args, "-race")
		}
		if tap != "" {
			args = append(args, "-ldflags", "-X github.com/clawdhq/clawd/cmd.hookTapDir="+tap)
		}
		cmd := exec.Command("go", append(args, ".")...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go %s in %s: %v\n%s", strings.Join(args, " "), root, err, out)
		}
		return bin, nil
	}
	if clawdBin, err = build("clawd", raceEnabled); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	// fyne.io/systray v1.12.2 races with itself (GetLayout reads the menu
	// revision that refresh writes; fyne-io/systray#12), so a -race clawd
	// with a tray exits 66 once a host reads its menu. Serve with a tray
	// runs a plain build; the tray's own code is race-tested in process
	// (tray/controller_test.go), and every other clawd process stays -race.
	clawdTrayBin = clawdBin
	if raceEnabled {
		if clawdTrayBin, err = build("clawd-tray", false); err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
			return 1
		}
	}
	return m.Run()
}

// world is one isolated machine: a home folder, a clawd home, a project
// folder and a fake model API, all under the test's temp dir.
type world struct {
	t         *testing.T
	dir       string
	home      string // HOME of clawd and claude
	clawdHome string // CLAWD_HOME
	project   string // claude's working directory
	api       *fakeanthropic.Server
	claudeRun int    // number of claude runs so far, for file names
	hookCmd   string // the hook command `clawd install claude` wrote
	// desktop, when set, is the private D-Bus session bus every clawd
	// process of the world sees: serve then runs with its tray and
	// notifications instead of --headless (see tray_test.go).
	desktop *desktop
	// pathPrefix goes before PATH: folders of fake programs.
	pathPrefix string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{
		t:         t,
		dir:       dir,
		home:      filepath.Join(dir, "home"),
		clawdHome: filepath.Join(dir, "clawd-home"),
		project:   filepath.Join(dir, "project"),
	}
	for _, d := range []string{filepath.Join(w.home, ".claude"), w.clawdHome, w.project} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// startAPI starts the fake model API. It is separate from newWorld because
// scripts name files in the project folder.
func (w *world) startAPI(script fakeanthropic.Script) {
	w.api = fakeanthropic.New(script)
	w.api.Start()
	w.t.Cleanup(w.api.Close)
}

// clawdEnv is the whole environment of a clawd command: nothing of the
// developer's own HOME, CLAWD_HOME or CLAUDE_CONFIG_DIR leaks in.
func (w *world) clawdEnv() []string {
	path := os.Getenv("PATH")
	if w.pathPrefix != "" {
		path = w.pathPrefix + string(os.PathListSeparator) + path
	}
	env := append([]string{
		"PATH=" + path,
		"HOME=" + w.home,
		"CLAWD_HOME=" + w.clawdHome,
		"LANG=C.UTF-8",
		// Never the developer's own desktop session: with no
		// DBUS_SESSION_BUS_ADDRESS of the world's own, serve (when not
		// --headless) looks at /run/user/<uid>/bus only.
		"XDG_RUNTIME_DIR=" + w.dir,
	}, raceEnv()...)
	if w.desktop != nil {
		env = append(env, w.desktop.env()...)
	}
	return env
}

// raceEnv tunes a -race clawd: the race runtime sleeps 1 s at every exit
// by default, which would make each hook take a second. A race report
// still exits 66, which the tests see as a failed hook or serve.
func raceEnv() []string {
	if !raceEnabled {
		return nil
	}
	return []string{"GORACE=atexit_sleep_ms=0"}
}

// result is a finished command.
type result struct {
	stdout, stderr string
	code           int
	dur            time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("exit %d after %v\nstdout:\n%s\nstderr:\n%s", r.code, r.dur.Round(time.Millisecond), r.stdout, r.stderr)
}

// run runs cmd to completion. A failure to start or a kill by ctx fails
// the test; a non-zero exit is returned.
func run(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Children that keep the pipes open (a hook still running) must not
	// hang the test.
	cmd.WaitDelay = 5 * time.Second
	orphanProof(cmd)
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String(), dur: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		r.code = ee.ExitCode()
	default:
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, r)
	}
	return r
}

// clawd runs one clawd command in the world.
func (w *world) clawd(ctx context.Context, stdin string, args ...string) result {
	w.t.Helper()
	return w.clawdAs(ctx, clawdBin, stdin, args...)
}

// clawdAs runs the clawd binary at bin (this run's, or a copy under
// another name or in another place) in the world.
func (w *world) clawdAs(ctx context.Context, bin, stdin string, args ...string) result {
	w.t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = w.clawdEnv()
	cmd.Dir = w.project
	cmd.Stdin = strings.NewReader(stdin)
	return run(w.t, cmd)
}

// mustClawd runs a clawd command that has to succeed.
func (w *world) mustClawd(ctx context.Context, args ...string) result {
	w.t.Helper()
	r := w.clawd(ctx, "", args...)
	if r.code != 0 {
		w.t.Fatalf("clawd %s: %s", strings.Join(args, " "), r)
	}
	return r
}

// syncBuffer is a bytes.Buffer safe for a writer goroutine and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// proc is a long-running child (serve, events) that the test stops.
type proc struct {
	t      *testing.T
	name   string
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan struct{}
	err    error // Wait's result, set before done closes
	killed bool  // stop had to kill it
	once   sync.Once
}

func startProc(t *testing.T, name string, cmd *exec.Cmd, stdout io.Writer) *proc {
	t.Helper()
	p := &proc{t: t, name: name, cmd: cmd, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = stdout, p.stderr
	cmd.WaitDelay = 5 * time.Second
	orphanProof(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() { p.stop() })
	return p
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM, waits up to 10 s, then kills. Afterwards p.err is
// Wait's result and p.killed says whether SIGTERM was not enough.
func (p *proc) stop() {
	p.once.Do(func() {
		if !p.exited() {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
		}
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			p.killed = true
			_ = p.cmd.Process.Kill()
			<-p.done
			p.t.Errorf("%s did not exit within 10 s of SIGTERM; killed. stderr:\n%s", p.name, p.stderr.String())
		}
	})
	<-p.done
}

// runtimeInfo is $CLAWD_HOME/runtime.json.
type runtimeInfo struct {
	Port      int    `json:"port"`
	Socket    string `json:"socket"`
	PID       int    `json:"pid"`
	Version   string `json:"version"`
	Token     string `json:"token"`
	StartedAt string `json:"started_at"`
}

// server is a running `clawd serve --port 0`, with --headless unless the
// world has a desktop.
type server struct {
	*proc
	w    *world
	info runtimeInfo
}

func (w *world) runtimeFile() string { return filepath.Join(w.clawdHome, "runtime.json") }

// startServe starts the runtime and waits until it has written
// runtime.json.
func (w *world) startServe() *server {
	w.t.Helper()
	bin, args := clawdBin, []string{"serve", "--headless", "--port", "0"}
	if w.desktop != nil {
		// Debug: the tray tests read what the notifier decided.
		bin, args = clawdTrayBin, []string{"serve", "--port", "0", "--log-level", "debug"}
	}
	return w.startServeWith(bin, args...)
}

// startServeWith starts bin with args as the runtime and waits until it
// has written runtime.json naming it (a runtime that is stopping may
// still hold the home's lock meanwhile, and its runtime.json be there).
func (w *world) startServeWith(bin string, args ...string) *server {
	w.t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = w.clawdEnv()
	cmd.Dir = w.dir
	s := &server{w: w}
	s.proc = startProc(w.t, "clawd serve", cmd, io.Discard)
	deadline := time.Now().Add(15 * time.Second)
	for {
		data, err := os.ReadFile(w.runtimeFile())
		if err == nil && json.Unmarshal(data, &s.info) == nil && s.info.PID == cmd.Process.Pid {
			break
		}
		if s.exited() {
			w.t.Fatalf("clawd serve exited before writing runtime.json: %v\n%s", s.err, s.stderr.String())
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("clawd serve wrote no runtime.json naming it within 15 s (last read: %v)\n%s", err, s.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if s.info.Token == "" || s.info.Version == "" || s.info.StartedAt == "" || s.info.Socket == "" {
		w.t.Errorf("runtime.json lacks token, version, started_at or socket: %+v", s.info)
	}
	if s.info.Socket != client.SocketPath(w.clawdHome) {
		w.t.Errorf("runtime.json socket = %q, want %q: hooks compute it from the clawd home", s.info.Socket, client.SocketPath(w.clawdHome))
	}
	if fi, err := os.Stat(w.runtimeFile()); err == nil && goruntime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		w.t.Errorf("runtime.json mode = %v, want 0600", fi.Mode().Perm())
	}
	return s
}

// staleRuntimeJSON writes a runtime.json such as a killed runtime leaves
// behind, naming a port and a socket elsewhere: hooks and the CLI must not
// go there (they only ever use the clawd home's own socket).
func (w *world) staleRuntimeJSON(t *testing.T) {
	t.Helper()
	info := `{"port":23333,"socket":"/tmp/elsewhere.sock","pid":1,"version":"dev","token":"x","started_at":"2026-01-01T00:00:00Z"}`
	if err := os.WriteFile(w.runtimeFile(), []byte(info), 0o600); err != nil {
		t.Fatal(err)
	}
}

// client talks to serve over its socket, as hooks and the CLI do.
func (s *server) client() *client.Client {
	return client.NewSocket(s.info.Socket, client.Options{DialTimeout: 5 * time.Second, ProbeTimeout: 5 * time.Second})
}

// shutdown stops serve with SIGTERM and checks that it exited cleanly and
// removed runtime.json.
func (s *server) shutdown() {
	s.w.t.Helper()
	s.stop()
	if s.killed {
		return
	}
	if s.err != nil {
		s.w.t.Errorf("clawd serve after SIGTERM: %v, want exit 0\n%s", s.err, s.stderr.String())
	}
	if _, err := os.Stat(s.w.runtimeFile()); !errors.Is(err, os.ErrNotExist) {
		s.w.t.Errorf("runtime.json still there after clawd serve exited (stat: %v)", err)
	}
}

// event is one line of `clawd events --json`.
type event struct {
	Seq          uint64    `json:"seq"`
	Agent        string    `json:"agent"`
	SessionID    string    `json:"session_id"`
	Kind         string    `json:"kind"`
	State        string    `json:"state"`
	DisplayState string    `json:"display_state"`
	Time         time.Time `json:"time"`
	HookEvent    string    `json:"hook_event"`
	Cwd          string    `json:"cwd"`
	Title        string    `json:"title"`
	ToolName     string    `json:"tool_name"`
	ToolUseID    string    `json:"tool_use_id"`
	Headless     bool      `json:"headless"`
	// Answer is a permission.answered record's; Missed the count of a
	// stream.missed line's.
	Answer *client.PermissionAnswer `json:"answer"`
	Missed int                      `json:"missed"`

	raw string
}

func (e event) String() string {
	s := fmt.Sprintf("%s/%s -> %s", e.Kind, e.HookEvent, e.State)
	if e.ToolName != "" {
		s += " " + e.ToolName
	}
	return s
}

// eventStream is a running `clawd events --json` and what it printed.
type eventStream struct {
	*proc
	w       *world
	mu      sync.Mutex
	events  []event
	bad     []string // lines that did not parse
	changed chan struct{}
	read    chan struct{} // closed when stdout hit EOF
}

// startEvents runs `clawd events --json args...`.
func (w *world) startEvents(args ...string) *eventStream {
	w.t.Helper()
	pr, pw := io.Pipe()
	cmd := exec.Command(clawdBin, append([]string{"events", "--json"}, args...)...)
	cmd.Env = w.clawdEnv()
	cmd.Dir = w.dir
	es := &eventStream{w: w, changed: make(chan struct{}), read: make(chan struct{})}
	es.proc = startProc(w.t, "clawd events", cmd, pw)
	go func() {
		<-es.done
		pw.Close()
	}()
	go es.scan(pr)
	return es
}

func (es *eventStream) scan(r io.Reader) {
	defer close(es.read)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		var e event
		es.mu.Lock()
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			es.bad = append(es.bad, line)
		} else {
			e.raw = line
			es.events = append(es.events, e)
		}
		close(es.changed)
		es.changed = make(chan struct{})
		es.mu.Unlock()
	}
	_, _ = io.Copy(io.Discard, r)
}

// snapshot returns the events so far.
func (es *eventStream) snapshot() []event {
	es.mu.Lock()
	defer es.mu.Unlock()
	return append([]event(nil), es.events...)
}

// await waits up to timeout until cond holds for the events so far, and
// returns them and whether it does.
func (es *eventStream) await(timeout time.Duration, cond func([]event) bool) ([]event, bool) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		es.mu.Lock()
		evs := append([]event(nil), es.events...)
		changed := es.changed
		es.mu.Unlock()
		if cond(evs) {
			return evs, true
		}
		select {
		case <-changed:
		case <-es.done:
			return evs, false
		case <-deadline.C:
			return evs, false
		}
	}
}

// waitFor waits until cond holds for the events so far, and fails the
// test if it does not within timeout.
func (es *eventStream) waitFor(timeout time.Duration, what string, cond func([]event) bool) []event {
	es.w.t.Helper()
	evs, ok := es.await(timeout, cond)
	if !ok {
		if es.exited() {
			es.w.t.Fatalf("clawd events exited while waiting for %s: %v\n%s\nevents so far:\n%s",
				what, es.err, es.stderr.String(), dumpEvents(evs))
		}
		es.w.t.Fatalf("no %s within %v; events so far:\n%s", what, timeout, dumpEvents(evs))
	}
	return evs
}

// close stops the stream and returns everything it printed.
func (es *eventStream) close() []event {
	es.stop()
	<-es.read
	es.mu.Lock()
	defer es.mu.Unlock()
	if len(es.bad) > 0 {
		es.w.t.Errorf("clawd events --json printed lines that are not JSON objects:\n%s", strings.Join(es.bad, "\n"))
	}
	return append([]event(nil), es.events...)
}

func dumpEvents(evs []event) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString("  " + e.raw + "\n")
	}
	return b.String()
}

// forSession returns the agent's events of one session: the runtime's
// own records of how its permission requests closed are left out (see
// answersTo).
func forSession(evs []event, id string) []event {
	var out []event
	for _, e := range evs {
		if e.SessionID == id && e.Kind != string(client.KindPermissionAnswered) {
			out = append(out, e)
		}
	}
	return out
}

func hasKind(kind string) func(e event) bool { return func(e event) bool { return e.Kind == kind } }

func anyEvent(evs []event, f func(event) bool) bool {
	for _, e := range evs {
		if f(e) {
			return true
		}
	}
	return false
}

// sync makes sure the event stream is connected: it feeds a throwaway
// session through `clawd hook claude` and waits until its events come out,
// then ends it. Without this, the first events of a fast agent run could
// be published before `clawd events` subscribed.
func (es *eventStream) sync(ctx context.Context) {
	es.w.t.Helper()
	id := newUUID(es.w.t)
	payload := func(event, extra string) string {
		return fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":%q%s}`,
			id, filepath.Join(es.w.home, ".claude", "projects", "probe", id+".jsonl"), es.w.dir, event, extra)
	}
	// The stream may subscribe after the first probe went out: repeat it
	// until it shows up.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if r := es.w.clawd(ctx, payload("SessionStart", `,"source":"startup"`), "hook", "claude"); r.code != 0 {
			es.w.t.Fatalf("clawd hook claude (probe SessionStart): %s", r)
		}
		evs, ok := es.await(250*time.Millisecond, func(evs []event) bool {
			return anyEvent(forSession(evs, id), hasKind("session.start"))
		})
		if ok {
			break
		}
		if time.Now().After(deadline) {
			es.w.t.Fatalf("the probe session never reached clawd events within 10 s; events:\n%s", dumpEvents(evs))
		}
	}
	if r := es.w.clawd(ctx, payload("SessionEnd", `,"reason":"other"`), "hook", "claude"); r.code != 0 {
		es.w.t.Fatalf("clawd hook claude (probe SessionEnd): %s", r)
	}
	es.waitFor(10*time.Second, "probe session.end", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("session.end"))
	})
}

// statusSession is one session of `clawd status --json`.
type statusSession struct {
	Agent       string    `json:"agent"`
	SessionID   string    `json:"session_id"`
	State       string    `json:"state"`
	Title       string    `json:"title"`
	TitleSource string    `json:"title_source"`
	Cwd         string    `json:"cwd"`
	Headless    bool      `json:"headless"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// status is the output of `clawd status --json`.
type status struct {
	DisplayState string               `json:"display_state"`
	Sessions     []statusSession      `json:"sessions"`
	Integrations []client.Integration `json:"integrations"`
}

func (st status) session(id string) (statusSession, bool) {
	for _, s := range st.Sessions {
		if s.SessionID == id {
			return s, true
		}
	}
	return statusSession{}, false
}

// status runs `clawd status --json`. It may be called from any goroutine:
// it reports problems with Errorf only.
func (w *world) status(ctx context.Context) (status, bool) {
	cmd := exec.CommandContext(ctx, clawdBin, "status", "--json")
	cmd.Env = w.clawdEnv()
	cmd.Dir = w.project
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		w.t.Errorf("clawd status --json: %v\n%s", err, stderr.String())
		return status{}, false
	}
	var st status
	if err := json.Unmarshal(stdout.Bytes(), &st); err != nil {
		w.t.Errorf("clawd status --json printed %q: %v", stdout.String(), err)
		return status{}, false
	}
	return st, true
}

// testCache returns the folder scripts/install-agents.sh installs the
// agent CLIs into: $CLAWD_TEST_CACHE, else ~/.cache/clawd-test.
func testCache(t *testing.T) string {
	t.Helper()
	if cache := os.Getenv("CLAWD_TEST_CACHE"); cache != "" {
		return cache
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatalf("no home folder to find the agent CLIs in: %v", err)
	}
	return filepath.Join(home, ".cache", "clawd-test")
}

// cachedCLI returns the agent executable at $env, else at rel under the
// test cache, failing the test when it is not there.
func cachedCLI(t *testing.T, name, version, env string, rel ...string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		p = filepath.Join(append([]string{testCache(t)}, rel...)...)
	}
	if fi, err := os.Stat(p); err != nil || fi.IsDir() {
		t.Fatalf("%s %s not found at %s (%v): run scripts/test.sh (or scripts/install-agents.sh) to install the agent CLIs",
			name, version, p, err)
	}
	return p
}

// agentVersion is the release of agent id the tests expect: the one
// scripts/install-agents.sh pins (the last of the agent's Tested), or
// $CLAWD_E2E_<ID>_VERSION where scripts/drift.sh runs the tests against
// another (with $CLAWD_E2E_<ID> or $CLAWD_TEST_CACHE pointing at it).
func agentVersion(id string) string {
	if v := os.Getenv("CLAWD_E2E_" + strings.ToUpper(id) + "_VERSION"); v != "" {
		return v
	}
	return agents.Lookup(id).Pinned()
}

// cliVersions remembers the versions checkCLIVersion read, by executable:
// some CLIs take seconds to say it.
var cliVersions sync.Map

// checkCLIVersion fails the test unless `bin --version` prints version
// as a word ("0.61.0", "GitHub Copilot CLI 1.0.102.").
func checkCLIVersion(t *testing.T, bin, version string) {
	t.Helper()
	v, ok := cliVersions.Load(bin)
	if !ok {
		// A HOME of its own: some CLIs write into it even for --version
		// (Gemini its projects file, opencode its folders).
		cmd := exec.Command(bin, "--version")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8",
			"COPILOT_PKG_CACHE_HOME=" + filepath.Join(testCache(t), "copilot", "pkg-cache"), "COPILOT_AUTO_UPDATE=false"}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s --version: %v\n%s", bin, err, out)
		}
		v, _ = cliVersions.LoadOrStore(bin, strings.TrimSpace(string(out)))
	}
	for _, f := range strings.Fields(v.(string)) {
		if strings.TrimSuffix(f, ".") == version {
			return
		}
	}
	t.Fatalf("%s --version = %q, want %s: run scripts/install-agents.sh", bin, v, version)
}

// proxyEnv points every proxy variable at url, except for loopback: an
// agent (or a hook, or a command it runs) that honours them sends whatever
// it tries to reach beyond loopback to url, a fake model API that refuses
// and records it, so it never leaves the machine.
func proxyEnv(url string) []string {
	env := []string{"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost"}
	for _, k := range []string{"HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"} {
		env = append(env, k+"="+url, strings.ToLower(k)+"="+url)
	}
	return env
}

// newUUID returns a random version 4 UUID (claude --session-id wants one).
func newUUID(t *testing.T) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// withSession sets the payload's session_id.
func withSession(t *testing.T, payload []byte, id string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	m["session_id"] = id
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readTestdata(t testing.TB, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{"..", "testdata"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

// hookJSON runs `clawd hook claude` with payload as its stdin and fails
// the test unless it exits 0.
func (w *world) hookJSON(ctx context.Context, payload string) {
	w.t.Helper()
	cmd := exec.CommandContext(ctx, clawdBin, "hook", "claude")
	cmd.Env = w.clawdEnv()
	cmd.Stdin = strings.NewReader(payload)
	if out, err := cmd.CombinedOutput(); err != nil {
		w.t.Fatalf("clawd hook claude: %v %s", err, out)
	}
}

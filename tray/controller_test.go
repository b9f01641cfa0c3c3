package tray

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/autostart"
	"github.com/clawdhq/clawd/internal/focus"
	"github.com/clawdhq/clawd/internal/icons"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/client"
)

// recordUI is the tray as the controller sees it, recording every menu.
type recordUI struct {
	mu    sync.Mutex
	menus []Menu
	shown chan struct{}
}

func newRecordUI() *recordUI { return &recordUI{shown: make(chan struct{}, 1)} }

func (u *recordUI) Apply(m Menu) {
	u.mu.Lock()
	u.menus = append(u.menus, m)
	u.mu.Unlock()
	select {
	case u.shown <- struct{}{}:
	default:
	}
}

func (u *recordUI) last() Menu {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.menus) == 0 {
		return Menu{}
	}
	return u.menus[len(u.menus)-1]
}

// waitMenu waits until the shown menu satisfies ok.
func (u *recordUI) waitMenu(t *testing.T, what string, ok func(Menu) bool) Menu {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		if m := u.last(); ok(m) {
			return m
		}
		select {
		case <-u.shown:
		case <-deadline:
			t.Fatalf("menu never showed %s; last:\n%s", what, strings.Join(outline(u.last().Items, 0), "\n"))
		}
	}
}

func hasKey(m Menu, key string) bool {
	_, ok := findItem(m.Items, key)
	return ok
}

// trayEnv is a runtime serving on its socket with a controller following it.
type trayEnv struct {
	srv     *runtime.Server
	sock    string
	ui      *recordUI
	clicks  chan string
	quit    chan struct{}
	focused chan focus.Target
	opened  chan struct{}
	// stop ends the controller and waits for it and what it started.
	stop func()
}

func startTray(t *testing.T, mods ...func(*Options)) *trayEnv {
	t.Helper()
	env := &trayEnv{ui: newRecordUI(), clicks: make(chan string), quit: make(chan struct{}, 1), focused: make(chan focus.Target, 4), opened: make(chan struct{}, 1)}
	env.srv = runtime.New(runtime.Config{Home: t.TempDir(), Alive: func(int) bool { return true }})
	env.sock = filepath.Join(t.TempDir(), "clawd.sock")
	ln, err := runtime.ListenSocket(env.sock, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { env.srv.Serve(ctx, nil, ln) })
	o := Options{
		Runtime: env.srv,
		Quit:    func() { env.quit <- struct{}{} },
		Focus: func(ctx context.Context, tg focus.Target) error {
			env.focused <- tg
			return nil
		},
		Dashboard: func(ctx context.Context) error {
			env.opened <- struct{}{}
			return nil
		},
		// Not this machine's login entry: a test that wants one gives it.
		NoLoginEntry: true,
	}
	for _, mod := range mods {
		mod(&o)
	}
	c := newController(o, env.ui, env.clicks)
	wg.Go(func() { c.run(ctx) })
	env.stop = sync.OnceFunc(func() {
		cancel()
		wg.Wait()
	})
	t.Cleanup(env.stop)
	return env
}

// ask registers a permission request the way the hook does and returns
// the answer when it comes.
func (env *trayEnv) ask(t *testing.T, sid, command string) <-chan client.Answer {
	t.Helper()
	in, _ := json.Marshal(map[string]string{"command": command})
	body, _ := json.Marshal(client.RequestBody{
		Event:       agents.Event{Agent: "claude", Kind: agents.KindPermissionRequest, SessionID: sid, ToolName: "Bash", Time: time.Now()},
		Request:     agents.Request{ToolInput: in, Summary: command},
		WaitSeconds: 60,
	})
	ch := make(chan client.Answer, 1)
	go func() {
		a, err := client.AskPermission(context.Background(), env.sock, body)
		if err != nil {
			t.Errorf("AskPermission: %v", err)
		}
		ch <- a
	}()
	return ch
}

func (env *trayEnv) click(t *testing.T, key string) {
	t.Helper()
	select {
	case env.clicks <- key:
	case <-time.After(5 * time.Second):
		t.Fatalf("the controller took no click on %s", key)
	}
}

func TestControllerFollowsTheRuntime(t *testing.T) {
	env := startTray(t)
	env.ui.waitMenu(t, "the empty menu", func(m Menu) bool { return m.Icon == icons.Sleeping && hasKey(m, "sessions-none") })

	env.srv.Ingest(agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: "s1", Cwd: "/w/app", AgentPID: 77, Time: time.Now()})
	env.ui.waitMenu(t, "the thinking session", func(m Menu) bool { return m.Icon == icons.Thinking && hasKey(m, "session:claude/s1") })

	// Clicking a session focuses its terminal, with what the tray knows
	// of it.
	env.click(t, "session:claude/s1")
	select {
	case tg := <-env.focused:
		if tg.PID != 77 || tg.Cwd != "/w/app" {
			t.Errorf("focus target = %+v, want pid 77 in /w/app", tg)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("clicking a session focused nothing")
	}

	// A permission request shows up, and Allow in the menu answers it.
	ans := env.ask(t, "s1", "npm test")
	m := env.ui.waitMenu(t, "the request", func(m Menu) bool { return m.Icon == icons.NeedsYouCount(1) && hasKey(m, "pending-header") })
	var id string
	for _, it := range m.Items {
		if rest, ok := strings.CutPrefix(it.Key, "request:"); ok {
			id = rest
		}
	}
	if id == "" {
		t.Fatalf("no request item in\n%s", strings.Join(outline(m.Items, 0), "\n"))
	}
	env.click(t, "request:"+id+":allow")
	select {
	case a := <-ans:
		if a.Decision == nil || !a.Decision.Allow {
			t.Fatalf("answer after Allow in the tray = %+v, want allow", a)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the request got no answer after Allow")
	}
	env.ui.waitMenu(t, "the request gone", func(m Menu) bool { return !hasKey(m, "pending-header") })

	// A stale click, for the request already answered, does nothing: a
	// second request is not touched by it.
	ans2 := env.ask(t, "s1", "rm -rf build")
	env.ui.waitMenu(t, "the second request", func(m Menu) bool { return hasKey(m, "pending-header") })
	env.click(t, "request:"+id+":allow")
	if got := env.srv.Permissions(); len(got) != 1 || got[0].State != "pending" {
		t.Fatalf("after a stale click: pending = %+v, want the second request still pending", got)
	}
	// Do not disturb from the menu sends it back to the agent.
	env.click(t, "dnd")
	select {
	case a := <-ans2:
		if a.Decision != nil || a.Reason != client.ReasonDND {
			t.Fatalf("answer after Do Not Disturb = %+v, want no decision (dnd)", a)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the second request got no answer after Do Not Disturb")
	}
	env.ui.waitMenu(t, "do not disturb", func(m Menu) bool {
		it, _ := findItem(m.Items, "dnd")
		return m.Icon == icons.DND && it.Checked
	})
	if !env.srv.DND() {
		t.Error("runtime DND is off after the menu turned it on")
	}

	env.click(t, "pause")
	env.ui.waitMenu(t, "the pause", func(m Menu) bool {
		it, _ := findItem(m.Items, "pause")
		return it.Action.Kind == ActResume
	})
	if until := env.srv.NotificationsPausedUntil(); time.Until(until) < 59*time.Minute {
		t.Errorf("paused until %v, want about an hour from now", until)
	}
	env.click(t, "pause")
	env.ui.waitMenu(t, "the pause over", func(m Menu) bool {
		it, _ := findItem(m.Items, "pause")
		return it.Action.Kind == ActPause
	})

	env.click(t, "dashboard")
	select {
	case <-env.opened:
	case <-time.After(5 * time.Second):
		t.Fatal("Open dashboard in the menu opened nothing")
	}

	env.click(t, "quit")
	select {
	case <-env.quit:
	case <-time.After(5 * time.Second):
		t.Fatal("Quit in the menu did not stop the runtime")
	}
}

// TestNoFocusForARemoteSession: a remote machine's session has its
// terminal there; a local window that matches its folder or title is not
// brought to the front.
func TestNoFocusForARemoteSession(t *testing.T) {
	var mu sync.Mutex
	var got []focus.Target
	c := newController(Options{Focus: func(ctx context.Context, tg focus.Target) error {
		mu.Lock()
		got = append(got, tg)
		mu.Unlock()
		return nil
	}}, newRecordUI(), make(chan string))
	c.focus(context.Background(), SessionRef{Agent: "claude", ID: "box:r1", Cwd: "/home/me/proj", Title: "deploy", Host: "box"})
	c.focus(context.Background(), SessionRef{Agent: "claude", ID: "l1", Cwd: "/home/me/proj", Title: "deploy", PID: 7})
	c.wg.Wait()
	if len(got) != 1 || got[0].PID != 7 {
		t.Errorf("focused %+v, want the local session only", got)
	}
}

// tempLoginEntry is internal/autostart's entry under a temporary home,
// without a systemd user manager (systemctl fails): the XDG autostart
// file, $XDG_CONFIG_HOME/autostart/clawd.desktop.
func tempLoginEntry(t *testing.T) (LoginEntry, string) {
	t.Helper()
	home, cfg := t.TempDir(), t.TempDir()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	o := autostart.Options{Home: home, Binary: bin, ClawdHome: filepath.Join(home, ".clawd"),
		Getenv: func(k string) string {
			if k == "XDG_CONFIG_HOME" {
				return cfg
			}
			return ""
		},
		Run: func(ctx context.Context, name string, args ...string) ([]byte, error) {
			return nil, errors.New("no " + name + " here")
		}}
	return loginEntry{o}, o.DesktopPath()
}

// TestControllerStartAtLogin: "Start at login" shows the entry as it is,
// writes it when clicked unchecked and removes it when clicked checked,
// the check mark following the file.
func TestControllerStartAtLogin(t *testing.T) {
	entry, path := tempLoginEntry(t)
	env := startTray(t, func(o *Options) { o.LoginEntry = entry })
	login := func(m Menu) Item { it, _ := findItem(m.Items, "autostart"); return it }
	env.ui.waitMenu(t, "Start at login unchecked", func(m Menu) bool { it := login(m); return it.Checkbox && !it.Checked })

	env.click(t, "autostart")
	env.ui.waitMenu(t, "Start at login checked", func(m Menu) bool { return login(m).Checked })
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("after Start at login: %v", err)
	}
	bin, _ := os.Executable()
	if !strings.Contains(string(data), bin+" serve") {
		t.Errorf("%s =\n%s\nwant it to start %s serve", path, data, bin)
	}

	env.click(t, "autostart")
	env.ui.waitMenu(t, "Start at login unchecked again", func(m Menu) bool { it := login(m); return it.Checkbox && !it.Checked })
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after unchecking Start at login, %s: %v, want it gone", path, err)
	}
}

// fakeLoginEntry is a login entry in memory. put changes it outside the
// tray, as `clawd autostart disable` or deleting the file would; a Set
// says it started on setting and waits for release, when they are given.
type fakeLoginEntry struct {
	setting chan struct{}
	release chan struct{}

	mu    sync.Mutex
	on    bool
	reads int
}

func (e *fakeLoginEntry) Status(ctx context.Context) (autostart.Status, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reads++
	return autostart.Status{Enabled: e.on}, nil
}

func (e *fakeLoginEntry) Set(ctx context.Context, on bool) error {
	if e.setting != nil {
		e.setting <- struct{}{}
	}
	if e.release != nil {
		<-e.release
	}
	e.put(on)
	return nil
}

func (e *fakeLoginEntry) put(on bool) {
	e.mu.Lock()
	e.on = on
	e.mu.Unlock()
}

func (e *fakeLoginEntry) readCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.reads
}

// startAtLogin is whether m shows "Start at login" checked (on) or
// unchecked.
func startAtLogin(on bool) func(Menu) bool {
	return func(m Menu) bool {
		it, ok := findItem(m.Items, "autostart")
		return ok && it.Checkbox && it.Checked == on
	}
}

// TestControllerRereadsTheLoginEntry: a change to the login entry made
// outside the tray (clawd autostart disable in a terminal, the file
// deleted) shows in "Start at login" after one refresh tick, both ways.
func TestControllerRereadsTheLoginEntry(t *testing.T) {
	clock := newFakeClock(time.Now())
	t0 := clock.Now()
	entry := &fakeLoginEntry{on: true}
	env := startTray(t, func(o *Options) { o.LoginEntry, o.Now, o.After = entry, clock.Now, clock.After })
	env.ui.waitMenu(t, "Start at login checked", startAtLogin(true))

	for i, on := range []bool{false, true} {
		entry.put(on)
		// The controller waits for this tick: it is armed before the
		// clock moves on to it.
		clock.waitArmed(t, t0.Add(time.Duration(i+1)*refreshEvery))
		clock.Advance(refreshEvery)
		env.ui.waitMenu(t, fmt.Sprintf("Start at login %s after the entry turned %[1]s outside the tray", onOff(on)), startAtLogin(on))
	}
}

// TestRefreshDuringALoginToggle: a refresh tick while a click's change of
// the entry still runs reads nothing (loginBusy): a read then could come
// back after the click's and put the old check back. The click's own read
// after its change is what the menu shows.
func TestRefreshDuringALoginToggle(t *testing.T) {
	clock := newFakeClock(time.Now())
	t0 := clock.Now()
	entry := &fakeLoginEntry{on: true, setting: make(chan struct{}, 1), release: make(chan struct{})}
	release := sync.OnceFunc(func() { close(entry.release) })
	env := startTray(t, func(o *Options) { o.LoginEntry, o.Now, o.After = entry, clock.Now, clock.After })
	// Before the controller stops, when the test ends early.
	t.Cleanup(release)
	env.ui.waitMenu(t, "Start at login checked", startAtLogin(true))

	env.click(t, "autostart")
	select {
	case <-entry.setting:
	case <-time.After(5 * time.Second):
		t.Fatal("clicking Start at login changed nothing")
	}
	clock.waitArmed(t, t0.Add(refreshEvery))
	clock.Advance(refreshEvery)
	// The next tick armed: the loop took this one. A click is taken
	// only once it is done with it.
	clock.waitArmed(t, t0.Add(2*refreshEvery))
	env.click(t, "no-such-item")
	if n := entry.readCount(); n != 1 {
		t.Errorf("entry read %d times before the click's change ended, want 1 (at start)", n)
	}
	env.ui.mu.Lock()
	shown := len(env.ui.menus)
	env.ui.mu.Unlock()

	release()
	env.ui.waitMenu(t, "Start at login unchecked after the click", startAtLogin(false))
	env.stop()
	if n := entry.readCount(); n != 2 {
		t.Errorf("entry read %d times, want 2: at start and after the click's change, none for the refresh during it", n)
	}
	// Once unchecked, it stays so: no read from before the change lands
	// after it.
	unchecked := false
	// The controller stopped: the menus are all in.
	for _, m := range env.ui.menus[shown:] {
		if _, ok := findItem(m.Items, "autostart"); !ok {
			continue
		}
		if startAtLogin(false)(m) {
			unchecked = true
		} else if unchecked {
			t.Errorf("Start at login checked again after the click unchecked it:\n%s", strings.Join(outline(m.Items, 0), "\n"))
		}
	}
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// TestDefaultLoginEntry: the default entry is the one `clawd autostart
// enable` writes from this binary, under the person's home.
func TestDefaultLoginEntry(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	e, ok := defaultLoginEntry("rel/home").(loginEntry)
	if !ok {
		t.Fatalf("defaultLoginEntry = %#v, want a loginEntry", defaultLoginEntry("rel/home"))
	}
	bin, _ := os.Executable()
	if r, err := filepath.EvalSymlinks(bin); err == nil {
		bin = r
	}
	if e.o.Binary != bin || e.o.Home != os.Getenv("HOME") || !filepath.IsAbs(e.o.ClawdHome) || e.o.Getenv == nil {
		t.Errorf("defaultLoginEntry = %+v, want this binary %s, $HOME and an absolute clawd home", e.o, bin)
	}
}

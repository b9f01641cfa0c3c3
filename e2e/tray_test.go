//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakedesktop"
	"github.com/clawdhq/clawd/internal/icons"
)

// The tray tests run `clawd serve` without --headless on a private D-Bus
// session bus (a real dbus-daemon) where the test itself is the desktop:
// a StatusNotifierWatcher that reads the icon and the menu through
// com.canonical.dbusmenu and clicks items like a panel does, and a
// notification daemon that records every Notify.

// desktop is the fake desktop of a world.
type desktop struct {
	bus      *fakedesktop.Bus
	addMatch <-chan string // match rules added on the bus
	notifier *fakedesktop.Notifier
	watcher  *fakedesktop.Watcher
	item     *fakedesktop.Item // clawd's tray item, once the host saw it
	// sounds is where the fake paplay copies each sound it is asked to
	// play, one file per play.
	sounds string
	// opened is the file the fake xdg-open writes what it is asked to
	// open into, one line each.
	opened string
}

// env points clawd at the desktop's session bus.
func (d *desktop) env() []string {
	return []string{"DBUS_SESSION_BUS_ADDRESS=" + d.bus.Address()}
}

// newDesktopWorld is a world with a desktop (see attachDesktop).
func newDesktopWorld(t *testing.T) *world {
	t.Helper()
	w := newWorld(t)
	w.attachDesktop()
	return w
}

// attachDesktop gives the world a desktop: a private bus with a
// notification daemon, and a fake paplay first on PATH. The tray host
// (watcher) is started by the test, so it can come after clawd.
func (w *world) attachDesktop() {
	t := w.t
	t.Helper()
	d := &desktop{bus: fakedesktop.StartBus(t), sounds: filepath.Join(w.dir, "sounds")}
	d.addMatch = d.bus.AddMatches(t)
	d.notifier = fakedesktop.StartNotifier(t, d.bus)
	bin := filepath.Join(w.dir, "bin")
	for _, dir := range []string{bin, d.sounds} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	player := "#!/bin/sh\n" +
		"for a; do f=\"$a\"; done\n" +
		"cp \"$f\" \"" + d.sounds + "/$(date +%s%N).wav\"\n"
	if err := os.WriteFile(filepath.Join(bin, "paplay"), []byte(player), 0o700); err != nil {
		t.Fatal(err)
	}
	d.opened = filepath.Join(w.dir, "opened")
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte("#!/bin/sh\necho \"$1\" >> \""+d.opened+"\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	w.pathPrefix = bin
	w.desktop = d
}

// startWatcher starts the tray host, once clawd's tray watches for one,
// and waits for clawd's item. fyne.io/systray v1.12.2 only watches for a
// host after its first registration failed, and misses a host that comes
// in between (or in its own short gap after that: WaitItemAnnouncing): a
// desktop's host is there before any app, a test's comes after the tray
// on purpose.
func (w *world) startWatcher(ctx context.Context) *fakedesktop.Item {
	w.t.Helper()
	for watching := false; !watching; {
		select {
		case rule := <-w.desktop.addMatch:
			watching = strings.Contains(rule, "arg0='"+fakedesktop.WatcherName+"'")
		case <-ctx.Done():
			w.t.Fatal("clawd's tray never watched for a tray host")
		}
	}
	w.desktop.watcher = fakedesktop.StartWatcher(w.t, w.desktop.bus)
	item, err := w.desktop.watcher.WaitItemAnnouncing(ctx, 2*time.Second)
	if err != nil {
		w.t.Fatalf("the tray never registered: %v", err)
	}
	w.desktop.item = item
	return item
}

// trayMenu is the tray's menu as the host reads it, one item per line, or
// "" when the world has no tray host.
func (w *world) trayMenu(ctx context.Context) string {
	if w.desktop == nil || w.desktop.item == nil {
		return ""
	}
	root, err := w.desktop.item.Layout(ctx)
	if err != nil {
		return "error: " + err.Error()
	}
	return root.String()
}

// notifications counts the notifications the desktop got.
func (w *world) notifications() int {
	if w.desktop == nil {
		return 0
	}
	return len(w.desktop.notifier.Notifications())
}

// writeConfig writes config.toml into the clawd home.
func (w *world) writeConfig(toml string) {
	w.t.Helper()
	if err := os.WriteFile(filepath.Join(w.clawdHome, "config.toml"), []byte(toml), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// hookPayload is a captured Claude Code payload of event, for session sid.
func hookPayload(t *testing.T, event, sid string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "claude", "hooks", event+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m["session_id"] = sid
	out, _ := json.Marshal(m)
	return out
}

// interactiveEnv is what an interactive Claude Code session gives its
// hooks: attended, from the CLI.
var interactiveEnv = []string{"CLAUDE_CODE_ENTRYPOINT=cli", "CLAUDE_CODE_SESSION_ATTENDED=1"}

// hook runs `clawd hook claude` with a captured payload, as an interactive
// session would, and checks it exited 0.
func (w *world) hook(ctx context.Context, event, sid string) result {
	w.t.Helper()
	cmd := exec.CommandContext(ctx, clawdBin, "hook", "claude")
	cmd.Env = append(w.clawdEnv(), interactiveEnv...)
	cmd.Stdin = bytes.NewReader(hookPayload(w.t, event, sid))
	r := run(w.t, cmd)
	if r.code != 0 {
		w.t.Fatalf("clawd hook claude %s: %s", event, r)
	}
	return r
}

// startHook starts a blocking hook (PermissionRequest) and returns its
// result when it ends.
func (w *world) startHook(ctx context.Context, event, sid string) <-chan result {
	w.t.Helper()
	cmd := exec.CommandContext(ctx, clawdBin, "hook", "claude")
	cmd.Env = append(w.clawdEnv(), interactiveEnv...)
	cmd.Stdin = bytes.NewReader(hookPayload(w.t, event, sid))
	ch := make(chan result, 1)
	go func() { ch <- run(w.t, cmd) }()
	return ch
}

// iconNamed is the icon a pixmap shows: the embedded icon nearest to it.
func iconNamed(t *testing.T, px fakedesktop.Pixmap) (icons.Name, float64) {
	t.Helper()
	got := px.Image()
	best, bestDist := icons.Name(""), -1.0
	for _, n := range slices.Concat(icons.All(), icons.Counts()) {
		img, err := png.Decode(bytes.NewReader(icons.PNG(n)))
		if err != nil {
			t.Fatal(err)
		}
		if img.Bounds().Dx() != px.Width || img.Bounds().Dy() != px.Height {
			continue
		}
		d := distance(got, img)
		if bestDist < 0 || d < bestDist {
			best, bestDist = n, d
		}
	}
	return best, bestDist
}

// distance is the mean absolute difference of the straight RGBA channels
// of two same-sized images (0 = identical).
func distance(a *image.NRGBA, b image.Image) float64 {
	n := image.NewNRGBA(b.Bounds())
	draw.Draw(n, n.Rect, b, b.Bounds().Min, draw.Src)
	var sum float64
	for i := range a.Pix {
		d := float64(a.Pix[i]) - float64(n.Pix[i])
		if d < 0 {
			d = -d
		}
		sum += d
	}
	return sum / float64(len(a.Pix))
}

// waitIcon waits until the item shows icon want.
func waitIcon(ctx context.Context, t *testing.T, item *fakedesktop.Item, want icons.Name) {
	t.Helper()
	var last icons.Name
	err := fakedesktop.Eventually(ctx, 50*time.Millisecond, func() (bool, error) {
		pxs, err := item.IconPixmap(ctx)
		if err != nil || len(pxs) == 0 {
			return false, err
		}
		name, dist := iconNamed(t, pxs[0])
		last = name
		// Nearest is not enough: the pixmap must be that icon, pixel
		// for pixel.
		return name == want && dist == 0, nil
	})
	if err != nil {
		t.Fatalf("tray icon: want %s, last seen %s: %v", want, last, err)
	}
}

// waitMenu waits until the menu has a node with label, and returns the
// menu.
func waitMenu(ctx context.Context, t *testing.T, item *fakedesktop.Item, labels ...string) *fakedesktop.MenuNode {
	t.Helper()
	var root *fakedesktop.MenuNode
	err := fakedesktop.Eventually(ctx, 50*time.Millisecond, func() (bool, error) {
		var err error
		root, err = item.Layout(ctx)
		if err != nil {
			return false, err
		}
		return root.FindPath(labels...) != nil, nil
	})
	if err != nil {
		t.Fatalf("tray menu never had %q: %v\n%s", labels, err, root)
	}
	return root
}

// labelWith returns the label of the first top-level menu item starting
// with prefix.
func labelWith(t *testing.T, root *fakedesktop.MenuNode, prefix string) string {
	t.Helper()
	for _, c := range root.Children {
		if strings.HasPrefix(c.Label, prefix) {
			return c.Label
		}
	}
	t.Fatalf("no menu item starts with %q:\n%s", prefix, root)
	return ""
}

func waitNotify(ctx context.Context, t *testing.T, d *desktop, what string, pred func(fakedesktop.Notification) bool) fakedesktop.Notification {
	t.Helper()
	n, err := d.notifier.Wait(ctx, pred)
	if err != nil {
		t.Fatalf("no notification %s: %v; seen: %+v", what, err, d.notifier.Notifications())
	}
	if n.AppName != "clawd" {
		t.Errorf("notification %s: app name %q, want clawd", what, n.AppName)
	}
	return n
}

// decisionBehavior is the behavior of the hook's printed decision, or ""
// for the no-decision "{}".
func decisionBehavior(t *testing.T, stdout string) string {
	t.Helper()
	var out struct {
		HookSpecificOutput struct {
			Decision struct {
				Behavior string `json:"behavior"`
			} `json:"decision"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("hook printed %q, want JSON: %v", stdout, err)
	}
	return out.HookSpecificOutput.Decision.Behavior
}

// TestTray drives the whole desktop side through the tray host's eyes: the
// icon registers with a host that starts after clawd, follows the agent's
// state, the menu answers a permission request that a real hook process
// waits on, notifications and sounds come for a permission and a finished
// turn and not during do-not-disturb, and Quit ends the runtime cleanly.
func TestTray(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := newDesktopWorld(t)
	w.writeConfig("[notifications]\ndone_grace = \"300ms\"\n")
	serve := w.startServe()
	defer serve.shutdown()

	// The host comes after the tray: the item registers when it appears.
	item := w.startWatcher(ctx)
	waitIcon(ctx, t, item, icons.Sleeping)
	if tip, err := item.Tooltip(ctx); err != nil || !strings.Contains(tip, "no agents running") {
		t.Errorf("tooltip = %q, %v; want it to say no agents are running", tip, err)
	}
	root := waitMenu(ctx, t, item, "No agent sessions")
	for _, label := range []string{"Do Not Disturb", "Pause notifications for 1 h", "Open dashboard", "Open config folder", "Quit clawd"} {
		if n := root.Find(label); n == nil || !n.Enabled {
			t.Errorf("menu item %q missing or disabled:\n%s", label, root)
		}
	}
	// Open dashboard hands the browser (xdg-open) a fresh login URL that
	// lets it in.
	if err := item.ClickPath(ctx, "Open dashboard"); err != nil {
		t.Fatalf("click Open dashboard: %v", err)
	}
	var opened string
	for deadline := time.Now().Add(10 * time.Second); opened == ""; time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(w.desktop.opened)
		opened = strings.TrimSpace(string(b))
		if time.Now().After(deadline) {
			t.Fatal("Open dashboard ran no xdg-open within 10 s")
		}
	}
	if !strings.HasPrefix(opened, fmt.Sprintf("http://127.0.0.1:%d/login?code=", serve.info.Port)) {
		t.Errorf("Open dashboard opened %q, want the dashboard's login URL", opened)
	} else if resp, err := http.Get(opened); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("GET of the URL the tray opened: %v, %v; want 200", resp, err)
	} else {
		resp.Body.Close()
	}

	const sid = "7a700000-0000-4000-8000-000000000001"
	w.hook(ctx, "SessionStart", sid)
	w.hook(ctx, "UserPromptSubmit", sid)
	waitIcon(ctx, t, item, icons.Thinking)
	waitMenu(ctx, t, item, "project · CAPTURE_ALL please · thinking · now")

	// A permission request: the hook blocks, the icon says "needs you", a
	// notification names the agent and the command, and Allow in the menu
	// is what the hook prints.
	perm := w.startHook(ctx, "PermissionRequest", sid)
	waitIcon(ctx, t, item, icons.NeedsYouCount(1))
	n := waitNotify(ctx, t, w.desktop, "for the permission request", func(n fakedesktop.Notification) bool {
		return strings.Contains(n.Summary, "needs you")
	})
	if !strings.Contains(n.Summary, "Claude Code") || !strings.Contains(n.Body, "echo hello") || !strings.Contains(n.Body, "CAPTURE_ALL please") {
		t.Errorf("permission notification = %q / %q, want the agent, the title and the command", n.Summary, n.Body)
	}
	root = waitMenu(ctx, t, item, "Needs you (1)")
	// The request reads where it runs, what it does and how long it has
	// waited; who asks is on hover.
	request := labelWith(t, root, "project · Bash: echo hello")
	for _, label := range []string{"Allow", "Deny", "Answer in terminal"} {
		if root.FindPath(request, label) == nil {
			t.Errorf("request submenu lacks %q:\n%s", label, root)
		}
	}
	if err := item.ClickPath(ctx, request, "Allow"); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-perm:
		if r.code != 0 || decisionBehavior(t, r.stdout) != "allow" {
			t.Fatalf("permission hook after Allow in the tray: %s, want exit 0 and an allow decision", r)
		}
	case <-ctx.Done():
		t.Fatal("the permission hook never got the tray's answer")
	}

	// The turn ends: after the grace, a "finished" notification and the
	// chime.
	w.hook(ctx, "Stop", sid)
	waitIcon(ctx, t, item, icons.Done)
	n = waitNotify(ctx, t, w.desktop, "for the finished turn", func(n fakedesktop.Notification) bool {
		return strings.Contains(n.Summary, "finished")
	})
	if !strings.Contains(n.Body, "CAPTURE_ALL please") {
		t.Errorf("finished notification body %q lacks the session title", n.Body)
	}
	if err := fakedesktop.Eventually(ctx, 50*time.Millisecond, func() (bool, error) {
		played, err := os.ReadDir(w.desktop.sounds)
		return len(played) > 0, err
	}); err != nil {
		t.Errorf("no sound was played: %v", err)
	}

	// Do not disturb from the menu: the icon says so and a finished turn
	// of another session notifies nobody.
	if err := item.ClickPath(ctx, "Do Not Disturb"); err != nil {
		t.Fatal(err)
	}
	waitIcon(ctx, t, item, icons.DND)
	root = waitMenu(ctx, t, item, "Do Not Disturb")
	if dnd := root.Find("Do Not Disturb"); dnd.ToggleType != "checkmark" || dnd.ToggleState != 1 {
		t.Errorf("Do Not Disturb item after the click: %s, want a checked checkmark", dnd)
	}
	before := len(w.desktop.notifier.Notifications())
	const quiet = "7a700000-0000-4000-8000-000000000002"
	w.hook(ctx, "UserPromptSubmit", quiet)
	w.hook(ctx, "Stop", quiet)
	// Once the notifier has taken the turn end in with the gate closed,
	// nothing of it is held for later.
	decided := regexp.MustCompile(`msg=occurrence kind=done agent=claude session=` + quiet + ` notes=0 closed=true`)
	for end := time.Now().Add(10 * time.Second); !decided.MatchString(serve.stderr.String()); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the notifier did not take the turn end in during do-not-disturb within 10 s:\n%s", serve.stderr.String())
		}
	}
	if got := w.desktop.notifier.Notifications(); len(got) != before {
		t.Errorf("notifications during do-not-disturb: %+v", got[before:])
	}
	// Click once the menu shows the new session: a click on a menu that
	// is being rebuilt goes to an item that is gone.
	waitMenu(ctx, t, item, "Sessions (2)")
	if err := item.ClickPath(ctx, "Do Not Disturb"); err != nil {
		t.Fatal(err)
	}
	if err := fakedesktop.Eventually(ctx, 50*time.Millisecond, func() (bool, error) {
		root, err := item.Layout(ctx)
		if err != nil {
			return false, err
		}
		dnd := root.Find("Do Not Disturb")
		return dnd != nil && dnd.ToggleState == 0, nil
	}); err != nil {
		t.Fatalf("Do Not Disturb still on after the second click: %v", err)
	}

	// Quit with a request pending: the hook gets "no decision" and the
	// runtime exits cleanly, its runtime.json gone.
	perm = w.startHook(ctx, "PermissionRequest", sid)
	waitMenu(ctx, t, item, "Needs you (1)")
	if err := item.ClickPath(ctx, "Quit clawd"); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-perm:
		if r.code != 0 || decisionBehavior(t, r.stdout) != "" {
			t.Errorf("pending hook when the tray quit: %s, want exit 0 and no decision", r)
		}
	case <-ctx.Done():
		t.Fatal("the pending hook never got an answer after Quit")
	}
	select {
	case <-serve.done:
	case <-time.After(10 * time.Second):
		t.Fatal("clawd serve still running 10 s after Quit")
	}
	if serve.err != nil {
		t.Errorf("clawd serve after Quit: %v, want exit 0\n%s", serve.err, serve.stderr.String())
	}
	if _, err := os.Stat(w.runtimeFile()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("runtime.json still there after Quit (stat: %v)", err)
	}
	select {
	case <-item.Done():
	case <-time.After(5 * time.Second):
		t.Error("the tray item is still on the bus after Quit")
	}
}

// startTrayHost starts the tray host for a world with a desktop.
func (w *world) startTrayHost(ctx context.Context) {
	w.t.Helper()
	if w.desktop != nil {
		w.startWatcher(ctx)
	}
}

// TestServeWithoutDesktop: on an SSH box (no session bus) serve without
// --headless says once that it runs without a tray, and serves.
func TestServeWithoutDesktop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w := newWorld(t)
	cmd := exec.Command(clawdBin, "serve", "--port", "0")
	// A bus address that leads nowhere, so the developer's own desktop
	// session (/run/user/<uid>/bus) is not found either.
	cmd.Env = append(w.clawdEnv(), "DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(w.dir, "no-bus"))
	cmd.Dir = w.dir
	s := &server{w: w, proc: startProc(t, "clawd serve", cmd, io.Discard)}
	if err := fakedesktop.Eventually(ctx, 20*time.Millisecond, func() (bool, error) {
		data, err := os.ReadFile(w.runtimeFile())
		return err == nil && json.Unmarshal(data, &s.info) == nil && s.info.Port != 0, nil
	}); err != nil {
		t.Fatalf("serve without a desktop never wrote runtime.json: %v\n%s", err, s.stderr.String())
	}
	w.hook(ctx, "UserPromptSubmit", "7a700000-0000-4000-8000-000000000003")
	st, ok := w.status(ctx)
	if _, found := st.session("7a700000-0000-4000-8000-000000000003"); !ok || !found {
		t.Errorf("serve without a desktop does not serve: status %+v", st)
	}
	s.shutdown()
	log := s.stderr.String()
	if n := strings.Count(log, "no desktop session"); n != 1 {
		t.Errorf("serve said %d times that there is no desktop, want once:\n%s", n, log)
	}
	if strings.Contains(log, "panic") || strings.Contains(log, "systray") {
		t.Errorf("serve without a desktop touched the tray:\n%s", log)
	}
}

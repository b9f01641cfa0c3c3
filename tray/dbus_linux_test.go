package tray

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/autostart"
	"github.com/clawdhq/clawd/internal/fakedesktop"
	"github.com/clawdhq/clawd/internal/icons"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/client"
)

// The D-Bus tests run the real tray (fyne.io/systray, which keeps global
// state and runs once per process) in a child: this test binary again,
// with trayChildEnv set, serving a real runtime on its socket. The test is
// the desktop: a private bus with a StatusNotifierWatcher that reads the
// menu and the icon as a panel does and clicks items.
const trayChildEnv = "CLAWD_TRAY_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(trayChildEnv) != "" {
		os.Exit(trayChild())
	}
	os.Exit(m.Run())
}

// trayChild is the child's main: a runtime with two requests waiting in
// web-frontend (a Bash command, and Claude Code's AskUserQuestion with one
// single-select question), and the tray over it with the default login
// entry. Each answer the runtime hands back to a request's hook is
// printed as one line, "answer <kind> <json>". Each line on its stdin is
// one refresh tick of the controller. It returns when Quit is clicked.
func trayChild() int {
	fail := func(err error) int { fmt.Println("child:", err); return 1 }
	home := os.Getenv("CLAWD_HOME")
	cwd := filepath.Join(home, "web-frontend")
	srv := runtime.New(runtime.Config{Home: home, Version: "test", Alive: func(int) bool { return true }})
	sock := client.SocketPath(home)
	ln, err := runtime.ListenSocket(sock, nil)
	if err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, nil, ln) }()

	srv.Ingest(agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: "s1", Cwd: cwd, Time: time.Now()})
	ask := func(kind string, e agents.Event, r agents.Request) {
		body, _ := json.Marshal(client.RequestBody{Event: e, Request: r, WaitSeconds: 120})
		go func() {
			a, err := client.AskPermission(ctx, sock, body)
			out, _ := json.Marshal(a)
			fmt.Printf("answer %s %s %v\n", kind, out, err)
		}()
	}
	in, _ := json.Marshal(map[string]string{"command": "rm -rf build"})
	ask("bash", agents.Event{Agent: "claude", Kind: agents.KindPermissionRequest, SessionID: "s1", Cwd: cwd, ToolName: "Bash", Time: time.Now()},
		agents.Request{ToolInput: in, Summary: "rm -rf build"})
	// Wait for it, so the two are listed in this order.
	for deadline := time.Now().Add(10 * time.Second); len(srv.Permissions()) < 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			return fail(errors.New("the Bash request was never listed"))
		}
	}
	var payload map[string]any
	data, err := os.ReadFile(filepath.Join("..", "testdata", "claude", "hooks", "PermissionRequest.AskUserQuestion.json"))
	if err != nil {
		return fail(err)
	}
	json.Unmarshal(data, &payload)
	ti := payload["tool_input"].(map[string]any)
	ti["questions"] = ti["questions"].([]any)[:1] // the database, one option
	payload["cwd"], payload["session_id"] = cwd, "s1"
	data, _ = json.Marshal(payload)
	qe := agents.Event{Agent: "claude", Kind: agents.KindQuestion, SessionID: "s1", Cwd: cwd, ToolName: "AskUserQuestion", Time: time.Now(), HookEvent: "PermissionRequest"}
	ask("question", qe, agents.Claude.Describe(qe, data, false))

	ticks := make(chan time.Time)
	go func() {
		for sc := bufio.NewScanner(os.Stdin); sc.Scan(); {
			select {
			case ticks <- time.Now():
			case <-ctx.Done():
				return
			}
		}
	}()
	// The refresh is the one wait of refreshEvery; the others run on time.
	after := func(d time.Duration) <-chan time.Time {
		if d == refreshEvery {
			return ticks
		}
		return time.After(d)
	}
	err = Run(ctx, Options{Runtime: srv, Home: home, Quit: cancel, After: after,
		Dashboard: func(context.Context) error { return nil }})
	cancel()
	if err := errors.Join(err, <-served); err != nil {
		return fail(err)
	}
	fmt.Println("child: quit")
	return 0
}

// TestTrayOverDBus: over the private session bus, the menu opens with
// Needs you (2), the two requests labelled by their repository, then Open
// dashboard; the icon's pixmap is the needs-you icon with a 2 drawn in,
// digit pixel for digit pixel; clicking the question's option answers it
// through the runtime (the hook gets Claude Code's answer) and the icon
// turns to the one with a 1; Start at login writes the autostart entry
// into the XDG config home and checks the item, and a second click
// removes it and unchecks it; the entry deleted from disk, not by the
// tray, is unchecked after one refresh tick; Quit ends the tray.
func TestTrayOverDBus(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	bus := fakedesktop.StartBus(t)
	w := fakedesktop.StartWatcher(t, bus)

	dir := t.TempDir()
	home, userHome, cfg, bin := filepath.Join(dir, "clawd"), filepath.Join(dir, "home"), filepath.Join(dir, "config"), filepath.Join(dir, "bin")
	for _, d := range []string{filepath.Join(home, "web-frontend", ".git"), userHome, cfg, bin} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// No systemd user manager here: the entry is the XDG autostart file.
	if err := os.WriteFile(filepath.Join(bin, "systemctl"), []byte("#!/bin/sh\nexit 1\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(childBinary(t), "-test.run=^$")
	cmd.Env = append(os.Environ(), trayChildEnv+"=1", "CLAWD_HOME="+home, "HOME="+userHome, "XDG_CONFIG_HOME="+cfg,
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	ticks, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	child := bus.Start(t, cmd)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("child output:\n%s", child.Output())
		}
	})
	item, err := w.WaitItem(ctx)
	if err != nil {
		t.Fatal(err)
	}

	root := waitLayout(ctx, t, item, func(root *fakedesktop.MenuNode) bool {
		return root.Find("Needs you (2)") != nil && root.Find("Start at login") != nil
	})
	// The labels end with how long each has waited: compared up to it.
	top := topLabels(root)
	wantTop := []string{"Needs you (2)", "web-frontend · Bash: rm -rf build · ", "web-frontend asks: Which database should we use? · ", "Open dashboard", "----"}
	if len(top) < len(wantTop) {
		t.Fatalf("the menu has %q, want it to start %q", top, wantTop)
	}
	for i, want := range wantTop {
		if !strings.HasPrefix(top[i], want) {
			t.Errorf("menu item %d = %q, want %q…; menu:\n%s", i, top[i], want, root)
		}
	}
	for _, l := range []string{"Sessions (1)", "web-frontend · has a question · "} {
		i := slices.IndexFunc(top, func(s string) bool { return strings.HasPrefix(s, l) })
		if i <= slices.Index(top, "Open dashboard") {
			t.Errorf("%q at %d, want it after Open dashboard; menu:\n%s", l, i, root)
		}
	}
	if n := root.Find("Start at login"); n.ToggleType != "checkmark" || n.ToggleState != 0 {
		t.Errorf("Start at login = checkmark %q state %d, want an unchecked checkmark", n.ToggleType, n.ToggleState)
	}

	two := waitPixmap(ctx, t, item, icons.NeedsYouCount(2))
	checkCount(t, two, 2)

	// The question's option answers it: the runtime hands the hook
	// Claude Code's answer.
	question := top[2]
	if err := item.ClickPath(ctx, question, "SQLite — Embedded, zero setup"); err != nil {
		t.Fatalf("click SQLite: %v\n%s", err, root)
	}
	line, err := child.WaitLine(ctx, "answer question ")
	if err != nil {
		t.Fatal(err)
	}
	var a client.Answer
	js, _ := strings.CutPrefix(line, "answer question ")
	if i := strings.LastIndex(js, " "); i >= 0 {
		js = js[:i] // the error, <nil>
	}
	if err := json.Unmarshal([]byte(js), &a); err != nil {
		t.Fatalf("answer line %q: %v", line, err)
	}
	var answered struct {
		Answers map[string]string `json:"answers"`
	}
	if a.Decision != nil {
		json.Unmarshal(a.Decision.UpdatedInput, &answered)
	}
	if a.Decision == nil || !a.Decision.Allow || answered.Answers["Which database should we use?"] != "SQLite" {
		t.Errorf("the question's hook got %s, want an allow answering SQLite", line)
	}
	one := waitPixmap(ctx, t, item, icons.NeedsYouCount(1))
	checkCount(t, one, 1)
	if bytes.Equal(one.Pix, two.Pix) {
		t.Error("the icon with 1 request is the icon with 2")
	}
	if strings.Contains(child.Output(), "answer bash ") {
		t.Error("the Bash request got an answer; only the question was answered")
	}

	// Start at login: the entry comes and goes, and the check with it.
	entry := filepath.Join(cfg, "autostart", autostart.DesktopFile)
	for _, on := range []bool{true, false} {
		// The menu is rebuilt when a request goes: click in the whole
		// one, as a person would.
		waitLayout(ctx, t, item, func(root *fakedesktop.MenuNode) bool {
			return root.Find("Start at login") != nil && root.Find("Quit clawd") != nil
		})
		if err := item.ClickPath(ctx, "Start at login"); err != nil {
			t.Fatal(err)
		}
		want := map[bool]int32{true: 1, false: 0}[on]
		root = waitLayout(ctx, t, item, func(root *fakedesktop.MenuNode) bool {
			n := root.Find("Start at login")
			return n != nil && n.ToggleState == want
		})
		data, err := os.ReadFile(entry)
		switch {
		case on && err != nil:
			t.Errorf("after checking Start at login: %v, want %s", err, entry)
		case on && !strings.Contains(string(data), "CLAWD_HOME="+home):
			t.Errorf("%s =\n%s\nwant it to start clawd for %s", entry, data, home)
		case !on && !errors.Is(err, os.ErrNotExist):
			t.Errorf("after unchecking Start at login, %s: %v, want it gone", entry, err)
		}
	}
	// The entry deleted under the menu (rm, or clawd autostart disable
	// in a terminal): one refresh tick unchecks the item.
	if err := item.ClickPath(ctx, "Start at login"); err != nil {
		t.Fatal(err)
	}
	waitLayout(ctx, t, item, func(root *fakedesktop.MenuNode) bool {
		n := root.Find("Start at login")
		return n != nil && n.ToggleState == 1
	})
	if err := os.Remove(entry); err != nil {
		t.Fatalf("remove the entry behind the tray: %v", err)
	}
	if _, err := fmt.Fprintln(ticks, "tick"); err != nil {
		t.Fatalf("tick the child: %v", err)
	}
	waitLayout(ctx, t, item, func(root *fakedesktop.MenuNode) bool {
		n := root.Find("Start at login")
		return n != nil && n.ToggleState == 0
	})

	if err := item.ClickPath(ctx, "Quit clawd"); err != nil {
		t.Fatal(err)
	}
	if err := child.Wait(ctx); err != nil {
		t.Fatalf("child after Quit: %v", err)
	}
}

// waitLayout waits until the menu satisfies ok and returns it.
func waitLayout(ctx context.Context, t *testing.T, item *fakedesktop.Item, ok func(*fakedesktop.MenuNode) bool) *fakedesktop.MenuNode {
	t.Helper()
	var root *fakedesktop.MenuNode
	err := fakedesktop.Eventually(ctx, 20*time.Millisecond, func() (bool, error) {
		var err error
		root, err = item.Layout(ctx)
		return err == nil && ok(root), nil
	})
	if err != nil {
		t.Fatalf("the menu never got there: %v\n%s", err, root)
	}
	return root
}

func topLabels(root *fakedesktop.MenuNode) []string {
	var out []string
	for _, c := range root.Children {
		if c.Separator {
			out = append(out, "----")
		} else {
			out = append(out, c.Label)
		}
	}
	return out
}

// waitPixmap waits until the item's pixmap is icon n, pixel for pixel in
// straight ARGB, and returns it.
func waitPixmap(ctx context.Context, t *testing.T, item *fakedesktop.Item, n icons.Name) *image.NRGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(icons.PNG(n)))
	if err != nil {
		t.Fatal(err)
	}
	want := image.NewNRGBA(img.Bounds())
	draw.Draw(want, want.Rect, img, image.Point{}, draw.Src)
	var got *image.NRGBA
	err = fakedesktop.Eventually(ctx, 20*time.Millisecond, func() (bool, error) {
		pxs, err := item.IconPixmap(ctx)
		if err != nil || len(pxs) != 1 {
			return false, err
		}
		got = pxs[0].Image()
		return got.Rect == want.Rect && bytes.Equal(got.Pix, want.Pix), nil
	})
	if err != nil {
		t.Fatalf("the icon never was %s: %v", n, err)
	}
	return got
}

// checkCount checks the 32 px pixmap has digit d drawn in: every pixel of
// an inked cell of icons.Digits white, every pixel of an empty one the
// badge's orange.
func checkCount(t *testing.T, img *image.NRGBA, d int) {
	t.Helper()
	const k = 2 // 32 px on the 16-unit grid
	white := func(c color.NRGBA) bool { return c.A == 255 && c.R > 240 && c.G > 240 && c.B > 240 }
	orange := func(c color.NRGBA) bool { return c.A == 255 && c.R > 200 && c.G < 130 && c.B < 60 }
	bad := 0
	for r, line := range icons.Digits[d] {
		for c, b := range line {
			for dy := range icons.CountCell * k {
				for dx := range icons.CountCell * k {
					x := (icons.CountOriginX+c*icons.CountCell)*k + dx
					y := (icons.CountOriginY+r*icons.CountCell)*k + dy
					if px := img.NRGBAAt(x, y); b == '#' && !white(px) || b == '.' && !orange(px) {
						bad++
					}
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("the pixmap's digit %d has %d pixels that are not its font's", d, bad)
	}
}

// childBinary is the test binary the child runs: this one, or under the
// race detector the same tests built without it, since fyne.io/systray
// v1.12.2 races on its own menu (see internal/fakedesktop's demo); the
// tray's own code is raced in-process by the controller tests.
func childBinary(t *testing.T) string {
	t.Helper()
	if !raceOn {
		return os.Args[0]
	}
	bin := filepath.Join(t.TempDir(), "tray.test")
	if out, err := exec.Command("go", "test", "-c", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go test -c (without -race) for the child: %v\n%s", err, out)
	}
	return bin
}

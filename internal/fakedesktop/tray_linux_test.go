package fakedesktop

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

func labels(nodes []*MenuNode) []string {
	var out []string
	for _, n := range nodes {
		if n.Separator {
			out = append(out, "----")
		} else {
			out = append(out, n.Label)
		}
	}
	return out
}

// TestTray drives the real fyne.io/systray in a child process through the
// watcher: properties, icon, menu, clicks in a submenu and on a checkbox,
// and Quit.
func TestTray(t *testing.T) {
	ctx := testContext(t)
	bus := StartBus(t)
	w := StartWatcher(t, bus)
	notifier := StartNotifier(t, bus)
	demo := bus.Start(t, demoCommand(t, "tray"))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("demo output:\n%s", demo.Output())
		}
	})

	it, err := w.WaitItem(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if it.Path != DefaultItemPath {
		t.Errorf("item path = %s, want %s", it.Path, DefaultItemPath)
	}

	props, err := it.Props(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]any{
		"Status":     "Active",
		"Title":      demoTitle,
		"ItemIsMenu": true,
		"Menu":       dbus.ObjectPath("/StatusNotifierItem/menu"),
	} {
		if got := props[name].Value(); got != want {
			t.Errorf("property %s = %#v, want %#v", name, got, want)
		}
	}

	tip, err := it.Tooltip(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tip != demoTooltip {
		t.Errorf("Tooltip() = %q, want %q", tip, demoTooltip)
	}

	// SetIcon may land after registration; the icon is the demo's once
	// it has a size.
	var icon []Pixmap
	err = Eventually(ctx, pollEvery, func() (bool, error) {
		var err error
		icon, err = it.IconPixmap(ctx)
		return len(icon) == 1 && icon[0].Width > 0, err
	})
	if err != nil {
		t.Fatalf("IconPixmap() = %v: %v", icon, err)
	}
	if icon[0].Width != demoIconW || icon[0].Height != demoIcH {
		t.Errorf("IconPixmap() size = %dx%d, want %dx%d", icon[0].Width, icon[0].Height, demoIconW, demoIcH)
	}
	img := icon[0].Image()
	if got := img.NRGBAAt(0, 0); got != demoRed {
		t.Errorf("icon pixel (0,0) = %v, want %v", got, demoRed)
	}
	if got := img.NRGBAAt(demoIconW-1, demoIcH-1); got != demoBlue {
		t.Errorf("icon pixel (%d,%d) = %v, want %v", demoIconW-1, demoIcH-1, got, demoBlue)
	}

	root, err := it.Layout(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantTop := []string{"Hello", "Disabled", "----", "More", "Check", "Quit"}
	if got := labels(root.Children); !slices.Equal(got, wantTop) {
		t.Fatalf("top-level menu = %q, want %q; tree:\n%s", got, wantTop, root)
	}
	more := root.Find("More")
	if !more.Submenu || !slices.Equal(labels(more.Children), []string{"Click me"}) {
		t.Errorf("More = %s with children %q, want a submenu holding \"Click me\"; tree:\n%s",
			more.describe(), labels(more.Children), root)
	}
	if d := root.Find("Disabled"); d.Enabled {
		t.Errorf("Disabled is enabled; tree:\n%s", root)
	}
	check := root.Find("Check")
	if check.ToggleType != "checkmark" || check.ToggleState != 0 {
		t.Errorf("Check = %s, want checkmark=0", check.describe())
	}

	// A click in the submenu: the demo changes its tooltip and notifies.
	tips := it.Subscribe("NewToolTip")
	defer tips.Close()
	if err := it.ClickPath(ctx, "More", "Click me"); err != nil {
		t.Fatal(err)
	}
	if _, err := tips.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if tip, err := it.Tooltip(ctx); err != nil || tip != "clicked 1" {
		t.Errorf("Tooltip() after the click = %q, %v; want \"clicked 1\"", tip, err)
	}
	if line, err := demo.WaitLine(ctx, "clicked 1"); err != nil || !strings.HasSuffix(line, "<nil>") {
		t.Errorf("demo said %q, %v; want \"clicked 1 <nil>\" (beeep.Notify succeeded)", line, err)
	}
	n, err := notifier.Wait(ctx, func(n Notification) bool { return n.Body == "clicked 1" })
	if err != nil {
		t.Fatal(err)
	}
	if n.AppName != demoAppName || n.Summary != "Clicked" {
		t.Errorf("notification = %+v, want app %q, summary \"Clicked\"", n, demoAppName)
	}

	// The checkbox toggles; the layout shows it.
	if err := it.Click(ctx, check.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := demo.WaitLine(ctx, "checked true"); err != nil {
		t.Fatal(err)
	}
	root, err = it.Layout(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c := root.Find("Check"); c.ToggleState != 1 {
		t.Errorf("Check after a click = %s, want checkmark=1", c.describe())
	}

	// What a person could not click is refused.
	if err := it.ClickPath(ctx, "Disabled"); !errors.Is(err, ErrNotClickable) {
		t.Errorf("ClickPath(Disabled) = %v, want ErrNotClickable", err)
	}
	if err := it.ClickPath(ctx, "More", "Nope"); !errors.Is(err, ErrNoMenuItem) {
		t.Errorf("ClickPath(More, Nope) = %v, want ErrNoMenuItem", err)
	}
	if err := it.Click(ctx, 9999); !errors.Is(err, ErrNoMenuItem) {
		t.Errorf("Click(9999) = %v, want ErrNoMenuItem", err)
	}
	if err := it.ClickPath(ctx, "Quit"); err != nil {
		t.Fatal(err)
	}
	if err := demo.Wait(ctx); err != nil {
		t.Fatalf("demo exit: %v", err)
	}
	if _, err := demo.WaitLine(ctx, "exited"); err != nil {
		t.Error(err)
	}
	if out := demo.Output(); strings.Contains(out, "hello") {
		t.Errorf("demo output has \"hello\" without a click on Hello:\n%s", out)
	}
	select {
	case <-it.Done():
	case <-ctx.Done():
		t.Fatal("item not gone after the demo exited")
	}
	if items := w.Items(); len(items) != 0 {
		t.Errorf("Items() after exit = %v, want none", items)
	}
}

// TestTrayRegistersBeforeWatcher starts the tray first: its registration
// fails, and it registers again when the watcher takes the name.
func TestTrayRegistersBeforeWatcher(t *testing.T) {
	ctx := testContext(t)
	bus := StartBus(t)
	addMatch := bus.AddMatches(t)
	demo := bus.Start(t, demoCommand(t, "tray"))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("demo output:\n%s", demo.Output())
		}
	})
	if _, err := demo.WaitLine(ctx, "failed to register"); err != nil {
		t.Fatal(err)
	}
	// fyne.io/systray v1.12.2 subscribes to the watcher's NameOwnerChanged
	// only after its first attempt failed; a watcher that comes in between
	// is missed for good. Start it once the subscription is in (and
	// announce it again should it fall in systray's own gap: see
	// WaitItemAnnouncing).
	for subscribed := false; !subscribed; {
		select {
		case rule := <-addMatch:
			subscribed = strings.Contains(rule, "arg0='"+WatcherName+"'")
		case <-ctx.Done():
			t.Fatal("the tray never subscribed to the watcher's name")
		}
	}

	w := StartWatcher(t, bus)
	it, err := w.WaitItemAnnouncing(ctx, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	root, err := it.Layout(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if root.FindPath("More", "Click me") == nil {
		t.Errorf("no More > Click me in\n%s", root)
	}
	if err := it.ClickPath(ctx, "Quit"); err != nil {
		t.Fatal(err)
	}
	if err := demo.Wait(ctx); err != nil {
		t.Fatalf("demo exit: %v", err)
	}
}

// TestBeeepNotify proves that beeep's notifications land in the Notifier,
// and, as a control, that they fail on the bus without it (the bus starts
// no notification daemon of the machine's).
func TestBeeepNotify(t *testing.T) {
	t.Run("notifier", func(t *testing.T) {
		ctx := testContext(t)
		bus := StartBus(t)
		notifier := StartNotifier(t, bus)
		demo := bus.Start(t, demoCommand(t, "notify"))
		if err := demo.Wait(ctx); err != nil {
			t.Fatalf("notify demo: %v\n%s", err, demo.Output())
		}
		got := notifier.Notifications()
		if len(got) != 1 {
			t.Fatalf("Notifications() = %+v, want one", got)
		}
		n := got[0]
		if n.AppName != demoAppName || n.Summary != "Summary text" || n.Body != "Body text" || n.ID == 0 {
			t.Errorf("notification = %+v, want app %q, \"Summary text\", \"Body text\", an id", n, demoAppName)
		}
		img, ok := n.Hints["image-data"]
		if !ok {
			t.Fatalf("hints %v have no image-data", n.Hints)
		}
		fields, _ := asSlice(img.Value())
		if img.Signature().String() != "(iiibiiay)" || len(fields) != 7 || fields[0] != int32(demoIconW) || fields[1] != int32(demoIcH) {
			t.Errorf("image-data = %s %.2v, want (iiibiiay) %dx%d", img.Signature(), fields, demoIconW, demoIcH)
		}
	})
	t.Run("no notifier", func(t *testing.T) {
		ctx := testContext(t)
		bus := StartBus(t)
		demo := bus.Start(t, demoCommand(t, "notify"))
		if err := demo.Wait(ctx); err == nil {
			t.Fatalf("notify demo succeeded without a notification server:\n%s", demo.Output())
		}
		if out := demo.Output(); !strings.Contains(out, NotificationsName) {
			t.Errorf("output = %q, want it to name %s", out, NotificationsName)
		}
	})
}

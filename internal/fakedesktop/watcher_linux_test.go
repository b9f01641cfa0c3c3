package fakedesktop

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/prop"
)

// fakeItem is a minimal StatusNotifierItem on its own connection.
func fakeItem(t *testing.T, bus *Bus, path dbus.ObjectPath, tooltip string) *dbus.Conn {
	t.Helper()
	conn := bus.Conn(t)
	_, err := prop.Export(conn, path, prop.Map{ItemInterface: {
		"Status":  {Value: "Active"},
		"ToolTip": {Value: toolTipWire{Title: tooltip}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// toolTipWire has the wire shape (sa(iiay)ss) for fake items.
type toolTipWire struct {
	IconName string
	Icons    []struct {
		W, H int32
		Pix  []byte
	}
	Title, Text string
}

func register(ctx context.Context, conn *dbus.Conn, service string) error {
	return conn.Object(WatcherName, WatcherPath).CallWithContext(ctx, WatcherName+".RegisterStatusNotifierItem", 0, service).Err
}

func TestWatcherServiceForms(t *testing.T) {
	tests := []struct {
		name     string
		service  func(conn *dbus.Conn) string // what the item sends
		own      string                       // well-known name the item takes first
		wantPath dbus.ObjectPath
	}{
		{"path", func(*dbus.Conn) string { return "/StatusNotifierItem" }, "", "/StatusNotifierItem"},
		{"other path", func(*dbus.Conn) string { return "/org/ayatana/NotificationItem/x" }, "", "/org/ayatana/NotificationItem/x"},
		{"well-known name", func(*dbus.Conn) string { return "org.kde.StatusNotifierItem-7-1" }, "org.kde.StatusNotifierItem-7-1", DefaultItemPath},
		{"unique name", func(c *dbus.Conn) string { return c.Names()[0] }, "", DefaultItemPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			bus := StartBus(t)
			w := StartWatcher(t, bus)
			conn := fakeItem(t, bus, tt.wantPath, "tip of "+tt.name)
			if tt.own != "" {
				if _, err := conn.RequestName(tt.own, dbus.NameFlagDoNotQueue); err != nil {
					t.Fatal(err)
				}
			}
			service := tt.service(conn)
			if err := register(ctx, conn, service); err != nil {
				t.Fatalf("RegisterStatusNotifierItem(%q) = %v", service, err)
			}
			// Items register again whenever they like; that is still one.
			if err := register(ctx, conn, service); err != nil {
				t.Fatalf("second RegisterStatusNotifierItem(%q) = %v", service, err)
			}

			it, err := w.WaitItem(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if it.Service != service || it.Sender != conn.Names()[0] || it.Path != tt.wantPath {
				t.Errorf("item = {%q %s %s}, want {%q %s %s}", it.Service, it.Sender, it.Path, service, conn.Names()[0], tt.wantPath)
			}
			if tip, err := it.Tooltip(ctx); err != nil || tip != "tip of "+tt.name {
				t.Errorf("Tooltip() = %q, %v; want %q", tip, err, "tip of "+tt.name)
			}
			registered := func() []string {
				var ids []string
				err := bus.Conn(t).Object(WatcherName, WatcherPath).CallWithContext(ctx,
					"org.freedesktop.DBus.Properties.Get", 0, WatcherName, "RegisteredStatusNotifierItems").Store(&ids)
				if err != nil {
					t.Fatal(err)
				}
				return ids
			}
			if got, want := registered(), []string{conn.Names()[0] + string(tt.wantPath)}; !slices.Equal(got, want) {
				t.Errorf("RegisteredStatusNotifierItems = %q, want %q", got, want)
			}

			conn.Close()
			select {
			case <-it.Done():
			case <-ctx.Done():
				t.Fatal("item not gone after its connection closed")
			}
			if items := w.Items(); len(items) != 0 {
				t.Errorf("Items() = %v, want none", items)
			}
			if got := registered(); len(got) != 0 {
				t.Errorf("RegisteredStatusNotifierItems after close = %q, want none", got)
			}
		})
	}
}

func TestWatcherRejectsUnknownName(t *testing.T) {
	ctx := testContext(t)
	bus := StartBus(t)
	StartWatcher(t, bus)
	if err := register(ctx, bus.Conn(t), "org.example.Nobody"); err == nil {
		t.Error("RegisterStatusNotifierItem(unowned name) = nil, want an error")
	}
}

func TestSubscribe(t *testing.T) {
	ctx := testContext(t)
	bus := StartBus(t)
	w := StartWatcher(t, bus)
	conn := fakeItem(t, bus, DefaultItemPath, "")
	other := fakeItem(t, bus, DefaultItemPath, "")
	if err := register(ctx, conn, string(DefaultItemPath)); err != nil {
		t.Fatal(err)
	}
	if err := register(ctx, other, string(DefaultItemPath)); err != nil {
		t.Fatal(err)
	}
	it, err := w.WaitItem(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if it.Sender != conn.Names()[0] {
		t.Fatalf("WaitItem() = %s, want the first item %s", it.Sender, conn.Names()[0])
	}
	if n := len(w.Items()); n != 2 {
		t.Errorf("len(Items()) = %d, want 2", n)
	}

	tips := it.Subscribe("NewToolTip")
	defer tips.Close()
	all := it.Subscribe()
	defer all.Close()
	emit := func(c *dbus.Conn, member string) {
		t.Helper()
		if err := c.Emit(DefaultItemPath, ItemInterface+"."+member); err != nil {
			t.Fatal(err)
		}
	}
	// Another item's signal, then one not asked for, then the one asked
	// for: the subscription must see only the last.
	emit(other, "NewToolTip")
	emit(conn, "NewIcon")
	emit(conn, "NewToolTip")
	sig, err := tips.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sig.Name != ItemInterface+".NewToolTip" || sig.Sender != it.Sender {
		t.Errorf("Wait() = %s from %s, want NewToolTip from %s", sig.Name, sig.Sender, it.Sender)
	}
	var got []string
	for range 2 {
		sig, err := all.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, sig.Name)
	}
	if want := []string{ItemInterface + ".NewIcon", ItemInterface + ".NewToolTip"}; !slices.Equal(got, want) {
		t.Errorf("unfiltered subscription saw %q, want %q", got, want)
	}

	// WaitSignal sees a signal sent after it started.
	done := make(chan error, 1)
	go func() { done <- it.WaitSignal(ctx, "NewStatus") }()
	// Until the goroutine has subscribed, a signal could be missed: repeat
	// until it returns.
	err = Eventually(ctx, pollEvery, func() (bool, error) {
		emit(conn, "NewStatus")
		select {
		case err := <-done:
			return true, err
		default:
			return false, nil
		}
	})
	if err != nil {
		t.Errorf("WaitSignal(NewStatus) = %v", err)
	}
}

// TestWaitItemAnnouncing: an item that registers only when it sees the
// watcher's name taken, and started watching after the watcher took it,
// is found once the watcher announces itself again.
func TestWaitItemAnnouncing(t *testing.T) {
	ctx := testContext(t)
	bus := StartBus(t)
	w := StartWatcher(t, bus)
	conn := fakeItem(t, bus, DefaultItemPath, "late")
	if err := conn.AddMatchSignal(dbus.WithMatchSender("org.freedesktop.DBus"), dbus.WithMatchMember("NameOwnerChanged"),
		dbus.WithMatchArg(0, WatcherName)); err != nil {
		t.Fatal(err)
	}
	signals := make(chan *dbus.Signal, 8)
	conn.Signal(signals)
	go func() {
		for sig := range signals {
			if len(sig.Body) == 3 && sig.Body[2] != "" {
				register(ctx, conn, string(DefaultItemPath))
			}
		}
	}()
	// The watcher took its name before the item watched for it: only an
	// announcement brings the item.
	it, err := w.WaitItemAnnouncing(ctx, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if it.Path != DefaultItemPath {
		t.Errorf("item at %s, want %s", it.Path, DefaultItemPath)
	}
}

package fakedesktop

import (
	"slices"
	"testing"

	"github.com/godbus/dbus/v5"
)

func TestNotifier(t *testing.T) {
	ctx := testContext(t)
	bus := StartBus(t)
	n := StartNotifier(t, bus)
	client := bus.Conn(t)
	obj := client.Object(NotificationsName, NotificationsPath)
	notify := func(replaces uint32, summary string) uint32 {
		t.Helper()
		var id uint32
		err := obj.CallWithContext(ctx, NotificationsName+".Notify", 0, "app", replaces, "icon", summary, "body",
			[]string{"ok", "OK"}, map[string]dbus.Variant{"urgency": dbus.MakeVariant(byte(2))}, int32(5000)).Store(&id)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}

	first := notify(0, "one")
	second := notify(0, "two")
	replaced := notify(first, "one again")
	if first == 0 || second == first || replaced != first {
		t.Errorf("ids = %d, %d, %d (replacing the first); want new, new, the first", first, second, replaced)
	}

	got := n.Notifications()
	if len(got) != 3 {
		t.Fatalf("Notifications() = %+v, want 3", got)
	}
	want := Notification{AppName: "app", AppIcon: "icon", Summary: "one", Body: "body",
		Actions: []string{"ok", "OK"}, Timeout: 5000, ID: first}
	g := got[0]
	if g.AppName != want.AppName || g.AppIcon != want.AppIcon || g.Summary != want.Summary || g.Body != want.Body ||
		!slices.Equal(g.Actions, want.Actions) || g.Timeout != want.Timeout || g.ID != want.ID || g.ReplacesID != 0 {
		t.Errorf("Notifications()[0] = %+v, want %+v", g, want)
	}
	if u := g.Hints["urgency"]; u.Signature().String() != "y" || u.Value() != byte(2) {
		t.Errorf("urgency hint = %s %v, want y 2", u.Signature(), u.Value())
	}
	if got[2].ReplacesID != first {
		t.Errorf("ReplacesID = %d, want %d", got[2].ReplacesID, first)
	}

	// Wait finds one already received, and one still to come.
	if x, err := n.Wait(ctx, func(x Notification) bool { return x.Summary == "two" }); err != nil || x.ID != second {
		t.Errorf("Wait(two) = %+v, %v; want id %d", x, err, second)
	}
	done := make(chan Notification, 1)
	go func() {
		x, _ := n.Wait(ctx, func(x Notification) bool { return x.Summary == "later" })
		done <- x
	}()
	later := notify(0, "later")
	if x := <-done; x.ID != later {
		t.Errorf("Wait(later) = %+v, want id %d", x, later)
	}

	var caps []string
	if err := obj.CallWithContext(ctx, NotificationsName+".GetCapabilities", 0).Store(&caps); err != nil || !slices.Contains(caps, "body") {
		t.Errorf("GetCapabilities() = %q, %v; want body among them", caps, err)
	}
	var name, vendor, version, spec string
	if err := obj.CallWithContext(ctx, NotificationsName+".GetServerInformation", 0).Store(&name, &vendor, &version, &spec); err != nil || spec != "1.2" {
		t.Errorf("GetServerInformation() = %q %q %q %q, %v; want spec 1.2", name, vendor, version, spec, err)
	}

	if err := client.AddMatchSignal(dbus.WithMatchInterface(NotificationsName), dbus.WithMatchMember("NotificationClosed")); err != nil {
		t.Fatal(err)
	}
	signals := make(chan *dbus.Signal, 4)
	client.Signal(signals)
	if err := obj.CallWithContext(ctx, NotificationsName+".CloseNotification", 0, second).Err; err != nil {
		t.Fatal(err)
	}
	if got := n.Closed(); !slices.Equal(got, []uint32{second}) {
		t.Errorf("Closed() = %v, want [%d]", got, second)
	}
	select {
	case sig := <-signals:
		if !slices.Equal(sig.Body, []any{second, uint32(3)}) {
			t.Errorf("NotificationClosed%v, want (%d, 3)", sig.Body, second)
		}
	case <-ctx.Done():
		t.Error("no NotificationClosed signal")
	}
}

package fakedesktop

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"
)

// Name and path of the desktop notification service.
const (
	NotificationsName = "org.freedesktop.Notifications"
	NotificationsPath = dbus.ObjectPath("/org/freedesktop/Notifications")
)

// Notification is one Notify call as the server received it, with the id it
// answered.
type Notification struct {
	AppName    string
	ReplacesID uint32
	AppIcon    string
	Summary    string
	Body       string
	Actions    []string
	Hints      map[string]dbus.Variant
	Timeout    int32
	ID         uint32
}

// Notifier owns org.freedesktop.Notifications on a Bus and records every
// notification, like a notification daemon that shows nothing.
type Notifier struct {
	conn *dbus.Conn

	mu      sync.Mutex
	list    []Notification
	closed  []uint32
	lastID  uint32
	changed chan struct{} // closed and replaced on every Notify
}

// StartNotifier exports the notification server on its own connection to b
// and takes the well-known name. It is stopped in t.Cleanup.
func StartNotifier(t testing.TB, b *Bus) *Notifier {
	t.Helper()
	conn, err := dbus.Connect(b.Address())
	if err != nil {
		t.Fatalf("fakedesktop: notifier: connect: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	n := &Notifier{conn: conn, changed: make(chan struct{})}
	if err := conn.Export(notifierMethods{n}, NotificationsPath, NotificationsName); err != nil {
		t.Fatalf("fakedesktop: notifier: export: %v", err)
	}
	reply, err := conn.RequestName(NotificationsName, dbus.NameFlagDoNotQueue)
	if err != nil {
		t.Fatalf("fakedesktop: notifier: request name: %v", err)
	}
	if reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("fakedesktop: notifier: %s is already owned on this bus (reply %d)", NotificationsName, reply)
	}
	return n
}

// Notifications returns every notification received so far, oldest first.
func (n *Notifier) Notifications() []Notification {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.list)
}

// Closed returns the ids passed to CloseNotification so far.
func (n *Notifier) Closed() []uint32 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.closed)
}

// Wait returns the first notification, received before the call or after,
// for which pred is true; or ctx's error.
func (n *Notifier) Wait(ctx context.Context, pred func(Notification) bool) (Notification, error) {
	seen := 0
	for {
		n.mu.Lock()
		list, changed := n.list[seen:], n.changed
		n.mu.Unlock()
		for _, x := range list {
			if pred(x) {
				return x, nil
			}
		}
		seen += len(list)
		select {
		case <-changed:
		case <-ctx.Done():
			return Notification{}, fmt.Errorf("wait for a notification (%d received): %w", seen, ctx.Err())
		}
	}
}

// notifierMethods holds the D-Bus methods, so that they stay off Notifier's
// Go API.
type notifierMethods struct{ n *Notifier }

// Notify records the notification. Like real servers it answers
// replaces_id when that is set and a new id otherwise.
func (m notifierMethods) Notify(msg dbus.Message, appName string, replacesID uint32, appIcon, summary, body string,
	actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	// godbus re-wraps the values of a decoded a{sv} argument and so loses
	// their wire signatures (image-data would read "av"); the message
	// body keeps them.
	if len(msg.Body) == 8 {
		if h, ok := msg.Body[6].(map[string]dbus.Variant); ok {
			hints = h
		}
	}
	n := m.n
	n.mu.Lock()
	defer n.mu.Unlock()
	id := replacesID
	if id == 0 {
		n.lastID++
		id = n.lastID
	}
	n.list = append(n.list, Notification{
		AppName:    appName,
		ReplacesID: replacesID,
		AppIcon:    appIcon,
		Summary:    summary,
		Body:       body,
		Actions:    actions,
		Hints:      hints,
		Timeout:    timeout,
		ID:         id,
	})
	close(n.changed)
	n.changed = make(chan struct{})
	return id, nil
}

// GetCapabilities names what the fake claims to show.
func (m notifierMethods) GetCapabilities() ([]string, *dbus.Error) {
	return []string{"body", "icon-static", "persistence"}, nil
}

// GetServerInformation answers name, vendor, version and spec version.
func (m notifierMethods) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "fakedesktop", "clawd", "1.0", "1.2", nil
}

// CloseNotification records the id and emits NotificationClosed with
// reason 3 (closed by a call to CloseNotification), as the spec asks.
func (m notifierMethods) CloseNotification(id uint32) *dbus.Error {
	m.n.mu.Lock()
	m.n.closed = append(m.n.closed, id)
	m.n.mu.Unlock()
	m.n.conn.Emit(NotificationsPath, NotificationsName+".NotificationClosed", id, uint32(3))
	return nil
}

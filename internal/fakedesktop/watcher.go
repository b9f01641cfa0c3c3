package fakedesktop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// Names and paths of the StatusNotifierItem protocol.
const (
	WatcherName     = "org.kde.StatusNotifierWatcher"
	WatcherPath     = dbus.ObjectPath("/StatusNotifierWatcher")
	ItemInterface   = "org.kde.StatusNotifierItem"
	MenuInterface   = "com.canonical.dbusmenu"
	DefaultItemPath = dbus.ObjectPath("/StatusNotifierItem")
)

// ErrNoMenuItem is returned by Click and ClickPath when the menu has no such
// item, and ErrNotClickable when a desktop would not let a person click it
// (disabled, hidden or a separator).
var (
	ErrNoMenuItem   = errors.New("no such menu item")
	ErrNotClickable = errors.New("menu item is not clickable")
)

// Watcher owns org.kde.StatusNotifierWatcher on a Bus and records the items
// that register with it, the way a desktop's tray host learns about them.
type Watcher struct {
	conn *dbus.Conn

	mu      sync.Mutex
	items   []*Item         // in registration order, gone ones included
	gone    map[string]bool // unique names that have left the bus
	matched map[string]bool // owners whose signals the connection receives
	changed chan struct{}   // closed and replaced whenever items change

	routed chan struct{} // closed when the signal router has returned
}

// StartWatcher exports a StatusNotifierWatcher on its own connection to b
// and takes the well-known name, which tells items already on the bus to
// register (fyne.io/systray re-registers when the name gets an owner). It is
// stopped in t.Cleanup.
func StartWatcher(t testing.TB, b *Bus) *Watcher {
	t.Helper()
	conn, err := dbus.Connect(b.Address())
	if err != nil {
		t.Fatalf("fakedesktop: watcher: connect: %v", err)
	}
	w := &Watcher{
		conn:    conn,
		gone:    map[string]bool{},
		matched: map[string]bool{},
		changed: make(chan struct{}),
		routed:  make(chan struct{}),
	}
	signals := make(chan *dbus.Signal, 64)
	conn.Signal(signals)
	go w.route(signals)
	t.Cleanup(func() {
		conn.Close() // ends route: the signal channel is closed
		<-w.routed
	})

	fail := func(what string, err error) {
		t.Helper()
		t.Fatalf("fakedesktop: watcher: %s: %v", what, err)
	}
	// Items vanish by leaving the bus; the match must be in place before
	// the first one registers.
	if err := conn.AddMatchSignal(
		dbus.WithMatchSender("org.freedesktop.DBus"),
		dbus.WithMatchInterface("org.freedesktop.DBus"),
		dbus.WithMatchMember("NameOwnerChanged"),
	); err != nil {
		fail("add match", err)
	}
	if err := conn.Export(watcherMethods{w}, WatcherPath, WatcherName); err != nil {
		fail("export", err)
	}
	if err := conn.Export(watcherProps{w}, WatcherPath, "org.freedesktop.DBus.Properties"); err != nil {
		fail("export properties", err)
	}
	reply, err := conn.RequestName(WatcherName, dbus.NameFlagDoNotQueue)
	if err != nil {
		fail("request name", err)
	}
	if reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("fakedesktop: watcher: %s is already owned on this bus (reply %d)", WatcherName, reply)
	}
	return w
}

// watcherMethods holds the D-Bus methods, so that they stay off Watcher's
// Go API.
type watcherMethods struct{ w *Watcher }

// RegisterStatusNotifierItem is the protocol's registration call. service is
// an object path on the caller's connection (what fyne.io/systray and
// libappindicator send) or a bus name whose item sits at
// /StatusNotifierItem (what KDE applications send).
func (m watcherMethods) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	owner, path := string(sender), DefaultItemPath
	if strings.HasPrefix(service, "/") {
		path = dbus.ObjectPath(service)
		if !path.IsValid() {
			return dbus.MakeFailedError(fmt.Errorf("invalid object path %q", service))
		}
	} else if !strings.HasPrefix(service, ":") {
		// A well-known name: signals come from its unique owner.
		if err := m.w.conn.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, service).Store(&owner); err != nil {
			return dbus.MakeFailedError(fmt.Errorf("resolve %s: %w", service, err))
		}
	} else {
		owner = service
	}
	return m.w.register(service, owner, path)
}

// RegisterStatusNotifierHost accepts a host; the fake acts as the only one.
func (m watcherMethods) RegisterStatusNotifierHost(service string) *dbus.Error { return nil }

func (w *Watcher) register(service, owner string, path dbus.ObjectPath) *dbus.Error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gone[owner] {
		return dbus.MakeFailedError(fmt.Errorf("%s has left the bus", owner))
	}
	// Before answering: signals the item emits right after registering
	// must find the rule in place.
	if !w.matched[owner] {
		if err := w.conn.AddMatchSignal(dbus.WithMatchSender(owner)); err != nil {
			return dbus.MakeFailedError(fmt.Errorf("add match for %s: %w", owner, err))
		}
		w.matched[owner] = true
	}
	for _, it := range w.items {
		if it.Sender == owner && it.Path == path && !it.isGone() {
			return nil // re-registration of a known item
		}
	}
	it := &Item{
		Service: service,
		Sender:  owner,
		Path:    path,
		w:       w,
		gone:    make(chan struct{}),
		subs:    map[*Subscription]bool{},
	}
	w.items = append(w.items, it)
	w.notifyLocked(it, "StatusNotifierItemRegistered")
	return nil
}

// notifyLocked wakes waiters, publishes the registered list and emits
// member for it. w.mu must be held.
func (w *Watcher) notifyLocked(it *Item, member string) {
	close(w.changed)
	w.changed = make(chan struct{})
	// Emit errors only when the connection is closing at cleanup.
	w.conn.Emit(WatcherPath, "org.freedesktop.DBus.Properties.PropertiesChanged", WatcherName,
		map[string]dbus.Variant{"RegisteredStatusNotifierItems": dbus.MakeVariant(w.registeredLocked())}, []string{})
	w.conn.Emit(WatcherPath, WatcherName+"."+member, it.Sender+string(it.Path))
}

// registeredLocked lists the live items the way the watcher property
// does: unique name and object path run together. w.mu must be held.
func (w *Watcher) registeredLocked() []string {
	ids := []string{}
	for _, x := range w.items {
		if !x.isGone() {
			ids = append(ids, x.Sender+string(x.Path))
		}
	}
	return ids
}

// watcherProps serves the watcher's read-only properties.
type watcherProps struct{ w *Watcher }

func (p watcherProps) all() map[string]dbus.Variant {
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	return map[string]dbus.Variant{
		"RegisteredStatusNotifierItems":  dbus.MakeVariant(p.w.registeredLocked()),
		"IsStatusNotifierHostRegistered": dbus.MakeVariant(true),
		"ProtocolVersion":                dbus.MakeVariant(int32(0)),
	}
}

// Get is org.freedesktop.DBus.Properties.Get.
func (p watcherProps) Get(iface, name string) (dbus.Variant, *dbus.Error) {
	if v, ok := p.all()[name]; ok && iface == WatcherName {
		return v, nil
	}
	return dbus.Variant{}, dbus.NewError("org.freedesktop.DBus.Error.UnknownProperty", []any{iface + "." + name})
}

// GetAll is org.freedesktop.DBus.Properties.GetAll.
func (p watcherProps) GetAll(iface string) (map[string]dbus.Variant, *dbus.Error) {
	if iface != WatcherName {
		return map[string]dbus.Variant{}, nil
	}
	return p.all(), nil
}

// Set is org.freedesktop.DBus.Properties.Set; nothing is writable.
func (p watcherProps) Set(iface, name string, v dbus.Variant) *dbus.Error {
	return dbus.NewError("org.freedesktop.DBus.Error.PropertyReadOnly", []any{iface + "." + name})
}

// route owns the watcher's signal stream: it retires items whose owner
// left the bus and hands item signals to subscriptions.
func (w *Watcher) route(signals <-chan *dbus.Signal) {
	defer close(w.routed)
	for sig := range signals {
		if sig.Name == "org.freedesktop.DBus.NameOwnerChanged" {
			if len(sig.Body) == 3 {
				name, _ := sig.Body[0].(string)
				newOwner, _ := sig.Body[2].(string)
				if strings.HasPrefix(name, ":") && newOwner == "" {
					w.ownerGone(name)
				}
			}
			continue
		}
		w.deliver(sig)
	}
}

func (w *Watcher) ownerGone(owner string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gone[owner] = true
	for _, it := range w.items {
		if it.Sender == owner && !it.isGone() {
			close(it.gone)
			w.notifyLocked(it, "StatusNotifierItemUnregistered")
		}
	}
}

func (w *Watcher) deliver(sig *dbus.Signal) {
	member := sig.Name[strings.LastIndexByte(sig.Name, '.')+1:]
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, it := range w.items {
		if it.Sender != sig.Sender {
			continue
		}
		for s := range it.subs {
			if len(s.members) == 0 || slices.Contains(s.members, member) {
				select {
				case s.ch <- sig:
				default: // a waiter needs one signal, not all of them
				}
			}
		}
	}
}

// Items returns the registered items whose owners are still on the bus, in
// registration order.
func (w *Watcher) Items() []*Item {
	w.mu.Lock()
	defer w.mu.Unlock()
	var live []*Item
	for _, it := range w.items {
		if !it.isGone() {
			live = append(live, it)
		}
	}
	return live
}

// WaitItem returns the first registered item whose owner is still on the
// bus, waiting for one to register if there is none.
func (w *Watcher) WaitItem(ctx context.Context) (*Item, error) {
	for {
		w.mu.Lock()
		changed := w.changed
		var first *Item
		for _, it := range w.items {
			if !it.isGone() {
				first = it
				break
			}
		}
		w.mu.Unlock()
		if first != nil {
			return first, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for a StatusNotifierItem to register: %w", ctx.Err())
		}
	}
}

// WaitItemAnnouncing is WaitItem for an item that started before the
// watcher: every `every` without one, the watcher gives its name up and
// takes it again, which tells the items watching for a tray host that one
// came. fyne.io/systray v1.12.2 needs this: it adds its match rule for the
// watcher's name and only then hands godbus the channel the signal comes
// on, so a watcher that arrives in that gap (microseconds, longer on a
// busy machine) is missed for good.
func (w *Watcher) WaitItemAnnouncing(ctx context.Context, every time.Duration) (*Item, error) {
	for {
		try, cancel := context.WithTimeout(ctx, every)
		it, err := w.WaitItem(try)
		cancel()
		if err == nil || ctx.Err() != nil {
			return it, err
		}
		if _, err := w.conn.ReleaseName(WatcherName); err != nil {
			return nil, fmt.Errorf("release %s: %w", WatcherName, err)
		}
		reply, err := w.conn.RequestName(WatcherName, dbus.NameFlagDoNotQueue)
		if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
			return nil, fmt.Errorf("take %s again: reply %d, %v", WatcherName, reply, err)
		}
	}
}

// Item is a StatusNotifierItem registered with a Watcher. Its methods talk
// to the item the way a desktop's tray host does.
type Item struct {
	// Service is the argument of RegisterStatusNotifierItem.
	Service string
	// Sender is the unique bus name of the item's connection.
	Sender string
	// Path is the item's object path.
	Path dbus.ObjectPath

	w    *Watcher
	gone chan struct{}
	subs map[*Subscription]bool // guarded by w.mu
}

// Done returns a channel that is closed when the item's owner leaves the
// bus, as a tray process does when it exits.
func (it *Item) Done() <-chan struct{} { return it.gone }

func (it *Item) isGone() bool {
	select {
	case <-it.gone:
		return true
	default:
		return false
	}
}

func (it *Item) object() dbus.BusObject { return it.w.conn.Object(it.Sender, it.Path) }

// Props returns all org.kde.StatusNotifierItem properties.
func (it *Item) Props(ctx context.Context) (map[string]dbus.Variant, error) {
	props := map[string]dbus.Variant{}
	err := it.object().CallWithContext(ctx, "org.freedesktop.DBus.Properties.GetAll", 0, ItemInterface).Store(&props)
	if err != nil {
		return nil, fmt.Errorf("get properties of %s%s: %w", it.Sender, it.Path, err)
	}
	return props, nil
}

// Prop returns one org.kde.StatusNotifierItem property.
func (it *Item) Prop(ctx context.Context, name string) (dbus.Variant, error) {
	var v dbus.Variant
	err := it.object().CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0, ItemInterface, name).Store(&v)
	if err != nil {
		return dbus.Variant{}, fmt.Errorf("get %s of %s%s: %w", name, it.Sender, it.Path, err)
	}
	return v, nil
}

// Tooltip returns the ToolTip property as a host would show it: its title
// and its text, each when not empty, on separate lines.
func (it *Item) Tooltip(ctx context.Context) (string, error) {
	v, err := it.Prop(ctx, "ToolTip")
	if err != nil {
		return "", err
	}
	tt, err := decodeToolTip(v.Value())
	if err != nil {
		return "", fmt.Errorf("ToolTip %s: %w", v.Signature(), err)
	}
	return tt.String(), nil
}

// IconPixmap returns the IconPixmap property, one pixmap per size.
func (it *Item) IconPixmap(ctx context.Context) ([]Pixmap, error) {
	v, err := it.Prop(ctx, "IconPixmap")
	if err != nil {
		return nil, err
	}
	px, err := decodePixmaps(v.Value())
	if err != nil {
		return nil, fmt.Errorf("IconPixmap %s: %w", v.Signature(), err)
	}
	return px, nil
}

// Activate sends the primary action (a left click on the icon) at x, y.
func (it *Item) Activate(ctx context.Context, x, y int32) error {
	if err := it.object().CallWithContext(ctx, ItemInterface+".Activate", 0, x, y).Err; err != nil {
		return fmt.Errorf("activate %s%s: %w", it.Sender, it.Path, err)
	}
	return nil
}

// menu returns the item's dbusmenu object, from its Menu property.
func (it *Item) menu(ctx context.Context) (dbus.BusObject, error) {
	v, err := it.Prop(ctx, "Menu")
	if err != nil {
		return nil, err
	}
	var path dbus.ObjectPath
	switch p := v.Value().(type) {
	case dbus.ObjectPath:
		path = p
	case string: // some items send a string; hosts accept it
		path = dbus.ObjectPath(p)
	}
	if !path.IsValid() || path == "/" {
		return nil, fmt.Errorf("item %s%s has no menu (Menu = %v)", it.Sender, it.Path, v)
	}
	return it.w.conn.Object(it.Sender, path), nil
}

// Layout returns the item's whole menu tree, as a host reads it:
// GetLayout(0, -1, []) on the Menu object. A submenu that comes back without
// its children (fyne.io/systray answers only one level deep the first time)
// is fetched on its own, so the tree is complete either way.
func (it *Item) Layout(ctx context.Context) (*MenuNode, error) {
	menu, err := it.menu(ctx)
	if err != nil {
		return nil, err
	}
	return layout(ctx, menu, 0)
}

func layout(ctx context.Context, menu dbus.BusObject, parent int32) (*MenuNode, error) {
	call := menu.CallWithContext(ctx, MenuInterface+".GetLayout", 0, parent, int32(-1), []string{})
	if call.Err != nil {
		return nil, fmt.Errorf("GetLayout(%d): %w", parent, call.Err)
	}
	if len(call.Body) != 2 {
		return nil, fmt.Errorf("GetLayout(%d): got %d values, want revision and layout", parent, len(call.Body))
	}
	root, err := decodeMenu(call.Body[1])
	if err != nil {
		return nil, fmt.Errorf("GetLayout(%d): %w", parent, err)
	}
	var fill func(n *MenuNode) error
	fill = func(n *MenuNode) error {
		if n != root && n.Submenu && len(n.Children) == 0 {
			sub, err := layout(ctx, menu, n.ID)
			if err != nil {
				return err
			}
			n.Children = sub.Children
		}
		for _, c := range n.Children {
			if err := fill(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := fill(root); err != nil {
		return nil, err
	}
	return root, nil
}

// Click clicks menu item id the way a host does when a person opens the
// menu and picks it: AboutToShow and an "opened" event for every menu on the
// way down, the "clicked" event, then "closed" on the way back up. It fails
// with ErrNoMenuItem or ErrNotClickable where a person could not click.
func (it *Item) Click(ctx context.Context, id int32) error {
	menu, err := it.menu(ctx)
	if err != nil {
		return err
	}
	root, err := layout(ctx, menu, 0)
	if err != nil {
		return err
	}
	path := root.pathTo(id)
	if path == nil {
		return fmt.Errorf("click %d: %w in\n%s", id, ErrNoMenuItem, root)
	}
	return click(ctx, menu, path)
}

// ClickPath clicks the item reached by following labels from the top of the
// menu, as in ClickPath(ctx, "More", "Click me").
func (it *Item) ClickPath(ctx context.Context, labels ...string) error {
	menu, err := it.menu(ctx)
	if err != nil {
		return err
	}
	root, err := layout(ctx, menu, 0)
	if err != nil {
		return err
	}
	n := root.FindPath(labels...)
	if n == nil {
		return fmt.Errorf("click %q: %w in\n%s", labels, ErrNoMenuItem, root)
	}
	return click(ctx, menu, root.pathTo(n.ID))
}

// click sends the events for path, the nodes from the root to the target.
func click(ctx context.Context, menu dbus.BusObject, path []*MenuNode) error {
	target := path[len(path)-1]
	for _, n := range path {
		if n != path[0] && (!n.Enabled || !n.Visible || n.Separator) {
			return fmt.Errorf("click %d %q: %w: %s", target.ID, target.Label, ErrNotClickable, n.describe())
		}
	}
	event := func(id int32, name string) error {
		ts := uint32(time.Now().Unix())
		err := menu.CallWithContext(ctx, MenuInterface+".Event", 0, id, name, dbus.MakeVariant(""), ts).Err
		var derr dbus.Error
		if name == "clicked" && errors.As(err, &derr) && derr.Name == "org.freedesktop.DBus.Error.NoReply" {
			// The item took the click and left the bus before answering:
			// what a click on Quit does.
			return nil
		}
		if err != nil {
			return fmt.Errorf("Event(%d, %q): %w", id, name, err)
		}
		return nil
	}
	menus := path[:len(path)-1]
	for _, m := range menus {
		// The answer says whether the layout needs refreshing; the fake
		// reads the whole layout anyway.
		menu.CallWithContext(ctx, MenuInterface+".AboutToShow", 0, m.ID)
		if err := event(m.ID, "opened"); err != nil {
			return err
		}
	}
	if err := event(target.ID, "clicked"); err != nil {
		return err
	}
	// Hosts send "closed" without waiting, and the click may have ended
	// the item's process.
	for i := len(menus) - 1; i >= 0; i-- {
		menu.Go(MenuInterface+".Event", dbus.FlagNoReplyExpected, nil,
			menus[i].ID, "closed", dbus.MakeVariant(""), uint32(time.Now().Unix()))
	}
	return nil
}

// Subscription receives the signals an item emits, from the moment it is
// made. Subscribe before the action that should cause the signal, then Wait.
type Subscription struct {
	it      *Item
	members []string
	ch      chan *dbus.Signal
}

// Subscribe starts collecting the item's signals whose member is one of
// members (all signals when none is given): NewIcon, NewToolTip, NewTitle,
// NewStatus, PropertiesChanged from the item; LayoutUpdated and
// ItemsPropertiesUpdated from its menu. Close it when done.
func (it *Item) Subscribe(members ...string) *Subscription {
	s := &Subscription{it: it, members: members, ch: make(chan *dbus.Signal, 64)}
	it.w.mu.Lock()
	it.subs[s] = true
	it.w.mu.Unlock()
	return s
}

// Wait returns the next signal received since Subscribe or the previous
// Wait.
func (s *Subscription) Wait(ctx context.Context) (*dbus.Signal, error) {
	select {
	case sig := <-s.ch:
		return sig, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for %v from %s: %w", s.members, s.it.Sender, ctx.Err())
	}
}

// Close stops the subscription.
func (s *Subscription) Close() {
	s.it.w.mu.Lock()
	delete(s.it.subs, s)
	s.it.w.mu.Unlock()
}

// WaitSignal waits for the item to emit a signal named member after the
// call. When the signal may come before WaitSignal is reached, use Subscribe
// before the action instead.
func (it *Item) WaitSignal(ctx context.Context, member string) error {
	s := it.Subscribe(member)
	defer s.Close()
	_, err := s.Wait(ctx)
	return err
}

package tray

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/clawdhq/clawd/internal/focus"
	"github.com/clawdhq/clawd/internal/repo"
	"github.com/clawdhq/clawd/runtime/client"
)

// ui is the platform tray the controller drives: systray in the binary,
// a recorder in tests.
type ui interface {
	// Apply shows m; clicks come back as item keys on the channel given
	// to the controller.
	Apply(m Menu)
}

// Timing of the controller.
const (
	// settle coalesces a burst of changes (a tool batch, a permission
	// and its events) into one rebuild.
	settle = 50 * time.Millisecond
	// refreshEvery keeps the ages in the labels current, and the check
	// of "Start at login" when the entry changes outside the tray.
	refreshEvery = 30 * time.Second
	// sideEffectTimeout bounds focusing a terminal or opening a folder.
	sideEffectTimeout = 3 * time.Second
)

// controller is the tray's one event loop.
type controller struct {
	o      Options
	ui     ui
	clicks <-chan string

	menu  Menu
	view  client.View    // what menu shows
	picks Picks          // options ticked and not sent yet
	wg    sync.WaitGroup // side effects started by clicks

	folders map[string]string // the sessions' folders named, by cwd

	// login is the login entry as last read; loginC brings a read's
	// result to the loop, loginBusy says one runs (a click or a refresh
	// waits for it).
	login     AutostartState
	loginC    chan AutostartState
	loginBusy bool
}

func newController(o Options, u ui, clicks <-chan string) *controller {
	o.defaults()
	return &controller{o: o, ui: u, clicks: clicks, picks: Picks{},
		folders: map[string]string{}, loginC: make(chan AutostartState, 1)}
}

// run shows the menu and keeps it current until ctx ends.
func (c *controller) run(ctx context.Context) {
	changes, cancel := c.o.Runtime.Subscribe(256)
	defer cancel()
	defer c.wg.Wait()
	c.readLogin(ctx, nil)
	c.render()
	refreshC := c.o.After(refreshEvery)
	var settleC, pauseC <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-changes:
			if settleC == nil {
				settleC = c.o.After(settle)
			}
		case <-settleC:
			settleC = nil
			c.render()
		case <-refreshC:
			refreshC = c.o.After(refreshEvery)
			// The entry may have changed under the menu (clawd
			// autostart disable): read it again with the ages.
			c.readLogin(ctx, nil)
			c.render()
		case st := <-c.loginC:
			c.login, c.loginBusy = st, false
			c.render()
		case <-pauseC:
			pauseC = nil
			c.render()
		case key := <-c.clicks:
			c.click(ctx, key)
			c.render()
		}
		// The "paused until" label turns back into "Pause" on its own.
		if until := c.view.NotificationsPausedUntil; pauseC == nil && until.After(c.o.Now()) {
			pauseC = c.o.After(until.Sub(c.o.Now()))
		}
	}
}

// render shows the runtime as it is now: one View, taken at once.
func (c *controller) render() {
	c.view = c.o.Runtime.View()
	c.prunePicks()
	c.nameFolders()
	c.menu = Build(View{View: c.view, Now: c.o.Now(), Dashboard: c.o.Dashboard != nil, Printer: c.o.Printer, Picks: c.picks,
		Folders: c.folders, Autostart: c.login})
	c.ui.Apply(c.menu)
}

// click runs the action of the item with key in the menu shown now. A
// key that is gone (the request was answered elsewhere while the menu was
// open) does nothing: keys carry the request id, so a stale click can
// never answer a different request.
func (c *controller) click(ctx context.Context, key string) {
	it, ok := findItem(c.menu.Items, key)
	if !ok || !it.Enabled {
		c.o.Log.Debug("tray click on an item that is gone", "item", key)
		return
	}
	a := it.Action
	rt := c.o.Runtime
	switch a.Kind {
	case ActFocus:
		c.focus(ctx, a.Session)
	case ActPick:
		if p, ok := c.pending(a.Request); ok {
			c.picks.toggle(a.Pick, p.Questions)
		}
	case ActDecide:
		if _, err := rt.Decide(a.Request, a.Decision); err != nil {
			c.o.Log.Warn("tray decision not applied", "request", a.Request, "err", err)
			return
		}
		c.dropPicks(a.Request)
		c.o.Log.Info("tray decision", "request", a.Request, "behavior", a.Decision.Behavior)
		if a.Decision.Behavior == client.Terminal {
			c.focus(ctx, a.Session)
		}
	case ActDND:
		// The box as the person saw it, not as it may be by now.
		rt.SetDND(!it.Checked)
	case ActPause:
		rt.PauseNotifications(c.o.Now().Add(PauseFor))
	case ActResume:
		rt.PauseNotifications(time.Time{})
	case ActOpenConfig:
		c.async(ctx, "open config folder", func(ctx context.Context) error { return c.o.Open(ctx, c.o.Home) })
	case ActDashboard:
		if c.o.Dashboard != nil {
			c.async(ctx, "open dashboard", c.o.Dashboard)
		}
	case ActAutostart:
		// The box as the person saw it: checked turns the entry off.
		on := !it.Checked
		c.readLogin(ctx, func(ctx context.Context) error { return c.o.LoginEntry.Set(ctx, on) })
	case ActQuit:
		c.o.Log.Info("quit from the tray menu")
		c.o.Quit()
	}
}

// readLogin reads the login entry off the loop, after running change
// when there is one, and hands the result to the loop (loginC). While one
// runs another is not started: a click then does nothing, as on an item
// that is gone.
func (c *controller) readLogin(ctx context.Context, change func(context.Context) error) {
	e := c.o.LoginEntry
	if e == nil || c.loginBusy {
		return
	}
	c.loginBusy = true
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		tctx, cancel := context.WithTimeout(ctx, sideEffectTimeout)
		defer cancel()
		var st AutostartState
		if change != nil {
			if err := change(tctx); err != nil {
				c.o.Log.Warn("start at login not changed", "err", err)
				st.Err = err.Error()
			}
		}
		s, err := e.Status(tctx)
		if err != nil {
			c.o.Log.Info("start at login: entry not read", "err", err)
			st.Err = err.Error()
		}
		st.Known, st.On, st.Stale = true, s.Enabled, s.Stale
		select {
		case c.loginC <- st:
		case <-ctx.Done():
		}
	}()
}

// maxFolders bounds the folder names kept; past it they are found again.
const maxFolders = 512

// nameFolders names each local session's folder by its repository
// (internal/repo), once per folder. A remote machine's path means nothing
// here: it is named by itself.
func (c *controller) nameFolders() {
	if len(c.folders) > maxFolders {
		clear(c.folders)
	}
	for _, s := range c.view.Sessions {
		if s.Host != "" || s.Cwd == "" {
			continue
		}
		if _, ok := c.folders[s.Cwd]; !ok {
			c.folders[s.Cwd] = repo.Name(s.Cwd, repo.Root(s.Cwd))
		}
	}
}

func (c *controller) focus(ctx context.Context, s SessionRef) {
	if s.Host != "" {
		// Its terminal is on another machine; a window here that
		// happens to match its folder or title is not it.
		return
	}
	t := focus.Target{PID: s.PID, Cwd: s.Cwd, Title: s.Title}
	c.async(ctx, "focus terminal", func(ctx context.Context) error { return c.o.Focus(ctx, t) })
}

// async runs a side effect off the loop, bounded in time: a slow window
// manager never freezes the menu.
func (c *controller) async(ctx context.Context, what string, f func(context.Context) error) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		ctx, cancel := context.WithTimeout(ctx, sideEffectTimeout)
		defer cancel()
		if err := f(ctx); err != nil && !errors.Is(err, context.Canceled) {
			c.o.Log.Info(what+" failed", "err", err)
		}
	}()
}

// pending is the request id of the view shown now, if it is pending.
func (c *controller) pending(id string) (client.PermissionView, bool) {
	for _, p := range c.view.Permissions {
		if p.ID == id {
			return p, true
		}
	}
	return client.PermissionView{}, false
}

// prunePicks forgets the options ticked for requests no longer pending.
func (c *controller) prunePicks() {
	for k := range c.picks {
		if _, ok := c.pending(k.Request); !ok {
			delete(c.picks, k)
		}
	}
}

// dropPicks forgets the options ticked for request id.
func (c *controller) dropPicks(id string) {
	for k := range c.picks {
		if k.Request == id {
			delete(c.picks, k)
		}
	}
}

func findItem(items []Item, key string) (Item, bool) {
	for _, it := range items {
		if it.Key == key {
			return it, true
		}
		if c, ok := findItem(it.Children, key); ok {
			return c, true
		}
	}
	return Item{}, false
}

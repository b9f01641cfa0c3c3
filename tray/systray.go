//go:build !darwin || cgo

package tray

import (
	"context"
	"strings"
	"sync"

	"fyne.io/systray"
)

// Available reports whether this build has a tray.
func Available() bool { return true }

// Run shows the tray until ctx ends. It must be called from the main
// goroutine (macOS requires it) and blocks; the caller runs the runtime in
// another goroutine. On Linux the caller has checked for a session bus
// (internal/desktop): without one systray's Quit panics.
func Run(ctx context.Context, o Options) error {
	o.defaults()
	clicks := make(chan string)
	u := &sysUI{clicks: clicks, done: make(chan struct{}), items: map[string]*systray.MenuItem{}}
	c := newController(o, u, clicks)
	var wg sync.WaitGroup
	onReady := func() {
		systray.SetTitle("clawd")
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.run(ctx)
		}()
		go func() {
			<-ctx.Done()
			systray.Quit()
		}()
	}
	systray.Run(onReady, func() {})
	close(u.done)
	wg.Wait()
	return nil
}

// sysUI shows a Menu with fyne.io/systray. A menu whose structure is the
// same as the one shown is updated in place (labels, checks, enabled);
// otherwise it is rebuilt, and the new items get new ids, so a click the
// host sends for an item of the old menu finds nothing instead of the
// item that took its place.
type sysUI struct {
	clicks chan<- string
	done   chan struct{}

	icon    string
	tooltip string
	shape   string
	shown   map[string]Item
	items   map[string]*systray.MenuItem
}

func (u *sysUI) Apply(m Menu) {
	if string(m.Icon) != u.icon {
		u.icon = string(m.Icon)
		setIcon(m.Icon)
	}
	if m.Tooltip != u.tooltip {
		u.tooltip = m.Tooltip
		systray.SetTooltip(m.Tooltip)
	}
	var b strings.Builder
	shapeOf(&b, m.Items)
	if shape := b.String(); shape != u.shape {
		u.shape = shape
		systray.ResetMenu()
		u.items = map[string]*systray.MenuItem{}
		u.shown = map[string]Item{}
		u.add(nil, m.Items)
		return
	}
	u.update(m.Items)
}

// shapeOf writes what a rebuild is needed for: the keys in order, where
// the separators and submenus are, which items are checkboxes.
func shapeOf(b *strings.Builder, items []Item) {
	for _, it := range items {
		b.WriteString(it.Key)
		if it.Checkbox {
			b.WriteString("[c]")
		}
		if len(it.Children) > 0 {
			b.WriteString("{")
			shapeOf(b, it.Children)
			b.WriteString("}")
		}
		b.WriteString("\n")
	}
}

func (u *sysUI) add(parent *systray.MenuItem, items []Item) {
	for _, it := range items {
		if it.Separator {
			if parent == nil {
				systray.AddSeparator()
			} else {
				parent.AddSeparator()
			}
			continue
		}
		var mi *systray.MenuItem
		switch {
		case parent == nil && it.Checkbox:
			mi = systray.AddMenuItemCheckbox(it.Label, it.Tooltip, it.Checked)
		case parent == nil:
			mi = systray.AddMenuItem(it.Label, it.Tooltip)
		case it.Checkbox:
			mi = parent.AddSubMenuItemCheckbox(it.Label, it.Tooltip, it.Checked)
		default:
			mi = parent.AddSubMenuItem(it.Label, it.Tooltip)
		}
		if !it.Enabled {
			mi.Disable()
		}
		u.items[it.Key] = mi
		u.shown[it.Key] = it
		u.add(mi, it.Children)
		go u.forward(it.Key, mi.ClickedCh)
	}
}

// forward passes an item's clicks to the controller until the item is
// removed (systray closes ClickedCh) or the tray stops.
func (u *sysUI) forward(key string, ch <-chan struct{}) {
	for range ch {
		select {
		case u.clicks <- key:
		case <-u.done:
			return
		}
	}
}

func (u *sysUI) update(items []Item) {
	for _, it := range items {
		if it.Separator {
			continue
		}
		mi, old := u.items[it.Key], u.shown[it.Key]
		if mi == nil {
			continue
		}
		if it.Label != old.Label {
			mi.SetTitle(it.Label)
		}
		if it.Tooltip != old.Tooltip {
			mi.SetTooltip(it.Tooltip)
		}
		if it.Enabled != old.Enabled {
			if it.Enabled {
				mi.Enable()
			} else {
				mi.Disable()
			}
		}
		if it.Checkbox && it.Checked != old.Checked {
			if it.Checked {
				mi.Check()
			} else {
				mi.Uncheck()
			}
		}
		u.shown[it.Key] = it
		u.update(it.Children)
	}
}

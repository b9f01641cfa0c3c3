package automations

import (
	"context"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// ReloadSettle coalesces a burst of writes to automations.toml (an
// editor's temp file, rename and backup) into one reload: the watcher
// reloads once no write came for this long (asked of Options.After).
const ReloadSettle = 250 * time.Millisecond

// watch reloads automations.toml when it changes, once a burst of writes
// has settled, until ctx ends. It follows the clawd home rather than the
// file, since editors and clawd itself replace the file by rename. A
// reload with problems keeps the definitions in force (see Reload).
func (e *Engine) watch(ctx context.Context) {
	defer e.watchStarted()
	w, err := fsnotify.NewWatcher()
	if err == nil {
		if err = w.Add(filepath.Dir(e.file)); err != nil {
			w.Close()
		}
	}
	if err != nil {
		e.o.Log.Warn("automations: cannot watch automations.toml; an edit applies on `clawd automations` edits and restarts only", "err", err)
		return
	}
	defer w.Close()
	e.watchStarted()
	var settle <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if filepath.Base(ev.Name) != File || ev.Op == fsnotify.Chmod {
				continue
			}
			settle = e.o.After(ReloadSettle)
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			e.o.Log.Warn("automations: watching automations.toml", "err", err)
		case <-settle:
			settle = nil
			e.Reload() // it logs what it found
		}
	}
}

// watchStarted closes e.watching (once): the watcher follows the file now,
// or never will.
func (e *Engine) watchStarted() { e.watchOnce.Do(func() { close(e.watching) }) }

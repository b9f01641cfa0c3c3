package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"sync"
	"time"

	"github.com/gen2brain/beeep"
)

// Bounds on how long delivery may take.
const (
	// popupTimeout bounds how long Send waits for beeep; a popup normally
	// takes a few milliseconds, a missing daemon some hundred.
	popupTimeout = 3 * time.Second
	// playerTimeout bounds a sound player's life: the chime lasts 0.3 s.
	playerTimeout = 10 * time.Second
)

// ErrClosed is returned by Send after Close.
var ErrClosed = errors.New("notifications are shut down")

// Desktop sends notes: beeep popups and sounds. Create it only when a
// session bus was found: without one beeep starts stray dbus-daemons.
type Desktop struct {
	icon     func(Kind) []byte
	log      *slog.Logger
	cacheDir string

	// notify is beeep.Notify; tests replace it.
	notify       func(title, message string, icon any) error
	popupTimeout time.Duration

	// popupSlot lets one popup be in flight: a hung bus then costs one
	// goroutine, not one per note.
	popupSlot chan struct{}
	soundMu   sync.Mutex // serializes writing the sound file

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup // popup calls and players still running
}

// NewDesktop returns a Desktop that names itself appName in popups (it
// sets beeep.AppName), shows icon(kind) as the popup's image (PNG bytes;
// icon or its result may be nil for none), logs what fails after Send
// returned to log, and keeps the sound file in cacheDir.
func NewDesktop(appName string, icon func(Kind) []byte, log *slog.Logger, cacheDir string) *Desktop {
	beeep.AppName = appName
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Desktop{
		icon:         icon,
		log:          log,
		cacheDir:     cacheDir,
		notify:       beeep.Notify,
		popupTimeout: popupTimeout,
		popupSlot:    make(chan struct{}, 1),
	}
}

// Send delivers n: a popup when n.Popup, the chime when n.Sound. It
// blocks for at most a few seconds, less when ctx ends first: the player
// runs on without it, and a popup that takes too long is given up on. The
// error joins what went wrong with either; a missing player is
// ErrNoPlayer.
func (d *Desktop) Send(ctx context.Context, n Note) error {
	var errs []error
	if n.Sound {
		// First: starting the player does not wait for it.
		if err := d.play(); err != nil {
			errs = append(errs, fmt.Errorf("play sound: %w", err))
		}
	}
	if n.Popup {
		if err := d.popup(ctx, n); err != nil {
			errs = append(errs, fmt.Errorf("popup %q: %w", n.Summary, err))
		}
	}
	return errors.Join(errs...)
}

// Close stops new deliveries and waits until the popups and players
// already started are done, or ctx ends.
func (d *Desktop) Close(ctx context.Context) error {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	done := make(chan struct{})
	go func() {
		d.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("notifications still being delivered: %w", ctx.Err())
	}
}

// begin counts one more running delivery, unless the Desktop is closed.
func (d *Desktop) begin() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return false
	}
	d.wg.Add(1)
	return true
}

func (d *Desktop) popup(ctx context.Context, n Note) error {
	var icon any = "" // beeep takes a path or PNG bytes; "" is none
	if d.icon != nil {
		if b := d.icon(n.Kind); len(b) > 0 {
			icon = b
		}
	}
	timer := time.NewTimer(d.popupTimeout)
	defer timer.Stop()
	select {
	case d.popupSlot <- struct{}{}:
	case <-timer.C:
		return fmt.Errorf("the previous popup is still being sent after %v", d.popupTimeout)
	case <-ctx.Done():
		return ctx.Err()
	}
	if !d.begin() {
		<-d.popupSlot
		return ErrClosed
	}
	// beeep takes no context: the call runs on its own, holding the slot
	// until it returns, and an answer nobody waits for any more stays in
	// the buffer.
	result := make(chan error, 1)
	go func() {
		defer d.wg.Done()
		defer func() { <-d.popupSlot }()
		result <- d.notify(n.Summary, n.Body, icon)
	}()
	select {
	case err := <-result:
		return err
	case <-timer.C:
		return fmt.Errorf("no answer after %v", d.popupTimeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *Desktop) play() error {
	file, err := d.soundFile()
	if err != nil {
		return err
	}
	argv, ok := playerCommand(exec.LookPath, file)
	if !ok {
		return fmt.Errorf("%w (%s)", ErrNoPlayer, playerHint)
	}
	if !d.begin() {
		return ErrClosed
	}
	ctx, cancel := context.WithTimeout(context.Background(), playerTimeout)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	stderr := &capped{max: 512}
	cmd.Stderr = stderr
	cmd.WaitDelay = time.Second // a child holding stderr open cannot hold Wait
	hideWindow(cmd)
	if err := cmd.Start(); err != nil {
		cancel()
		d.wg.Done()
		return err
	}
	go func() {
		defer d.wg.Done()
		defer cancel()
		if err := cmd.Wait(); err != nil {
			d.log.Warn("sound player failed", "player", argv[0], "err", err, "stderr", stderr.String())
		}
	}()
	return nil
}

// capped keeps the first max bytes written to it: enough of a player's
// complaint for the log.
type capped struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - len(c.b); room > 0 {
		c.b = append(c.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.b)
}

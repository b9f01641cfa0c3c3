// Package rotlog appends log lines to a file that is rotated once it grows
// past a size: the full file becomes <name>.1 (replacing the previous one).
// Many short-lived processes (every hook call) may append at once; each
// line is one O_APPEND write, so lines never interleave.
package rotlog

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
)

// Writer appends to a rotated log file. Open the file lazily: a hook that
// has nothing to log never touches the disk.
type Writer struct {
	Path     string
	MaxBytes int64

	mu sync.Mutex
}

// Write appends p as one write, rotating first when the file is too big.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(w.Path), 0o700); err != nil {
		return 0, err
	}
	if fi, err := os.Stat(w.Path); err == nil && w.MaxBytes > 0 && fi.Size()+int64(len(p)) > w.MaxBytes {
		// Losing the race against another process's rotation only costs
		// that process's last few lines.
		os.Rename(w.Path, w.Path+".1")
	}
	f, err := os.OpenFile(w.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return 0, err
	}
	n, err := f.Write(p)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// Logger returns a text slog logger writing to w.
func (w *Writer) Logger(level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// Discard is a logger that drops everything.
func Discard() *slog.Logger { return slog.New(discard{}) }

type discard struct{}

func (discard) Enabled(context.Context, slog.Level) bool  { return false }
func (discard) Handle(context.Context, slog.Record) error { return nil }
func (d discard) WithAttrs([]slog.Attr) slog.Handler      { return d }
func (d discard) WithGroup(string) slog.Handler           { return d }

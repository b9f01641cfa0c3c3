// Package spool keeps the hooks' events that found no runtime: `clawd
// hook` appends each to a file in the clawd home, and the next `clawd
// serve` replays them before it takes hooks, so that what happened while
// it was down (an upgrade, a crash, autostart starting it after the
// agents) is not lost.
//
// The spool is two files, File and the one before it (OldFile), each up to
// half of MaxBytes: an append that would take File past its half first
// renames it over OldFile, which drops the oldest half at the cost of one
// rename. An event is one line, {"id":…,"event":…}, written by one
// write(2) to a file opened O_APPEND: the kernel places each write whole
// at the end, so the lines of hooks appending at once never interleave
// (this holds for local file systems; a clawd home on NFS may tear lines,
// which the reader skips). The id is random: the runtime replays an
// event once however often its line turns up.
//
// The runtime claims the files (Claim) by renaming them aside, so that a
// hook appending meanwhile starts a new File, reads them (Read), replays
// them and removes them (Remove).
package spool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/boundedfile"
	"github.com/clawdhq/clawd/internal/filelock"
)

// Names of the spool's files in the clawd home.
const (
	File    = "events.spool"
	OldFile = "events.spool.old"
	// LockFile is held while File is rotated or claimed.
	LockFile = "events.spool.lock"
	// ClaimPrefix starts the names of the files Claim renamed aside.
	ClaimPrefix = "events.spool.replay-"
)

// MaxBytes caps the spool, both files together: at a few hundred bytes
// an event, thousands of events, more than any downtime of the runtime
// sees.
const MaxBytes = 1 << 20

// maxLine bounds a line: the event's JSON (at most agents.MaxEventBody)
// and the id around it.
const maxLine = agents.MaxEventBody + 64

// ErrNotRegular refuses a spool path that is not a regular file (a FIFO
// would block the hook, a device has no end).
var ErrNotRegular = errors.New("the spool is not a regular file")

// Record is one line of the spool.
type Record struct {
	ID    string       `json:"id"`
	Event agents.Event `json:"event"`
}

// Line is the spool's line for ev: a fresh id and the event's JSON,
// without its Response (the agent's answer, which clawd never records).
func Line(ev agents.Event) ([]byte, error) {
	ev.Response = ""
	line := make([]byte, 0, 640)
	line = append(line, `{"id":"`...)
	line = strconv.AppendUint(line, rand.Uint64(), 36)
	line = append(line, `","event":`...)
	line, _, err := ev.AppendJSONWithin(line, agents.MaxEventBody)
	if err != nil {
		return nil, err
	}
	return append(line, "}\n"...), nil
}

// Append adds ev to the spool of the clawd home (made, 0700, if it is not
// there yet). dropped counts the oldest events it dropped to stay within
// MaxBytes.
func Append(home string, ev agents.Event) (dropped int, err error) {
	line, err := Line(ev)
	if err != nil {
		return 0, err
	}
	return AppendLine(home, line, MaxBytes)
}

// AppendLine appends line, which ends in a newline, to the spool of home
// capped at max bytes: one open, one fstat, one write, one close, and a
// rename when File is full.
func AppendLine(home string, line []byte, max int64) (dropped int, err error) {
	path := filepath.Join(home, File)
	size, err := appendOnce(path, line, max/2)
	if errors.Is(err, fs.ErrNotExist) {
		// No clawd home yet: hooks run before anything else of clawd did.
		if err := os.MkdirAll(home, 0o700); err != nil {
			return 0, fmt.Errorf("spool: %w", err)
		}
		size, err = appendOnce(path, line, max/2)
	}
	if !errors.Is(err, errFull) {
		return 0, err
	}
	if dropped, err = rotate(home, int64(len(line)), max/2); err != nil {
		return 0, fmt.Errorf("spool: rotate %s (%d bytes): %w", path, size, err)
	}
	_, err = appendOnce(path, line, max)
	return dropped, err
}

// errFull: the line would take the file past its half of the cap.
var errFull = errors.New("spool file full")

// rotate renames File over OldFile when it still cannot take n more bytes
// within half (another hook may have rotated it first), and reports how
// many events OldFile held.
func rotate(home string, n, half int64) (int, error) {
	unlock, err := lock(home)
	if err != nil {
		return 0, err
	}
	defer unlock()
	path := filepath.Join(home, File)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || err == nil && (fi.Size() == 0 || fi.Size()+n <= half) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	old := filepath.Join(home, OldFile)
	dropped := 0
	if b, err := boundedfile.Read(old, 2*half+maxLine); err == nil {
		dropped = bytes.Count(b, []byte{'\n'})
	}
	return dropped, os.Rename(path, old)
}

// lock takes the spool's lock of home.
func lock(home string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(home, LockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := filelock.Lock(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		filelock.Unlock(f)
		f.Close()
	}, nil
}

// Claim renames the spool's files of home aside for a replay and returns
// every file claimed so far, oldest first: those of this call and those a
// replay that never finished left. The names sort in claim order (now,
// then OldFile before File).
func Claim(home string, now time.Time) ([]string, error) {
	unlock, err := lock(home)
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	stamp := fmt.Sprintf("%020d", now.UnixNano())
	for i, name := range []string{OldFile, File} {
		err := os.Rename(filepath.Join(home, name), filepath.Join(home, ClaimPrefix+stamp+"-"+strconv.Itoa(i)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			unlock()
			return nil, fmt.Errorf("spool: claim %s: %w", name, err)
		}
	}
	unlock()
	return Claimed(home)
}

// Claimed returns the files claimed so far in home, oldest first.
func Claimed(home string) ([]string, error) {
	ents, err := os.ReadDir(home)
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ClaimPrefix) {
			out = append(out, filepath.Join(home, e.Name()))
		}
	}
	slices.Sort(out)
	return out, nil
}

// Read returns the records of a claimed file in the order they were
// appended, decoded in one pass each; bad counts the lines that are not
// records (a line torn by a full disk or a network file system). The
// events are not validated: that is the replay's to do, as for an event
// posted.
func Read(path string) (recs []Record, bad int, err error) {
	b, err := boundedfile.Read(path, 2*MaxBytes)
	if err != nil {
		return nil, 0, fmt.Errorf("spool: %w", err)
	}
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte{'\n'})
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r Record
		if len(line) > maxLine || json.Unmarshal(line, &r) != nil || r.ID == "" {
			bad++
			continue
		}
		recs = append(recs, r)
	}
	return recs, bad, nil
}

// Remove removes claimed files.
func Remove(paths []string) error {
	var errs []error
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

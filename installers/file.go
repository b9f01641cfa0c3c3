// Package installers edits coding agents' own settings files so that they
// run clawd's hooks, and takes them out again, without losing a byte of
// anything else: clawd's entries are found by one rule (see Known), and
// every change is a minimal byte-range edit of the file as written.
//
// Uninstall after install gives the original back byte for byte, "no
// file" included. When nothing but clawd's entries changed since the
// install, the original is the backup clawd took before its first change
// (no backup: clawd created the file), put back as it was, and the backup
// is removed. When the person changed the file meanwhile, only clawd's
// entries are taken out and their changes stay; then an empty container
// clawd had filled (`"hooks": {}`, an event's `[]`) goes with clawd's
// entries, the blanks inside an empty `{ }` are not kept, and the backup
// stays.
package installers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/clawdhq/clawd/internal/atomicfile"
)

// ErrConcurrentChange reports that the settings file changed between
// reading it and replacing it; nothing was written.
var ErrConcurrentChange = errors.New("file changed while clawd was editing it")

// BackupSuffix is appended to a settings file's name for the copy of its
// original bytes kept before clawd's first change.
const BackupSuffix = ".clawd-backup"

// Options tune Install and Uninstall.
type Options struct {
	// DryRun computes the change and its diff but writes nothing.
	DryRun bool
	// Known says which executables' handlers are clawd's beyond those
	// named like clawd: the install record's (see Record.Known).
	Known Known
}

// Result is what Install or Uninstall did (or, in a dry run, would do) to
// one of an agent's settings files.
type Result struct {
	// Agent is the agent's id.
	Agent string
	// Path is the settings file.
	Path string
	// Changes counts clawd's handlers changed in the file.
	Changes
	// Trust counts the trust entries changed in it (Codex's config.toml).
	Trust TrustChanges
	// Existed is false when there was no settings file.
	Existed bool
	// Changed is set when the file changes (or, in a dry run, would).
	Changed bool
	// Written is set when the file was replaced (never in a dry run).
	Written bool
	// Backup is the backup written by this run, if any. A backup is
	// written once, before the first change, and never overwritten.
	Backup string
	// Restored is set when uninstall put the file back exactly as it was
	// before clawd's first change (see the package doc).
	Restored bool
	// Deleted is set when uninstall removed the file: clawd had created
	// it, and nothing else was in it.
	Deleted bool
	// BackupRemoved is the backup uninstall removed because the file is
	// back to what it holds.
	BackupRemoved string
	// MadeDirs are the folders install created to hold the file (none of
	// them was there), outermost first; Apply notes them in the record.
	MadeDirs []string
	// Diff is the unified diff of the change, computed in a dry run only
	// (where it is shown); empty when nothing changes.
	Diff string
}

// fileEdit is the pure change of a one-file installer: the new bytes of
// the file (nil: none) and what changed.
type fileEdit func(data []byte) ([]byte, Changes, error)

// rewrite applies edit to the file at path, the only file of its change:
// read, compute, back up, and replace atomically, refusing if the file
// changed meanwhile. For an uninstall, install is the matching install
// (of any binary), with which the original is restored exactly when
// nothing else changed (see restore).
func rewrite(agent, path string, opts Options, beforeCheck func(string), edit, install fileEdit) (*Report, error) {
	f, err := rewriteFile(agent, path, opts, beforeCheck, edit, install)
	if err != nil {
		return nil, err
	}
	return &Report{Agent: agent, Handlers: path, Files: []Result{*f}}, nil
}

func rewriteFile(agent, path string, opts Options, beforeCheck func(string), edit, install fileEdit) (*Result, error) {
	t, err := readTarget(agent, path)
	if err != nil {
		return nil, err
	}
	t.only, t.diff = true, opts.DryRun
	out, ch, err := edit(t.old)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (the file was left untouched; fix it by hand and run again)", path, err)
	}
	if !ch.Any() {
		out = t.old
	}
	var f Result
	if install == nil {
		f = t.plan(out, ch, false)
	} else {
		orig, absent := t.original()
		var rt *[]byte
		// An original that holds clawd's entries itself (a backup taken
		// over an older install) is not what to go back to.
		if !absent && bytes.Equal(out, orig) {
			rt = &out // back as it was already: no round trip to compute
		} else if _, och, err := edit(orig); err == nil && !och.Any() {
			if i, _, err := install(orig); err == nil {
				if u, _, err := edit(i); err == nil {
					rt = &u
				}
			}
		}
		f = t.restore(out, ch, orig, absent, rt)
	}
	if opts.DryRun {
		return &f, nil
	}
	if err := write([]*target{t}, []*Result{&f}, beforeCheck); err != nil {
		return nil, err
	}
	return &f, nil
}

// write carries out the planned changes of files that change together
// (ts[i] gets rs[i]): nothing is written when one of them is read-only;
// each is backed up before clawd's first change to it; they are committed
// in order, and when one fails those already written are put back; last,
// backups whose restore is exact are removed.
func write(ts []*target, rs []*Result, beforeCheck func(string)) error {
	cutoff := staleBefore()
	for _, t := range ts {
		t.removeStale(cutoff)
	}
	for _, t := range ts {
		if err := t.writable(); err != nil {
			return err
		}
	}
	for i, t := range ts {
		if err := t.backup(rs[i]); err != nil {
			return err
		}
	}
	var done []*target
	for i, t := range ts {
		err := t.commit(rs[i], beforeCheck)
		if err == nil {
			if t.changed {
				done = append(done, t)
			}
			continue
		}
		for j := len(done) - 1; j >= 0; j-- {
			d := done[j]
			if rerr := d.rollback(); rerr != nil {
				err = fmt.Errorf("%w; %s had already been written and could not be put back (%v): clawd's change to it is still there", err, d.path, rerr)
			} else {
				err = fmt.Errorf("%w; %s had already been written and was put back as it was", err, d.path)
			}
		}
		return err
	}
	for i, t := range ts {
		t.dropBackup(rs[i])
	}
	return nil
}

// staleBefore is the cutoff of the temporary files removeStale removes:
// what last changed before it was left by a clawd that died mid-write.
// Tests move it.
var staleBefore = func() time.Time { return time.Now().Add(-atomicfile.StaleAfter) }

// removeStale removes the temporary files that an install or uninstall
// killed mid-write left next to the file and its backup (400 kills left
// 18), clawd's own and only those that are stale: see
// atomicfile.RemoveStale. It is best effort: they are litter, not a
// reason to refuse the change.
func (t *target) removeStale(cutoff time.Time) {
	atomicfile.RemoveStale(t.real, cutoff)
	atomicfile.RemoveStale(t.path+BackupSuffix, cutoff)
}

// target is one of the files an installer edits, through steps that let
// two files be changed together: read, plan, back up, commit, and roll
// back.
type target struct {
	agent string
	// path is the file as named; real is where it is, through symlinks
	// (dotfile managers link settings files); link is set when path
	// itself is a symlink.
	path, real string
	link       bool
	old        []byte
	existed    bool
	perm       fs.FileMode
	// out is the new content; changed is set when it differs from old,
	// and remove when the file is to be deleted instead.
	out             []byte
	changed, remove bool
	// committed is set once the new content is in place.
	committed bool
	// only is set when this is the only file of its change: a refusal
	// then says that nothing at all was written.
	only bool
	// diff is set when the change's diff is wanted (a dry run).
	diff bool
	// noBackup is set for a file that holds nothing but clawd's.
	noBackup bool
	// backupData is the backup's content once original read it
	// (hasBackup: it exists).
	backupData []byte
	hasBackup  bool
}

// MaxFileSize caps what clawd reads of a settings file. Agents' files are
// kilobytes; one of 20 MB installs in well under a second.
const MaxFileSize = 64 << 20

// Sentinels for files clawd will not edit; nothing is written.
var (
	// ErrNotRegular reports a FIFO, device, socket or folder where a
	// settings file should be: reading it could block or never end.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge reports a file over MaxFileSize.
	ErrTooLarge = errors.New("too large for a settings file")
	// ErrReadOnly reports a file its owner made read-only: clawd does not
	// override that.
	ErrReadOnly = errors.New("read-only")
)

func readTarget(agent, path string) (*target, error) {
	t := &target{agent: agent, path: path, real: path, existed: true, perm: 0o644}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		// A link (dotfile managers make them) is written through to its
		// target, created if it is missing, and stays a link.
		real, err := resolveLink(path)
		if err != nil {
			return nil, err
		}
		t.real, t.link = real, true
	}
	old, fi, err := readRegular(t.real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t.existed = false
		return t, nil
	case err != nil:
		return nil, fmt.Errorf("%s: %w (the file was left untouched)", path, err)
	}
	t.old = old
	t.perm = fi.Mode().Perm()
	return t, nil
}

// readRegular reads the regular file at path, refusing anything else and
// anything over MaxFileSize before reading it.
func readRegular(path string) ([]byte, fs.FileInfo, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%w: it is a %s", ErrNotRegular, fileKind(fi.Mode()))
	}
	if fi.Size() > MaxFileSize {
		return nil, nil, fmt.Errorf("%w: %d MiB, more than the %d MiB clawd reads", ErrTooLarge, fi.Size()>>20, MaxFileSize>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, nil, err
	}
	if len(data) > MaxFileSize {
		return nil, nil, fmt.Errorf("%w: more than the %d MiB clawd reads", ErrTooLarge, MaxFileSize>>20)
	}
	return data, fi, nil
}

// fileKind names a file type for a person.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	case m.IsDir():
		return "folder"
	}
	return "special file"
}

// resolveLink follows the symlink at path, and any link it points to, to
// the file they name, which need not exist.
func resolveLink(path string) (string, error) {
	p := path
	for range 40 {
		dest, err := os.Readlink(p)
		if err != nil {
			return "", fmt.Errorf("read the link %s: %w", p, err)
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(p), dest)
		}
		p = dest
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) || err == nil && fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		if err != nil {
			return "", fmt.Errorf("follow the link %s: %w", path, err)
		}
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// writable refuses to change a file its owner made read-only.
func (t *target) writable() error {
	if !t.changed || !t.existed || t.perm&0o200 != 0 {
		return nil
	}
	return fmt.Errorf("%s: %w (mode %04o): clawd does not override that; make it writable (chmod u+w %s) and run again (nothing was written)", t.path, ErrReadOnly, t.perm, t.path)
}

// plan records the new content out (remove: no file at all) and returns
// what the change is.
func (t *target) plan(out []byte, ch Changes, remove bool) Result {
	f := Result{Agent: t.agent, Path: t.path, Existed: t.existed}
	remove = remove && t.existed
	if bytes.Equal(t.old, out) && !remove {
		return f
	}
	t.out, t.changed = out, true
	f.Changes, f.Changed = ch, true
	from, to := t.path, t.path
	if !t.existed {
		from = "/dev/null"
	}
	if remove {
		t.remove, f.Deleted = true, true
		to, out = "/dev/null", nil
	}
	if t.diff {
		f.Diff = unifiedDiff(from, to, t.old, out)
	}
	return f
}

// original returns what the file held before clawd's first change to it:
// its backup's bytes; absent when there is no backup, since clawd backs up
// every file that exists before changing it, so it created this one.
func (t *target) original() (data []byte, absent bool) {
	b, _, err := readRegular(t.path + BackupSuffix)
	if err != nil {
		return nil, true
	}
	t.backupData, t.hasBackup = b, true
	return b, false
}

// restore plans an uninstall whose plain result is out. When out is what
// the same uninstall makes of a fresh install into the original orig (rt;
// nil when that could not be computed, or orig holds clawd's entries),
// nothing but clawd's entries changed since the install, and orig is what
// goes back, byte for byte: with what an edit alone cannot give back (an
// empty container clawd filled, the blanks inside `{ }`, a blank file) or,
// when orig is absent, no file at all. Otherwise out stands.
func (t *target) restore(out []byte, ch Changes, orig []byte, absent bool, rt *[]byte) Result {
	if rt == nil || !bytes.Equal(*rt, out) {
		return t.plan(out, ch, false)
	}
	if absent {
		f := t.plan(nil, ch, true)
		f.Restored = f.Deleted
		return f
	}
	f := t.plan(orig, ch, false)
	f.Restored = true
	return f
}

// dropBackup removes the backup (as original read it) after an uninstall
// that left the file exactly as the backup holds it: it has nothing more
// to give back.
func (t *target) dropBackup(f *Result) {
	if !f.Restored || f.Deleted || !t.hasBackup {
		return
	}
	now := t.old
	if t.changed {
		now = t.out
	}
	if !bytes.Equal(now, t.backupData) {
		return
	}
	backup := t.path + BackupSuffix
	if os.Remove(backup) == nil {
		f.BackupRemoved = backup
	}
}

// backup copies the original bytes next to the file before clawd's first
// change to it; a backup is never overwritten.
func (t *target) backup(f *Result) error {
	if !t.changed || !t.existed || t.remove || t.noBackup {
		return nil
	}
	backup := t.path + BackupSuffix
	if _, err := os.Lstat(backup); errors.Is(err, fs.ErrNotExist) {
		if err := atomicfile.Write(backup, t.old, t.perm, false, nil); err != nil {
			return fmt.Errorf("back up %s: %w", t.path, err)
		}
		f.Backup = backup
	} else if err != nil {
		return fmt.Errorf("back up %s: %w", t.path, err)
	}
	return nil
}

// holds returns the check that the file holds want (absent: that there
// is no file), for atomicfile's conditional writes: another program's
// write since clawd read the file is refused, never overwritten.
func (t *target) holds(want []byte, absent bool) func(now []byte, exists bool) error {
	nothing := "nothing was written to it"
	if t.only {
		nothing = "nothing was written"
	}
	return func(now []byte, exists bool) error {
		switch {
		case absent && !exists:
			return nil
		case absent:
			return fmt.Errorf("%s: %w (it was created meanwhile); %s, run again", t.path, ErrConcurrentChange, nothing)
		case !exists:
			return fmt.Errorf("%s: %w (it was deleted meanwhile); %s, run again", t.path, ErrConcurrentChange, nothing)
		case !bytes.Equal(now, want):
			return fmt.Errorf("%s: %w (another program wrote it); %s, run again", t.path, ErrConcurrentChange, nothing)
		}
		return nil
	}
}

// commit puts the new content in place, refusing when the file changed
// since it was read. beforeCheck (tests) runs just before.
func (t *target) commit(f *Result, beforeCheck func(string)) error {
	if !t.changed {
		return nil
	}
	if !t.existed {
		made := missingDirs(filepath.Dir(t.real))
		if err := os.MkdirAll(filepath.Dir(t.real), 0o755); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(t.path), err)
		}
		f.MadeDirs = made
	}
	if beforeCheck != nil {
		beforeCheck(t.path)
	}
	expect := t.holds(t.old, !t.existed)
	if t.remove {
		if err := atomicfile.RemoveIf(t.real, expect); err != nil {
			return err
		}
		t.committed = true
		return nil
	}
	if err := atomicfile.WriteIf(t.real, t.out, t.perm, true, expect); err != nil {
		return err
	}
	t.committed = true
	f.Written = true
	return nil
}

// rollback puts back what commit replaced, unless someone changed the
// file since.
func (t *target) rollback() error {
	if !t.committed {
		return nil
	}
	switch {
	case t.remove:
		return atomicfile.WriteIf(t.real, t.old, t.perm, false, t.holds(nil, true))
	case !t.existed:
		return atomicfile.RemoveIf(t.real, t.holds(t.out, false))
	default:
		return atomicfile.WriteIf(t.real, t.old, t.perm, true, t.holds(t.out, false))
	}
}

// missingDirs are dir and those of its parents that are not there,
// outermost first: what MkdirAll(dir) creates.
func missingDirs(dir string) []string {
	var out []string
	for {
		if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		out = append([]string{dir}, out...)
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return out
}

// Package codex follows the Codex CLI's rollout files, the JSONL log
// Codex writes of every thread under
// $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl, and
// derives from them the same normalized events (agents.Event, agent
// "codex") its hooks would send. It keeps a Codex session right when the
// hooks are off, untrusted or not installed, and tells the runtime when a
// session last wrote anything: the TUI runs hooks from a daemon that
// outlives it, so no SessionEnd comes when the person quits, and the
// state machine's stale rules need to know the session went quiet.
//
// Records and what they become (Codex 0.169 item format, with the older
// event shapes where they are cheap to accept):
//
//	session_meta                      session.start (Source = payload.source, Headless
//	                                  for originator codex_exec); a sub-agent's:
//	                                  subagent.start
//	task_started                      prompt.submit, held until the person's message
//	                                  (title), a tool call or an agent message
//	function_call, custom_tool_call,  tool.start, ToolUseID = call_id, ToolName as the
//	local_shell_call, *_begin         hooks name it (exec_command → Bash)
//	item_completed (id = call_id),    tool.end, once per call; the *_output of a
//	*_output, *_end                   command, patch or multi-agent call is no end in
//	                                  0.169 (its item_completed is), as for PostToolUse
//	web_search_call, WebSearch item   tool.start + tool.end "web_search"
//	task_complete                     turn.end, or turn.failure (ErrorKind from
//	                                  error.codex_error_info); a sub-agent's:
//	                                  subagent.stop
//	turn_aborted                      turn.end, Reason "interrupt"; a sub-agent's:
//	                                  subagent.stop
//	compacted, ContextCompaction item compact.start, compact.end; a /compact turn has
//	                                  no prompt.submit or turn.end, and the next turn
//	                                  opens with session.start Source "compact"
//
// A sub-agent's rollout (thread_source "subagent") carries the root
// thread as session_id: its events belong to the root session, with
// SubagentID the sub-agent's thread id and SubagentType its role, or
// "default" as the hooks say. No permission.request is ever derived: the
// rollout has no record of an approval prompt.
//
// Every event carries Transcript (the rollout file), Cwd, Headless, the
// record's timestamp as Time and its type as HookEvent ("task_complete",
// "function_call", ...: never a hook's name, so logs tell the two
// apart). Tool events carry the InputHash the hooks compute for the same
// call (agents.CodexFingerprint), so the runtime can pair them.
//
// Titles come from $CODEX_HOME/session_index.jsonl (the thread's name, a
// later line for the same thread wins, TitleFromAgent), else from the
// turn's prompt (agents.PromptTitle, which refuses secrets). A title
// rides on each prompt.submit and on the first event after it changed.
//
// Following files: each poll lists yesterday's, today's and tomorrow's
// day folders (local dates; tomorrow for a Codex with another time zone)
// and stats the files it follows; every Rescan it lists all day folders,
// for an old thread resumed (`codex exec resume` appends to the old file).
// A file is followed once it was written since the last look (at start:
// since StartAt), read by byte offset with bounded reads, a partial last
// line kept for the next poll. Its records written before that look are
// history: they only rebuild the thread's state, which goes out as
// events (the session, an open turn, running tools) when the history
// ends. A file truncated or replaced is read again from the start; a
// deleted one, or one not written for ForgetAfter, is forgotten.
package codex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/tidwall/gjson"
)

// Options configure a Monitor. Only Home and Emit are needed.
type Options struct {
	// Home is $CODEX_HOME; "" means $CODEX_HOME or else ~/.codex.
	Home string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Emit receives the events, from the monitor's goroutine, in file
	// order per file and in time order across files.
	Emit func(agents.Event)
	Log  *slog.Logger
	// Poll is the time between two polls in Run; default 1 s.
	Poll time.Duration
	// MaxRead bounds the bytes read from one file in one poll; default
	// 1 MiB. Run polls again at once while a file has more.
	MaxRead int64
	// MaxLine is the longest record kept; a longer one is skipped
	// without being held in memory. Default 4 MiB.
	MaxLine int
	// StartAt is how far back the first poll looks: files not written
	// since are ignored until they are written again. Default: the
	// time New was called minus 2 minutes, so a session already running
	// is followed and old ones are skipped.
	StartAt time.Time
	// Rescan is how often every day folder is listed, not only the
	// last days'; default 15 s.
	Rescan time.Duration
	// ForgetAfter is how long a file may go unwritten before the
	// monitor drops what it knows of it; default 1 h.
	ForgetAfter time.Duration
}

// Defaults of Options.
const (
	defaultPoll        = time.Second
	defaultMaxRead     = 1 << 20
	defaultMaxLine     = 4 << 20
	defaultRescan      = 15 * time.Second
	defaultForgetAfter = time.Hour
	defaultLookBack    = 2 * time.Minute
	// indexTail is how much of session_index.jsonl is read at start:
	// the names of recent threads.
	indexTail = 512 << 10
	// mtimeSlack covers file systems whose modification times are
	// coarse.
	mtimeSlack = 2 * time.Second
)

// Monitor follows the rollout files of one $CODEX_HOME.
type Monitor struct {
	o Options

	pollMu   sync.Mutex // one poll at a time; guards the fields below
	files    map[string]*tailFile
	index    *tailFile
	titles   map[string]string
	lastHot  time.Time // the last poll
	lastDeep time.Time // the last listing of every day folder
	buf      []byte

	mu     sync.Mutex
	writes map[string]time.Time // session id → newest write to its files
}

// tailFile is a file being followed.
type tailFile struct {
	path     string
	info     os.FileInfo // at the last poll, to notice a replaced file
	off      int64       // bytes consumed: complete lines and partial
	partial  []byte      // the unfinished last line
	skipping bool        // inside a line longer than MaxLine
	p        *parser     // nil for the session index
	line     func([]byte)
}

// New returns a monitor; it does nothing until Run or Poll.
func New(o Options) *Monitor {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Emit == nil {
		o.Emit = func(agents.Event) {}
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Home == "" {
		var err error
		if o.Home, err = Home(os.Getenv); err != nil {
			o.Home = ".codex"
		}
	}
	if o.Poll <= 0 {
		o.Poll = defaultPoll
	}
	if o.MaxRead <= 0 {
		o.MaxRead = defaultMaxRead
	}
	if o.MaxLine <= 0 {
		o.MaxLine = defaultMaxLine
	}
	if o.StartAt.IsZero() {
		o.StartAt = o.Now().Add(-defaultLookBack)
	}
	if o.Rescan <= 0 {
		o.Rescan = defaultRescan
	}
	if o.ForgetAfter <= 0 {
		o.ForgetAfter = defaultForgetAfter
	}
	return &Monitor{
		o:      o,
		files:  map[string]*tailFile{},
		titles: map[string]string{},
		writes: map[string]time.Time{},
	}
}

// Home is Codex's folder as getenv sees it (agents.Codex.ConfigDir). The
// folder need not exist yet: the monitor picks it up when Codex creates
// it.
func Home(getenv func(string) string) (string, error) {
	return agents.Codex.ConfigDir(getenv)
}

// Run polls until ctx is done and returns ctx's error. It polls again at
// once while a file has more than MaxRead bytes to read.
func (m *Monitor) Run(ctx context.Context) error {
	tick := time.NewTicker(m.o.Poll)
	defer tick.Stop()
	var lastErr string
	for {
		behind, err := m.poll()
		// An unreadable sessions folder stays so: say it once, and
		// again when it changes.
		if msg := fmt.Sprint(err); err != nil && msg != lastErr {
			m.o.Log.Warn("codex rollouts", "err", err)
			lastErr = msg
		} else if err == nil {
			lastErr = ""
		}
		if behind && ctx.Err() == nil {
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// Poll looks for new and grown rollout files once and emits what they
// say. Run calls it; tests call it directly.
func (m *Monitor) Poll() error {
	_, err := m.poll()
	return err
}

// LastWrite is when a file of the session (its own rollout or one of its
// sub-agents') was last written, as far as the monitor follows it. The
// runtime takes it as a sign of life: Codex's TUI may be gone without a
// SessionEnd, and then the session's files go quiet.
func (m *Monitor) LastWrite(sessionID string) (time.Time, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.writes[sessionID]
	return t, ok
}

func (m *Monitor) poll() (behind bool, err error) {
	m.pollMu.Lock()
	defer m.pollMu.Unlock()
	now := m.o.Now()

	m.readIndex()
	err = m.discover(now)

	paths := make([]string, 0, len(m.files))
	for p := range m.files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	lists := make([][]agents.Event, 0, len(paths))
	writes := make(map[string]time.Time, len(paths))
	for _, path := range paths {
		f := m.files[path]
		evs, more := m.follow(f, now)
		behind = behind || more
		if len(evs) > 0 {
			lists = append(lists, evs)
		}
		if _, ok := m.files[path]; ok && f.info != nil && f.p.sid != "" {
			if t := f.info.ModTime(); t.After(writes[f.p.sid]) {
				writes[f.p.sid] = t
			}
		}
	}
	m.lastHot = now

	m.mu.Lock()
	m.writes = writes
	m.mu.Unlock()

	for _, e := range merge(lists) {
		if e.Time.IsZero() {
			e.Time = now
		}
		m.o.Emit(e)
	}
	return behind, err
}

// merge interleaves per-file event lists by time, keeping each list's
// own order.
func merge(lists [][]agents.Event) []agents.Event {
	if len(lists) == 1 {
		return lists[0]
	}
	var out []agents.Event
	for {
		best := -1
		for i, l := range lists {
			if len(l) > 0 && (best < 0 || l[0].Time.Before(lists[best][0].Time)) {
				best = i
			}
		}
		if best < 0 {
			return out
		}
		out = append(out, lists[best][0])
		lists[best] = lists[best][1:]
	}
}

// discover starts following the rollout files written since the last
// look.
func (m *Monitor) discover(now time.Time) error {
	root := filepath.Join(m.o.Home, "sessions")
	first := m.lastHot.IsZero()
	since := m.lastHot.Add(-mtimeSlack)
	if first {
		since = m.o.StartAt
	}
	hot := dayDirs(root, now)
	for _, d := range hot {
		m.scanDir(d, since)
	}
	if !first && now.Sub(m.lastDeep) < m.o.Rescan {
		return nil
	}
	deepSince := m.lastDeep.Add(-mtimeSlack)
	if first {
		deepSince = m.o.StartAt
	}
	m.lastDeep = now
	years, err := os.ReadDir(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("list codex sessions: %w", err)
	}
	for _, y := range years {
		if !y.IsDir() {
			continue
		}
		months, _ := os.ReadDir(filepath.Join(root, y.Name()))
		for _, mo := range months {
			if !mo.IsDir() {
				continue
			}
			days, _ := os.ReadDir(filepath.Join(root, y.Name(), mo.Name()))
			for _, d := range days {
				dir := filepath.Join(root, y.Name(), mo.Name(), d.Name())
				if d.IsDir() && !slices.Contains(hot, dir) {
					m.scanDir(dir, deepSince)
				}
			}
		}
	}
	return nil
}

// dayDirs are the day folders Codex writes new rollouts to around now.
func dayDirs(root string, now time.Time) []string {
	var dirs []string
	for _, d := range []int{-1, 0, 1} {
		dirs = append(dirs, dayDir(root, now.AddDate(0, 0, d)))
	}
	return dirs
}

// dayDir is the folder of the local date of t.
func dayDir(root string, t time.Time) string {
	t = t.In(time.Local)
	return filepath.Join(root, t.Format("2006"), t.Format("01"), t.Format("02"))
}

// scanDir follows the rollout files in dir written since since; their
// records from before since are history.
func (m *Monitor) scanDir(dir string, since time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			m.o.Log.Debug("codex rollouts: list", "dir", dir, "err", err)
		}
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, "rollout-") || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		path := filepath.Join(dir, name)
		if m.files[path] != nil {
			continue
		}
		info, err := e.Info()
		if err != nil || info.ModTime().Before(since) {
			continue
		}
		m.o.Log.Debug("codex rollouts: follow", "path", path)
		m.files[path] = m.newTail(path, since)
	}
}

func (m *Monitor) newTail(path string, cutoff time.Time) *tailFile {
	p := newParser(path, cutoff, m.title)
	return &tailFile{path: path, p: p, line: p.line}
}

// title is session_index.jsonl's name for a thread.
func (m *Monitor) title(threadID string) string { return m.titles[threadID] }

// follow reads what f gained since the last poll and returns its events
// and whether more is left to read.
func (m *Monitor) follow(f *tailFile, now time.Time) ([]agents.Event, bool) {
	info, err := os.Stat(f.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			delete(m.files, f.path)
		} else {
			m.o.Log.Debug("codex rollouts: stat", "path", f.path, "err", err)
		}
		return nil, false
	}
	if f.info != nil && (!os.SameFile(f.info, info) || info.Size() < f.off) {
		m.o.Log.Debug("codex rollouts: file replaced, reading it again", "path", f.path)
		*f = *m.newTail(f.path, m.lastHot.Add(-mtimeSlack))
	}
	f.info = info
	if f.off >= info.Size() && now.Sub(info.ModTime()) > m.o.ForgetAfter {
		delete(m.files, f.path)
		return nil, false
	}
	more := m.read(f, info.Size())
	if !more && !f.p.live {
		f.p.goLive()
	}
	return f.p.take(), more
}

// read feeds f's bytes from its offset up to size, at most MaxRead of
// them, and reports whether more is left.
func (m *Monitor) read(f *tailFile, size int64) bool {
	n := size - f.off
	if n <= 0 {
		return false
	}
	n = min(n, m.o.MaxRead)
	if int64(len(m.buf)) < n {
		m.buf = make([]byte, n)
	}
	fh, err := os.Open(f.path)
	if err != nil {
		m.o.Log.Debug("codex rollouts: open", "path", f.path, "err", err)
		return false
	}
	defer fh.Close()
	k, err := fh.ReadAt(m.buf[:n], f.off)
	if err != nil && !errors.Is(err, io.EOF) {
		m.o.Log.Debug("codex rollouts: read", "path", f.path, "err", err)
	}
	f.off += int64(k)
	m.feed(f, m.buf[:k])
	return int64(k) == n && f.off < size
}

// feed splits b into lines, completing the partial line of the last
// read. A line is complete only with its '\n'; one longer than MaxLine
// is skipped to its end without being kept.
func (m *Monitor) feed(f *tailFile, b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if f.skipping {
				return
			}
			if len(f.partial)+len(b) > m.o.MaxLine {
				m.skipLine(f)
				return
			}
			f.partial = append(f.partial, b...)
			return
		}
		line := b[:i]
		b = b[i+1:]
		if f.skipping {
			f.skipping = false
			continue
		}
		if len(f.partial) > 0 {
			if len(f.partial)+len(line) > m.o.MaxLine {
				m.skipLine(f)
				f.skipping = false
				continue
			}
			line = append(f.partial, line...)
			f.partial = line[:0]
			if cap(f.partial) > 64<<10 {
				f.partial = nil // a long line once is no reason to keep its buffer
			}
		}
		f.line(bytes.TrimSuffix(line, []byte{'\r'}))
	}
}

func (m *Monitor) skipLine(f *tailFile) {
	m.o.Log.Debug("codex rollouts: skipping a line longer than the limit", "path", f.path, "limit", m.o.MaxLine)
	f.partial, f.skipping = nil, true
}

// readIndex reads what session_index.jsonl gained: thread names.
func (m *Monitor) readIndex() {
	path := filepath.Join(m.o.Home, "session_index.jsonl")
	info, err := os.Stat(path)
	if err != nil {
		m.index = nil
		return
	}
	if m.index != nil && (!os.SameFile(m.index.info, info) || info.Size() < m.index.off) {
		m.index = nil
	}
	if m.index == nil {
		m.index = &tailFile{path: path, line: m.indexLine}
		if start := info.Size() - indexTail; start > 0 {
			// The names of recent threads are at the end; the
			// cut line is skipped.
			m.index.off, m.index.skipping = start, true
		}
	}
	m.index.info = info
	for m.read(m.index, info.Size()) {
	}
}

// indexLine takes one {"id","thread_name","updated_at"} line; a later
// line for the same thread (a rename) wins.
func (m *Monitor) indexLine(b []byte) {
	id := gjson.GetBytes(b, "id").String()
	if id == "" || len(id) > agents.MaxIDLen {
		return
	}
	name := agents.AgentTitle(gjson.GetBytes(b, "thread_name").String())
	if name == "" {
		delete(m.titles, id)
		return
	}
	m.titles[id] = name
}

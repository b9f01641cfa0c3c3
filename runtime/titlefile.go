package runtime

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/sqlitedb"
	"github.com/clawdhq/clawd/statemachine"
)

// Reading the agents' own files that name sessions (agents.TitleFile),
// such as a transcript the agent appends a rename to. Only the events that
// start a session, bring a prompt or end a turn ask for a look (tool calls
// and permission requests never cost I/O); the looks run one at a time on
// their own goroutine, off the ingest path; each reads only what was added
// since the last, at most titleWindow bytes of it (the end of the file,
// where the agents append their latest titles), line by line.
const (
	// titleWindow is the most a look reads: a transcript that grew by
	// more since the last look (or a long one seen for the first time) is
	// read from this far before its end.
	titleWindow = 1 << 20
	// titleQueue bounds the looks waiting; past it a look is dropped and
	// the session's next prompt asks again.
	titleQueue = 256
)

// titleLook is one session's request for a look at its file and its
// agent's database.
type titleLook struct {
	agent *agents.Agent
	path  string
	dbs   []agents.TitleDBFile
	cwd   string
	// hookTitle is the agent's own title the event that asked carried
	// (a rename the hook reported): it stands for a named title the file
	// has not shown yet.
	hookTitle string
}

// titleFiles is what the runtime knows of the sessions' title files.
type titleFiles struct {
	queue  chan statemachine.Key
	getenv agents.Env

	mu      sync.Mutex
	pending map[statemachine.Key]titleLook
	files   map[statemachine.Key]*titleFile
	// last is the last look each session of files asked for.
	last map[statemachine.Key]titleLook
	// retired are the sessions an agent's database said are gone, with
	// where it said so: an event of theirs is let in only once the
	// database no longer says it (see gone).
	retired map[statemachine.Key]titleLook
	// anyRetired is len(retired) > 0, read without mu: every event
	// asks gone, and almost never about a retired session.
	anyRetired atomic.Bool
}

func newTitleFiles(getenv agents.Env) *titleFiles {
	return &titleFiles{
		queue:   make(chan statemachine.Key, titleQueue),
		getenv:  getenv,
		pending: map[statemachine.Key]titleLook{},
		files:   map[statemachine.Key]*titleFile{},
		last:    map[statemachine.Key]titleLook{},
		retired: map[statemachine.Key]titleLook{},
	}
}

// asks reports whether an event of kind k asks for a look.
func asksForTitle(k agents.Kind) bool {
	return k == agents.KindSessionStart || k == agents.KindPromptSubmit || k == agents.KindTurnEnd
}

// want queues a look at the file event e names, when its agent has one
// and the event is one that asks. A look already waiting for the session
// takes the newer request instead.
func (t *titleFiles) want(e *agents.Event) {
	if !asksForTitle(e.Kind) {
		return
	}
	look, ok := t.lookFor(e)
	if !ok {
		return
	}
	if e.TitleSource == agents.TitleFromAgent {
		look.hookTitle = e.Title
	}
	k := statemachine.Key{Agent: e.Agent, ID: e.SessionID}
	t.mu.Lock()
	defer t.mu.Unlock()
	if before, waiting := t.pending[k]; waiting {
		if look.hookTitle == "" {
			look.hookTitle = before.hookTitle // not heard yet: keep it
		}
		t.pending[k] = look
		return
	}
	t.queueLocked(k, look)
}

// queueLocked queues a look for session k; the caller holds mu.
func (t *titleFiles) queueLocked(k statemachine.Key, look titleLook) {
	select {
	case t.queue <- k:
		t.pending[k] = look
	default: // full: the session's next prompt asks again
	}
}

// again queues another look for session k like its last one, when its
// agent keeps a database that may say it is gone: called when the session
// went stale, silent for long, the likeliest moment for a person to have
// archived it in the agent, where no hook tells.
func (t *titleFiles) again(k statemachine.Key) {
	t.mu.Lock()
	defer t.mu.Unlock()
	look, ok := t.last[k]
	if !ok || look.agent.TitleDB == nil {
		return
	}
	if _, waiting := t.pending[k]; !waiting {
		look.hookTitle = ""
		t.queueLocked(k, look)
	}
}

// lookFor is the look event e's session would have: its agent's title
// file and database; ok is false when there is nowhere to look.
func (t *titleFiles) lookFor(e *agents.Event) (look titleLook, ok bool) {
	a := agents.Lookup(e.Agent)
	if a == nil {
		return look, false
	}
	look = titleLook{agent: a, cwd: e.Cwd}
	if a.TitleFile != nil {
		look.path = a.TitleFile.Path(e)
	}
	if a.TitleDB != nil {
		look.dbs = a.TitleDB.Files(e, t.getenv)
	}
	return look, look.path != "" || len(look.dbs) > 0
}

// forget drops what is known of a session that is gone.
func (t *titleFiles) forget(k statemachine.Key) {
	t.mu.Lock()
	delete(t.files, k)
	delete(t.last, k)
	t.mu.Unlock()
}

// run takes the looks in order until ctx ends, and gives each session
// the title its database or file names (see titleFile.title); a session
// its agent's database says is gone is retired.
func (t *titleFiles) run(ctx context.Context, retitle func(statemachine.Key, string), retire func(statemachine.Key)) {
	for {
		select {
		case <-ctx.Done():
			return
		case k := <-t.queue:
			t.mu.Lock()
			look := t.pending[k]
			delete(t.pending, k)
			f := t.files[k]
			if f == nil || f.path != look.path {
				if len(t.files) >= maxTracked {
					clear(t.files) // sessions never seen to end; read afresh
					clear(t.last)
				}
				f = &titleFile{path: look.path}
				t.files[k] = f
			}
			t.last[k] = look
			t.mu.Unlock()
			// Only this goroutine touches f past this point; forget may
			// drop it from the map meanwhile, which costs nothing.
			if tdb := look.agent.TitleDB; tdb != nil {
				row := askTitleDB(ctx, tdb, look.dbs, k.ID, look.cwd)
				if row.gone {
					t.retire(k, look)
					retire(k)
					continue
				}
				f.db = row.title
			}
			err := errNoTitleFile
			if look.path != "" {
				err = f.look(look.agent.TitleFile, k.ID)
			}
			// The hook reports the session's current name, which the agent
			// may not have written to its file yet: a new one is the
			// latest, whatever the file said.
			if look.hookTitle != "" && look.hookTitle != f.hookTitle {
				f.hookTitle, f.latest = look.hookTitle, look.hookTitle
			} else if err != nil && f.db == "" {
				continue // no file yet, or not one to read: nothing said
			}
			if title := f.title(); title != "" {
				retitle(k, title)
			}
		}
	}
}

// titleFile is what the looks at one session's file found so far.
type titleFile struct {
	path string
	off  int64 // where the next look starts
	// line holds the start of a line that had not ended at the last look;
	// skip is set while the rest of a line too long to hold is passed over.
	line []byte
	skip bool

	// named is the last title the file says a person gave, hookTitle the
	// last the hooks reported, latest the newer of the two when it
	// changed; generated is the last the agent made up.
	named, hookTitle, latest string
	generated                string
	// db is the title the agent's database gives the session now.
	db string
}

// title is the title the session has by its agent's database, file and
// hooks: the database's, else the latest one a person named, else the
// last one the agent generated; cleaned like every agent title. A named
// title the secret filter refuses is "": the session keeps the title it
// had.
func (f *titleFile) title() string {
	if f.db != "" {
		return agents.AgentTitle(f.db)
	}
	if f.latest != "" {
		return agents.AgentTitle(f.latest)
	}
	return agents.AgentTitle(f.generated)
}

// errNoTitleFile: the look has no file to read.
var errNoTitleFile = errors.New("no title file")

// errNotFile refuses a path that is no regular file (a FIFO would block
// the reader, a device has no end).
var errNotFile = errors.New("not a regular file")

// look reads what the file gained since the last look (at most
// titleWindow bytes, from the end) and hands its whole lines to tf.Line.
func (f *titleFile) look(tf *agents.TitleFile, sessionID string) error {
	file, size, err := openRegular(f.path)
	if err != nil {
		return err
	}
	defer file.Close()
	if tf.Whole != nil {
		if size > agents.MaxTitleFileLine {
			return nil
		}
		data, err := io.ReadAll(io.LimitReader(file, agents.MaxTitleFileLine+1))
		if err != nil {
			return fmt.Errorf("read %s: %w", f.path, err)
		}
		if t, named, ok := tf.Whole(data, sessionID); ok {
			f.take(t, named)
		}
		return nil
	}
	if size < f.off {
		// Shorter than before: the file was replaced. Start over.
		*f = titleFile{path: f.path, hookTitle: f.hookTitle, latest: f.hookTitle, db: f.db}
	}
	start := f.off
	if size-start > titleWindow {
		// Too much to read: the end of the file, from its first whole
		// line on.
		start = size - titleWindow
		f.line, f.skip = f.line[:0], true
	}
	r := io.NewSectionReader(file, start, size-start)
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		f.feed(buf[:n], tf, sessionID)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", f.path, err)
		}
	}
	f.off = size
	return nil
}

// feed splits b into lines, continuing the one the last read left open.
func (f *titleFile) feed(b []byte, tf *agents.TitleFile, sessionID string) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		part := b
		if i >= 0 {
			part = b[:i]
		}
		if !f.skip {
			if len(f.line)+len(part) > agents.MaxTitleFileLine {
				f.line, f.skip = f.line[:0], true
			} else {
				f.line = append(f.line, part...)
			}
		}
		if i < 0 {
			return // the line goes on in the next read
		}
		if !f.skip {
			if t, named, ok := tf.Line(f.line, sessionID); ok {
				f.take(t, named)
			}
		}
		f.line, f.skip = f.line[:0], false
		b = b[i+1:]
	}
}

// take notes a title the file gave: a named one that differs from the
// last named is the latest.
func (f *titleFile) take(t string, named bool) {
	if !named {
		f.generated = t
		return
	}
	if t != f.named {
		f.named, f.latest = t, t
	}
}

// retitleFromFile gives session k the agent's title its file named.
func (s *Server) retitleFromFile(k statemachine.Key, title string) {
	if s.sessions.Retitle(k, title, agents.TitleFromAgent) {
		s.log.Debug("title from the agent's file", "agent", k.Agent, "session", k.ID)
	}
}

// openRegular opens path for reading when it is a regular file, and
// returns its size: whatever is not a plain file has no end to read to.
func openRegular(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, errNotFile
	}
	return f, fi.Size(), nil
}

// Asking an agent's database (agents.TitleDB). A look opens each file
// read-only, asks for the session's row and closes it again: nothing is
// held open between looks, so the agent may replace or lock its file at
// will, and a lock held longer than titleDBBusy costs one look its answer.
const titleDBBusy = 100 * time.Millisecond

// titleRow is what an agent's databases say of a session: the title they
// give it, and whether the one that owns it says it is gone.
type titleRow struct {
	title string
	gone  bool
}

// askTitleDB asks the databases in files, in order, for session id of
// folder cwd: the title is the first database's that names the session
// (a person's title over the agent's), gone only what the session's own
// database says. A database that cannot be read says nothing.
func askTitleDB(ctx context.Context, tdb *agents.TitleDB, files []agents.TitleDBFile, id, cwd string) titleRow {
	var out titleRow
	for _, file := range files {
		row, ok := readTitleRow(ctx, tdb.Queries, file.Path, id, cwd)
		if !ok {
			continue
		}
		if row.gone.Valid && row.gone.Bool {
			if file.Owner {
				return titleRow{gone: true}
			}
			continue // another install's copy: not this session's word
		}
		if out.title == "" {
			out.title = row.title()
		}
	}
	return out
}

// dbRow is one session's row as a TitleDB's query selects it.
type dbRow struct {
	named, generated, cwd sql.NullString
	gone                  sql.NullBool
}

func (r dbRow) title() string {
	if t := strings.TrimSpace(r.named.String); t != "" {
		return t
	}
	return strings.TrimSpace(r.generated.String)
}

// readTitleRow reads session id's row from the database at path with the
// first of queries its schema takes; ok is false when there is none, it
// belongs to another folder, or the file cannot be read.
func readTitleRow(ctx context.Context, queries []string, file, id, cwd string) (row dbRow, ok bool) {
	db, err := sqlitedb.OpenReadOnly(file, titleDBBusy)
	if err != nil {
		return row, false
	}
	defer db.Close()
	for _, q := range queries {
		err = db.QueryRowContext(ctx, q, id).Scan(&row.named, &row.generated, &row.cwd, &row.gone)
		if err == nil {
			break
		}
		if !sqlitedb.SchemaError(err) {
			return row, false // no row, or the file could not be read
		}
	}
	if err != nil {
		return row, false
	}
	if len(row.named.String) > agents.MaxTitleDBBytes || len(row.generated.String) > agents.MaxTitleDBBytes {
		return row, false // a query that does not bound its titles
	}
	if row.cwd.Valid && cwd != "" && !sameFolder(row.cwd.String, cwd) {
		return row, false
	}
	return row, true
}

// sameFolder reports whether two spellings of a folder are the same
// folder, as the agents write them: either separator, a trailing one or
// not, and on Windows either case.
func sameFolder(a, b string) bool {
	norm := func(p string) string {
		p = strings.ReplaceAll(p, `\`, "/")
		p = path.Clean(p)
		if goruntime.GOOS == "windows" {
			p = strings.ToLower(p)
		}
		return p
	}
	return norm(a) == norm(b)
}

// retire remembers a session its agent's database said is gone.
func (t *titleFiles) retire(k statemachine.Key, look titleLook) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, known := t.retired[k]; !known && len(t.retired) >= maxRetired {
		clear(t.retired) // the oldest are long gone; a late event of theirs gets in
	}
	t.retired[k] = look
	t.anyRetired.Store(true)
	delete(t.files, k)
	delete(t.last, k)
}

// maxRetired bounds the retired sessions remembered.
const maxRetired = 256

// gone reports whether e is about a session its agent's database said
// is gone and still says so: a late event of a session the person
// archived or deleted in the agent, which must not bring it back. A
// session the database no longer calls gone (the person brought it
// back) is forgotten as retired and gets in. A session's end always gets
// in: it brings nothing back. Only retired sessions cost a look here.
func (t *titleFiles) gone(ctx context.Context, e *agents.Event) bool {
	if e.Kind == agents.KindSessionEnd || !t.anyRetired.Load() {
		return false
	}
	k := statemachine.Key{Agent: e.Agent, ID: e.SessionID}
	t.mu.Lock()
	look, retired := t.retired[k]
	t.mu.Unlock()
	if !retired {
		return false
	}
	if now, ok := t.lookFor(e); ok && len(now.dbs) > 0 {
		look.dbs, look.cwd = now.dbs, now.cwd
	}
	if askTitleDB(ctx, look.agent.TitleDB, look.dbs, k.ID, look.cwd).gone {
		return true
	}
	t.mu.Lock()
	delete(t.retired, k)
	t.anyRetired.Store(len(t.retired) > 0)
	t.mu.Unlock()
	return false
}

// retireSession ends session k as its agent's database says it is: the
// person archived or deleted it in the agent. It is an end, not a finished
// turn: no "done", no notification but what an end brings.
func (s *Server) retireSession(k statemachine.Key) {
	_, live := s.sessions.Session(k)
	if !live {
		return
	}
	s.log.Info("session archived or deleted in its agent", "agent", k.Agent, "session", k.ID)
	s.Ingest(agents.Event{Agent: k.Agent, Kind: agents.KindSessionEnd, SessionID: k.ID, Time: s.cfg.Now(), Reason: ReasonRetired})
}

// ReasonRetired is the reason of the session end clawd records for a
// session its agent's database says is gone.
const ReasonRetired = "retired"

package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
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

// titleLook is one session's request for a look at its file.
type titleLook struct {
	agent *agents.Agent
	path  string
	// hookTitle is the agent's own title the event that asked carried
	// (a rename the hook reported): it stands for a named title the file
	// has not shown yet.
	hookTitle string
}

// titleFiles is what the runtime knows of the sessions' title files.
type titleFiles struct {
	queue chan statemachine.Key

	mu      sync.Mutex
	pending map[statemachine.Key]titleLook
	files   map[statemachine.Key]*titleFile
}

func newTitleFiles() *titleFiles {
	return &titleFiles{
		queue:   make(chan statemachine.Key, titleQueue),
		pending: map[statemachine.Key]titleLook{},
		files:   map[statemachine.Key]*titleFile{},
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
	a := agents.Lookup(e.Agent)
	if a == nil || a.TitleFile == nil {
		return
	}
	path := a.TitleFile.Path(e)
	if path == "" {
		return
	}
	look := titleLook{agent: a, path: path}
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
	select {
	case t.queue <- k:
		t.pending[k] = look
	default: // full: the session's next prompt asks again
	}
}

// forget drops what is known of a session that is gone.
func (t *titleFiles) forget(k statemachine.Key) {
	t.mu.Lock()
	delete(t.files, k)
	t.mu.Unlock()
}

// run takes the looks in order until ctx ends, and gives each session
// the title its file names (see titleFile.title).
func (t *titleFiles) run(ctx context.Context, retitle func(statemachine.Key, string)) {
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
				}
				f = &titleFile{path: look.path}
				t.files[k] = f
			}
			t.mu.Unlock()
			// Only this goroutine touches f past this point; forget may
			// drop it from the map meanwhile, which costs nothing.
			err := f.look(look.agent.TitleFile, k.ID)
			// The hook reports the session's current name, which the agent
			// may not have written to its file yet: a new one is the
			// latest, whatever the file said.
			if look.hookTitle != "" && look.hookTitle != f.hookTitle {
				f.hookTitle, f.latest = look.hookTitle, look.hookTitle
			} else if err != nil {
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
}

// title is the title the session has by its file and hooks: the latest
// one a person named, else the last one the agent generated; cleaned like
// every agent title. A named title the secret filter refuses is "": the
// session keeps the title it had.
func (f *titleFile) title() string {
	if f.latest != "" {
		return agents.AgentTitle(f.latest)
	}
	return agents.AgentTitle(f.generated)
}

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
		*f = titleFile{path: f.path, hookTitle: f.hookTitle, latest: f.hookTitle}
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
	s.mu.Lock()
	changed := s.m.Retitle(k, title, agents.TitleFromAgent)
	s.mu.Unlock()
	if changed {
		s.log.Debug("title from the agent's file", "agent", k.Agent, "session", k.ID)
		s.feeds.publish(client.Change{Display: true})
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

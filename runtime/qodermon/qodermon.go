// Package qodermon reads the names Qoder CLI gives its sessions from the
// session's own transcript (the transcript_path of its hooks), a JSONL
// file in which Qoder appends a {"type": "custom-title", "customTitle":
// ...} record when the person renames the session and {"type":
// "ai-title", "aiTitle": ...} when it names the session itself; the
// person's name wins, the latest of each counts.
//
// It reads only when a hook says a name may have come (a session
// starting, a prompt, a turn's end), never polls, and only what was
// appended since its last read: per session an offset, the unfinished
// last line, and the file's identity; a file replaced or cut short is
// read again from the start. Sessions are read one after the other on
// the source's goroutine, in the order the hooks came. Only this machine's
// sessions are read: a remote machine's or WSL's events reach the runtime
// without their transcript path (runtime's ingress drops it), and
// SawHook passes over an event without one.
package qodermon

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/tidwall/gjson"

	"github.com/clawdhq/clawd/agents"
)

// Limits of the reader.
const (
	// chunk is what one read takes of a transcript.
	chunk = 64 << 10
	// maxLine is the longest line looked at: a longer one (a huge tool
	// output) is skipped, never held whole.
	maxLine = 2 << 20
	// maxSessions bounds the sessions remembered; the oldest go first.
	maxSessions = 256
	// queueLen bounds the reads waiting; past it a hook's read is
	// dropped (the next hook of the session reads what it missed).
	queueLen = 256
)

// Options configure a Source.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	Log *slog.Logger
}

// Source is the runtime.Source (and runtime.HookWatcher) of Qoder's
// session names.
type Source struct {
	o    Options
	reqs chan agents.Event

	// Owned by Run's goroutine.
	sessions map[string]*session
	order    []string
}

// session is what the reader knows of one session's transcript.
type session struct {
	path    string
	info    os.FileInfo
	offset  int64
	partial []byte
	// skipping is set while the rest of an overlong line is skipped.
	skipping       bool
	custom, ai     string
	sent           string
	reads, scanned int
}

// New returns a Source.
func New(o Options) *Source {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Source{o: o, reqs: make(chan agents.Event, queueLen), sessions: map[string]*session{}}
}

// Agent is Qoder's id.
func (s *Source) Agent() string { return agents.Qoder.ID }

// SessionKind: Qoder's transcript says nothing of the session's kind.
func (s *Source) SessionKind(string) (string, bool, bool) { return "", false, false }

// SawHook queues a read of the session's transcript after a hook that may
// come with a new name: a session starting, a prompt, a turn's end; a
// session's end forgets it. It never blocks.
func (s *Source) SawHook(e agents.Event) {
	switch e.Kind {
	case agents.KindSessionStart, agents.KindPromptSubmit, agents.KindTurnEnd, agents.KindSessionEnd:
	default:
		return
	}
	if e.Transcript == "" && e.Kind != agents.KindSessionEnd {
		return
	}
	select {
	case s.reqs <- e:
	default:
		s.o.Log.Warn("qoder title reads queued up; one dropped", "session", e.SessionID)
	}
}

// Run reads what the hooks ask for until ctx ends, emitting a
// session.update with the session's name whenever it changed.
func (s *Source) Run(ctx context.Context, emit func(agents.Event)) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e := <-s.reqs:
			if t, ok := s.read(e); ok {
				emit(agents.Event{Agent: agents.Qoder.ID, Kind: agents.KindSessionUpdate, SessionID: e.SessionID,
					Time: s.o.Now().UTC(), Title: t, TitleSource: agents.TitleFromAgent})
			}
		}
	}
}

// read reads what was appended to e's transcript and returns the
// session's name if it changed.
func (s *Source) read(e agents.Event) (string, bool) {
	if e.Kind == agents.KindSessionEnd {
		s.forget(e.SessionID)
		return "", false
	}
	ss := s.session(e.SessionID)
	f, err := os.Open(e.Transcript)
	if err != nil {
		return "", false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	if ss.path != e.Transcript || ss.info == nil || !os.SameFile(ss.info, fi) || fi.Size() < ss.offset {
		*ss = session{path: e.Transcript, sent: ss.sent}
	}
	ss.info = fi
	ss.reads++
	if _, err := f.Seek(ss.offset, io.SeekStart); err != nil {
		return "", false
	}
	buf := make([]byte, chunk)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			ss.consume(buf[:n], e.SessionID)
			ss.offset += int64(n)
			ss.scanned += n
		}
		if err != nil {
			break
		}
	}
	t := ss.custom
	if t == "" {
		t = ss.ai
	}
	if t = agents.AgentTitle(t); t == "" || t == ss.sent {
		return "", false
	}
	ss.sent = t
	return t, true
}

// consume takes a chunk of the transcript: its whole lines are looked
// at, the unfinished last one kept for the next.
func (ss *session) consume(b []byte, sessionID string) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if !ss.skipping {
				ss.partial = append(ss.partial, b...)
				if len(ss.partial) > maxLine {
					ss.partial, ss.skipping = nil, true
				}
			}
			return
		}
		line := b[:i]
		b = b[i+1:]
		if ss.skipping {
			ss.skipping = false
			continue
		}
		if len(ss.partial) > 0 {
			line = append(ss.partial, line...)
			ss.partial = nil
		}
		if len(line) <= maxLine {
			ss.title(line, sessionID)
		}
	}
}

var (
	customMarker = []byte(`"custom-title"`)
	aiMarker     = []byte(`"ai-title"`)
)

// title takes a title record of the session from one line.
func (ss *session) title(line []byte, sessionID string) {
	if !bytes.Contains(line, customMarker) && !bytes.Contains(line, aiMarker) {
		return
	}
	if !gjson.ValidBytes(line) {
		return
	}
	r := gjson.ParseBytes(line)
	if r.Get("sessionId").String() != sessionID {
		return
	}
	switch r.Get("type").String() {
	case "custom-title":
		if t := r.Get("customTitle").String(); t != "" {
			ss.custom = t
		}
	case "ai-title":
		if t := r.Get("aiTitle").String(); t != "" {
			ss.ai = t
		}
	}
}

// session returns what the reader knows of a session, remembering at
// most maxSessions.
func (s *Source) session(id string) *session {
	if ss := s.sessions[id]; ss != nil {
		return ss
	}
	if len(s.order) >= maxSessions {
		delete(s.sessions, s.order[0])
		s.order = s.order[1:]
	}
	ss := &session{}
	s.sessions[id] = ss
	s.order = append(s.order, id)
	return ss
}

func (s *Source) forget(id string) {
	if s.sessions[id] == nil {
		return
	}
	delete(s.sessions, id)
	for i, o := range s.order {
		if o == id {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}

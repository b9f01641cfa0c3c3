package runtime

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clawdhq/clawd/runtime/client"
)

// streamHeartbeat is how often an idle stream sends a heartbeat (an empty
// line, or an SSE comment) so both ends notice a dead connection.
const streamHeartbeat = 15 * time.Second

// Stream limits. A subscriber costs a goroutine, a connection and a queue
// of up to 4096 records; publishing to it costs ingest a channel send per
// record. The person's own clients (`clawd events`, `clawd permissions
// --wait`, a dashboard) need a handful.
const (
	// maxStreams caps the event and permission streams open at once;
	// one more is refused with 503.
	maxStreams = 64
	// DefaultStreamWriteTimeout is how long a write to a subscriber may
	// wait (Config.StreamWriteTimeout): one that stopped reading is
	// dropped then. A slow one that reads is told what it missed
	// ("stream.lagged") instead.
	DefaultStreamWriteTimeout = 5 * time.Second
)

// streamLine is one JSON line of a stream, with how many lines its
// subscriber lost just before it. id, when not 0, is the line's Server-Sent
// Events id: an event record's Seq, which an EventSource sends back as
// Last-Event-ID when it reconnects.
type streamLine struct {
	json    []byte
	id      uint64
	dropped int
}

// newStreamHub is the hub of one stream's subscribers.
func newStreamHub() *hub[streamLine] {
	return newHub(func(l streamLine, dropped int) streamLine {
		l.dropped = dropped
		return l
	})
}

// publishJSON sends v as a line to h's subscribers; with none, v is not
// even encoded.
func publishJSON(h *hub[streamLine], v any) {
	if !h.active() {
		return
	}
	if b, err := json.Marshal(v); err == nil {
		h.publish(streamLine{json: b})
	}
}

// stream writes the lines of one hub subscription to a client until it
// goes away or the runtime stops: newline-delimited JSON by default,
// Server-Sent Events when the client accepts text/event-stream. initial
// lines go out first. A subscriber that fell behind gets a line
// {lagKey: "stream.lagged", "dropped": N} before the next one.
//
// subscribe runs after the response headers are out; it returns the
// subscription and the initial lines, taken under whatever lock keeps them
// consistent with the hub.
//
// At most maxStreams run at once. Every write has Config.StreamWriteTimeout
// to complete: a subscriber that stopped reading is dropped, its
// connection closed; publishing never waits for it (see hub).
func (s *Server) stream(w http.ResponseWriter, r *http.Request, lagKey string,
	subscribe func() (*subscription[streamLine], []streamLine)) {
	if s.streams.Add(1) > maxStreams {
		s.streams.Add(-1)
		// Hang up too: a refused client would otherwise keep a
		// connection slot (see maxSocketConns) for its keep-alive.
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("too many streams open (%d): close one", maxStreams))
		return
	}
	defer s.streams.Add(-1)
	rc := http.NewResponseController(w)
	// The stream is held open: no read deadline of the request may end it.
	rc.SetReadDeadline(time.Time{})
	flush := rc.Flush
	sse := strings.Contains(r.Header.Get("Accept"), "text/event-stream")
	if sse {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/x-ndjson")
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)

	sub, initial := subscribe()
	defer sub.close()
	// Writes go to net/http's buffer; when it fills, it goes out under
	// the deadline set at the start of the batch.
	deadline := func() { rc.SetWriteDeadline(time.Now().Add(s.cfg.StreamWriteTimeout)) }
	write := func(l streamLine) error {
		var err error
		switch {
		case sse && l.id != 0:
			_, err = fmt.Fprintf(w, "id: %d\ndata: %s\n\n", l.id, l.json)
		case sse:
			_, err = fmt.Fprintf(w, "data: %s\n\n", l.json)
		default:
			_, err = fmt.Fprintf(w, "%s\n", l.json)
		}
		return err
	}
	// send writes l, after the lag line when lines were lost before it.
	send := func(l streamLine) error {
		if l.dropped > 0 {
			lag, _ := json.Marshal(map[string]any{lagKey: client.StreamLagged, "dropped": l.dropped})
			if err := write(streamLine{json: lag}); err != nil {
				return err
			}
		}
		return write(l)
	}
	dropped := func(err error) {
		s.log.Info("stream subscriber dropped", "path", r.URL.Path, "err", err)
	}
	deadline()
	for _, line := range initial {
		if err := write(line); err != nil {
			dropped(err)
			return
		}
	}
	if err := flush(); err != nil {
		dropped(err)
		return
	}

	heartbeat := time.NewTicker(streamHeartbeat)
	defer heartbeat.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		case <-heartbeat.C:
			hb := "\n"
			if sse {
				hb = ": ping\n\n"
			}
			deadline()
			if _, err := io.WriteString(w, hb); err != nil {
				dropped(err)
				return
			}
			if err := flush(); err != nil {
				dropped(err)
				return
			}
		case l := <-sub.C:
			deadline()
			if err := send(l); err != nil {
				dropped(err)
				return
			}
			// Drain what is already queued before flushing once.
			for more := true; more; {
				select {
				case l = <-sub.C:
					if err := send(l); err != nil {
						dropped(err)
						return
					}
				default:
					more = false
				}
			}
			if err := flush(); err != nil {
				dropped(err)
				return
			}
		}
	}
}

// backlog keeps each agent's latest event records, client.EventBacklog of
// each, so that a stream starts with what just happened (the SessionStart
// of a session whose first hook beat the subscriber, an answer given
// while the dashboard reconnected) and a reader that reconnects gets what
// it missed. Memory only. Per agent, so that a chatty agent does not push
// another's records out; the agents are the registry's (agents.Validate
// admits no other), so the rings are few.
//
// sessionStore.pubMu guards it: records are added in Seq order as they are
// published, and a stream takes its backlog and its subscription under
// the same lock, so nothing falls between them or comes twice.
type backlog struct {
	rings map[string]*ring
	// last is the Seq of the latest record added. Every record the
	// runtime numbers is added, so the records after a Seq number
	// last-Seq, held or not.
	last uint64
}

// ring is one agent's records, oldest overwritten first.
type ring struct {
	recs []client.EventRecord
	next int // where the next record goes once recs is full
}

// add keeps rec, dropping its agent's oldest record past
// client.EventBacklog. The caller holds pubMu.
func (b *backlog) add(rec client.EventRecord) {
	if b.rings == nil {
		b.rings = map[string]*ring{}
	}
	rg := b.rings[rec.Agent]
	if rg == nil {
		rg = &ring{}
		b.rings[rec.Agent] = rg
	}
	if len(rg.recs) < client.EventBacklog {
		rg.recs = append(rg.recs, rec)
	} else {
		rg.recs[rg.next] = rec
		rg.next = (rg.next + 1) % client.EventBacklog
	}
	b.last = rec.Seq
}

// after returns the records it holds with a Seq above seq, in Seq order,
// and how many records after seq it no longer holds. reset says that seq
// is beyond the last record: the client's numbers are of an earlier
// runtime (or made up), and recs is everything held. The caller holds
// pubMu.
func (b *backlog) after(seq uint64) (recs []client.EventRecord, missed int, reset bool) {
	if seq > b.last {
		seq, reset = 0, true
	}
	for _, rg := range b.rings {
		for _, r := range rg.recs {
			if r.Seq > seq {
				recs = append(recs, r)
			}
		}
	}
	slices.SortFunc(recs, func(x, y client.EventRecord) int { return cmp.Compare(x.Seq, y.Seq) })
	if !reset {
		missed = int(b.last-seq) - len(recs)
	}
	return recs, missed, reset
}

// streamStart is where a stream's reader asked to start (see the event
// stream in runtime/client).
type streamStart struct {
	// backlog: send the held records after since first.
	backlog bool
	since   uint64
	// resumed: since is the reader's own last Seq, so it is told what the
	// backlog no longer holds.
	resumed bool
}

// startOf reads where r's stream starts: ?since=SEQ or the Last-Event-ID
// header an EventSource sends when it reconnects, ?backlog=0 for live
// records only; by default the whole backlog.
func startOf(r *http.Request) (streamStart, error) {
	q := r.URL.Query()
	since := q.Get("since")
	if since == "" {
		since = r.Header.Get("Last-Event-ID")
	}
	st := streamStart{backlog: true}
	switch b := q.Get("backlog"); b {
	case "", "1", "true":
	case "0", "false":
		st.backlog = false
	default:
		return st, fmt.Errorf("backlog=%q: want 0 (live records only) or 1", b)
	}
	if since != "" {
		n, err := strconv.ParseUint(since, 10, 64)
		if err != nil {
			return st, fmt.Errorf("since=%q: want the seq of the last record read, a number", since)
		}
		if !st.backlog {
			return st, errors.New("since and backlog=0 do not go together: since asks for the records after it")
		}
		st.since, st.resumed = n, true
	}
	return st, nil
}

// gap is what a resumed reader is told it lost: how many records the
// backlog no longer holds, or that the runtime numbers anew.
type gap struct {
	Missed int  `json:"missed,omitempty"`
	Reset  bool `json:"reset,omitempty"`
}

// line is g as the StreamMissed line of a stream whose lines are told
// apart by key ("kind" on the event stream, "type" on the dashboard's).
func (g gap) line(key string) streamLine {
	m := map[string]any{key: client.StreamMissed, "missed": g.Missed}
	if g.Reset {
		m["reset"] = true
	}
	b, _ := json.Marshal(m)
	return streamLine{json: b}
}

// handleStream is GET /api/v1/events: the backlog the reader asked for,
// then every record as it happens (see Server.stream and the event
// stream in runtime/client).
func (s *Server) handleStream(w http.ResponseWriter, r *http.Request) {
	st, err := startOf(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.stream(w, r, "kind", func() (*subscription[streamLine], []streamLine) {
		sub, recs, lost := s.sessions.followEvents(st, 4096)
		// Encoded outside pubMu: ingest does not wait for a backlog.
		var lines []streamLine
		if lost != nil {
			lines = append(lines, lost.line("kind"))
		}
		for _, rec := range recs {
			lines = append(lines, recordLine(rec))
		}
		return sub, lines
	})
}

// recordLine is rec as a stream line, numbered for Server-Sent Events.
func recordLine(rec client.EventRecord) streamLine {
	b, _ := json.Marshal(rec)
	return streamLine{json: b, id: rec.Seq}
}

// publishRecord sends rec as a line to h's subscribers; with none, rec is
// not even encoded.
func publishRecord(h *hub[streamLine], rec client.EventRecord) {
	if h.active() {
		h.publish(recordLine(rec))
	}
}

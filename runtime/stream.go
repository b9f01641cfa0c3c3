package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/sessions"
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
	subscribe func() (*sessions.Subscription[sessions.Line], []sessions.Line)) {
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
	defer sub.Close()
	// Writes go to net/http's buffer; when it fills, it goes out under
	// the deadline set at the start of the batch.
	deadline := func() { rc.SetWriteDeadline(time.Now().Add(s.cfg.StreamWriteTimeout)) }
	write := func(l sessions.Line) error {
		var err error
		switch {
		case sse && l.ID != 0:
			_, err = fmt.Fprintf(w, "id: %d\ndata: %s\n\n", l.ID, l.JSON)
		case sse:
			_, err = fmt.Fprintf(w, "data: %s\n\n", l.JSON)
		default:
			_, err = fmt.Fprintf(w, "%s\n", l.JSON)
		}
		return err
	}
	// send writes l, after the lag line when lines were lost before it.
	send := func(l sessions.Line) error {
		if l.Dropped > 0 {
			lag, _ := json.Marshal(map[string]any{lagKey: client.StreamLagged, "dropped": l.Dropped})
			if err := write(sessions.Line{JSON: lag}); err != nil {
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

// startOf reads where r's stream starts: ?since=SEQ or the Last-Event-ID
// header an EventSource sends when it reconnects, ?backlog=0 for live
// records only; by default the whole backlog.
func startOf(r *http.Request) (sessions.Start, error) {
	q := r.URL.Query()
	since := q.Get("since")
	if since == "" {
		since = r.Header.Get("Last-Event-ID")
	}
	st := sessions.Start{Backlog: true}
	switch b := q.Get("backlog"); b {
	case "", "1", "true":
	case "0", "false":
		st.Backlog = false
	default:
		return st, fmt.Errorf("backlog=%q: want 0 (live records only) or 1", b)
	}
	if since != "" {
		n, err := strconv.ParseUint(since, 10, 64)
		if err != nil {
			return st, fmt.Errorf("since=%q: want the seq of the last record read, a number", since)
		}
		if !st.Backlog {
			return st, errors.New("since and backlog=0 do not go together: since asks for the records after it")
		}
		st.Since, st.Resumed = n, true
	}
	return st, nil
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
	s.stream(w, r, "kind", func() (*sessions.Subscription[sessions.Line], []sessions.Line) {
		sub, recs, lost := s.sessions.FollowEvents(st, 4096)
		// Encoded outside pubMu: ingest does not wait for a backlog.
		var lines []sessions.Line
		if lost != nil {
			lines = append(lines, lost.Line("kind"))
		}
		for _, rec := range recs {
			lines = append(lines, sessions.RecordLine(rec))
		}
		return sub, lines
	})
}

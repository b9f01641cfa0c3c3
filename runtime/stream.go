package runtime

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// streamHeartbeat is how often an idle stream sends a heartbeat (an empty
// line, or an SSE comment) so both ends notice a dead connection.
const streamHeartbeat = 15 * time.Second

// stream writes the lines of one bus subscription to a client until it
// goes away or the runtime stops: newline-delimited JSON by default,
// Server-Sent Events when the client accepts text/event-stream. initial
// lines go out first. A subscriber that fell behind gets a line
// {lagKey: "stream.lagged", "dropped": N} before the next one.
//
// subscribe runs after the response headers are out; it returns the
// subscription and the initial lines, taken under whatever lock keeps them
// consistent with the bus.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, b *bus, lagKey string,
	subscribe func() (*subscriber, [][]byte)) {
	fl, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "streaming unsupported")
		return
	}
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
	defer b.unsubscribe(sub)
	write := func(line []byte) error {
		var err error
		if sse {
			_, err = fmt.Fprintf(w, "data: %s\n\n", line)
		} else {
			_, err = fmt.Fprintf(w, "%s\n", line)
		}
		return err
	}
	for _, line := range initial {
		if write(line) != nil {
			return
		}
	}
	fl.Flush()

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
			if _, err := io.WriteString(w, hb); err != nil {
				return
			}
			fl.Flush()
		case line := <-sub.ch:
			if n := b.takeDropped(sub); n > 0 {
				lag, _ := json.Marshal(map[string]any{lagKey: "stream.lagged", "dropped": n})
				if write(lag) != nil {
					return
				}
			}
			if write(line) != nil {
				return
			}
			// Drain what is already queued before flushing once.
			for more := true; more; {
				select {
				case line = <-sub.ch:
					if write(line) != nil {
						return
					}
				default:
					more = false
				}
			}
			fl.Flush()
		}
	}
}

package sessions

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/clawdhq/clawd/runtime/client"
)

// Line is one JSON line of a stream, with how many lines its subscriber
// lost just before it. ID, when not 0, is the line's Server-Sent Events
// id: an event record's Seq, which an EventSource sends back as
// Last-Event-ID when it reconnects.
type Line struct {
	JSON    []byte
	ID      uint64
	Dropped int
}

// NewLineHub is the hub of one stream's subscribers.
func NewLineHub() *Hub[Line] {
	return NewHub(func(l Line, dropped int) Line {
		l.Dropped = dropped
		return l
	})
}

// newFeedHub is the hub of the in-process feeds: a change after a loss
// carries the count in Dropped.
func newFeedHub() *Hub[client.Change] {
	return NewHub(func(c client.Change, dropped int) client.Change {
		c.Dropped = dropped
		return c
	})
}

// PublishJSON sends v as a line to h's subscribers; with none, v is not
// even encoded.
func PublishJSON(h *Hub[Line], v any) {
	if !h.Active() {
		return
	}
	if b, err := json.Marshal(v); err == nil {
		h.Publish(Line{JSON: b})
	}
}

// RecordLine is rec as a stream line, numbered for Server-Sent Events.
func RecordLine(rec client.EventRecord) Line {
	b, _ := json.Marshal(rec)
	return Line{JSON: b, ID: rec.Seq}
}

// publishRecord sends rec as a line to h's subscribers; with none, rec is
// not even encoded.
func publishRecord(h *Hub[Line], rec client.EventRecord) {
	if h.Active() {
		h.Publish(RecordLine(rec))
	}
}

// Start is where a stream's reader asked to start (see the event stream
// in runtime/client).
type Start struct {
	// Backlog: send the held records after Since first.
	Backlog bool
	Since   uint64
	// Resumed: Since is the reader's own last Seq, so it is told what the
	// backlog no longer holds.
	Resumed bool
}

// Gap is what a resumed reader is told it lost: how many records the
// backlog no longer holds, or that the runtime numbers anew.
type Gap struct {
	Missed int
	Reset  bool
}

// Line is g as the StreamMissed line of a stream whose lines are told
// apart by key ("kind" on the event stream, "type" on the dashboard's).
func (g Gap) Line(key string) Line {
	m := map[string]any{key: client.StreamMissed, "missed": g.Missed}
	if g.Reset {
		m["reset"] = true
	}
	b, _ := json.Marshal(m)
	return Line{JSON: b}
}

// backlog keeps each agent's latest event records, client.EventBacklog of
// each, so that a stream starts with what just happened (the SessionStart
// of a session whose first hook beat the subscriber, an answer given
// while the dashboard reconnected) and a reader that reconnects gets what
// it missed. Memory only. Per agent, so that a chatty agent does not push
// another's records out; the agents are the registry's (agents.Validate
// admits no other), so the rings are few.
//
// Store.pubMu guards it: records are added in Seq order as they are
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

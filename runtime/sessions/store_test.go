package sessions

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/statemachine"
)

// TestStoreNumbersAndFollows: every record, an agent's event or one the
// store is handed, gets the next number and reaches the backlog and the
// subscribers; a reader resuming from its last number gets what followed
// it, one whose number is of an earlier runtime the whole backlog and a
// reset.
func TestStoreNumbersAndFollows(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	st := New(Config{Now: func() time.Time { return now }})
	k := statemachine.Key{Agent: "claude", ID: "s1"}
	ev := func(kind agents.Kind) agents.Event {
		return agents.Event{Agent: k.Agent, SessionID: k.ID, Kind: kind, Time: now}
	}
	if _, rec, ok := st.Apply(ev(agents.KindSessionStart), false); !ok || rec.Seq != 1 {
		t.Fatalf("Apply(session.start) = %+v, %v; want seq 1", rec, ok)
	}
	sub, recs, lost := st.FollowEvents(Start{Backlog: true, Since: 1, Resumed: true}, 8)
	defer sub.Close()
	if len(recs) != 0 || lost != nil {
		t.Fatalf("FollowEvents(since 1) = %v, %+v; want nothing held after 1, no gap", recs, lost)
	}
	feed := st.Subscribe(8)
	defer feed.Close()

	st.Apply(ev(agents.KindPromptSubmit), false)
	st.Record(k, client.EventRecord{Event: agents.Event{Agent: k.Agent, SessionID: k.ID, Kind: client.KindPermissionAnswered}})
	for want := uint64(2); want <= 3; want++ {
		select {
		case l := <-sub.C:
			var rec client.EventRecord
			if err := json.Unmarshal(l.JSON, &rec); err != nil || l.ID != want || rec.Seq != want {
				t.Fatalf("line %s (id %d), %v; want seq %d", l.JSON, l.ID, err, want)
			}
		default:
			t.Fatalf("no line for seq %d", want)
		}
		select {
		case c := <-feed.C:
			if c.Event == nil || c.Event.Seq != want {
				t.Fatalf("feed change %+v, want the record of seq %d", c, want)
			}
		default:
			t.Fatalf("no feed change for seq %d", want)
		}
	}
	if ss, ok := st.Session(k); !ok || st.Seq() != 3 {
		t.Fatalf("Session(%v) = %v, Seq() = %d; want it tracked, 3", k, ok, st.Seq())
	} else if got := st.Snapshot(nil); len(got.Sessions) != 1 || got.Sessions[0].State != string(ss.State) {
		t.Fatalf("Snapshot = %+v, want the one session in %s", got, ss.State)
	}

	feed2, recs, lost := st.FollowChanges(Start{Backlog: true, Since: 99, Resumed: true}, 1)
	feed2.Close()
	if len(recs) != 3 || lost == nil || !lost.Reset {
		t.Fatalf("FollowChanges(since 99) = %d records, %+v; want all 3 and a reset", len(recs), lost)
	}
	if got := (Gap{Missed: 2}).Line("kind"); string(got.JSON) != `{"kind":"stream.missed","missed":2}` {
		t.Errorf("Gap.Line = %s", got.JSON)
	}
}

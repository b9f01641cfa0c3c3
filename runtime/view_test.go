package runtime

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/statemachine"
)

// consistent says what is wrong with v, if anything: a request listed
// while its session does not show it pending.
func consistent(v client.View) error {
	for _, p := range v.Permissions {
		found := false
		for _, s := range v.Sessions {
			if s.Agent != p.Agent || s.SessionID != p.SessionID {
				continue
			}
			found = true
			if s.Pending == 0 || s.State != string(statemachine.Waiting) {
				return fmt.Errorf("request %s is listed while its session %s is %s with %d pending", p.ID, s.SessionID, s.State, s.Pending)
			}
		}
		if !found {
			return fmt.Errorf("request %s is listed without its session %s", p.ID, p.SessionID)
		}
	}
	return nil
}

// TestConsistentFires: the check of TestViewIsConsistent catches the views
// the tray could show when it read sessions and requests one after the
// other.
func TestConsistentFires(t *testing.T) {
	p := client.PermissionView{ID: "p1", Agent: "claude", SessionID: "s1", State: "pending"}
	for _, sessions := range [][]client.SessionView{
		nil, // registered between the two reads
		{{Agent: "claude", SessionID: "s1", State: string(statemachine.Working)}}, // settled between them
	} {
		v := client.View{Snapshot: client.Snapshot{Sessions: sessions}, Permissions: []client.PermissionView{p}}
		if consistent(v) == nil {
			t.Errorf("consistent(%+v) = nil, want an error", v)
		}
	}
}

// TestViewIsConsistent: while requests are registered, answered, settled
// by the agent's own events and handed back by do-not-disturb, every View
// lists a request only while its session shows it pending.
func TestViewIsConsistent(t *testing.T) {
	env := startPerm(t, nil)
	changes, cancel := env.s.Subscribe(1024)
	defer cancel()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	views := 0
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := consistent(env.s.View()); err != nil {
				t.Error(err)
				return
			}
			views++
		}
	})

	for i := range 30 {
		sid := fmt.Sprintf("s%d", i%3)
		res := env.hook(bashRequest(sid, fmt.Sprintf("h%d", i), "npm test"))
		var id string
		for deadline := time.After(10 * time.Second); id == ""; {
			select {
			case c := <-changes:
				if c.Permission != nil && c.Permission.Type == client.ChangeAdded {
					id = c.Permission.Permission.ID
				}
			case <-deadline:
				t.Fatalf("request %d never added", i)
			}
		}
		switch i % 3 {
		case 0:
			if _, err := env.s.Decide(id, client.DecisionBody{Behavior: client.Allow}); err != nil {
				t.Fatal(err)
			}
		case 1:
			// The person answered in the terminal and the turn ended.
			env.s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindTurnEnd, SessionID: sid, Time: time.Now()})
		case 2:
			env.s.SetDND(true)
			env.s.SetDND(false)
			env.s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindTurnEnd, SessionID: sid, Time: time.Now()})
		}
		wait(t, res)
	}
	close(stop)
	wg.Wait()
	if views == 0 {
		t.Error("no view was checked")
	}
	if v := env.s.View(); len(v.Permissions) != 0 {
		t.Errorf("View after every request was closed lists %+v", v.Permissions)
	}
}

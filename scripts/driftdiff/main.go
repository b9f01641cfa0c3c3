// Command driftdiff tells what a new release of an agent sends clawd's
// hooks that the pinned release did not: scripts/drift.sh runs it after
// the end-to-end tests ran against both with a tap build of clawd (see
// e2e's CLAWD_E2E_TAP).
//
//	go run ./scripts/driftdiff -agent claude \
//	    -old-version 2.1.328 -old-tap DIR -old-dir DIR \
//	    -new-version 2.1.332 -new-tap DIR -new-dir DIR
//
// It prints, for the new release against the old:
//
//   - hook events its code names beside the events clawd knows (quoted
//     lists such as Claude Code's event table, serde's "expected one of"
//     lists, hook input schemas' hook_event_name constants) that the old
//     release's code does not name: events the agent may send that clawd
//     neither registers nor decodes;
//   - hook events the tests' hooks received from it and not from the old;
//   - per event, the payload keys (JSON key paths, array items as [])
//     that are new, and those that are gone.
//
// The taps hold the payloads of every `clawd hook` of the run, named
// NS-PID-AGENT-EVENT.json; only AGENT's count. The dirs are where the two
// releases are installed (the npm folder): every file under them is read.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/clawdhq/clawd/agents"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("driftdiff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	id := fs.String("agent", "", "the agent's id in clawd's registry")
	var old, cur release
	fs.StringVar(&old.version, "old-version", "", "the pinned release")
	fs.StringVar(&old.tap, "old-tap", "", "the payloads the pinned release sent")
	fs.StringVar(&old.dir, "old-dir", "", "where the pinned release is installed")
	fs.StringVar(&cur.version, "new-version", "", "the new release")
	fs.StringVar(&cur.tap, "new-tap", "", "the payloads the new release sent")
	fs.StringVar(&cur.dir, "new-dir", "", "where the new release is installed")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	a := agents.Lookup(*id)
	if a == nil || fs.NArg() > 0 {
		fmt.Fprintf(stderr, "driftdiff: -agent names no agent clawd knows (%q)\n", *id)
		return 2
	}
	d, err := compare(a, old, cur)
	if err != nil {
		fmt.Fprintln(stderr, "driftdiff:", err)
		return 1
	}
	d.write(stdout, a, old.version, cur.version)
	return 0
}

// release is one release's install and its tests' payloads.
type release struct{ version, tap, dir string }

// drift is what changed from one release to the next.
type drift struct {
	namedNew, namedGone []string            // events the code names
	sentNew, sentGone   []string            // events the hooks received
	keysNew, keysGone   map[string][]string // by event
	oldCalls, newCalls  int
}

// compare reads both releases.
func compare(a *agents.Agent, old, cur release) (drift, error) {
	var d drift
	known := knownEvents(a)
	var oldNamed, newNamed map[string]bool
	var err error
	if old.dir != "" && cur.dir != "" {
		if oldNamed, err = scanTree(old.dir, known); err != nil {
			return d, err
		}
		if newNamed, err = scanTree(cur.dir, known); err != nil {
			return d, err
		}
		d.namedNew, d.namedGone = minus(newNamed, oldNamed), minus(oldNamed, newNamed)
	}
	if old.tap != "" && cur.tap != "" {
		oc, err := readTap(old.tap, a.ID)
		if err != nil {
			return d, err
		}
		nc, err := readTap(cur.tap, a.ID)
		if err != nil {
			return d, err
		}
		d.oldCalls, d.newCalls = oc.calls, nc.calls
		d.sentNew, d.sentGone = minus(keySet(nc.keys), keySet(oc.keys)), minus(keySet(oc.keys), keySet(nc.keys))
		d.keysNew, d.keysGone = map[string][]string{}, map[string][]string{}
		for ev, keys := range nc.keys {
			if ok := oc.keys[ev]; ok != nil {
				if n := minus(keys, ok); len(n) > 0 {
					d.keysNew[ev] = n
				}
			} else {
				d.keysNew[ev] = minus(keys, nil)
			}
		}
		for ev, keys := range oc.keys {
			if nk := nc.keys[ev]; nk != nil {
				if g := minus(keys, nk); len(g) > 0 {
					d.keysGone[ev] = g
				}
			}
		}
	}
	return d, nil
}

// knownEvents are the hook events clawd knows of a: those it decodes and
// those it registers.
func knownEvents(a *agents.Agent) map[string]bool {
	known := map[string]bool{}
	for ev := range a.Kinds() {
		known[ev] = true
	}
	for _, h := range a.Hooks {
		known[h.Event] = true
	}
	return known
}

// write prints d for people.
func (d drift) write(w io.Writer, a *agents.Agent, oldV, newV string) {
	fmt.Fprintf(w, "%s %s -> %s\n", a.ID, oldV, newV)
	known := knownEvents(a)
	nothing := true
	if len(d.namedNew) > 0 {
		nothing = false
		fmt.Fprintf(w, "  hook events %s's code names that %s's does not:\n", newV, oldV)
		for _, ev := range d.namedNew {
			_, registered := a.Hook(ev)
			switch {
			case registered:
				fmt.Fprintf(w, "    %s (clawd registers and decodes it)\n", ev)
			case known[ev]:
				fmt.Fprintf(w, "    %s (clawd decodes it, does not register it)\n", ev)
			default:
				fmt.Fprintf(w, "    %s (new to clawd)\n", ev)
			}
		}
	}
	if len(d.namedGone) > 0 {
		nothing = false
		fmt.Fprintf(w, "  hook events %s's code no longer names: %s\n", newV, strings.Join(d.namedGone, ", "))
	}
	if len(d.sentNew) > 0 {
		nothing = false
		fmt.Fprintf(w, "  hook events the tests received from %s, not from %s: %s\n", newV, oldV, strings.Join(d.sentNew, ", "))
	}
	if len(d.sentGone) > 0 {
		nothing = false
		fmt.Fprintf(w, "  hook events the tests received from %s, not from %s: %s\n", oldV, newV, strings.Join(d.sentGone, ", "))
	}
	for _, title := range []struct {
		what string
		m    map[string][]string
	}{{"new", d.keysNew}, {"gone", d.keysGone}} {
		evs := minus(keySet(title.m), nil)
		for _, ev := range evs {
			nothing = false
			fmt.Fprintf(w, "  %s payload keys %s: %s\n", ev, title.what, strings.Join(title.m[ev], ", "))
		}
	}
	if d.oldCalls == 0 || d.newCalls == 0 {
		fmt.Fprintf(w, "  (hook payloads captured: %d from %s, %d from %s: the key comparison needs both)\n", d.oldCalls, oldV, d.newCalls, newV)
	} else if nothing {
		fmt.Fprintf(w, "  nothing new (%d hook payloads from %s, %d from %s)\n", d.oldCalls, oldV, d.newCalls, newV)
	}
}

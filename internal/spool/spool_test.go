package spool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

var t0 = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

func event(i int) agents.Event {
	return agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: fmt.Sprintf("s-%d", i),
		Time: t0.Add(time.Duration(i) * time.Second), Cwd: "/home/u/shop", Title: "fix it"}
}

// readAll reads every claimed file of home, oldest first.
func readAll(t *testing.T, home string) []agents.Event {
	t.Helper()
	paths, err := Claim(home, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var out []agents.Event
	for _, p := range paths {
		recs, bad, err := Read(p)
		if err != nil || bad != 0 {
			t.Fatalf("Read(%s) = %d bad, %v", p, bad, err)
		}
		for _, r := range recs {
			out = append(out, r.Event)
		}
	}
	return out
}

// TestAppendRead: events come back in order, whole, with an id each, from
// a file only its owner can read; the agent's answer is never written.
func TestAppendRead(t *testing.T) {
	home := filepath.Join(t.TempDir(), "clawd-home") // not there yet
	for i := range 3 {
		e := event(i)
		e.Response = "the secret answer"
		if dropped, err := Append(home, e); err != nil || dropped != 0 {
			t.Fatalf("Append = %d, %v", dropped, err)
		}
	}
	if fi, err := os.Stat(home); err != nil || goruntime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
		t.Errorf("clawd home made by Append: %v, %v; want 0700", fi.Mode(), err)
	}
	fi, err := os.Stat(filepath.Join(home, File))
	if err != nil || goruntime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Fatalf("spool file: %v, %v; want 0600", fi, err)
	}
	raw, _ := os.ReadFile(filepath.Join(home, File))
	if bytes.Contains(raw, []byte("secret")) {
		t.Errorf("the spool holds the agent's answer:\n%s", raw)
	}
	ids := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var r Record
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.ID == "" || ids[r.ID] {
			t.Errorf("line %q: %v, want a record with an id of its own", line, err)
		}
		ids[r.ID] = true
	}
	got := readAll(t, home)
	if len(got) != 3 {
		t.Fatalf("read back %d events, want 3", len(got))
	}
	for i, e := range got {
		want := event(i)
		if e.SessionID != want.SessionID || !e.Time.Equal(want.Time) || e.Kind != want.Kind || e.Cwd != want.Cwd || e.Title != want.Title {
			t.Errorf("event %d = %+v, want %+v", i, e, want)
		}
	}
}

// TestAppendCap: past its cap the spool drops the oldest events, a half
// at a time, says how many, and keeps the newest.
func TestAppendCap(t *testing.T) {
	home := t.TempDir()
	const max = 8 << 10
	line, _ := Line(event(0))
	n := 200 // far more than fits
	dropped := 0
	for i := range n {
		l, err := Line(event(i))
		if err != nil {
			t.Fatal(err)
		}
		d, err := AppendLine(home, l, max)
		if err != nil {
			t.Fatalf("AppendLine %d: %v", i, err)
		}
		dropped += d
	}
	var size int64
	for _, name := range []string{File, OldFile} {
		fi, err := os.Stat(filepath.Join(home, name))
		if err != nil {
			t.Fatal(err)
		}
		size += fi.Size()
	}
	if size > max {
		t.Errorf("spool holds %d bytes, want at most the cap %d", size, max)
	}
	got := readAll(t, home)
	if len(got)+dropped != n {
		t.Errorf("%d events kept + %d reported dropped = %d, want %d", len(got), dropped, len(got)+dropped, n)
	}
	if len(got) < max/2/len(line) {
		t.Errorf("kept %d events, want at least half the cap's worth (%d)", len(got), max/2/len(line))
	}
	for i, e := range got {
		if want := fmt.Sprintf("s-%d", n-len(got)+i); e.SessionID != want {
			t.Fatalf("event %d of the kept = %s, want %s: the newest are kept, in order", i, e.SessionID, want)
		}
	}
}

// TestAppendConcurrent: hooks appending at once, lines longer than a pipe
// write is atomic for and the spool rotating under them: every line read
// back is whole.
func TestAppendConcurrent(t *testing.T) {
	for _, max := range []int64{MaxBytes * 8, 64 << 10} {
		t.Run(fmt.Sprint(max), func(t *testing.T) {
			home := t.TempDir()
			const writers, each = 8, 40
			var wg sync.WaitGroup
			var mu sync.Mutex
			dropped := 0
			for w := range writers {
				wg.Go(func() {
					for i := range each {
						e := event(w*each + i)
						e.Cwd = "/" + strings.Repeat(string(rune('a'+w)), 100+i*150) // up to ~6 KB
						l, err := Line(e)
						if err != nil {
							t.Error(err)
							return
						}
						d, err := AppendLine(home, l, max)
						if err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						dropped += d
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			got := readAll(t, home) // fails on any torn line
			for _, e := range got {
				if strings.Trim(e.Cwd[1:], e.Cwd[1:2]) != "" {
					t.Fatalf("an event's folder mixes two hooks' bytes: %.40q", e.Cwd)
				}
			}
			if max > MaxBytes && len(got) != writers*each {
				t.Errorf("read back %d events, want all %d", len(got), writers*each)
			}
			if len(got)+dropped > writers*each {
				t.Errorf("%d kept + %d dropped, more than the %d appended", len(got), dropped, writers*each)
			}
		})
	}
}

// TestClaim: claiming moves the spool aside, so that hooks appending
// meanwhile start a new one; claims sort oldest first, a replay that
// never finished before this one's; Remove takes them away.
func TestClaim(t *testing.T) {
	home := t.TempDir()
	for i := range 2 {
		Append(home, event(i))
	}
	first, err := Claim(home, t0)
	if err != nil || len(first) != 1 {
		t.Fatalf("Claim = %v, %v; want the one file", first, err)
	}
	Append(home, event(2)) // meanwhile: a new spool
	if _, err := os.Stat(filepath.Join(home, File)); err != nil {
		t.Fatalf("a hook after the claim wrote no new spool: %v", err)
	}
	all, err := Claim(home, t0.Add(time.Second))
	if err != nil || len(all) != 2 || all[0] != first[0] {
		t.Fatalf("second Claim = %v, %v; want the leftover first, then the new one", all, err)
	}
	var ids []string
	for _, p := range all {
		recs, _, _ := Read(p)
		for _, r := range recs {
			ids = append(ids, r.Event.SessionID)
		}
	}
	if strings.Join(ids, ",") != "s-0,s-1,s-2" {
		t.Errorf("claimed events in order = %v, want s-0,s-1,s-2", ids)
	}
	if err := Remove(all); err != nil {
		t.Fatal(err)
	}
	if left, _ := Claimed(home); len(left) != 0 {
		t.Errorf("after Remove: %v still claimed", left)
	}
}

// TestReadBad: lines that are not records are counted and skipped, the
// others kept.
func TestReadBad(t *testing.T) {
	path := filepath.Join(t.TempDir(), ClaimPrefix+"1-1")
	good, _ := Line(event(1))
	data := "not json\n" + string(good) + `{"id":"","event":{}}` + "\n" + `{"id":"x","event":[1]}` + "\n\n" + `{"id":"torn","event":{"agent":"cl`
	os.WriteFile(path, []byte(data), 0o600)
	recs, bad, err := Read(path)
	if err != nil || len(recs) != 1 || bad != 4 {
		t.Errorf("Read = %d records, %d bad, %v; want 1 and 4", len(recs), bad, err)
	}
}

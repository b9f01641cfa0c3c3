package focus

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestAncestry(t *testing.T) {
	tree := map[int]int{ // pid -> parent
		500: 400, 400: 300, 300: 1, // a normal chain up to init
		20: 21, 21: 20, // a loop
		7: 0, // a kernel thread's parent
	}
	parent := func(pid int) (int, error) {
		if p, ok := tree[pid]; ok {
			return p, nil
		}
		return 0, fmt.Errorf("no process %d", pid)
	}
	tests := []struct {
		pid  int
		want []int
	}{
		{500, []int{500, 400, 300}},
		{300, []int{300}},
		{20, []int{20, 21}},
		{7, []int{7}},
		{999, nil}, // not running
		{1, nil},
		{0, nil},
		{-5, nil},
	}
	for _, tt := range tests {
		if got := ancestry(tt.pid, parent); !slices.Equal(got, tt.want) {
			t.Errorf("ancestry(%d) = %v, want %v", tt.pid, got, tt.want)
		}
	}

	deep := func(pid int) (int, error) { return pid + 1, nil }
	if got := ancestry(2, deep); len(got) != maxAncestors {
		t.Errorf("ancestry of an endless chain has %d entries, want %d", len(got), maxAncestors)
	}
}

func TestPick(t *testing.T) {
	wins := []window{
		{id: "a", pid: 10, title: "other"},
		{id: "b", pid: 30, title: "shell"},
		{id: "c", pid: 30, title: "✳ fix the tests"},
		{id: "d", pid: 40, title: "fix the tests - notes"},
		{id: "e", pid: 0, title: "✳ unknown pid session"},
	}
	tests := []struct {
		ancestors []int
		title     string
		want      string // "" for no match
	}{
		{[]int{100, 30, 10}, "", "b"},              // nearest ancestor with a window, first of its windows
		{[]int{100, 30, 10}, "fix the tests", "c"}, // its window with the title
		{[]int{100, 10, 30}, "fix the tests", "a"}, // nearer ancestor wins over a title elsewhere
		{[]int{100}, "fix the tests", "c"},         // no ancestor window: first title match
		{nil, "unknown pid session", "e"},          // pid 0: title only
		{[]int{100}, "", ""},                       // nothing
		{[]int{100}, "nowhere", ""},                // nothing
		{[]int{40}, "no such title", "d"},          // an ancestor's window even without the title
		{[]int{100, 200}, "✳ fix the tests", "c"},  // the title as the agent sets it
	}
	for _, tt := range tests {
		w, ok := pick(tt.ancestors, wins, tt.title)
		if ok != (tt.want != "") || w.id != tt.want {
			t.Errorf("pick(%v, %q) = %q, %v; want %q", tt.ancestors, tt.title, w.id, ok, tt.want)
		}
	}
}

func TestHostWindow(t *testing.T) {
	exe := map[int]string{1: "explorer.exe", 2: "conhost.exe", 3: "WindowsTerminal.exe"}
	lookup := func(pid int) string { return exe[pid] }
	tests := []struct {
		wins []window
		want string
	}{
		{[]window{{id: "x", pid: 1}, {id: "con", pid: 2}, {id: "wt", pid: 3}}, "wt"}, // Windows Terminal first
		{[]window{{id: "x", pid: 1}, {id: "con", pid: 2}}, "con"},
		{[]window{{id: "x", pid: 1}}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		w, ok := hostWindow(tt.wins, lookup)
		if ok != (tt.want != "") || w.id != tt.want {
			t.Errorf("hostWindow(%v) = %q, %v; want %q", tt.wins, w.id, ok, tt.want)
		}
	}
}

// fakeRun answers commands from a script and records them.
type fakeRun struct {
	answers map[string]answer // key: the command line, space-joined
	calls   []string
}

type answer struct {
	out string
	err error
}

func (f *fakeRun) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	line := strings.Join(append([]string{name}, args...), " ")
	f.calls = append(f.calls, line)
	if a, ok := f.answers[line]; ok {
		return []byte(a.out), a.err
	}
	return nil, errors.New("unexpected command")
}

func TestFocusCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := Focus(ctx, Target{PID: 1234}); !errors.Is(err, context.Canceled) {
		t.Errorf("Focus(canceled) = %v, want context.Canceled", err)
	}
}

package focus

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestAncestryOfSelf(t *testing.T) {
	got := ancestry(os.Getpid(), func(pid int) (int, error) { return procParent("/proc", pid) })
	if len(got) < 2 || got[0] != os.Getpid() || got[1] != os.Getppid() {
		t.Errorf("ancestry(self) = %v, want [%d %d ...]", got, os.Getpid(), os.Getppid())
	}
	if slices.Contains(got, 1) {
		t.Errorf("ancestry(self) = %v, want it to stop before init", got)
	}
}

func TestParseStat(t *testing.T) {
	tests := []struct {
		in       string
		wantComm string
		wantPPID int
		wantErr  bool
	}{
		{"4242 (bash) S 4200 4242 4242 34816 4300 4194304 1200 0 0 0", "bash", 4200, false},
		{"77 (tmux: server) S 1 77 77 0 -1", "tmux: server", 1, false},
		{"88 (a) b) R 12 88 88", "a) b", 12, false},
		{"89 ((sd-pam)) S 3 89", "(sd-pam)", 3, false},
		{"90 ()) S 4 90", ")", 4, false},
		{"91 () S 5 91", "", 5, false},
		{"92 (x 7 9) S 6 92", "x 7 9", 6, false},
		{"2 (kthreadd) S 0 0 0", "kthreadd", 0, false},
		{"93 bash S 4", "", 0, true},
		{"94 (bash) S", "", 0, true},
		{"95 (bash) S nope 1", "", 0, true},
		{"96 (bash S 4", "", 0, true},
		{"", "", 0, true},
	}
	for _, tt := range tests {
		comm, ppid, err := parseStat([]byte(tt.in))
		if comm != tt.wantComm || ppid != tt.wantPPID || (err != nil) != tt.wantErr {
			t.Errorf("parseStat(%q) = %q, %d, %v; want %q, %d, error %v", tt.in, comm, ppid, err, tt.wantComm, tt.wantPPID, tt.wantErr)
		}
	}
}

func TestProcParent(t *testing.T) {
	root := t.TempDir()
	write := func(pid int, stat string) {
		t.Helper()
		dir := filepath.Join(root, strconv.Itoa(pid))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(30, "30 (claude) S 20 30")
	write(20, "20 (my shell (dev)) S 10 20")
	write(10, "10 (kitty) S 1 10")
	write(40, "garbage")
	got := ancestry(30, func(pid int) (int, error) { return procParent(root, pid) })
	if want := []int{30, 20, 10}; !slices.Equal(got, want) {
		t.Errorf("ancestry(30) in %s = %v, want %v", root, got, want)
	}
	if _, err := procParent(root, 40); err == nil {
		t.Error("procParent(garbage stat) = nil error, want one")
	}
	if _, err := procParent(root, 50); err == nil {
		t.Error("procParent(missing) = nil error, want one")
	}
}

func TestParseWmctrl(t *testing.T) {
	out := "0x01e00003  0 4242   laptop Terminal - me@laptop: ~/src/clawd\n" +
		"0x02200006 -1 0      N/A Desktop\n" +
		"0x03a00007  1 5151   laptop   two  spaces  kept \n" +
		"0x03a00008  1 5152   laptop\n" +
		"0x03a00009  2 6000   laptop ✳ fix the tests\r\n" +
		"not a window line\n" +
		"0x0400000a  x 12 laptop bad desktop\n" +
		"0x0400000b  0 pid laptop bad pid\n" +
		"\n"
	want := []window{
		{id: "0x01e00003", pid: 4242, title: "Terminal - me@laptop: ~/src/clawd"},
		{id: "0x02200006", pid: 0, title: "Desktop"},
		{id: "0x03a00007", pid: 5151, title: "  two  spaces  kept "},
		{id: "0x03a00008", pid: 5152, title: ""},
		{id: "0x03a00009", pid: 6000, title: "✳ fix the tests"},
	}
	got := parseWmctrl([]byte(out))
	if !slices.Equal(got, want) {
		t.Errorf("parseWmctrl(...) =\n%+v\nwant\n%+v", got, want)
	}
}

// exitOne is a real "exit status 1", as xdotool search returns when
// nothing matches.
func exitOne(t *testing.T) error {
	t.Helper()
	err := exec.Command("sh", "-c", "exit 1").Run()
	if !isExitCode(err, 1) {
		t.Fatalf("sh -c 'exit 1' = %v", err)
	}
	return err
}

// fakeProc writes a /proc with the chain 300 -> 200 -> 100 -> 1.
func fakeProc(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for pid, stat := range map[int]string{300: "300 (node) S 200", 200: "200 (zsh) S 100", 100: "100 (xterm) S 1"} {
		dir := filepath.Join(root, strconv.Itoa(pid))
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestFocusX11(t *testing.T) {
	none := exitOne(t)
	tools := func(names ...string) func(string) (string, error) {
		return func(name string) (string, error) {
			if slices.Contains(names, name) {
				return "/usr/bin/" + name, nil
			}
			return "", exec.ErrNotFound
		}
	}
	display := func(name string) string {
		if name == "DISPLAY" {
			return ":0"
		}
		return ""
	}
	x := "/usr/bin/xdotool"
	tests := []struct {
		name    string
		target  Target
		tools   []string
		getenv  func(string) string
		answers map[string]answer
		want    []string // commands run
		wantErr error
	}{
		{
			name:   "xdotool: nearest ancestor's window",
			target: Target{PID: 300},
			tools:  []string{"xdotool", "wmctrl"},
			getenv: display,
			answers: map[string]answer{
				x + " search --pid 300":        {err: none},
				x + " search --pid 200":        {err: none},
				x + " search --pid 100":        {out: "81788929\n"},
				x + " windowactivate 81788929": {},
			},
			want: []string{x + " search --pid 300", x + " search --pid 200", x + " search --pid 100", x + " windowactivate 81788929"},
		},
		{
			name:   "xdotool: the title picks among one process's windows",
			target: Target{PID: 300, Title: "fix the tests"},
			tools:  []string{"xdotool"},
			getenv: display,
			answers: map[string]answer{
				x + " search --pid 300":  {out: "11\n22\n33\n"},
				x + " getwindowname 11":  {out: "zsh\n"},
				x + " getwindowname 22":  {out: "✳ fix the tests\n"},
				x + " windowactivate 22": {},
			},
			want: []string{x + " search --pid 300", x + " getwindowname 11", x + " getwindowname 22", x + " windowactivate 22"},
		},
		{
			name:   "xdotool: by title when no ancestor has a window",
			target: Target{PID: 0, Title: "fix (the) tests"},
			tools:  []string{"xdotool"},
			getenv: func(n string) string { return map[string]string{"WAYLAND_DISPLAY": "wayland-0"}[n] },
			answers: map[string]answer{
				x + ` search --name fix \(the\) tests`: {out: "44\n"},
				x + " windowactivate 44":               {},
			},
			want: []string{x + ` search --name fix \(the\) tests`, x + " windowactivate 44"},
		},
		{
			name:   "xdotool: nothing found",
			target: Target{PID: 300},
			tools:  []string{"xdotool"},
			getenv: display,
			answers: map[string]answer{
				x + " search --pid 300": {err: none},
				x + " search --pid 200": {err: none},
				x + " search --pid 100": {err: none},
			},
			want:    []string{x + " search --pid 300", x + " search --pid 200", x + " search --pid 100"},
			wantErr: ErrNotFound,
		},
		{
			name:   "wmctrl when xdotool is missing",
			target: Target{PID: 300},
			tools:  []string{"wmctrl"},
			getenv: display,
			answers: map[string]answer{
				"/usr/bin/wmctrl -lp":      {out: "0x01 0 999 host other\n0x02 0 200 host zsh\n0x03 0 100 host xterm\n"},
				"/usr/bin/wmctrl -ia 0x02": {},
			},
			want: []string{"/usr/bin/wmctrl -lp", "/usr/bin/wmctrl -ia 0x02"},
		},
		{
			name:    "wmctrl: nothing found",
			target:  Target{PID: 300, Title: "nowhere"},
			tools:   []string{"wmctrl"},
			getenv:  display,
			answers: map[string]answer{"/usr/bin/wmctrl -lp": {out: "0x01 0 999 host other\n"}},
			want:    []string{"/usr/bin/wmctrl -lp"},
			wantErr: ErrNotFound,
		},
		{
			name:    "no display",
			target:  Target{PID: 300},
			tools:   []string{"xdotool", "wmctrl"},
			getenv:  func(string) string { return "" },
			wantErr: ErrUnsupported,
		},
		{
			name:    "no tools",
			target:  Target{PID: 300},
			getenv:  display,
			wantErr: ErrUnsupported,
		},
		{
			name:    "process gone and no title",
			target:  Target{PID: 999},
			tools:   []string{"xdotool"},
			getenv:  display,
			wantErr: ErrNotFound,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeRun{answers: tt.answers}
			s := system{run: f.run, lookPath: tools(tt.tools...), getenv: tt.getenv, procRoot: fakeProc(t)}
			err := focusX11(t.Context(), tt.target, s)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("focusX11(%+v) = %v, want %v", tt.target, err, tt.wantErr)
			}
			if !slices.Equal(f.calls, tt.want) {
				t.Errorf("focusX11(%+v) ran\n%q\nwant\n%q", tt.target, f.calls, tt.want)
			}
		})
	}
}

// fakeTools puts scripts named after the tools into a fresh directory that
// becomes the whole PATH, so a real xdotool or wmctrl cannot answer. Each
// script appends its argv to the returned log.
func fakeTools(t *testing.T, scripts map[string]string) (log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "calls.log")
	for name, body := range scripts {
		script := "#!/bin/sh\necho \"${0##*/} $*\" >> \"$FOCUS_LOG\"\n" + body + "\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	t.Setenv("FOCUS_LOG", log)
	t.Setenv("DISPLAY", ":99")
	return log
}

func readLog(t *testing.T, log string) []string {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// startChild starts a process that waits, as the agent would, and returns
// its pid. Its parent is this test process.
func startChild(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", "read line") // waits on stdin
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	return cmd.Process.Pid
}

func TestFocusRealXdotool(t *testing.T) {
	self := os.Getpid()
	log := fakeTools(t, map[string]string{
		// Only this test process has a window.
		"xdotool": fmt.Sprintf(`[ "$1 $2 $3" = "search --pid %d" ] && echo 4242 && exit 0
[ "$1" = windowactivate ] && exit 0
exit 1`, self),
	})
	child := startChild(t)
	if err := Focus(t.Context(), Target{PID: child}); err != nil {
		t.Fatalf("Focus(child %d) = %v", child, err)
	}
	want := []string{
		fmt.Sprintf("xdotool search --pid %d", child),
		fmt.Sprintf("xdotool search --pid %d", self),
		"xdotool windowactivate 4242",
	}
	if got := readLog(t, log); !slices.Equal(got, want) {
		t.Errorf("commands run = %q, want %q", got, want)
	}
}

func TestFocusRealWmctrl(t *testing.T) {
	self := os.Getpid()
	log := fakeTools(t, map[string]string{
		"wmctrl": fmt.Sprintf(`if [ "$1" = -lp ]; then
  echo "0x00000001  0 1      host Desktop"
  echo "0x0000beef  0 %d  host go test"
fi
exit 0`, self),
	})
	child := startChild(t)
	if err := Focus(t.Context(), Target{PID: child}); err != nil {
		t.Fatalf("Focus(child %d) = %v", child, err)
	}
	if got, want := readLog(t, log), []string{"wmctrl -lp", "wmctrl -ia 0x0000beef"}; !slices.Equal(got, want) {
		t.Errorf("commands run = %q, want %q", got, want)
	}
}

func TestFocusDeadline(t *testing.T) {
	log := fakeTools(t, map[string]string{
		// The shell's child keeps the output open after the shell is
		// killed; the test kills it at the end.
		"xdotool": `/bin/sleep 30 &
echo $! > "$FOCUS_LOG.pid"
wait`,
	})
	t.Cleanup(func() {
		if data, err := os.ReadFile(log + ".pid"); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	const deadline = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(t.Context(), deadline)
	defer cancel()
	start := time.Now()
	err := Focus(ctx, Target{PID: os.Getpid()})
	elapsed := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Focus with a hanging xdotool = %v, want context.DeadlineExceeded", err)
	}
	// The deadline plus waitDelay, with room for a slow machine; far
	// below the 30 s the tool would take.
	if limit := deadline + waitDelay + 2*time.Second; elapsed > limit {
		t.Errorf("Focus returned after %v, want within %v", elapsed, limit)
	}
}

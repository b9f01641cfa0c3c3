package cmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: what is written to tty reads from
// master.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { master.Close(); tty.Close() })
	return master, tty
}

// TestDoctorColour: the report is coloured on a terminal, and not with
// NO_COLOR set, nor into a pipe.
func TestDoctorColour(t *testing.T) {
	o, _ := doctorHome(t, clawdBin(t))
	startRuntime(t, o.Home) // else doctor fails
	run := func(stdout io.Writer, noColor string) {
		t.Helper()
		var errb bytes.Buffer
		getenv := func(k string) string {
			if k == "NO_COLOR" {
				return noColor
			}
			return o.Getenv(k)
		}
		e := &env{
			stdin: strings.NewReader(""), stdout: stdout, stderr: &errb, getenv: getenv,
			environ: func() []string { return o.Environ }, now: time.Now,
			executable: func() (string, error) { return o.Binary, nil },
		}
		if code := run(context.Background(), e, []string{"clawd", "doctor", "--agent", "claude"}); code != 0 {
			t.Fatalf("doctor exited %d: %s", code, errb.String())
		}
	}
	onTerminal := func(noColor string) string {
		t.Helper()
		master, tty := openPTY(t)
		got := make(chan []byte, 1)
		go func() {
			b, _ := io.ReadAll(master) // EIO once the terminal is closed
			got <- b
		}()
		run(tty, noColor)
		tty.Close()
		return string(<-got)
	}
	const green = "\x1b[32mok     \x1b[0m claude.hooks.missing: "
	if out := onTerminal(""); !strings.Contains(out, green) {
		t.Errorf("doctor on a terminal:\n%q\nwant %q", out, green)
	}
	if out := onTerminal("1"); strings.Contains(out, "\x1b[") || !strings.Contains(out, "  ok      claude.hooks.missing: ") {
		t.Errorf("doctor on a terminal with NO_COLOR=1:\n%q\nwant no colour", out)
	}
	var pipe bytes.Buffer
	run(&pipe, "")
	if strings.Contains(pipe.String(), "\x1b[") {
		t.Errorf("doctor into a pipe:\n%q\nwant no colour", pipe.String())
	}
}

package remote

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/runtime/client"
)

// TestInteractive runs the commands Interactive makes with a stand-in
// ssh that runs the remote command as sshd does ($SHELL -c, here
// /bin/sh) and a stand-in wsl.exe: the agent, found on the PATH that the
// login shell's ~/.profile sets, runs in the folder with its arguments
// unchanged, quotes and $ included.
func TestInteractive(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	folder := filepath.Join(dir, `it's a "folder" $HOME`)
	for _, d := range []string{filepath.Join(home, "bin"), folder} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, content string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".profile"), `PATH="$HOME/bin:$PATH"`+"\n")
	record := filepath.Join(dir, "record")
	write(filepath.Join(home, "bin", "agent"), "#!/bin/sh\nprintf '%s\\n' \"$@\" > "+shellQuote(record+".argv")+
		"\npwd > "+shellQuote(record+".cwd")+"\nexit 3\n")
	// ssh: its options and destination on a file, the last argument run
	// as the remote command.
	write(filepath.Join(dir, "ssh"), "#!/bin/sh\nprintf '%s\\n' \"$@\" > "+shellQuote(record+".ssh")+
		"\neval \"last=\\${$#}\"\nexec /bin/sh -c \"$last\"\n")
	write(filepath.Join(dir, "wsl.exe"), "#!/bin/sh\n[ \"$1\" = -d ] && [ \"$2\" = Ubuntu ] && [ \"$3\" = --exec ] || exit 99\nshift 3\nexec \"$@\"\n")
	pr := Programs{SSH: filepath.Join(dir, "ssh"), WSL: filepath.Join(dir, "wsl.exe")}
	argv := []string{"agent", "--resume", `id'$(touch pwned)"`}

	for _, p := range []*Profile{
		{Name: "box", Kind: client.LinkSSH, Target: "me@box", Port: 2222, Identity: "/k/id", SSHConfig: "/k/config"},
		{Name: "u", Kind: client.LinkWSL, Distro: "Ubuntu"},
	} {
		for _, f := range []string{".argv", ".cwd", ".ssh"} {
			os.Remove(record + f)
		}
		command := pr.Interactive(p, folder, argv)
		cmd := exec.Command(command[0], command[1:]...)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + home, "SHELL=/bin/sh", "PATH=/usr/bin:/bin"}
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
			t.Errorf("%s: %q: %v %s, want the agent's exit 3", p.Name, command, err, out)
		}
		gotArgv, _ := os.ReadFile(record + ".argv")
		gotCwd, _ := os.ReadFile(record + ".cwd")
		if want := strings.Join(argv[1:], "\n") + "\n"; string(gotArgv) != want {
			t.Errorf("%s: the agent got %q, want %q", p.Name, gotArgv, want)
		}
		if strings.TrimSpace(string(gotCwd)) != folder {
			t.Errorf("%s: the agent ran in %q, want %q", p.Name, gotCwd, folder)
		}
		if _, err := os.Stat(filepath.Join(folder, "pwned")); err == nil {
			t.Errorf("%s: an argument ran as a command", p.Name)
		}
		if p.Kind != client.LinkSSH {
			continue
		}
		data, _ := os.ReadFile(record + ".ssh")
		sshArgs := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		n := len(sshArgs)
		if n < 4 || !slices.Equal(sshArgs[n-4:n-1], []string{"-t", "--", "me@box"}) {
			t.Errorf("ssh args %q, want -t -- me@box and the command last", sshArgs)
		}
		for _, want := range [][]string{{"-F", "/k/config"}, {"-p", "2222"}, {"-i", "/k/id"}} {
			if i := slices.Index(sshArgs, want[0]); i < 0 || i+1 >= n || sshArgs[i+1] != want[1] {
				t.Errorf("ssh args %q, want %s %s", sshArgs, want[0], want[1])
			}
		}
		if slices.Contains(sshArgs, "BatchMode=yes") {
			t.Errorf("ssh args %q: BatchMode in a terminal the person may answer ssh in", sshArgs)
		}
	}
}

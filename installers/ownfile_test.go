package installers

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testOwnFile is an OwnFile whose content is "hooks: <command>\n" per hook.
func testOwnFile(t *testing.T) *OwnFile {
	return &OwnFile{
		Agent: "claude",
		Path:  filepath.Join(t.TempDir(), "hooks", "clawd.txt"),
		Render: func(binary string) ([]byte, int) {
			c := Command(binary, "claude")
			return []byte("a: " + c + "\nb: " + c + "\n"), 2
		},
		Ours: func(data []byte, known Known) (int, bool) {
			n := 0
			for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				_, cmd, _ := strings.Cut(l, ": ")
				if _, ok := known.Ours(cmd, "claude"); !ok {
					return 0, false
				}
				n++
			}
			return n, true
		},
	}
}

func TestOwnFile(t *testing.T) {
	f := testOwnFile(t)
	rep, err := f.Install(goldenBinary, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Files[0]; !r.Written || r.Added != 2 || r.Existed || r.Backup != "" {
		t.Errorf("first Install = %+v, want a new file with 2 hooks", r)
	}
	if rep, err := f.Install(goldenBinary, Options{}); err != nil || rep.Any() {
		t.Errorf("second Install = %+v, %v; want nothing to do", rep, err)
	}
	rep, err = f.Install("/opt/clawd/clawd", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Files[0]; r.Repaired != 2 || r.Backup != "" {
		t.Errorf("Install by a moved binary = %+v, want 2 repaired, no backup", r)
	}
	if !bytes.Contains([]byte(readFile(t, f.Path)), []byte("/opt/clawd/clawd hook claude")) {
		t.Errorf("file not rewritten for the moved binary: %q", readFile(t, f.Path))
	}
	rep, err = f.Uninstall(Options{DryRun: true})
	if err != nil || !rep.Files[0].Deleted || rep.Files[0].Written {
		t.Fatalf("dry-run Uninstall = %+v, %v; want a deletion shown, nothing done", rep, err)
	}
	rep, err = f.Uninstall(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Files[0]; !r.Deleted || r.Removed != 2 {
		t.Errorf("Uninstall = %+v, want the file deleted, 2 removed", r)
	}
	if got := files(t, filepath.Dir(f.Path)); len(got) != 0 {
		t.Errorf("after uninstall the folder holds %v", got)
	}
	if rep, err := f.Uninstall(Options{}); err != nil || rep.Any() {
		t.Errorf("Uninstall of nothing = %+v, %v", rep, err)
	}
}

// TestOwnFileNotOurs: a file that is not clawd's, at clawd's place, is
// never overwritten or deleted.
func TestOwnFileNotOurs(t *testing.T) {
	f := testOwnFile(t)
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
		t.Fatal(err)
	}
	const theirs = "a: my-own-tool run\n"
	if err := os.WriteFile(f.Path, []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Install(goldenBinary, Options{}); !errors.Is(err, ErrNotOurs) {
		t.Errorf("Install over a foreign file = %v, want ErrNotOurs", err)
	}
	if _, err := f.Uninstall(Options{}); !errors.Is(err, ErrNotOurs) {
		t.Errorf("Uninstall of a foreign file = %v, want ErrNotOurs", err)
	}
	if got := readFile(t, f.Path); got != theirs {
		t.Errorf("the foreign file became %q", got)
	}
}

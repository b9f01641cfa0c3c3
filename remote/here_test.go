package remote

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/clawdhq/clawd/runtime/client"
)

func TestSetUp(t *testing.T) {
	home := filepath.Join(t.TempDir(), ".clawd")
	spec := SetupSpec{Profile: "box", Token: "tok", Generation: 3, Version: "dev"}
	port, err := SetUp(home, spec, time.Now())
	if err != nil || port == 0 {
		t.Fatalf("SetUp = %d, %v", port, err)
	}
	r, err := client.ReadRemote(home)
	if err != nil || r != (client.Remote{Profile: "box", Port: port, Token: "tok", Generation: 3}) {
		t.Errorf("ReadRemote after SetUp = %+v, %v", r, err)
	}
	// Again, as the next generation: the same port when the desktop
	// asks for it.
	spec.Port, spec.Generation, spec.Token = port, 4, "tok2"
	if p, err := SetUp(home, spec, time.Now()); err != nil || p != port {
		t.Errorf("SetUp again = %d, %v, want %d", p, err, port)
	}

	// A runtime of the machine's own: refused, its file untouched.
	local := filepath.Join(t.TempDir(), ".clawd")
	os.MkdirAll(local, 0o700)
	own := `{"port":23333,"socket":"/x/clawd.sock","pid":77,"token":"t","version":"dev"}`
	os.WriteFile(filepath.Join(local, client.InfoFile), []byte(own), 0o600)
	if _, err := SetUp(local, spec, time.Now()); !errors.Is(err, ErrLocalRuntime) {
		t.Errorf("SetUp over a local runtime's runtime.json = %v, want ErrLocalRuntime", err)
	}
	os.WriteFile(filepath.Join(local, client.InfoFile), []byte(`{"port":`), 0o600)
	if _, err := SetUp(local, spec, time.Now()); err == nil {
		t.Errorf("SetUp over a malformed runtime.json: no error")
	}
	if b, _ := os.ReadFile(filepath.Join(local, client.InfoFile)); string(b) != `{"port":` {
		t.Errorf("SetUp rewrote a malformed runtime.json: %q", b)
	}
	if _, err := SetUp(home, SetupSpec{Profile: "Bad Name", Token: "t", Generation: 1}, time.Now()); err == nil {
		t.Errorf("SetUp with a bad profile name: no error")
	}
}

func TestTearDown(t *testing.T) {
	user := t.TempDir()
	home := filepath.Join(user, ".clawd")
	write := func(rel, content string) {
		p := filepath.Join(user, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := SetUp(home, SetupSpec{Profile: "box", Port: 41000, Token: "t", Generation: 1}, time.Now()); err != nil {
		t.Fatal(err)
	}
	write(".clawd/bin/clawd", "binary")
	write(".clawd/bin/.clawd.new", "half a binary")
	write(".clawd/logs/hook.log", "log")
	write(".clawd/logs/mine.txt", "the person's own")
	write(".bashrc", "keep me")
	res, err := TearDown(user, home, TeardownSpec{Profile: "box", Created: append(slices.Clone(Tracked), ".bashrc", "../etc/passwd")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".clawd/bin/.clawd.new", ".clawd/bin/clawd", ".clawd/logs/hook.log", ".clawd/bin", ".clawd/runtime.json"}
	if !slices.Equal(res.Removed, want) {
		t.Errorf("Removed = %q, want %q", res.Removed, want)
	}
	if !slices.Equal(res.Kept, []string{".clawd/logs", ".clawd"}) {
		t.Errorf("Kept = %q, want the folders with something else in them", res.Kept)
	}
	for _, keep := range []string{".bashrc", ".clawd/logs/mine.txt"} {
		if _, err := os.Stat(filepath.Join(user, keep)); err != nil {
			t.Errorf("TearDown took %s, which clawd never creates: %v", keep, err)
		}
	}

	// runtime.json of another profile (the remote was added again from
	// elsewhere) stays.
	if _, err := SetUp(home, SetupSpec{Profile: "other", Port: 41000, Token: "t", Generation: 1}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := TearDown(user, home, TeardownSpec{Profile: "box", Created: []string{".clawd/runtime.json"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, client.InfoFile)); err != nil {
		t.Errorf("TearDown of box took other's runtime.json: %v", err)
	}
	if _, err := TearDown(user, filepath.Join(user, "elsewhere"), TeardownSpec{Profile: "box"}); err == nil {
		t.Errorf("TearDown of a clawd home that is not ~/.clawd: no error")
	}
}

func TestStore(t *testing.T) {
	home := t.TempDir()
	st, err := Load(home)
	if err != nil || len(st.Profiles) != 0 {
		t.Fatalf("Load(empty) = %+v, %v", st, err)
	}
	st.Put(&Profile{Name: "b", Kind: client.LinkSSH, Target: "b", RemotePort: 1, Token: "t", Generation: 1})
	st.Put(&Profile{Name: "a", Kind: client.LinkWSL, Distro: "Ubuntu", RemotePort: 2, Token: "t", Generation: 1})
	if err := st.Save(); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(home, File)); fi.Mode().Perm() != 0o600 {
		t.Errorf("%s mode %v, want 0600: it holds the tokens", File, fi.Mode().Perm())
	}
	st, err = Load(home)
	if err != nil || len(st.Profiles) != 2 || st.Profiles[0].Name != "a" || st.Get("a").Label() != "wsl:Ubuntu" || st.Get("b").Label() != "b" {
		t.Fatalf("Load = %+v, %v", st, err)
	}
	st.Delete("a")
	st.Delete("b")
	st.Save()
	if _, err := os.Stat(filepath.Join(home, File)); !os.IsNotExist(err) {
		t.Errorf("%s still there with no profile: %v", File, err)
	}
	for _, bad := range []string{`{"version":1,"profiles":[{"name":"x","kind":"ssh"}]}`, `{"version":2}`, `{"version":1,"extra":1}`, `{`} {
		os.WriteFile(filepath.Join(home, File), []byte(bad), 0o600)
		if _, err := Load(home); err == nil {
			t.Errorf("Load(%s): no error", bad)
		}
	}
	for name, ok := range map[string]bool{"box": true, "dev-1": true, "wsl": false, "Box": false, "-x": false, "a b": false, "": false} {
		if err := CheckName(name); (err == nil) != ok {
			t.Errorf("CheckName(%q) = %v", name, err)
		}
	}
}

// TestShellQuote: what the remote's shell gets is the word itself.
func TestShellQuote(t *testing.T) {
	for _, s := range []string{"plain", "it's", `"$HOME" $(id) ; rm -rf / '`, "new\nline", ""} {
		out, err := exec.Command("sh", "-c", "printf %s "+shellQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("sh -c printf %%s %s = %q, %v; want %q", shellQuote(s), out, err, s)
		}
	}
}

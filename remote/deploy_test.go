package remote

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/runtime/client"
)

// TestDeployerProgress: Add and Remove tell their steps in the Printer's
// language, English by default, while what clawd install printed on the
// remote is relayed as it is. The remote is a WSL distro played by a
// stand-in wsl.exe that runs the scripts here with a HOME of their own,
// and the clawd it gets is a stand-in that answers setup-here and
// teardown-here.
func TestDeployerProgress(t *testing.T) {
	for _, c := range []struct {
		printer i18n.Printer
		want    string
	}{
		{i18n.Printer{}, `u: looking at WSL distro Ubuntu
u: copying clawd 1.2.3 (linux/ARCH, 0 MB) to ~/.clawd/bin/clawd
u: claude: installed 9 hooks
u: looking at WSL distro Ubuntu
u: ~/.clawd/bin/clawd is this clawd already (sha256 SUM)
u: claude: installed 9 hooks
u: removing clawd from WSL distro Ubuntu
gone: removing clawd from WSL distro Gone
gone: PROG exited 1: no distro Gone; forgetting it all the same (--force)
`},
		{i18n.For(i18n.Chinese), `u：正在查看 WSL 发行版 Ubuntu
u：正在把 clawd 1.2.3（linux/ARCH，0 MB）复制到 ~/.clawd/bin/clawd
u: claude: installed 9 hooks
u：正在查看 WSL 发行版 Ubuntu
u：~/.clawd/bin/clawd 已经是这个 clawd（sha256 SUM）
u: claude: installed 9 hooks
u：正在从 WSL 发行版 Ubuntu 移除 clawd
gone：正在从 WSL 发行版 Gone 移除 clawd
gone：PROG exited 1: no distro Gone；仍然忘掉这个远程（--force）
`},
	} {
		dir := t.TempDir()
		remoteHome := filepath.Join(dir, "remote-home")
		write := func(name, content string) string {
			t.Helper()
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
				t.Fatal(err)
			}
			return path
		}
		wsl := write("wsl.exe", "#!/bin/sh\n[ \"$1\" = -d ] && [ \"$2\" = Ubuntu ] && [ \"$3\" = --exec ] || { echo \"no distro $2\" >&2; exit 1; }\n"+
			"shift 3\nHOME="+shellQuote(remoteHome)+" exec \"$@\"\n")
		bin := write("clawd", "#!/bin/sh\ncat >/dev/null\ncase \"$2\" in\n"+
			"setup-here) printf '{\"port\":4000,\"install\":\"claude: installed 9 hooks\\\\n\"}' ;;\n"+
			"teardown-here) printf '{\"uninstall\":\"\",\"removed\":[]}' ;;\nesac\n")
		if err := os.MkdirAll(remoteHome, 0o700); err != nil {
			t.Fatal(err)
		}
		home := filepath.Join(dir, "home")
		st, err := Load(home)
		if err != nil {
			t.Fatal(err)
		}
		var progress bytes.Buffer
		d := &Deployer{Home: home, Version: "1.2.3", Programs: Programs{WSL: wsl}, Progress: &progress,
			Printer: c.printer, Now: time.Now}
		var p *Profile
		for range 2 {
			if p, err = d.Add(t.Context(), st, &Profile{Name: "u", Kind: client.LinkWSL, Distro: "Ubuntu"}, AddOptions{Binary: bin}); err != nil {
				t.Fatalf("add: %v\n%s", err, progress.String())
			}
		}
		if _, err := d.Remove(t.Context(), st, p, false); err != nil {
			t.Fatalf("remove: %v\n%s", err, progress.String())
		}
		gone := &Profile{Name: "gone", Kind: client.LinkWSL, Distro: "Gone"}
		st.Put(gone)
		if _, err := d.Remove(t.Context(), st, gone, true); err != nil {
			t.Fatalf("remove --force: %v\n%s", err, progress.String())
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		want := strings.NewReplacer("ARCH", p.Arch, "SUM", hex.EncodeToString(sum[:])[:12], "PROG", wsl).Replace(c.want)
		if got := progress.String(); got != want {
			t.Errorf("%s: the progress was\n%s\nwant\n%s", c.printer.Lang(), got, want)
		}
	}
}

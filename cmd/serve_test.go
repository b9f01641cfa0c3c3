package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServeRefusesBadConfig(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"[permissions]\ntimout = \"5m\"\n", "config.toml:2: unknown key permissions.timout"},
		{"[permissions]\nheadless = \"maybe\"\n", "permissions.headless"},
		{"[agents.nosuch]\npermissions = false\n", "nosuch"},
		{"not toml at all [", "config.toml"},
	} {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(c.file), 0o600); err != nil {
			t.Fatal(err)
		}
		e, out, errb := testEnv(t, home, nil, nil)
		code := run(context.Background(), e, []string{"clawd", "serve", "--headless", "--port", "0"})
		if code != 1 || !strings.Contains(errb.String(), c.want) || out.Len() != 0 {
			t.Errorf("serve with %q: exit %d, stdout %q, stderr %q; want exit 1 naming %q", c.file, code, out, errb, c.want)
		}
		if _, err := os.Stat(filepath.Join(home, "runtime.json")); !os.IsNotExist(err) {
			t.Errorf("serve with a bad config wrote runtime.json")
		}
	}
}

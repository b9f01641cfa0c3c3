package installers

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// openclawWorld is a state folder for OpenClaw with openclaw.json holding
// config (none when "").
func openclawWorld(t *testing.T, config string) (*OpenClaw, string) {
	t.Helper()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	inst, err := NewOpenClaw(func(k string) string { return map[string]string{"HOME": dir, "OPENCLAW_STATE_DIR": state}[k] })
	if err != nil {
		t.Fatal(err)
	}
	if inst.Config != filepath.Join(state, "openclaw.json") || inst.Dir != filepath.Join(state, "clawd-plugin") {
		t.Fatalf("config %s, plugin %s: want both in %s", inst.Config, inst.Dir, state)
	}
	if config != "" {
		if err := os.WriteFile(inst.Config, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return inst, filepath.Join(dir, "bin", "clawd")
}

// TestOpenClawRoundTrip: install registers clawd's plugin folder and entry
// in openclaw.json beside what is there (comments, other plugins' paths
// and entries), writes the plugin, changes nothing the second time, and
// uninstall gives openclaw.json back byte for byte and deletes the plugin.
func TestOpenClawRoundTrip(t *testing.T) {
	for name, config := range map[string]string{
		"none":  "",
		"empty": "{}\n",
		"others": `{
  // the person's own
  "models": {"mode": "merge"},
  "plugins": {
    "load": {"paths": ["/opt/mine"]},
    "entries": {"mine": {"enabled": true}}
  }
}
`,
		"no load":  `{"plugins": {"entries": {}}}`,
		"no paths": "{\n\t\"plugins\": {\"load\": {}, \"allow\": [\"mine\"]}\n}\n",
	} {
		t.Run(name, func(t *testing.T) {
			inst, bin := openclawWorld(t, config)
			rep, err := inst.Install(bin, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Handlers != inst.Config || rep.Files[0].Added != 8 {
				t.Errorf("install reported %+v, want 8 hooks in %s", rep, inst.Config)
			}
			data, err := os.ReadFile(inst.Config)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := parseJSONC(data); err != nil {
				t.Fatalf("openclaw.json after install does not parse: %v\n%s", err, data)
			}
			if !strings.Contains(string(data), `"`+inst.Dir+`"`) || !strings.Contains(string(data), `"clawd": {`) && !strings.Contains(string(data), `"clawd": {"enabled"`) {
				t.Errorf("openclaw.json after install lacks clawd's path or entry:\n%s", data)
			}
			if config != "" && strings.Contains(config, "/opt/mine") && !strings.Contains(string(data), `"/opt/mine"`) {
				t.Errorf("install lost the person's plugin:\n%s", data)
			}
			for _, f := range []string{"index.js", "openclaw.plugin.json"} {
				if _, err := os.Stat(filepath.Join(inst.Dir, f)); err != nil {
					t.Errorf("plugin file %s: %v", f, err)
				}
			}
			again, err := inst.Install(bin, Options{})
			if err != nil || again.Any() {
				t.Errorf("second install = %+v, %v; want no change", again, err)
			}
			if _, err := inst.Uninstall(Options{}); err != nil {
				t.Fatal(err)
			}
			after, err := os.ReadFile(inst.Config)
			switch {
			case config == "" && !errors.Is(err, os.ErrNotExist):
				t.Errorf("uninstall left openclaw.json, which clawd created (%v):\n%s", err, after)
			case config != "" && string(after) != config:
				t.Errorf("after uninstall openclaw.json =\n%s\nwant as before install:\n%s", after, config)
			}
			if _, err := os.Stat(inst.Dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the plugin folder is still there after uninstall (stat: %v)", err)
			}
		})
	}
}

// TestOpenClawNotOurs: an entry "clawd" with settings clawd never writes,
// a config that does not parse, and plugins that is no object stop the
// install before anything is written.
func TestOpenClawNotOurs(t *testing.T) {
	for name, c := range map[string]struct {
		config string
		err    error
	}{
		"their clawd entry": {`{"plugins": {"entries": {"clawd": {"enabled": true, "config": {"x": 1}}}}}`, ErrNotOurs},
		"unparseable":       {`{"plugins": `, ErrUnparseable},
		"plugins no object": {`{"plugins": []}`, ErrUnexpectedShape},
	} {
		t.Run(name, func(t *testing.T) {
			inst, bin := openclawWorld(t, c.config)
			if _, err := inst.Install(bin, Options{}); !errors.Is(err, c.err) {
				t.Errorf("Install = %v, want %v", err, c.err)
			}
			if data, _ := os.ReadFile(inst.Config); string(data) != c.config {
				t.Errorf("openclaw.json changed: %s", data)
			}
			if _, err := os.Stat(inst.Dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the plugin was written (stat: %v)", err)
			}
		})
	}
}

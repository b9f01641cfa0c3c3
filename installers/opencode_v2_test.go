//go:build !windows

package installers

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpencodeHostOf: the host from what `opencode --version` prints.
func TestOpencodeHostOf(t *testing.T) {
	for in, want := range map[string]string{
		"1.18.33\n":               OpencodeV1,
		"opencode v2.0.15\n":      OpencodeV2,
		"2.0.15":                  OpencodeV2,
		"3.1.0-beta.1":            OpencodeV2,
		"0.9.1":                   OpencodeV1,
		"abc12.0.3":               OpencodeUnknown,
		"":                        OpencodeUnknown,
		"error: unknown flag\n":   OpencodeUnknown,
		"warning\nopencode 2.1.0": OpencodeV2,
	} {
		if got := opencodeHostOf(in); got != want {
			t.Errorf("opencodeHostOf(%q) = %s, want %s", in, got, want)
		}
	}
}

// opencodeHome is a HOME with opencode's config folder holding config as
// opencode.json ("" for none) and an `opencode` on PATH that prints
// version ("" for none on PATH).
func opencodeHome(t *testing.T, config, version string) (getenv func(string) string, configDir, bin string) {
	t.Helper()
	home := t.TempDir()
	configDir = filepath.Join(home, ".config", "opencode")
	if err := os.MkdirAll(configDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if config != "" {
		if err := os.WriteFile(filepath.Join(configDir, "opencode.json"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(home, "bin")
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if version != "" {
		if err := os.WriteFile(filepath.Join(path, "opencode"), []byte("#!/bin/sh\necho '"+version+"'\n"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HOME": home, "PATH": path + ":/usr/bin:/bin"}
	return func(k string) string { return env[k] }, configDir, filepath.Join(home, "clawd", "clawd")
}

// TestOpencodeHost: the opencode on PATH tells the host; none on PATH is
// unknown; CLAWD_OPENCODE_HOST stands for it.
func TestOpencodeHost(t *testing.T) {
	for version, want := range map[string]string{"opencode v2.0.15": OpencodeV2, "1.18.33": OpencodeV1, "": OpencodeUnknown} {
		getenv, _, _ := opencodeHome(t, "", version)
		if got := OpencodeHost(getenv); got != want {
			t.Errorf("OpencodeHost with %q on PATH = %s, want %s", version, got, want)
		}
	}
	getenv, _, _ := opencodeHome(t, "", "1.18.33")
	if got := OpencodeHost(func(k string) string {
		if k == OpencodeHostEnv {
			return "v2"
		}
		return getenv(k)
	}); got != OpencodeV2 {
		t.Errorf("OpencodeHost with %s=v2 = %s, want v2", OpencodeHostEnv, got)
	}
}

const opencodeUserConfig = `{
  "$schema": "https://opencode.ai/config.json",
  // the person's own
  "plugin": ["opencode-example-plugin"],
  "model": "fake/fake-model"
}
`

// TestOpencodeV2Install: on an opencode 2 host, install writes the v1
// plugin, the v2 plugin and its folder in "plugins" (v1's "plugin" key as
// it was), changes nothing the second time, and uninstall gives
// opencode.json back byte for byte and deletes both plugins.
func TestOpencodeV2Install(t *testing.T) {
	for name, config := range map[string]string{"none": "", "the person's": opencodeUserConfig, "plugins of theirs": `{"plugins": ["./mine", {"package": "x", "options": {}}]}`} {
		t.Run(name, func(t *testing.T) {
			getenv, dir, bin := opencodeHome(t, config, "opencode v2.0.15")
			inst, err := NewOpencodeFamily(getenv)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := inst.Install(bin, Options{})
			if err != nil {
				t.Fatal(err)
			}
			cfg := filepath.Join(dir, "opencode.json")
			v2 := filepath.Join(dir, "clawd-v2", "index.mjs")
			if len(rep.Files) != 3 || rep.Files[0].Path != filepath.Join(dir, "plugin", "clawd.js") || rep.Files[1].Path != cfg || rep.Files[1].Added != 8 || rep.Files[2].Path != v2 {
				t.Errorf("install reported %+v, want the v1 plugin, 8 hooks in opencode.json, the v2 plugin", rep.Files)
			}
			data, err := os.ReadFile(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := parseJSONC(data); err != nil || !strings.Contains(string(data), quote(filepath.Dir(v2))) {
				t.Errorf("opencode.json after install (%v):\n%s\nwant the v2 plugin's folder in plugins", err, data)
			}
			if config == opencodeUserConfig && !strings.Contains(string(data), `"plugin": ["opencode-example-plugin"],`) {
				t.Errorf("install changed v1's plugin key:\n%s", data)
			}
			if b, err := os.ReadFile(v2); err != nil || !strings.Contains(string(b), `spawn(CLAWD, ["hook", "opencode", name]`) {
				t.Errorf("the v2 plugin (%v) does not run the hook", err)
			}
			if again, err := inst.Install(bin, Options{}); err != nil || again.Any() {
				t.Errorf("second install = %+v, %v; want no change", again, err)
			}
			if _, err := inst.Uninstall(Options{}); err != nil {
				t.Fatal(err)
			}
			after, err := os.ReadFile(cfg)
			switch {
			case config == "" && !errors.Is(err, os.ErrNotExist):
				t.Errorf("uninstall left opencode.json, which clawd created (%v):\n%s", err, after)
			case config != "" && string(after) != config:
				t.Errorf("after uninstall opencode.json =\n%s\nwant as before:\n%s", after, config)
			}
			for _, p := range []string{v2, filepath.Dir(v2), filepath.Join(dir, "plugin", "clawd.js")} {
				if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s is still there after uninstall (%v)", p, err)
				}
			}
		})
	}
}

// TestOpencodeV1Host: on an opencode 1.x host install writes the v1
// plugin only, and takes out the v2 parts a v2 install left (opencode
// before 1.18.16 rejects the "plugins" key); where the host cannot be told,
// they stay.
func TestOpencodeV1Host(t *testing.T) {
	getenv, dir, bin := opencodeHome(t, opencodeUserConfig, "1.18.33")
	cfg := filepath.Join(dir, "opencode.json")
	v2 := filepath.Join(dir, "clawd-v2", "index.mjs")
	inst, err := NewOpencodeFamily(getenv)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := inst.Install(bin, Options{})
	if err != nil || len(rep.Files) != 1 {
		t.Fatalf("install on 1.x = %+v, %v; want the v1 plugin only", rep, err)
	}
	if data, _ := os.ReadFile(cfg); string(data) != opencodeUserConfig {
		t.Errorf("install on 1.x changed opencode.json:\n%s", data)
	}
	if _, err := os.Stat(v2); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("install on 1.x wrote the v2 plugin (%v)", err)
	}

	// Left by an install on 2.x.
	v2env := func(k string) string {
		if k == OpencodeHostEnv {
			return OpencodeV2
		}
		return getenv(k)
	}
	if inst2, err := NewOpencodeFamily(v2env); err != nil {
		t.Fatal(err)
	} else if _, err := inst2.Install(bin, Options{}); err != nil {
		t.Fatal(err)
	}
	unknown := func(k string) string {
		if k == OpencodeHostEnv {
			return OpencodeUnknown
		}
		return getenv(k)
	}
	if instU, err := NewOpencodeFamily(unknown); err != nil {
		t.Fatal(err)
	} else if _, err := instU.Install(bin, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(v2); err != nil {
		t.Errorf("install on an unknown host took out the v2 plugin (%v)", err)
	}
	if _, err := inst.Install(bin, Options{}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(cfg); string(data) != opencodeUserConfig {
		t.Errorf("install on 1.x left the v2 registration:\n%s", data)
	}
	if _, err := os.Stat(v2); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("install on 1.x left the v2 plugin (%v)", err)
	}
}

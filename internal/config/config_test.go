package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, home, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(home, FileName), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLoadMissingFile(t *testing.T) {
	home := t.TempDir()
	c, err := Load(home)
	if err != nil {
		t.Fatalf("Load(no file) error = %v, want nil", err)
	}
	if want := Default(); !reflect.DeepEqual(c, want) {
		t.Errorf("Load(no file) = %+v, want %+v", c, want)
	}
	if c.Permissions.Timeout != 10*time.Minute || c.Permissions.Headless != HeadlessNone || !c.PermissionsEnabled("claude") {
		t.Errorf("defaults = %+v, want timeout 10m, headless none, claude permissions on", c)
	}
	// A missing clawd home is the same as a missing file.
	if _, err := Load(filepath.Join(home, "nope")); err != nil {
		t.Errorf("Load(missing home) error = %v, want nil", err)
	}
}

func TestLoadUnreadable(t *testing.T) {
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, FileName), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(home); err == nil || !strings.Contains(err.Error(), FileName) {
		t.Errorf("Load(config.toml is a folder) error = %v, want a read error naming the file", err)
	}
}

func TestLoadValid(t *testing.T) {
	def := Default()
	tests := []struct {
		name, file string
		want       func(c *Config)
	}{
		{"empty", "", func(c *Config) {}},
		{"comments only", "# nothing\n\n", func(c *Config) {}},
		{"empty tables", "[permissions]\n[agents]\n", func(c *Config) {}},
		{"the documented example", `
[permissions]
timeout = "10m"          # comment
headless = "none"
[agents.claude]
permissions = true
`, func(c *Config) { c.Agents["claude"] = Agent{Permissions: true} }},
		{"timeout", "[permissions]\ntimeout = \"1h30m\"\n", func(c *Config) { c.Permissions.Timeout = 90 * time.Minute }},
		{"timeout lower bound", "[permissions]\ntimeout = \"10s\"\n", func(c *Config) { c.Permissions.Timeout = 10 * time.Second }},
		{"timeout upper bound", "[permissions]\ntimeout = \"23h\"\n", func(c *Config) { c.Permissions.Timeout = 23 * time.Hour }},
		{"headless ask", "[permissions]\nheadless = 'ask'\n", func(c *Config) { c.Permissions.Headless = HeadlessAsk }},
		{"dotted keys", "permissions.timeout = \"2m\"\nagents.claude.permissions = false\n", func(c *Config) {
			c.Permissions.Timeout = 2 * time.Minute
			c.Agents["claude"] = Agent{Permissions: false}
		}},
		{"inline table", "agents = { claude = { permissions = false } }\n", func(c *Config) {
			c.Agents["claude"] = Agent{Permissions: false}
		}},
		{"agent off", "[agents.claude]\npermissions = false\n", func(c *Config) { c.Agents["claude"] = Agent{Permissions: false} }},
		{"agent table without keys keeps permissions on", "[agents.claude]\n", func(c *Config) { c.Agents["claude"] = Agent{Permissions: true} }},
		{"agent by alias", "[agents.claude-code]\npermissions = false\n", func(c *Config) { c.Agents["claude"] = Agent{Permissions: false} }},
		{"agent alias, any case", "[agents.Claude]\npermissions = false\n", func(c *Config) { c.Agents["claude"] = Agent{Permissions: false} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			write(t, home, tt.file)
			want := Default()
			want.Agents = map[string]Agent{}
			tt.want(&want)
			got, err := Load(home)
			if err != nil {
				t.Fatalf("Load(%q) error = %v, want nil", tt.file, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Load(%q) = %+v, want %+v", tt.file, got, want)
			}
		})
	}
	if !reflect.DeepEqual(def, Default()) {
		t.Errorf("Default() changed under the tests: %+v", def)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, file string
		// want are the lines of the error, without the "<path>" prefix.
		want []string
	}{
		{"unknown key with its line", "[permissions]\ntimout = \"1m\"\n",
			[]string{":2: unknown key permissions.timout (known keys in [permissions]: timeout, headless)"}},
		{"unknown top-level key", "timeout = \"1m\"\n",
			[]string{":1: unknown key timeout (known tables: [permissions], [agents.<id>])"}},
		{"unknown table reported once", "[foo]\nbar = 1\nbaz = 2\n",
			[]string{":1: unknown key foo (known tables: [permissions], [agents.<id>])"}},
		{"unknown agent key", "[agents.claude]\npermisions = false\n",
			[]string{":2: unknown key agents.claude.permisions (known keys in [agents.<id>]: permissions)"}},
		{"unknown key in inline table has no line", "permissions = { timeout = \"1m\", x = 1 }\n",
			[]string{": unknown key permissions.x (known keys in [permissions]: timeout, headless)"}},
		{"every problem, in line order", "[agents.codex]\n[permissions]\nheadless = \"always\"\ntimeout = \"soon\"\nextra = true\n",
			[]string{
				`:1: unknown agent "codex" in [agents.codex]: want one of claude`,
				`:3: permissions.headless = "always" is not a policy: want "none" or "ask"`,
				`:4: permissions.timeout = "soon" is not a duration: want a string like "90s", "10m" or "1h30m" between 10s and 23h`,
				`:5: unknown key permissions.extra (known keys in [permissions]: timeout, headless)`,
			}},
		{"bad duration", "[permissions]\ntimeout = \"10\"\n",
			[]string{`:2: permissions.timeout = "10" is not a duration: want a string like "90s", "10m" or "1h30m" between 10s and 23h`}},
		{"timeout too short", "[permissions]\ntimeout = \"9s\"\n",
			[]string{`:2: permissions.timeout = "9s" is out of range: want between 10s and 23h`}},
		{"timeout too long", "[permissions]\ntimeout = \"23h0m1s\"\n",
			[]string{`:2: permissions.timeout = "23h0m1s" is out of range: want between 10s and 23h`}},
		{"negative timeout", "[permissions]\ntimeout = \"-5m\"\n",
			[]string{`:2: permissions.timeout = "-5m" is out of range: want between 10s and 23h`}},
		{"timeout not a string", "[permissions]\ntimeout = 600\n",
			[]string{`:2: permissions.timeout has the wrong type: want a quoted duration like "10m"`}},
		{"headless policy", "[permissions]\nheadless = \"Ask\"\n",
			[]string{`:2: permissions.headless = "Ask" is not a policy: want "none" or "ask"`}},
		{"headless not a string", "[permissions]\nheadless = false\n",
			[]string{`:2: permissions.headless has the wrong type: want "none" or "ask"`}},
		{"agent permissions not a bool", "[agents.claude]\npermissions = \"no\"\n",
			[]string{`:2: agents.claude.permissions has the wrong type: want true or false`}},
		{"agent not a table", "[agents]\nclaude = false\n",
			[]string{`:2: agents.claude has the wrong type: want a table: [agents.claude]`}},
		{"permissions not a table", "permissions = 3\n",
			[]string{`:1: permissions has the wrong type: want a table: [permissions]`}},
		{"unknown agent", "[agents.codex]\npermissions = false\n",
			[]string{`:1: unknown agent "codex" in [agents.codex]: want one of claude`}},
		{"one agent twice by alias", "[agents.claude]\n[agents.claude-code]\npermissions = false\n",
			[]string{`:2: [agents.claude-code] and [agents.claude] both configure Claude Code: keep one`}},
		{"syntax error", "[permissions\ntimeout = \"1m\"\n",
			[]string{`:2: expected '.' or ']' to end table name, but got '\n' instead`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			write(t, home, tt.file)
			path := filepath.Join(home, FileName)
			c, err := Load(home)
			if err == nil {
				t.Fatalf("Load(%q) = %+v, want an error", tt.file, c)
			}
			want := make([]string, len(tt.want))
			for i, l := range tt.want {
				want[i] = path + l
			}
			if got := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(got, want) {
				t.Errorf("Load(%q) error =\n%s\nwant\n%s", tt.file, err, strings.Join(want, "\n"))
			}
		})
	}
}

func TestPermissionsEnabled(t *testing.T) {
	off := Default()
	off.Agents["claude"] = Agent{Permissions: false}
	on := Default()
	on.Agents["claude"] = Agent{Permissions: true}
	tests := []struct {
		name  string
		c     Config
		agent string
		want  bool
	}{
		{"default", Default(), "claude", true},
		{"zero Config", Config{}, "claude", true},
		{"alias", Default(), "claude-code", true},
		{"on", on, "claude", true},
		{"off", off, "claude", false},
		{"off by alias", off, "Claude_Code", false},
		{"unknown agent", Default(), "codex", false},
		{"empty id", Default(), "", false},
	}
	for _, tt := range tests {
		if got := tt.c.PermissionsEnabled(tt.agent); got != tt.want {
			t.Errorf("%s: PermissionsEnabled(%q) = %v, want %v", tt.name, tt.agent, got, tt.want)
		}
	}
}

func TestKeyLines(t *testing.T) {
	doc := `# comment
[permissions]
timeout = "1m"   # a = b
"quoted.key" = 1
[ agents . "claude" ]
permissions = true
[[list]]
x.y = 2
`
	got := keyLines([]byte(doc))
	for key, want := range map[string]int{
		"permissions":                     2,
		"permissions\x00timeout":          3,
		"permissions\x00quoted.key":       4,
		"agents":                          5,
		"agents\x00claude":                5,
		"agents\x00claude\x00permissions": 6,
		"list":                            7,
		"list\x00x\x00y":                  8,
	} {
		if got[key] != want {
			t.Errorf("keyLines: %q on line %d, want %d", strings.ReplaceAll(key, "\x00", "."), got[key], want)
		}
	}
}

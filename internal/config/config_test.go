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
	wantN := Notifications{
		Enabled: true, Done: true, Permission: true, Question: true, Error: true,
		Cooldown: 60 * time.Second, DoneGrace: 3 * time.Second, Sound: true, SoundCooldown: 30 * time.Second,
	}
	if c.Notifications != wantN {
		t.Errorf("default notifications = %+v, want %+v", c.Notifications, wantN)
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
`, func(c *Config) { c.Agents["claude"] = Agent{Permissions: true, Mode: Intercept} }},
		{"timeout", "[permissions]\ntimeout = \"1h30m\"\n", func(c *Config) { c.Permissions.Timeout = 90 * time.Minute }},
		{"ui language", "[ui]\nlanguage = \"zh-CN\"\n", func(c *Config) { c.UI.Language = "zh-CN" }},
		{"ui language auto", "[ui]\nlanguage = \"auto\"\n", func(c *Config) { c.UI.Language = "auto" }},
		{"self-repair off", "[doctor]\nself_repair = false\n", func(c *Config) { c.Doctor.SelfRepair = false }},
		{"timeout lower bound", "[permissions]\ntimeout = \"10s\"\n", func(c *Config) { c.Permissions.Timeout = 10 * time.Second }},
		{"timeout upper bound", "[permissions]\ntimeout = \"23h\"\n", func(c *Config) { c.Permissions.Timeout = 23 * time.Hour }},
		{"headless ask", "[permissions]\nheadless = 'ask'\n", func(c *Config) { c.Permissions.Headless = HeadlessAsk }},
		{"dotted keys", "permissions.timeout = \"2m\"\nagents.claude.permissions = false\n", func(c *Config) {
			c.Permissions.Timeout = 2 * time.Minute
			c.Agents["claude"] = Agent{Permissions: false, Mode: Intercept}
		}},
		{"inline table", "agents = { claude = { permissions = false } }\n", func(c *Config) {
			c.Agents["claude"] = Agent{Permissions: false, Mode: Intercept}
		}},
		{"agent off", "[agents.claude]\npermissions = false\n", func(c *Config) { c.Agents["claude"] = Agent{Permissions: false, Mode: Intercept} }},
		{"agent table without keys keeps permissions on", "[agents.claude]\n", func(c *Config) { c.Agents["claude"] = Agent{Permissions: true, Mode: Intercept} }},
		{"agent by alias", "[agents.claude-code]\npermissions = false\n", func(c *Config) { c.Agents["claude"] = Agent{Permissions: false, Mode: Intercept} }},
		{"agent alias, any case", "[agents.Claude]\npermissions = false\n", func(c *Config) { c.Agents["claude"] = Agent{Permissions: false, Mode: Intercept} }},
		{"notifications: the documented example", `
[notifications]
enabled = true
done = true
permission = true
question = true
error = true
cooldown = "60s"
done_grace = "3s"
quiet_hours = ""
sound = true
sound_cooldown = "30s"
`, func(c *Config) {}},
		{"notifications: everything off", `
[notifications]
enabled = false
done = false
permission = false
question = false
error = false
sound = false
`, func(c *Config) {
			c.Notifications.Enabled, c.Notifications.Sound = false, false
			c.Notifications.Done, c.Notifications.Permission, c.Notifications.Question, c.Notifications.Error = false, false, false, false
		}},
		{"notifications: one kind off keeps the others", "[notifications]\nquestion = false\n", func(c *Config) { c.Notifications.Question = false }},
		{"notifications: zero durations", "[notifications]\ncooldown = \"0s\"\ndone_grace = \"0s\"\nsound_cooldown = \"0\"\n", func(c *Config) {
			c.Notifications.Cooldown, c.Notifications.DoneGrace, c.Notifications.SoundCooldown = 0, 0, 0
		}},
		{"notifications: upper bounds", "[notifications]\ncooldown = \"24h\"\ndone_grace = \"1m\"\nsound_cooldown = \"1440m\"\n", func(c *Config) {
			c.Notifications.Cooldown, c.Notifications.DoneGrace, c.Notifications.SoundCooldown = 24*time.Hour, time.Minute, 24*time.Hour
		}},
		{"notifications: quiet hours across midnight", "[notifications]\nquiet_hours = \"22:00-07:00\"\n", func(c *Config) {
			c.Notifications.QuietHours = QuietHours{Start: 22 * 60, End: 7 * 60}
		}},
		{"telegram: the documented example", `
[channels.telegram]
enabled = false
token_file = "telegram.token"
api_url = "https://api.telegram.org"
`, func(c *Config) {}},
		{"telegram on, token elsewhere, a local server", `
[channels.telegram]
enabled = true
token_file = "/etc/clawd/bot.token"
api_url = "http://127.0.0.1:8081/"
`, func(c *Config) {
			c.Channels.Telegram = Telegram{Enabled: true, TokenFile: "/etc/clawd/bot.token", APIURL: "http://127.0.0.1:8081"}
		}},
		{"notifications: quiet hours, short hour and spaces", "notifications.quiet_hours = '7:30 - 09:15'\n", func(c *Config) {
			c.Notifications.QuietHours = QuietHours{Start: 7*60 + 30, End: 9*60 + 15}
		}},
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
			[]string{":1: unknown key timeout (known tables: [permissions], [notifications], [agents.<id>], [doctor], [ui], [channels.telegram])"}},
		{"unknown table reported once", "[foo]\nbar = 1\nbaz = 2\n",
			[]string{":1: unknown key foo (known tables: [permissions], [notifications], [agents.<id>], [doctor], [ui], [channels.telegram])"}},
		{"unknown doctor key", "[doctor]\nselfrepair = false\n",
			[]string{":2: unknown key doctor.selfrepair (known keys in [doctor]: self_repair)"}},
		{"self_repair not a bool", "[doctor]\nself_repair = \"no\"\n",
			[]string{":2: doctor.self_repair has the wrong type: want true or false"}},
		{"unknown agent key", "[agents.claude]\npermisions = false\n",
			[]string{":2: unknown key agents.claude.permisions (known keys in [agents.<id>]: enabled, subagent_permissions, permissions, permission_mode, permission_modes)"}},
		{"enabled not a bool", "[agents.claude]\nenabled = \"no\"\n",
			[]string{`:2: agents.claude.enabled has the wrong type: want true or false`}},
		{"subagent_permissions not a bool", "[agents.codex]\nsubagent_permissions = 0\n",
			[]string{`:2: agents.codex.subagent_permissions has the wrong type: want true or false`}},
		{"enabled for an unknown agent", "[agents.claudee]\nenabled = false\n",
			[]string{`:1: unknown agent "claudee" in [agents.claudee]: want one of ` + agentIDs() + `, or declare your own with [[agents.custom]]`}},
		{"subagent_permissions of an agent without subagents", "[agents.copilot]\nsubagent_permissions = false\n",
			[]string{`:2: agents.copilot.subagent_permissions: Copilot CLI reports no subagents to clawd, so there is nothing to switch: remove the key (the agents that report them: ` + subagentAgents() + `)`}},
		{"unknown key in inline table has no line", "permissions = { timeout = \"1m\", x = 1 }\n",
			[]string{": unknown key permissions.x (known keys in [permissions]: timeout, headless)"}},
		{"every problem, in line order", "[agents.nosuch]\n[permissions]\nheadless = \"always\"\ntimeout = \"soon\"\nextra = true\n",
			[]string{
				`:1: unknown agent "nosuch" in [agents.nosuch]: want one of ` + agentIDs() + `, or declare your own with [[agents.custom]]`,
				`:3: permissions.headless = "always" is not a policy: want "none" or "ask"`,
				`:4: permissions.timeout = "soon" is not a duration: want a string like "90s", "10m" or "1h30m" between 10s and 23h`,
				`:5: unknown key permissions.extra (known keys in [permissions]: timeout, headless)`,
			}},
		{"unknown channel", "[channels.slack]\nenabled = true\n",
			[]string{":1: unknown key channels.slack (known tables in [channels]: [channels.telegram])"}},
		{"unknown telegram key", "[channels.telegram]\ntoken = \"123:abc\"\n",
			[]string{":2: unknown key channels.telegram.token (known keys in [channels.telegram]: enabled, token_file, api_url)"}},
		{"telegram enabled not a bool", "[channels.telegram]\nenabled = \"yes\"\n",
			[]string{":2: channels.telegram.enabled has the wrong type: want true or false"}},
		{"telegram token_file empty", "[channels.telegram]\ntoken_file = \"\"\n",
			[]string{`:2: channels.telegram.token_file is empty: name the bot token's file, absolute or relative to the clawd home (default "telegram.token")`}},
		{"telegram api_url plain http elsewhere", "[channels.telegram]\napi_url = \"http://api.telegram.org\"\n",
			[]string{`:2: channels.telegram.api_url = "http://api.telegram.org" is plain http to another machine, which would send the bot token in the clear: use https`}},
		{"telegram api_url with a query", "[channels.telegram]\napi_url = \"https://h/?x=1\"\n",
			[]string{`:2: channels.telegram.api_url = "https://h/?x=1" has a user, a query or a fragment: want the server's address only`}},
		{"telegram api_url not a URL", "[channels.telegram]\napi_url = \"api.telegram.org\"\n",
			[]string{`:2: channels.telegram.api_url = "api.telegram.org" is not a URL: want one like "https://api.telegram.org"`}},
		{"unknown language", "[ui]\nlanguage = \"fr\"\n",
			[]string{`:2: ui.language = "fr" is not a language clawd speaks: want "auto", "en" or "zh-CN"`}},
		{"unknown ui key", "[ui]\ntheme = \"dark\"\n",
			[]string{":2: unknown key ui.theme (known keys in [ui]: language)"}},
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
		{"unknown agent", "[agents.nosuch]\npermissions = false\n",
			[]string{`:1: unknown agent "nosuch" in [agents.nosuch]: want one of ` + agentIDs() + `, or declare your own with [[agents.custom]]`}},
		{"one agent twice by alias", "[agents.claude]\n[agents.claude-code]\npermissions = false\n",
			[]string{`:2: [agents.claude-code] and [agents.claude] both configure Claude Code: keep one`}},
		{"unknown notifications key", "[notifications]\nenable = false\n",
			[]string{":2: unknown key notifications.enable (known keys in [notifications]: enabled, done, permission, question, error, cooldown, done_grace, quiet_hours, sound, sound_cooldown)"}},
		{"notifications: every problem, in line order", "[notifications]\nsound_cooldown = \"-1s\"\ncooldown = \"1 min\"\nquiet_hours = \"late\"\ndone_grace = \"2m\"\n",
			[]string{
				`:2: notifications.sound_cooldown = "-1s" is out of range: want between 0s and 24h`,
				`:3: notifications.cooldown = "1 min" is not a duration: want a string like "0s", "30s" or "2m" between 0s and 24h`,
				`:4: notifications.quiet_hours = "late" is not a span of hours: want "HH:MM-HH:MM" (24-hour local time) like "22:00-07:00", or "" for none`,
				`:5: notifications.done_grace = "2m" is out of range: want between 0s and 1m`,
			}},
		{"cooldown too long", "[notifications]\ncooldown = \"25h\"\n",
			[]string{`:2: notifications.cooldown = "25h" is out of range: want between 0s and 24h`}},
		{"cooldown negative", "[notifications]\ncooldown = \"-60s\"\n",
			[]string{`:2: notifications.cooldown = "-60s" is out of range: want between 0s and 24h`}},
		{"cooldown without unit", "[notifications]\ncooldown = \"60\"\n",
			[]string{`:2: notifications.cooldown = "60" is not a duration: want a string like "0s", "30s" or "2m" between 0s and 24h`}},
		{"sound cooldown not a duration", "[notifications]\nsound_cooldown = \"often\"\n",
			[]string{`:2: notifications.sound_cooldown = "often" is not a duration: want a string like "0s", "30s" or "2m" between 0s and 24h`}},
		{"done grace not a duration", "[notifications]\ndone_grace = \"3\"\n",
			[]string{`:2: notifications.done_grace = "3" is not a duration: want a string like "0s", "30s" or "2m" between 0s and 1m`}},
		{"done grace negative", "[notifications]\ndone_grace = \"-3s\"\n",
			[]string{`:2: notifications.done_grace = "-3s" is out of range: want between 0s and 1m`}},
		{"quiet hours without a dash", "[notifications]\nquiet_hours = \"22:00\"\n",
			[]string{`:2: notifications.quiet_hours = "22:00" is not a span of hours: want "HH:MM-HH:MM" (24-hour local time) like "22:00-07:00", or "" for none`}},
		{"quiet hours past 23:59", "[notifications]\nquiet_hours = \"22:00-24:00\"\n",
			[]string{`:2: notifications.quiet_hours = "22:00-24:00" is not a span of hours: want "HH:MM-HH:MM" (24-hour local time) like "22:00-07:00", or "" for none`}},
		{"quiet hours, 12-hour clock", "[notifications]\nquiet_hours = \"10pm-7am\"\n",
			[]string{`:2: notifications.quiet_hours = "10pm-7am" is not a span of hours: want "HH:MM-HH:MM" (24-hour local time) like "22:00-07:00", or "" for none`}},
		{"quiet hours, empty span", "[notifications]\nquiet_hours = \"07:00-7:00\"\n",
			[]string{`:2: notifications.quiet_hours = "07:00-7:00" is an empty span: want two different times like "22:00-07:00", or "" for none`}},
		{"quiet hours not a string", "[notifications]\nquiet_hours = 22\n",
			[]string{`:2: notifications.quiet_hours has the wrong type: want a quoted span like "22:00-07:00", or ""`}},
		{"cooldown not a string", "[notifications]\ncooldown = 60\n",
			[]string{`:2: notifications.cooldown has the wrong type: want a quoted duration like "60s"`}},
		{"switch not a bool", "[notifications]\nsound = \"off\"\n",
			[]string{`:2: notifications.sound has the wrong type: want true or false`}},
		{"notifications not a table", "notifications = false\n",
			[]string{`:1: notifications has the wrong type: want a table: [notifications]`}},
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
		{"unknown agent", Default(), "nosuch", false},
		{"empty id", Default(), "", false},
	}
	for _, tt := range tests {
		if got := tt.c.PermissionsEnabled(tt.agent); got != tt.want {
			t.Errorf("%s: PermissionsEnabled(%q) = %v, want %v", tt.name, tt.agent, got, tt.want)
		}
	}
}

func TestAgentGates(t *testing.T) {
	tests := []struct {
		name, file         string
		agent              string // asked by this id or alias
		enabled, subagents bool
		disabled, subagOff map[string]bool
	}{
		{"defaults", "", "claude", true, true, map[string]bool{}, map[string]bool{}},
		{"a table without the keys", "[agents.claude]\npermissions = false\n", "claude", true, true, map[string]bool{}, map[string]bool{}},
		{"disabled", "[agents.claude]\nenabled = false\n", "claude", false, true, map[string]bool{"claude": true}, map[string]bool{}},
		{"disabled by alias, asked by id", "[agents.claude-code]\nenabled = false\n", "claude", false, true, map[string]bool{"claude": true}, map[string]bool{}},
		{"asked by alias", "[agents.copilot]\nenabled = false\n", "github-copilot", false, true, map[string]bool{"copilot": true}, map[string]bool{}},
		{"subagents off by alias", "[agents.qwen-code]\nsubagent_permissions = false\n", "qwen", true, false, map[string]bool{}, map[string]bool{"qwen": true}},
		{"other agent disabled", "[agents.codex]\nenabled = false\n", "claude", true, true, map[string]bool{"codex": true}, map[string]bool{}},
		{"enabled written out", "[agents.claude]\nenabled = true\nsubagent_permissions = true\n", "claude", true, true, map[string]bool{}, map[string]bool{}},
		{"subagents off", "[agents.claude]\nsubagent_permissions = false\n", "claude", true, false, map[string]bool{}, map[string]bool{"claude": true}},
		{"subagents off, dotted, by alias", "agents.claude_code.subagent_permissions = false\n", "Claude-Code", true, false, map[string]bool{}, map[string]bool{"claude": true}},
		{"unknown agent asked", "", "nosuch", true, true, map[string]bool{}, map[string]bool{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("config.toml", []byte(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Enabled(tt.agent); got != tt.enabled {
				t.Errorf("Enabled(%q) = %v, want %v", tt.agent, got, tt.enabled)
			}
			if got := c.SubagentPermissions(tt.agent); got != tt.subagents {
				t.Errorf("SubagentPermissions(%q) = %v, want %v", tt.agent, got, tt.subagents)
			}
			if got := c.Disabled(); !reflect.DeepEqual(got, tt.disabled) {
				t.Errorf("Disabled() = %v, want %v", got, tt.disabled)
			}
			if got := c.SubagentPermissionsOff(); !reflect.DeepEqual(got, tt.subagOff) {
				t.Errorf("SubagentPermissionsOff() = %v, want %v", got, tt.subagOff)
			}
		})
	}
}

func TestParseQuietHours(t *testing.T) {
	tests := []struct {
		in   string
		want QuietHours
		err  error
	}{
		{"", QuietHours{}, nil},
		{"  ", QuietHours{}, nil},
		{"22:00-07:00", QuietHours{22 * 60, 7 * 60}, nil},
		{"00:00-23:59", QuietHours{0, 23*60 + 59}, nil},
		{"9:05-17:30", QuietHours{9*60 + 5, 17*60 + 30}, nil},
		{" 13:00 - 14:00 ", QuietHours{13 * 60, 14 * 60}, nil},
		{"12:00-12:00", QuietHours{}, errEmptySpan},
		{"22:00", QuietHours{}, errNotSpan},
		{"22-07", QuietHours{}, errNotSpan},
		{"22:0-07:00", QuietHours{}, errNotSpan},
		{"022:00-07:00", QuietHours{}, errNotSpan},
		{"+2:00-07:00", QuietHours{}, errNotSpan},
		{"22:00-07:60", QuietHours{}, errNotSpan},
		{"24:00-07:00", QuietHours{}, errNotSpan},
		{"22:00-07:00-08:00", QuietHours{}, errNotSpan},
	}
	for _, tt := range tests {
		got, err := ParseQuietHours(tt.in)
		if got != tt.want || err != tt.err {
			t.Errorf("ParseQuietHours(%q) = %+v, %v, want %+v, %v", tt.in, got, err, tt.want, tt.err)
		}
		if err == nil && got.String() != "" {
			if again, _ := ParseQuietHours(got.String()); again != got {
				t.Errorf("ParseQuietHours(%q).String() = %q, which parses as %+v", tt.in, got.String(), again)
			}
		}
	}
}

func TestQuietHoursContains(t *testing.T) {
	night := QuietHours{22 * 60, 7 * 60}
	lunch := QuietHours{12 * 60, 13*60 + 30}
	// A zone far from UTC: the span is on the time's own wall clock.
	tokyo := time.FixedZone("JST", 9*3600)
	at := func(h, m int) time.Time { return time.Date(2026, 3, 14, h, m, 0, 0, tokyo) }
	tests := []struct {
		q    QuietHours
		t    time.Time
		want bool
	}{
		{night, at(21, 59), false},
		{night, at(22, 0), true},
		{night, at(23, 59), true},
		{night, at(0, 0), true},
		{night, at(6, 59), true},
		{night, at(7, 0), false},
		{night, at(12, 0), false},
		{lunch, at(11, 59), false},
		{lunch, at(12, 0), true},
		{lunch, at(13, 29), true},
		{lunch, at(13, 30), false},
		{lunch, at(0, 0), false},
		{QuietHours{}, at(0, 0), false},
		{QuietHours{}, at(12, 0), false},
		// 23:00 in Tokyo is 14:00 UTC: not night there.
		{night, at(23, 0).UTC(), false},
	}
	for _, tt := range tests {
		if got := tt.q.Contains(tt.t); got != tt.want {
			t.Errorf("%v.Contains(%v) = %v, want %v", tt.q, tt.t, got, tt.want)
		}
	}
}

func TestPermissionModes(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) {
		if err := os.WriteFile(filepath.Join(dir, FileName), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("[agents.claude]\npermission_mode = \"native\"\npermission_modes = { tui = \"intercept\" }\n")
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		c     Config
		agent string
		kind  string
		want  PermissionMode
	}{
		{Default(), "claude", "", Intercept},
		{Default(), "nosuch", "", Native},
		{c, "claude", "", Native},
		{c, "claude", "other", Native},
		{c, "claude", "tui", Intercept},
		{Config{Agents: map[string]Agent{"claude": {Permissions: false, Mode: Intercept}}}, "claude", "", Native},
		{Config{Agents: map[string]Agent{"claude": {Permissions: false, Modes: map[string]PermissionMode{"tui": Intercept}}}}, "claude", "tui", Native},
	}
	for _, tt := range tests {
		if got := tt.c.PermissionModeFor(tt.agent, tt.kind); got != tt.want {
			t.Errorf("PermissionModeFor(%q, %q) = %q, want %q", tt.agent, tt.kind, got, tt.want)
		}
	}
	for body, want := range map[string]string{
		"[agents.claude]\npermission_mode = \"ask\"\n":              `:2: agents.claude.permission_mode = "ask" is not a mode: want "intercept" or "native"`,
		"[agents.claude]\npermission_modes = { tui = \"maybe\" }\n": `:2: agents.claude.permission_modes.tui = "maybe" is not a mode: want "intercept" or "native"`,
		"[agents.claude]\npermission_mode = true\n":                 `agents.claude.permission_mode`,
	} {
		write(body)
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%q) error = %v, want it to contain %q", body, err, want)
		}
	}
}

func TestTelegramTokenPath(t *testing.T) {
	home := filepath.Join(t.TempDir(), ".clawd")
	abs := filepath.Join(t.TempDir(), "bot.token")
	for _, c := range []struct{ file, want string }{
		{"", filepath.Join(home, "telegram.token")},
		{"keys/bot.token", filepath.Join(home, "keys", "bot.token")},
		{abs, abs},
	} {
		if got := (Telegram{TokenFile: c.file}).TokenPath(home); got != c.want {
			t.Errorf("TokenPath(%q) = %q, want %q", c.file, got, c.want)
		}
	}
}

// Package config reads clawd's user configuration, config.toml in the clawd
// home ($CLAWD_HOME, else ~/.clawd). Every key is optional; a missing file
// means the defaults. The whole schema, with the defaults:
//
//	[permissions]
//	# How long clawd holds a permission request before it answers "no
//	# decision" and the agent falls back to its own prompt. A Go duration
//	# string ("90s", "10m", "1h30m") between 10s and 23h.
//	timeout = "10m"
//	# What headless sessions (claude -p, CI) get: "none" answers them with
//	# no decision at once, so the agent applies its own rules; "ask" holds
//	# their requests for a person like interactive ones.
//	headless = "none"
//
//	[notifications]
//	# false: no desktop popups at all ("sound" below is its own switch).
//	enabled = true
//	# Which events notify (popup and sound): a session finished its turn
//	# and nobody asked it anything since, needs a permission, has a
//	# question, failed.
//	done = true
//	permission = true
//	question = true
//	error = true
//	# At most one popup per session and event kind within this long.
//	# A duration between 0s and 24h.
//	cooldown = "60s"
//	# How long a finished turn waits before it notifies: activity in the
//	# session meanwhile (a new prompt) means the person was right there,
//	# and cancels it. Between 0s and 1m.
//	done_grace = "3s"
//	# Daily local-time span without popups or sounds, "HH:MM-HH:MM"; it
//	# may cross midnight ("22:00-07:00"). "" means none.
//	quiet_hours = ""
//	# A short chime on the same events, with its own cooldown (0s to 24h).
//	sound = true
//	sound_cooldown = "30s"
//
//	[agents.claude]
//	# false: clawd ignores the agent altogether: its sessions are not
//	# shown, not kept in the history and start no automations, and its
//	# permission requests get "no decision" at once. Its hooks stay
//	# installed (clawd doctor says it is disabled); clawd serve reads it
//	# when it starts.
//	enabled = true
//	# false: a subagent's permission requests get "no decision" at once,
//	# so the agent asks in its own terminal; the session's own requests
//	# are still shown. Only for agents that report subagents (Claude
//	# Code, Codex, OpenCode, Qwen Code: clawd agents lists them).
//	subagent_permissions = true
//	# false: clawd never answers Claude Code's permission requests (it
//	# still shows the session's state). The same as
//	# permission_mode = "native".
//	permissions = true
//	# "intercept": clawd shows the agent's permission requests and answers
//	# them (allow, deny) in the agent's format. "native": clawd only shows
//	# that the session waits and answers "no decision", leaving the agent's
//	# own prompt (or reviewer) in charge.
//	permission_mode = "intercept"
//	# The mode per session kind, where the agent tells kinds apart: for
//	# Codex the originator its rollout names ("codex-tui" for the TUI;
//	# IDE clients name their own). Kinds not listed use permission_mode.
//	permission_modes = { "codex-tui" = "intercept" }
//
//	# Your own agents (a script, a bot): each reports its state itself
//	# over POST /state with "agent_id": "custom-<name>", on the
//	# runtime's socket or with the API token; "sleeping" ends its
//	# session. clawd answers none of its permission requests ("no
//	# decision" at once). An undeclared custom- id is refused. No table
//	# by default; clawd serve reads them when it starts.
//	[[agents.custom]]
//	name = "my-bot"            # the id is custom-my-bot
//	display_name = "My Bot"    # what the tray, dashboard and status show
//	icon = "working"           # optional: its idle sessions' tray icon
//
//	[ui]
//	# The language of the tray, notifications and the CLI's text: "auto"
//	# follows the locale (LC_ALL, LC_MESSAGES, LANG; the Windows UI
//	# language; macOS's AppleLanguages), "en" is English, "zh-CN"
//	# Simplified Chinese. Machine-readable output (--json) is never
//	# translated.
//	language = "auto"
//
//	[doctor]
//	# false: the runtime does not put clawd's hooks back when another
//	# program removes or breaks them in an agent's settings; it only
//	# reports it (clawd status, the tray, clawd doctor).
//	self_repair = true
//
//	[channels.telegram]
//	# true: clawd serve sends permission requests, plan reviews and
//	# questions to the chat paired with `clawd channels pair telegram`,
//	# as messages with buttons, and takes the answers pressed there. It
//	# only calls out (long polling): nothing listens on the network.
//	enabled = false
//	# The bot token's file (one line, from @BotFather), which nobody but
//	# you may read (mode 600): absolute, or relative to the clawd home.
//	token_file = "telegram.token"
//	# The Bot API server: https://, or http:// on loopback only (a
//	# telegram-bot-api server of your own on this machine).
//	api_url = "https://api.telegram.org"
//
// An agent table is named by the agent's id or one of its aliases (see
// agents.Lookup). Unknown keys and bad values are errors that name the key,
// its line and what is accepted, so a typo never silently falls back to a
// default.
package config

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/boundedfile"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/icons"
	"github.com/clawdhq/clawd/internal/lazy"
	"github.com/clawdhq/clawd/internal/tomlpos"
)

// FileName is the config file's name in the clawd home.
const FileName = "config.toml"

// Limits and defaults of permissions.timeout.
const (
	DefaultTimeout = 10 * time.Minute
	MinTimeout     = 10 * time.Second
	MaxTimeout     = 23 * time.Hour

	timeoutRange = "10s and 23h" // MinTimeout and MaxTimeout for people
)

// Headless is what clawd does with a headless session's permission request.
type Headless string

const (
	// HeadlessNone answers at once with no decision: the agent applies its
	// own rules (claude -p denies).
	HeadlessNone Headless = "none"
	// HeadlessAsk holds the request for a person, as for interactive
	// sessions.
	HeadlessAsk Headless = "ask"
)

var headlessPolicies = []Headless{HeadlessNone, HeadlessAsk}

// Defaults and limits of the [notifications] durations.
const (
	DefaultCooldown      = 60 * time.Second
	DefaultSoundCooldown = 30 * time.Second
	DefaultDoneGrace     = 3 * time.Second

	MaxCooldown  = 24 * time.Hour // cooldown and sound_cooldown
	MaxDoneGrace = time.Minute
)

// Config is clawd's user configuration.
type Config struct {
	Permissions   Permissions
	Notifications Notifications
	// Agents holds the per-agent settings by agent id (agents.Agent.ID),
	// for the agents the file has a table for.
	Agents map[string]Agent
	// Custom are the [[agents.custom]] tables: the person's own agents,
	// which report their state over POST /state (see agents.SetCustom).
	Custom   []agents.CustomSpec
	UI       UI
	Doctor   Doctor
	Channels Channels
}

// Channels is the [channels] table: where requests go besides this
// machine's own tray, dashboard and CLI.
type Channels struct {
	Telegram Telegram
}

// Telegram is the [channels.telegram] table.
type Telegram struct {
	// Enabled: clawd serve runs the Telegram channel.
	Enabled bool
	// TokenFile is token_file as written (DefaultTelegramTokenFile when
	// absent); TokenPath resolves it.
	TokenFile string
	// APIURL is the Bot API server (DefaultTelegramAPI when absent).
	APIURL string
}

// Defaults of [channels.telegram].
const (
	DefaultTelegramTokenFile = "telegram.token"
	DefaultTelegramAPI       = "https://api.telegram.org"
)

// TokenPath is the bot token's file: token_file, relative to the clawd
// home unless absolute.
func (t Telegram) TokenPath(home string) string {
	f := t.TokenFile
	if f == "" {
		f = DefaultTelegramTokenFile
	}
	if filepath.IsAbs(f) {
		return f
	}
	return filepath.Join(home, f)
}

// UI is the [ui] table.
type UI struct {
	// Language is the language setting as written ("auto", "en",
	// "zh-CN", ...; "" when unset), for i18n.Detect.
	Language string
}

// Doctor is the [doctor] table.
type Doctor struct {
	// SelfRepair: the runtime repairs clawd's hooks when they break.
	SelfRepair bool
}

// Permissions is the [permissions] table.
type Permissions struct {
	// Timeout is how long clawd holds a request before "no decision".
	Timeout time.Duration
	// Headless is the policy for headless sessions.
	Headless Headless
}

// Notifications is the [notifications] table: desktop popups and sounds.
type Notifications struct {
	// Enabled is the master switch for popups; Sound is the one for
	// sounds.
	Enabled bool
	// Done, Permission, Question and Error switch one kind of event, for
	// popups and sounds alike.
	Done, Permission, Question, Error bool
	// Cooldown is the least time between two popups of one session and
	// kind.
	Cooldown time.Duration
	// DoneGrace is how long a finished turn is held before it notifies.
	DoneGrace time.Duration
	// QuietHours is when neither popups nor sounds happen.
	QuietHours QuietHours
	// Sound plays a chime on the events that notify.
	Sound bool
	// SoundCooldown is the least time between two sounds of one session
	// and kind, independent of Cooldown.
	SoundCooldown time.Duration
}

// DefaultNotifications returns the [notifications] of a config file
// without that table.
func DefaultNotifications() Notifications {
	return Notifications{
		Enabled: true,
		Done:    true, Permission: true, Question: true, Error: true,
		Cooldown:      DefaultCooldown,
		DoneGrace:     DefaultDoneGrace,
		Sound:         true,
		SoundCooldown: DefaultSoundCooldown,
	}
}

// QuietHours is a daily span of local wall-clock time. The zero value is
// no quiet hours.
type QuietHours struct {
	// Start and End are minutes after midnight. The span is [Start, End);
	// it crosses midnight when End < Start. Start == End is no span.
	Start, End int
}

// ParseQuietHours parses "HH:MM-HH:MM" (24-hour clock); "" is no quiet
// hours.
func ParseQuietHours(s string) (QuietHours, error) {
	if strings.TrimSpace(s) == "" {
		return QuietHours{}, nil
	}
	from, to, ok := strings.Cut(s, "-")
	if !ok {
		return QuietHours{}, errNotSpan
	}
	start, ok1 := parseClock(strings.TrimSpace(from))
	end, ok2 := parseClock(strings.TrimSpace(to))
	if !ok1 || !ok2 {
		return QuietHours{}, errNotSpan
	}
	if start == end {
		return QuietHours{}, errEmptySpan
	}
	return QuietHours{Start: start, End: end}, nil
}

var (
	errNotSpan   = errors.New(`not a span of hours: want "HH:MM-HH:MM" (24-hour local time) like "22:00-07:00", or "" for none`)
	errEmptySpan = errors.New(`an empty span: want two different times like "22:00-07:00", or "" for none`)
)

// parseClock parses "H:MM" or "HH:MM" into minutes after midnight.
func parseClock(s string) (int, bool) {
	h, m, ok := strings.Cut(s, ":")
	if !ok || len(h) < 1 || len(h) > 2 || len(m) != 2 || !digits(h) || !digits(m) {
		return 0, false
	}
	hh, _ := strconv.Atoi(h)
	mm, _ := strconv.Atoi(m)
	if hh > 23 || mm > 59 {
		return 0, false
	}
	return hh*60 + mm, true
}

func digits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// IsZero reports whether q is no quiet hours.
func (q QuietHours) IsZero() bool { return q.Start == q.End }

// Contains reports whether t's wall clock, in t's own location, falls in
// the span. Passing the time in keeps callers testable and follows the
// person's clock across time zone and daylight saving changes.
func (q QuietHours) Contains(t time.Time) bool {
	if q.IsZero() {
		return false
	}
	m := t.Hour()*60 + t.Minute()
	if q.Start < q.End {
		return m >= q.Start && m < q.End
	}
	return m >= q.Start || m < q.End
}

// String returns q as written in config.toml: "22:00-07:00", or "".
func (q QuietHours) String() string {
	if q.IsZero() {
		return ""
	}
	return fmt.Sprintf("%02d:%02d-%02d:%02d", q.Start/60, q.Start%60, q.End/60, q.End%60)
}

// Agent is one [agents.<id>] table. Its zero value is an agent with the
// defaults of enabled and subagent_permissions.
type Agent struct {
	// Disabled is enabled = false: the runtime ignores the agent.
	Disabled bool
	// SubagentPermissionsOff is subagent_permissions = false: its
	// subagents' requests get no decision at once.
	SubagentPermissionsOff bool
	// Permissions is false when clawd must never answer the agent's
	// permission requests (permission_mode "native" for every kind).
	Permissions bool
	// Mode is permission_mode; Modes holds permission_modes by session
	// kind.
	Mode  PermissionMode
	Modes map[string]PermissionMode
}

// PermissionMode is how clawd handles an agent's permission requests.
type PermissionMode string

const (
	// Intercept shows requests and answers them in the agent's format.
	Intercept PermissionMode = "intercept"
	// Native shows that the session waits and answers "no decision": the
	// agent's own prompt or reviewer decides.
	Native PermissionMode = "native"
)

var permissionModes = []PermissionMode{Intercept, Native}

// PermissionModeFor returns the mode for a session of the agent named
// agentID (an id or alias) of the given kind ("" when unknown). It is
// Native for an agent clawd does not know.
func (c Config) PermissionModeFor(agentID, kind string) PermissionMode {
	a := agents.Lookup(agentID)
	if a == nil {
		return Native
	}
	ac, ok := c.Agents[a.ID]
	switch {
	case !ok:
		return Intercept
	case !ac.Permissions:
		return Native
	}
	if m, ok := ac.Modes[kind]; ok && kind != "" {
		return m
	}
	return cmp.Or(ac.Mode, Intercept)
}

// Default returns the configuration of a clawd home without config.toml.
func Default() Config {
	return Config{
		Permissions:   Permissions{Timeout: DefaultTimeout, Headless: HeadlessNone},
		Notifications: DefaultNotifications(),
		Agents:        map[string]Agent{},
		Doctor:        Doctor{SelfRepair: true},
		Channels:      Channels{Telegram: Telegram{TokenFile: DefaultTelegramTokenFile, APIURL: DefaultTelegramAPI}},
	}
}

// PermissionsEnabled reports whether clawd answers permission requests of
// the agent named agentID (an id or alias). It is false for an agent clawd
// does not know.
func (c Config) PermissionsEnabled(agentID string) bool {
	a := agents.Lookup(agentID)
	if a == nil {
		return false
	}
	if ac, ok := c.Agents[a.ID]; ok {
		return ac.Permissions
	}
	return true
}

// Enabled reports whether the runtime takes the events of the agent named
// agentID (an id or alias): false only when its table says enabled =
// false.
func (c Config) Enabled(agentID string) bool {
	a := agents.Lookup(agentID)
	return a == nil || !c.Agents[a.ID].Disabled
}

// SubagentPermissions reports whether clawd shows the permission requests
// of the subagents of the agent named agentID (an id or alias): false only
// when its table says subagent_permissions = false.
func (c Config) SubagentPermissions(agentID string) bool {
	a := agents.Lookup(agentID)
	return a == nil || !c.Agents[a.ID].SubagentPermissionsOff
}

// Disabled returns the ids of the agents with enabled = false, as a set.
func (c Config) Disabled() map[string]bool {
	return c.agentSet(func(a Agent) bool { return a.Disabled })
}

// SubagentPermissionsOff returns the ids of the agents with
// subagent_permissions = false, as a set.
func (c Config) SubagentPermissionsOff() map[string]bool {
	return c.agentSet(func(a Agent) bool { return a.SubagentPermissionsOff })
}

func (c Config) agentSet(f func(Agent) bool) map[string]bool {
	set := map[string]bool{}
	for id, a := range c.Agents {
		if f(a) {
			set[id] = true
		}
	}
	return set
}

// Path returns the config file of the clawd home.
func Path(home string) string { return filepath.Join(home, FileName) }

// file is config.toml as written. Pointers tell an absent key from a zero
// value, so defaults apply only to absent keys.
type file struct {
	Permissions struct {
		Timeout  *string `toml:"timeout"`
		Headless *string `toml:"headless"`
	} `toml:"permissions"`
	Notifications notificationsFile `toml:"notifications"`
	// Agents holds [agents.<id>] tables (agentFile) and the
	// [[agents.custom]] array (customFile), told apart by key before
	// they are decoded.
	Agents map[string]toml.Primitive `toml:"agents"`
	UI     struct {
		Language *string `toml:"language"`
	} `toml:"ui"`
	Doctor struct {
		SelfRepair *bool `toml:"self_repair"`
	} `toml:"doctor"`
	Channels struct {
		Telegram struct {
			Enabled   *bool   `toml:"enabled"`
			TokenFile *string `toml:"token_file"`
			APIURL    *string `toml:"api_url"`
		} `toml:"telegram"`
	} `toml:"channels"`
}

// agentFile is one [agents.<id>] table as written.
type agentFile struct {
	Enabled             *bool             `toml:"enabled"`
	SubagentPermissions *bool             `toml:"subagent_permissions"`
	Permissions         *bool             `toml:"permissions"`
	PermissionMode      *string           `toml:"permission_mode"`
	PermissionModes     map[string]string `toml:"permission_modes"`
}

// customKey is the key of [[agents.custom]] under [agents]: no agent's id
// or alias (a custom agent's id is custom-<name>).
const customKey = "custom"

// customFile is one [[agents.custom]] table as written.
type customFile struct {
	Name        *string `toml:"name"`
	DisplayName *string `toml:"display_name"`
	Icon        *string `toml:"icon"`
}

// notificationsFile is the [notifications] table as written.
type notificationsFile struct {
	Enabled       *bool   `toml:"enabled"`
	Done          *bool   `toml:"done"`
	Permission    *bool   `toml:"permission"`
	Question      *bool   `toml:"question"`
	Error         *bool   `toml:"error"`
	Cooldown      *string `toml:"cooldown"`
	DoneGrace     *string `toml:"done_grace"`
	QuietHours    *string `toml:"quiet_hours"`
	Sound         *bool   `toml:"sound"`
	SoundCooldown *string `toml:"sound_cooldown"`
}

// MaxFileSize caps what Load reads of config.toml: the whole schema is a
// few dozen lines.
const MaxFileSize = 1 << 20

// Load reads config.toml from the clawd home. A missing file gives
// Default(). Every problem in the file is reported (the first
// maxProblems of them), each as "<path>:<line>: <what>" (without the line
// when it cannot be told). Whatever the path names, Load returns at once:
// a FIFO, a device or a folder is refused unread, so is a file over
// MaxFileSize (see boundedfile).
func Load(home string) (Config, error) {
	path := Path(home)
	data, err := boundedfile.Read(path, MaxFileSize)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return Default(), nil
	case errors.Is(err, boundedfile.ErrNotRegular):
		return Config{}, fmt.Errorf("config: %w: clawd reads its settings only from a plain file; replace it with one, or remove it to use the defaults", err)
	case errors.Is(err, boundedfile.ErrTooLarge):
		return Config{}, fmt.Errorf("config: %w: clawd's settings are a few lines; shorten it, or remove it to use the defaults", err)
	case err != nil:
		return Config{}, fmt.Errorf("read config: %w", err)
	}
	return Parse(path, data)
}

// Parse parses the contents of a config file; path names it in errors. A
// document nested deeper than maxDepth is refused before the TOML parser
// sees it.
func Parse(path string, data []byte) (Config, error) {
	if line := tooDeep(data, maxDepth); line > 0 {
		return Config{}, fmt.Errorf("%s:%d: nested more than %d deep (tables, arrays and dotted keys inside each other): no setting of clawd's goes deeper than four (agents.<id>.permission_modes.<kind>); remove the nesting", path, line, maxDepth)
	}
	var f file
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return Config{}, decodeError(path, err)
	}
	p := &problems{path: path, lines: tomlpos.Lines(data)}
	// The [agents] tables are decoded one by one: [[agents.custom]] is an
	// array beside them. The names are sorted so that the first type
	// error of several is always the same one.
	agentTables := make(map[string]agentFile, len(f.Agents))
	var customs []customFile
	for _, name := range slices.Sorted(maps.Keys(f.Agents)) {
		var err error
		if name == customKey {
			err = md.PrimitiveDecode(f.Agents[name], &customs)
		} else {
			var fa agentFile
			err = md.PrimitiveDecode(f.Agents[name], &fa)
			agentTables[name] = fa
		}
		if err != nil {
			return Config{}, decodeError(path, err)
		}
	}

	undecoded := md.Undecoded()
	seen := map[string]bool{}
	for _, k := range undecoded {
		// Report [foo] once, not also foo.bar and foo.baz under it.
		if len(k) > 1 && seen[strings.Join(k[:len(k)-1], "\x00")] {
			seen[strings.Join(k, "\x00")] = true
			continue
		}
		seen[strings.Join(k, "\x00")] = true
		p.add(k, "unknown key %s (%s)", k, knownKeys(k))
	}

	c := Default()
	if s := f.Permissions.Timeout; s != nil {
		d, err := time.ParseDuration(*s)
		switch {
		case err != nil:
			p.add(toml.Key{"permissions", "timeout"}, "permissions.timeout = %q is not a duration: want a string like \"90s\", \"10m\" or \"1h30m\" between %s", *s, timeoutRange)
		case d < MinTimeout || d > MaxTimeout:
			p.add(toml.Key{"permissions", "timeout"}, "permissions.timeout = %q is out of range: want between %s", *s, timeoutRange)
		default:
			c.Permissions.Timeout = d
		}
	}
	if s := f.Permissions.Headless; s != nil {
		h := Headless(*s)
		if slices.Contains(headlessPolicies, h) {
			c.Permissions.Headless = h
		} else {
			p.add(toml.Key{"permissions", "headless"}, "permissions.headless = %q is not a policy: want %q or %q", *s, HeadlessNone, HeadlessAsk)
		}
	}
	c.Notifications = p.notifications(f.Notifications, c.Notifications)
	if s := f.UI.Language; s != nil {
		if err := i18n.CheckSetting(*s); err != nil {
			p.add(toml.Key{"ui", "language"}, "ui.language = %q is %v", *s, err)
		} else {
			c.UI.Language = *s
		}
	}
	if v := f.Doctor.SelfRepair; v != nil {
		c.Doctor.SelfRepair = *v
	}
	ft := f.Channels.Telegram
	if v := ft.Enabled; v != nil {
		c.Channels.Telegram.Enabled = *v
	}
	if v := ft.TokenFile; v != nil {
		if strings.TrimSpace(*v) == "" {
			p.add(toml.Key{"channels", "telegram", "token_file"}, "channels.telegram.token_file is empty: name the bot token's file, absolute or relative to the clawd home (default %q)", DefaultTelegramTokenFile)
		} else {
			c.Channels.Telegram.TokenFile = *v
		}
	}
	if v := ft.APIURL; v != nil {
		if u, err := checkAPIURL(*v); err != nil {
			p.add(toml.Key{"channels", "telegram", "api_url"}, "channels.telegram.api_url = %q %v", *v, err)
		} else {
			c.Channels.Telegram.APIURL = u
		}
	}
	c.Custom = p.customs(customs)
	names := make([]string, 0, len(agentTables))
	for name := range agentTables {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(p.line(toml.Key{"agents", a})-p.line(toml.Key{"agents", b}), strings.Compare(a, b))
	})
	from := map[string]string{} // agent id -> the table name that set it
	for _, name := range names {
		key := toml.Key{"agents", name}
		a := agents.Lookup(name)
		if agents.IsCustomID(name) {
			// Declared or not, the agent is not known yet: it is
			// registered when clawd serve starts, from this file.
			p.add(key, "[%s]: a custom agent takes no table of its own: it has no hooks and clawd answers none of its permissions; declare it with [[agents.custom]] name = %q", key, strings.TrimPrefix(strings.ToLower(name), agents.CustomPrefix))
			continue
		}
		if a == nil {
			p.add(key, "unknown agent %q in [%s]: want one of %s, or declare your own with [[agents.custom]]", name, key, agentIDs())
			continue
		}
		if prev, ok := from[a.ID]; ok {
			p.add(key, "[%s] and [agents.%s] both configure %s: keep one", key, prev, a.Name)
			continue
		}
		from[a.ID] = name
		ac := Agent{Permissions: true, Mode: Intercept}
		fa := agentTables[name]
		if v := fa.Permissions; v != nil {
			ac.Permissions = *v
		}
		if v := fa.Enabled; v != nil {
			ac.Disabled = !*v
		}
		if v := fa.SubagentPermissions; v != nil {
			if a.Supports.Subagents {
				ac.SubagentPermissionsOff = !*v
			} else {
				p.add(toml.Key{"agents", name, "subagent_permissions"}, "agents.%s.subagent_permissions: %s reports no subagents to clawd, so there is nothing to switch: remove the key (the agents that report them: %s)", name, a.Name, subagentAgents())
			}
		}
		if v := fa.PermissionMode; v != nil {
			if m := PermissionMode(*v); slices.Contains(permissionModes, m) {
				ac.Mode = m
			} else {
				p.add(toml.Key{"agents", name, "permission_mode"}, "agents.%s.permission_mode = %q is not a mode: want %q or %q", name, *v, Intercept, Native)
			}
		}
		kinds := make([]string, 0, len(fa.PermissionModes))
		for k := range fa.PermissionModes {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		for _, k := range kinds {
			v := fa.PermissionModes[k]
			m := PermissionMode(v)
			if !slices.Contains(permissionModes, m) {
				p.add(toml.Key{"agents", name, "permission_modes"}, "agents.%s.permission_modes.%s = %q is not a mode: want %q or %q", name, k, v, Intercept, Native)
				continue
			}
			if ac.Modes == nil {
				ac.Modes = map[string]PermissionMode{}
			}
			ac.Modes[k] = m
		}
		c.Agents[a.ID] = ac
	}
	if err := p.err(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// checkAPIURL checks a Bot API server's URL and returns it without a
// trailing slash: https, or http to this machine only (the bot token
// travels in every request's path), no user, query or fragment.
func checkAPIURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", errors.New(`is not a URL: want one like "https://api.telegram.org"`)
	}
	switch {
	case u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return "", errors.New("has a user, a query or a fragment: want the server's address only")
	case u.Scheme == "https":
	case u.Scheme == "http" && loopback(u.Hostname()):
	case u.Scheme == "http":
		return "", errors.New("is plain http to another machine, which would send the bot token in the clear: use https")
	default:
		return "", errors.New("is not an http(s) URL")
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// loopback reports whether host is this machine.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// customs checks the [[agents.custom]] tables: each needs a name and a
// display name, its icon is one of the tray's, and no two share a name.
func (p *problems) customs(in []customFile) []agents.CustomSpec {
	var out []agents.CustomSpec
	seen := map[string]int{}
	for i, cf := range in {
		at := func(k ...string) toml.Key { return append(toml.Key{"agents", customKey, strconv.Itoa(i)}, k...) }
		where := fmt.Sprintf("[[agents.custom]] number %d", i+1)
		if cf.Name == nil || cf.DisplayName == nil {
			p.add(at(), "%s needs name and display_name: name = \"my-bot\" makes the id custom-my-bot, display_name is what people see", where)
			continue
		}
		spec := agents.CustomSpec{Name: *cf.Name, Display: *cf.DisplayName}
		if err := agents.CheckCustom(spec); err != nil {
			k := "name"
			if errors.Is(err, agents.ErrCustomDisplay) {
				k = "display_name"
			}
			p.add(at(k), "%s: %s: %v", where, k, err)
			continue
		}
		if cf.Icon != nil {
			if !slices.Contains(icons.All(), icons.Name(*cf.Icon)) {
				p.add(at("icon"), "%s: icon = %q is not one of the tray's icons: want one of %s", where, *cf.Icon, iconNames())
				continue
			}
			spec.Icon = *cf.Icon
		}
		if j, dup := seen[spec.Name]; dup {
			p.add(at("name"), "%s: name %q is declared already by number %d: keep one", where, spec.Name, j+1)
			continue
		}
		seen[spec.Name] = i
		out = append(out, spec)
	}
	return out
}

// iconNames lists the tray's icon names.
func iconNames() string {
	var names []string
	for _, n := range icons.All() {
		names = append(names, string(n))
	}
	return strings.Join(names, ", ")
}

// notifications applies the [notifications] keys that are set to n.
func (p *problems) notifications(f notificationsFile, n Notifications) Notifications {
	for _, b := range []struct {
		v   *bool
		dst *bool
	}{
		{f.Enabled, &n.Enabled}, {f.Done, &n.Done}, {f.Permission, &n.Permission},
		{f.Question, &n.Question}, {f.Error, &n.Error}, {f.Sound, &n.Sound},
	} {
		if b.v != nil {
			*b.dst = *b.v
		}
	}
	p.duration("cooldown", f.Cooldown, MaxCooldown, "24h", &n.Cooldown)
	p.duration("sound_cooldown", f.SoundCooldown, MaxCooldown, "24h", &n.SoundCooldown)
	p.duration("done_grace", f.DoneGrace, MaxDoneGrace, "1m", &n.DoneGrace)
	if s := f.QuietHours; s != nil {
		q, err := ParseQuietHours(*s)
		if err != nil {
			p.add(toml.Key{"notifications", "quiet_hours"}, "notifications.quiet_hours = %q is %v", *s, err)
		} else {
			n.QuietHours = q
		}
	}
	return n
}

// duration sets *dst to the [notifications] duration named key when it is
// set and between 0s and limit (written limitText for people).
func (p *problems) duration(key string, s *string, limit time.Duration, limitText string, dst *time.Duration) {
	if s == nil {
		return
	}
	k := toml.Key{"notifications", key}
	d, err := time.ParseDuration(*s)
	switch {
	case err != nil:
		p.add(k, "%s = %q is not a duration: want a string like \"0s\", \"30s\" or \"2m\" between 0s and %s", k, *s, limitText)
	case d < 0 || d > limit:
		p.add(k, "%s = %q is out of range: want between 0s and %s", k, *s, limitText)
	default:
		*dst = d
	}
}

// decodeError rewords a TOML syntax or type error as "<path>:<line>: ...".
func decodeError(path string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := pe.Message
		if pe.Position.Line > 0 {
			return fmt.Errorf("%s:%d: %s", path, pe.Position.Line, msg)
		}
		return fmt.Errorf("%s: %s", path, msg)
	}
	// A value of the wrong type comes as a plain error:
	// toml: line 2 (last key "permissions.timeout"): incompatible types: ...
	if m := typeError().FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("%s:%s: %s has the wrong type: want %s", path, m[1], m[2], wantType(m[2]))
	}
	return fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "toml: "))
}

// typeError matches the toml library's error for a value of the wrong
// type. It is compiled on first use: every hook process starts this
// package.
var typeError = lazy.Regexp(`^toml: line (\d+) \(last key "([^"]*)"\): `)

// wantType says what a key of the schema holds, for type errors.
func wantType(key string) string {
	switch k := strings.Split(key, "."); {
	case key == "permissions":
		return "a table: [permissions]"
	case key == "permissions.timeout":
		return `a quoted duration like "10m"`
	case key == "permissions.headless":
		return `"none" or "ask"`
	case key == "notifications":
		return "a table: [notifications]"
	case key == "notifications.quiet_hours":
		return `a quoted span like "22:00-07:00", or ""`
	case k[0] == "notifications" && len(k) == 2 && slices.Contains([]string{"cooldown", "done_grace", "sound_cooldown"}, k[1]):
		return `a quoted duration like "60s"`
	case k[0] == "notifications" && len(k) == 2:
		return "true or false"
	case key == "ui":
		return "a table: [ui]"
	case key == "ui.language":
		return fmt.Sprintf("a quoted language like %q, %q or %q", i18n.Auto, i18n.English, i18n.Chinese)
	case key == "doctor":
		return "a table: [doctor]"
	case key == "doctor.self_repair":
		return "true or false"
	case key == "channels":
		return "a table per channel: [channels.telegram]"
	case key == "channels.telegram":
		return "a table: [channels.telegram]"
	case key == "channels.telegram.enabled":
		return "true or false"
	case key == "channels.telegram.token_file":
		return `a quoted path like "telegram.token"`
	case key == "channels.telegram.api_url":
		return `a quoted URL like "https://api.telegram.org"`
	case key == "agents":
		return "a table per agent: [agents.<id>]"
	case key == "agents.custom":
		return "an array of tables, each written [[agents.custom]]"
	case k[0] == "agents" && len(k) == 3 && k[1] == customKey:
		return "a quoted string"
	case k[0] == "agents" && len(k) == 2:
		return "a table: [agents." + k[1] + "]"
	case k[0] == "agents" && len(k) == 3 && slices.Contains([]string{"enabled", "subagent_permissions", "permissions"}, k[2]):
		return "true or false"
	case k[0] == "agents" && len(k) == 3 && k[2] == "permission_mode":
		return `"intercept" or "native"`
	case k[0] == "agents" && len(k) == 3 && k[2] == "permission_modes":
		return `a table of session kind = "intercept" or "native"`
	case k[0] == "agents" && len(k) == 4 && k[2] == "permission_modes":
		return `"intercept" or "native"`
	}
	return "what the config schema says"
}

// knownKeys says which keys the table holding k accepts.
func knownKeys(k toml.Key) string {
	switch {
	case len(k) == 1:
		return "known tables: [permissions], [notifications], [agents.<id>], [doctor], [ui], [channels.telegram]"
	case k[0] == "permissions" && len(k) == 2:
		return "known keys in [permissions]: timeout, headless"
	case k[0] == "notifications" && len(k) == 2:
		return "known keys in [notifications]: enabled, done, permission, question, error, cooldown, done_grace, quiet_hours, sound, sound_cooldown"
	case k[0] == "ui" && len(k) == 2:
		return "known keys in [ui]: language"
	case k[0] == "agents" && k[1] == customKey && len(k) == 3:
		return "known keys in [[agents.custom]]: name, display_name, icon"
	case k[0] == "agents" && len(k) == 3:
		return "known keys in [agents.<id>]: enabled, subagent_permissions, permissions, permission_mode, permission_modes"
	case k[0] == "doctor" && len(k) == 2:
		return "known keys in [doctor]: self_repair"
	case k[0] == "channels" && len(k) == 2:
		return "known tables in [channels]: [channels.telegram]"
	case k[0] == "channels" && k[1] == "telegram" && len(k) == 3:
		return "known keys in [channels.telegram]: enabled, token_file, api_url"
	case k[0] == "agents" && len(k) == 2:
		return "an agent needs a table: [agents." + k[1] + "]"
	}
	return "not part of the config schema"
}

// subagentAgents lists the ids of the agents that report subagents.
func subagentAgents() string {
	var ids []string
	for _, a := range agents.All() {
		if a.Supports.Subagents {
			ids = append(ids, a.ID)
		}
	}
	return strings.Join(ids, ", ")
}

func agentIDs() string {
	var ids []string
	for _, a := range agents.All() {
		ids = append(ids, a.ID)
	}
	return strings.Join(ids, ", ")
}

// problems collects every error in one file, in line order.
type problems struct {
	path  string
	lines map[string]int
	list  []problem
}

type problem struct {
	line int
	msg  string
}

func (p *problems) line(k toml.Key) int {
	if n, ok := p.lines[strings.Join(k, "\x00")]; ok || len(k) < 3 || k[0] != "agents" || k[1] != customKey {
		return n
	}
	// The toml library names a key of [[agents.custom]] without the
	// table's index: the first table that has it is the one.
	for i := 0; i < maxProblems*8; i++ {
		if n, ok := p.lines[strings.Join(append(toml.Key{"agents", customKey, strconv.Itoa(i)}, k[2:]...), "\x00")]; ok {
			return n
		}
	}
	return 0
}

func (p *problems) add(k toml.Key, format string, args ...any) {
	p.list = append(p.list, problem{line: p.line(k), msg: fmt.Sprintf(format, args...)})
}

// maxProblems is how many of a file's problems its error lists: a file of
// 16,000 unknown keys would otherwise make a 3 MB message.
const maxProblems = 20

func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	slices.SortStableFunc(p.list, func(a, b problem) int { return a.line - b.line })
	errs := make([]error, 0, min(len(p.list), maxProblems)+1)
	for _, pr := range p.list[:min(len(p.list), maxProblems)] {
		if pr.line > 0 {
			errs = append(errs, fmt.Errorf("%s:%d: %s", p.path, pr.line, pr.msg))
		} else {
			errs = append(errs, fmt.Errorf("%s: %s", p.path, pr.msg))
		}
	}
	if more := len(p.list) - maxProblems; more > 0 {
		errs = append(errs, fmt.Errorf("%s: and %d more problems", p.path, more))
	}
	return errors.Join(errs...)
}

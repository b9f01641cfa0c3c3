package automations

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/boundedfile"
	"github.com/clawdhq/clawd/internal/lazy"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/internal/tomlpos"
)

// File is the definitions' file in the clawd home.
const File = "automations.toml"

// Definition is one automation: on which event, under which condition,
// which action runs with which input, by which policy, where (bindings).
type Definition struct {
	ID          string     `toml:"id" json:"id"`
	Name        string     `toml:"name,omitempty" json:"name,omitempty"`
	Description string     `toml:"description,omitempty" json:"description,omitempty"`
	Enabled     *bool      `toml:"enabled,omitempty" json:"enabled,omitempty"`
	Event       EventName  `toml:"event" json:"event"`
	Condition   *Condition `toml:"condition,omitempty" json:"condition,omitempty"`
	Action      Action     `toml:"action" json:"action"`
	Input       Input      `toml:"input,omitempty" json:"input,omitempty"`
	Policy      Policy     `toml:"policy,omitempty" json:"policy"`
	Bindings    []Binding  `toml:"bindings,omitempty" json:"bindings,omitempty"`

	// Line is where the definition starts in its file.
	Line int `toml:"-" json:"line,omitempty"`
}

// IsEnabled reports whether the definition is on: enabled unless it says
// enabled = false.
func (d *Definition) IsEnabled() bool { return d.Enabled == nil || *d.Enabled }

// Action is what a definition does.
type Action struct {
	// Type is "notification", "sound", "webhook", "command", "slack",
	// "discord" or "ntfy".
	Type string `toml:"type" json:"type"`
	// Title and Body are a notification's texts, templates with
	// ${path} placeholders. An empty title falls back to the event's own.
	// Title is an ntfy message's title too.
	Title string `toml:"title,omitempty" json:"title,omitempty"`
	Body  string `toml:"body,omitempty" json:"body,omitempty"`
	// Text is a slack, discord or ntfy message: a template with ${path}
	// placeholders.
	Text string `toml:"text,omitempty" json:"text,omitempty"`
	// URL is where a webhook, slack or discord action posts (for those two
	// the service's incoming webhook URL), or an ntfy action's server.
	// Headers are a webhook's or an ntfy action's own (an ntfy access
	// token: Authorization = "Bearer tk_...").
	URL     string            `toml:"url,omitempty" json:"url,omitempty"`
	Headers map[string]string `toml:"headers,omitempty" json:"headers,omitempty"`
	// BodyTemplate replaces a webhook's {"event", "input"} body: JSON
	// text with ${path} placeholders, which write the value's text escaped
	// for JSON inside a string, and the value as JSON elsewhere.
	BodyTemplate string `toml:"body_template,omitempty" json:"body_template,omitempty"`
	// Blocks are a slack message's Block Kit blocks, Embeds a discord
	// message's embeds: JSON arrays with placeholders as in BodyTemplate.
	Blocks string `toml:"blocks,omitempty" json:"blocks,omitempty"`
	Embeds string `toml:"embeds,omitempty" json:"embeds,omitempty"`
	// Username is the name a discord message is posted under instead of
	// the webhook's.
	Username string `toml:"username,omitempty" json:"username,omitempty"`
	// Topic, Priority (1 min to 5 max, 3 ntfy's default), Tags and Click
	// (the URL opened when the notification is tapped) are an ntfy
	// message's.
	Topic    string   `toml:"topic,omitempty" json:"topic,omitempty"`
	Priority int      `toml:"priority,omitempty" json:"priority,omitempty"`
	Tags     []string `toml:"tags,omitempty" json:"tags,omitempty"`
	Click    string   `toml:"click,omitempty" json:"click,omitempty"`
	// Argv is a command: the program and its arguments, never a shell;
	// it gets {"event", "input"} as JSON on stdin.
	Argv []string `toml:"argv,omitempty" json:"argv,omitempty"`
}

// Action types.
const (
	ActionNotification = "notification"
	ActionSound        = "sound"
	ActionWebhook      = "webhook"
	ActionCommand      = "command"
	ActionSlack        = "slack"
	ActionDiscord      = "discord"
	ActionNtfy         = "ntfy"
)

// knownAction are the action types.
var knownAction = map[string]bool{ActionNotification: true, ActionSound: true, ActionWebhook: true, ActionCommand: true,
	ActionSlack: true, ActionDiscord: true, ActionNtfy: true}

// ownText are the action types that send a message of their own making,
// never the event or an input.
var ownText = map[string]bool{ActionSlack: true, ActionDiscord: true, ActionNtfy: true}

// actionField is one optional field of an action: whether it is set, and
// the types it belongs to.
type actionField struct {
	name  string
	set   bool
	types []string
}

// fields are a's optional fields.
func (a *Action) fields() []actionField {
	return []actionField{
		{"title", a.Title != "", []string{ActionNotification, ActionNtfy}},
		{"body", a.Body != "", []string{ActionNotification}},
		{"text", a.Text != "", []string{ActionSlack, ActionDiscord, ActionNtfy}},
		{"url", a.URL != "", []string{ActionWebhook, ActionSlack, ActionDiscord, ActionNtfy}},
		{"headers", len(a.Headers) > 0, []string{ActionWebhook, ActionNtfy}},
		{"body_template", a.BodyTemplate != "", []string{ActionWebhook}},
		{"blocks", a.Blocks != "", []string{ActionSlack}},
		{"embeds", a.Embeds != "", []string{ActionDiscord}},
		{"username", a.Username != "", []string{ActionDiscord}},
		{"topic", a.Topic != "", []string{ActionNtfy}},
		{"priority", a.Priority != 0, []string{ActionNtfy}},
		{"tags", len(a.Tags) > 0, []string{ActionNtfy}},
		{"click", a.Click != "", []string{ActionNtfy}},
		{"argv", len(a.Argv) > 0, []string{ActionCommand}},
	}
}

// describeType names a's kind in an error: "a slack action", "a webhook
// with a body_template".
func describeType(a *Action) string {
	if a.Type == ActionWebhook {
		return "a webhook with a body_template"
	}
	return "a " + a.Type + " action"
}

// ntfyTopic is what ntfy takes as a topic name (docs/publish.md,
// "Picking a topic").
var ntfyTopic = lazy.Regexp(`^[-_A-Za-z0-9]{1,64}$`)

// Policy is how a definition's runs are carried out.
type Policy struct {
	// Timeout bounds one attempt: 1 s to 120 s, default 15 s.
	Timeout Duration `toml:"timeout,omitempty" json:"timeout"`
	// Retry says which failures are tried again: "unsafe" (none, the
	// default), "safe" (transient failures and timeouts), "keyed" (those
	// too, with an Idempotency-Key the receiver can deduplicate by: a
	// webhook's only).
	Retry string `toml:"retry,omitempty" json:"retry"`
	// MaxAttempts bounds the attempts of a run (default 3; "unsafe" makes
	// one).
	MaxAttempts int `toml:"max_attempts,omitempty" json:"max_attempts"`
	// Backoff is the wait before the second attempt, doubling after each
	// (default 1 s).
	Backoff Duration `toml:"backoff,omitempty" json:"backoff"`
	// Concurrency "serial" (the default) runs one run of the definition
	// per session at a time, in order; "parallel" does not wait.
	Concurrency string `toml:"concurrency,omitempty" json:"concurrency"`
}

// Policy values and bounds.
const (
	RetryUnsafe = "unsafe"
	RetrySafe   = "safe"
	RetryKeyed  = "keyed"

	ConcurrencySerial   = "serial"
	ConcurrencyParallel = "parallel"

	DefaultTimeout     = 15 * time.Second
	MinTimeout         = time.Second
	MaxTimeout         = 120 * time.Second
	DefaultMaxAttempts = 3
	MaxMaxAttempts     = 10
	DefaultBackoff     = time.Second
	MaxBackoff         = time.Hour
)

// Effective is the policy runs follow: p with the defaults filled in
// where it leaves a field out.
func (p Policy) Effective() Policy { return p.withDefaults() }

// withDefaults fills what the policy leaves out.
func (p Policy) withDefaults() Policy {
	if p.Timeout == 0 {
		p.Timeout = Duration(DefaultTimeout)
	}
	if p.Retry == "" {
		p.Retry = RetryUnsafe
	}
	if p.MaxAttempts == 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.Backoff == 0 {
		p.Backoff = Duration(DefaultBackoff)
	}
	if p.Concurrency == "" {
		p.Concurrency = ConcurrencySerial
	}
	return p
}

// Duration is a time.Duration written as "15s" (or a number of seconds).
type Duration time.Duration

// UnmarshalTOML reads "15s" or 15.
func (d *Duration) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		x, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%q is not a duration (like \"15s\")", v)
		}
		*d = Duration(x)
	case int64:
		*d = Duration(time.Duration(v) * time.Second)
	case float64:
		*d = Duration(time.Duration(v * float64(time.Second)))
	default:
		return fmt.Errorf("a duration is a string like \"15s\", not %T", v)
	}
	return nil
}

// MarshalText writes "15s".
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads "15s".
func (d *Duration) UnmarshalText(b []byte) error {
	x, err := time.ParseDuration(string(b))
	*d = Duration(x)
	return err
}

// Binding is where a definition acts: the whole machine (application),
// a workspace (a folder: the session's cwd or repository root), an agent,
// or one session. For one event the most specific binding that matches
// wins (session > agent > workspace > application).
type Binding struct {
	Scope   string `toml:"scope" json:"scope"`
	ID      string `toml:"id,omitempty" json:"id,omitempty"`
	Enabled *bool  `toml:"enabled,omitempty" json:"enabled,omitempty"`
}

// Binding scopes, least specific first.
const (
	ScopeApplication = "application"
	ScopeWorkspace   = "workspace"
	ScopeAgent       = "agent"
	ScopeSession     = "session"
)

var scopeRank = map[string]int{ScopeApplication: 0, ScopeWorkspace: 1, ScopeAgent: 2, ScopeSession: 3}

// IsEnabled reports whether the binding is on (the default).
func (b *Binding) IsEnabled() bool { return b.Enabled == nil || *b.Enabled }

// Key names the binding: "application", "workspace:/home/me/shop".
func (b *Binding) Key() string {
	if b.Scope == ScopeApplication {
		return ScopeApplication
	}
	return b.Scope + ":" + b.ID
}

// bindings returns d's bindings: one application binding when it names
// none.
func (d *Definition) bindings() []Binding {
	if len(d.Bindings) == 0 {
		return []Binding{{Scope: ScopeApplication}}
	}
	return d.Bindings
}

// matches reports whether b applies to env.
func (b *Binding) matches(env *Envelope) bool {
	switch b.Scope {
	case ScopeApplication:
		return true
	case ScopeWorkspace:
		for _, w := range env.Workspaces {
			if w.ID == b.ID {
				return true
			}
		}
	case ScopeAgent:
		return env.Agent != nil && env.Agent.ID == b.ID
	case ScopeSession:
		return env.Session.ID == b.ID
	}
	return false
}

// Hash is the definition's execution hash: the SHA-256 of the canonical
// JSON (keys sorted at every level, absent values left out) of what it
// does: event, condition, action, input and policy with its defaults.
// Trust is given to a hash; a change of any of those fields needs a new
// one, while a rename, a description or enabling does not.
func (d *Definition) Hash() string {
	exec := struct {
		Event     EventName  `json:"event"`
		Condition *Condition `json:"condition,omitempty"`
		Action    Action     `json:"action"`
		Input     Input      `json:"input,omitempty"`
		Policy    Policy     `json:"policy"`
	}{d.Event, d.Condition, d.Action, d.Input, d.Policy.withDefaults()}
	if exec.Condition.empty() {
		exec.Condition = nil
	}
	if len(exec.Input) == 0 {
		exec.Input = nil
	}
	sum := sha256.Sum256(canonicalJSON(exec))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// canonicalJSON renders v with the keys of every object sorted: through
// generic values, whose maps encoding/json sorts.
func canonicalJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("automations: canonical JSON: %v", err))
	}
	var generic any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		panic(fmt.Sprintf("automations: canonical JSON: %v", err))
	}
	out, _ := json.Marshal(generic)
	return out
}

// Leaves lists what an action sends off the machine, for a person to
// confirm before trusting: the input's fields, and what else the action
// carries (the whole event for a webhook or command, a body_template or a
// service's templates as written, the names of its headers but not their
// values, a Slack or Discord URL without its token).
func (d *Definition) Leaves() []string {
	var out []string
	a := &d.Action
	switch a.Type {
	case ActionWebhook:
		if a.BodyTemplate != "" {
			out = append(out, "the JSON of body_template "+strconvQuote(a.BodyTemplate)+" with its placeholders filled in, to "+a.URL)
		} else {
			out = append(out, "the whole event envelope (session title, folders, agent, turn; for response.committed the answer's text) to "+a.URL)
		}
		out = appendHeaderNames(out, a.Headers)
	case ActionSlack:
		out = append(out, "a Slack message to "+hideToken(a.URL))
		out = appendTemplate(out, "text", a.Text)
		out = appendTemplate(out, "blocks", a.Blocks)
	case ActionDiscord:
		out = append(out, "a Discord message to "+hideToken(a.URL))
		out = appendTemplate(out, "content", a.Text)
		out = appendTemplate(out, "embeds", a.Embeds)
		if a.Username != "" {
			out = append(out, "username = "+strconvQuote(a.Username))
		}
	case ActionNtfy:
		out = append(out, "an ntfy message to topic "+a.Topic+" on "+a.URL)
		out = appendTemplate(out, "title", cmpOr(a.Title, fallbackTitles[d.Event]))
		out = appendTemplate(out, "message", a.Text)
		if a.Priority != 0 {
			out = append(out, fmt.Sprintf("priority = %d", a.Priority))
		}
		if len(a.Tags) > 0 {
			out = append(out, "tags = "+strings.Join(a.Tags, ","))
		}
		if a.Click != "" {
			out = append(out, "click = "+a.Click)
		}
		out = appendHeaderNames(out, a.Headers)
	case ActionCommand:
		out = append(out, "the whole event envelope on the standard input of "+strings.Join(d.Action.Argv, " "))
	case ActionNotification:
		out = append(out, "a desktop notification: "+cmpOr(d.Action.Title, "the event's own title"))
	case ActionSound:
		out = append(out, "a sound, nothing else")
	}
	for _, k := range d.Input.keys() {
		x := d.Input[k]
		switch {
		case x.Path != "":
			out = append(out, "input."+k+" = "+x.Path)
		case x.Template != "":
			out = append(out, "input."+k+" = "+strconvQuote(x.Template))
		case x.Null:
			out = append(out, "input."+k+" = null")
		default:
			b, _ := json.Marshal(x.Const)
			out = append(out, "input."+k+" = "+string(b))
		}
	}
	return out
}

// appendTemplate adds "name = template" to leaves when the template is
// set.
func appendTemplate(leaves []string, name, tmpl string) []string {
	if tmpl == "" {
		return leaves
	}
	return append(leaves, name+" = "+strconvQuote(tmpl))
}

// appendHeaderNames adds the names of the headers sent, not their values
// (an API key).
func appendHeaderNames(leaves []string, h map[string]string) []string {
	if len(h) == 0 {
		return leaves
	}
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	return append(leaves, "headers "+strings.Join(names, ", ")+" (their values not shown)")
}

// hideToken is a Slack or Discord webhook URL without its last path
// segment, the token that lets anyone post: what a person checks is the
// host.
func hideToken(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "a URL that does not parse"
	}
	p := strings.TrimSuffix(u.Path, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 && i < len(p)-1 {
		p = p[:i+1] + "…"
	}
	return u.Scheme + "://" + u.Host + p
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// idPattern is what a definition's id may look like: it is typed on the
// command line and stored.
var idPattern = lazy.Regexp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// Bounds of automations.toml. The file is read while `clawd serve` starts
// and on every reload, so what is in it must not decide how long that
// takes: 8,000 nested inline tables kept the TOML decoder busy for 42 s,
// and 10,000 definitions listening to every event made each hook wait.
const (
	// MaxFileSize caps the file: hundreds of definitions fit in 1 MiB.
	MaxFileSize = 1 << 20
	// MaxDepth caps how deep arrays and inline tables nest (a [[table]]
	// header counts two); a condition's all/any/not nest 8 deep at most.
	MaxDepth = 32
	// MaxDefinitions caps the definitions of the file, all of which are
	// looked at for every lifecycle event.
	MaxDefinitions = 256
	// maxProblems caps the problems one error lists.
	maxProblems = 50
)

// ReadFile reads automations.toml at path through the one bounded reader:
// a regular file of at most MaxFileSize. A missing file's error wraps
// os.ErrNotExist; the others say what to do.
func ReadFile(path string) ([]byte, error) {
	data, err := boundedfile.Read(path, MaxFileSize)
	switch {
	case errors.Is(err, boundedfile.ErrNotRegular):
		return nil, fmt.Errorf("%w: automations.toml must be a plain file: replace it with one (or remove it)", err)
	case errors.Is(err, boundedfile.ErrTooLarge):
		return nil, fmt.Errorf("%w: automations.toml is capped at %d KiB (and %d definitions): remove definitions it does not need",
			err, MaxFileSize>>10, MaxDefinitions)
	}
	return data, err
}

// Parse reads automations.toml (path names it in errors). Every problem is
// reported (the first maxProblems of them), each as
// "<path>:<line>: automation <id>: <field>: <what>", with whatever the
// file wrote quoted so that no control or bidi character reaches a
// terminal; no definition of a file with problems is used. A file nested
// deeper than MaxDepth, or with more than MaxDefinitions definitions, is
// refused whole.
func Parse(data []byte, path string) ([]Definition, error) {
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: larger than %d KiB: remove definitions it does not need", path, MaxFileSize>>10)
	}
	if line, ok := tooDeep(data, MaxDepth); !ok {
		return nil, fmt.Errorf("%s:%d: nested more than %d deep (arrays and inline tables): write it flatter", path, line, MaxDepth)
	}
	var doc struct {
		Automation []Definition `toml:"automation"`
	}
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", path, pe.Position.Line, escapeHidden(pe.Message))
		}
		return nil, fmt.Errorf("%s: %s", path, escapeHidden(err.Error()))
	}
	if n := len(doc.Automation); n > MaxDefinitions {
		return nil, fmt.Errorf("%s: %d definitions, more than the %d clawd takes: remove some", path, n, MaxDefinitions)
	}
	lines := tomlpos.Lines(data)
	var errs []error
	if un := md.Undecoded(); len(un) > 0 {
		first := firstLines(lines)
		for _, k := range un {
			errs = append(errs, fmt.Errorf("%s:%d: unknown key %s", path, lineOf(first, k), quoteKey(k)))
		}
	}
	seen := map[string]bool{}
	for i := range doc.Automation {
		d := &doc.Automation[i]
		d.Line = lines[tomlpos.Key("automation", fmt.Sprint(i))]
		at := func(field string) int {
			top, _, _ := strings.Cut(field, ".")
			top, _, _ = strings.Cut(top, "[")
			if l := lines[tomlpos.Key("automation", fmt.Sprint(i), top)]; l > 0 {
				return l
			}
			return d.Line
		}
		name := fmt.Sprint("#", i+1)
		if d.ID != "" {
			name = quoteID(d.ID)
		}
		for _, p := range d.check() {
			errs = append(errs, fmt.Errorf("%s:%d: automation %s: %s", path, at(p.field), name, escapeHidden(p.msg)))
		}
		if d.ID != "" {
			if seen[d.ID] {
				errs = append(errs, fmt.Errorf("%s:%d: automation %s: id: used twice", path, at("id"), name))
			}
			seen[d.ID] = true
		}
	}
	if len(errs) > maxProblems {
		errs = append(errs[:maxProblems], fmt.Errorf("%s: and %d more problems", path, len(errs)-maxProblems))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return doc.Automation, nil
}

// firstLines indexes lines (see tomlpos.Lines) by the key the decoder
// names, without the indices of arrays of tables: the first line each
// is written on. One pass, so that a key's line is one look-up: searching
// lines for each of 16,000 unknown keys took 285 s.
func firstLines(lines map[string]int) map[string]int {
	out := make(map[string]int, len(lines))
	var pieces []string
	for key, l := range lines {
		pieces = pieces[:0]
		for _, p := range strings.Split(key, "\x00") {
			if _, err := strconv.Atoi(p); err != nil {
				pieces = append(pieces, p)
			}
		}
		k := tomlpos.Key(pieces...)
		if best, ok := out[k]; !ok || l < best {
			out[k] = l
		}
	}
	return out
}

// lineOf is the line of k in first (see firstLines), or of its nearest
// enclosing key found there: tomlpos does not see into inline tables.
func lineOf(first map[string]int, k toml.Key) int {
	for n := len(k); n > 0; n-- {
		if l, ok := first[tomlpos.Key(k[:n]...)]; ok {
			return l
		}
	}
	return 0
}

// tooDeep scans data for arrays and inline tables (and table headers)
// nested more than max deep, outside strings and comments, before the
// decoder sees them; ok is false with the line where the nesting passes
// limit. It does not check the syntax: the decoder does, once the nesting
// is known to be small.
func tooDeep(data []byte, limit int) (line int, ok bool) {
	line, depth := 1, 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\n':
			line++
		case '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			i-- // the newline counts the line
		case '"', '\'':
			multi := i+2 < len(data) && data[i+1] == c && data[i+2] == c
			if multi {
				i += 2
			}
			for i++; i < len(data); i++ {
				if data[i] == '\n' {
					line++
					if !multi {
						break // an open single-line string: the decoder says so
					}
				}
				if c == '"' && data[i] == '\\' {
					if i+1 < len(data) && data[i+1] == '\n' {
						line++
					}
					i++
					continue
				}
				if data[i] == c && (!multi || i+2 < len(data) && data[i+1] == c && data[i+2] == c) {
					if multi {
						i += 2
						// """ may end with up to two more quotes, which belong to the string.
						for i+1 < len(data) && data[i+1] == c {
							i++
						}
					}
					break
				}
			}
		case '[', '{':
			if depth++; depth > limit {
				return line, false
			}
		case ']', '}':
			depth = max(0, depth-1)
		}
	}
	return 0, true
}

// quoteID is an automation's id for an error: as it is when it is a valid
// id, quoted (control and bidi characters escaped) when not.
func quoteID(id string) string {
	if idPattern().MatchString(id) {
		return id
	}
	return strconv.Quote(id)
}

// quoteKey is a TOML key for an error: bare pieces as they are, the
// others quoted with every unprintable character escaped (toml.Key's own
// String leaves format characters such as U+202E raw).
func quoteKey(k toml.Key) string {
	ps := make([]string, len(k))
	for i, p := range k {
		ps[i] = p
		if !bareKey(p) {
			ps[i] = strconv.Quote(p)
		}
	}
	return strings.Join(ps, ".")
}

func bareKey(s string) bool {
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return s != ""
}

// escapeHidden spells every character text.Line would hide (controls,
// format characters: ESC, U+202E) and every invalid byte of s as a Go
// escape, so an error that quotes a file's content cannot drive a
// terminal; the newlines between problems stay.
func escapeHidden(s string) string {
	clean := true
	for _, r := range s {
		if r != '\n' && (r == utf8.RuneError || text.Hidden(r)) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r != '\n' && text.Hidden(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// problem is one thing wrong with a definition: the field and what.
type problem struct{ field, msg string }

// check validates d and compiles its conditions.
func (d *Definition) check() []problem {
	var ps []problem
	add := func(field, format string, args ...any) {
		ps = append(ps, problem{field, field + ": " + fmt.Sprintf(format, args...)})
	}
	if !idPattern().MatchString(d.ID) {
		add("id", "%q: letters, digits, '.', '_' and '-', at most 64, starting with a letter or digit", d.ID)
	}
	if !d.Event.Valid() {
		var names []string
		for _, n := range EventNames {
			names = append(names, string(n))
		}
		add("event", "%q is not a lifecycle event (%s)", d.Event, strings.Join(names, ", "))
		return ps // paths depend on the event
	}
	if d.Condition != nil {
		if err := d.Condition.check(d.Event, "condition", 0); err != nil {
			ps = append(ps, problem{"condition", err.Error()})
		}
	}
	if err := d.Input.check(d.Event); err != nil {
		ps = append(ps, problem{"input", err.Error()})
	}
	a := &d.Action
	template := func(field, s string) {
		if s == "" {
			return
		}
		x := Expr{Template: s}
		if err := x.check(d.Event, field); err != nil {
			ps = append(ps, problem{field, err.Error()})
		}
	}
	jsonTemplate := func(field, s string, array bool) {
		if s == "" {
			return
		}
		if err := checkJSONTemplate(s, d.Event, field, array); err != nil {
			ps = append(ps, problem{field, err.Error()})
		}
	}
	postURL := func(what string) {
		u, err := url.Parse(a.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			add("action.url", "%q: %s needs an http:// or https:// URL", a.URL, what)
		}
	}
	switch a.Type {
	case ActionNotification:
		template("action.title", a.Title)
		template("action.body", a.Body)
	case ActionSound:
	case ActionWebhook:
		postURL("a webhook")
		jsonTemplate("action.body_template", a.BodyTemplate, false)
	case ActionCommand:
		if len(a.Argv) == 0 || a.Argv[0] == "" {
			add("action.argv", "a command needs argv = [\"/path/to/program\", \"args\"...] (no shell is run)")
		} else if strings.ContainsRune(a.Argv[0], '/') && !filepath.IsAbs(a.Argv[0]) {
			add("action.argv", "%q: give the program's absolute path, or a name found on PATH", a.Argv[0])
		}
	case ActionSlack:
		postURL("a slack action (its incoming webhook's URL)")
		if a.Text == "" && a.Blocks == "" {
			add("action.text", "a slack message needs a text (or blocks)")
		}
		template("action.text", a.Text)
		jsonTemplate("action.blocks", a.Blocks, true)
	case ActionDiscord:
		postURL("a discord action (its webhook's URL)")
		if a.Text == "" && a.Embeds == "" {
			add("action.text", "a discord message needs a text (or embeds)")
		}
		template("action.text", a.Text)
		if n := utf8.RuneCountInString(a.Username); n > discordMaxUsername || a.Username != text.Line(a.Username, 0) {
			add("action.username", "%q: one line of at most %d characters", a.Username, discordMaxUsername)
		}
		jsonTemplate("action.embeds", a.Embeds, true)
	case ActionNtfy:
		postURL("an ntfy action (its server's)")
		if !ntfyTopic().MatchString(a.Topic) {
			add("action.topic", "%q: an ntfy topic is 1 to 64 letters, digits, '-' and '_'", a.Topic)
		}
		if a.Text == "" {
			add("action.text", "an ntfy message needs a text")
		}
		template("action.text", a.Text)
		template("action.title", a.Title)
		if a.Priority < 0 || a.Priority > 5 {
			add("action.priority", "%d: 1 (min) to 5 (max); 3 is ntfy's default", a.Priority)
		}
		for _, tag := range a.Tags {
			if tag == "" || strings.Contains(tag, ",") || tag != text.Line(tag, 0) {
				add("action.tags", "%q: a tag is one line without commas", tag)
			}
		}
		if a.Click != "" {
			if u, err := url.Parse(a.Click); err != nil || u.Scheme == "" || a.Click != text.Line(a.Click, 0) {
				add("action.click", "%q: an absolute URL (https://..., mailto:...)", a.Click)
			}
		}
	default:
		add("action.type", "%q: notification, sound, webhook, command, slack, discord or ntfy", a.Type)
	}
	for k, v := range a.Headers {
		if k == "" || strings.ContainsAny(k, ": \r\n") {
			add("action.headers", "%q is not a header name", k)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			add("action.headers", "%q: a header's value is one line", k)
		}
	}
	if knownAction[a.Type] {
		for _, f := range a.fields() {
			if f.set && !slices.Contains(f.types, a.Type) {
				add("action."+f.name, "belongs to %s, not to %s", strings.Join(f.types, " or "), a.Type)
			}
		}
	}
	if len(d.Input) > 0 && (ownText[a.Type] || a.Type == ActionWebhook && a.BodyTemplate != "") {
		add("input", "%s sends its own text, not an input: read the event in the template instead (${session.title})", describeType(a))
	}
	p := d.Policy.withDefaults()
	if t := time.Duration(p.Timeout); t < MinTimeout || t > MaxTimeout {
		add("policy.timeout", "%v: between %v and %v", t, MinTimeout, MaxTimeout)
	}
	switch p.Retry {
	case RetryUnsafe, RetrySafe:
	case RetryKeyed:
		if a.Type != ActionWebhook {
			add("policy.retry", "keyed retries need an action that takes an idempotency key, and only a webhook does (%s does not): use safe or unsafe", cmpOr(a.Type, "this action"))
		}
	default:
		add("policy.retry", "%q: unsafe, safe or keyed", p.Retry)
	}
	if p.MaxAttempts < 1 || p.MaxAttempts > MaxMaxAttempts {
		add("policy.max_attempts", "%d: between 1 and %d", p.MaxAttempts, MaxMaxAttempts)
	}
	if b := time.Duration(p.Backoff); b < 0 || b > MaxBackoff {
		add("policy.backoff", "%v: between 0 and %v", b, MaxBackoff)
	}
	switch p.Concurrency {
	case ConcurrencySerial, ConcurrencyParallel:
	default:
		add("policy.concurrency", "%q: serial or parallel", p.Concurrency)
	}
	keys := map[string]bool{}
	for i, b := range d.Bindings {
		f := fmt.Sprintf("bindings[%d]", i)
		switch b.Scope {
		case ScopeApplication:
			if b.ID != "" {
				add(f+".id", "the application scope takes no id")
			}
		case ScopeWorkspace:
			if !filepath.IsAbs(b.ID) {
				add(f+".id", "%q: a workspace is a folder's absolute path", b.ID)
			}
		case ScopeAgent:
			if a := agents.Lookup(b.ID); a == nil {
				add(f+".id", "%q is not an agent clawd knows", b.ID)
			} else {
				d.Bindings[i].ID = a.ID // an alias names the same agent
				b.ID = a.ID
			}
		case ScopeSession:
			if b.ID == "" {
				add(f+".id", "a session binding needs the session's id")
			}
		default:
			add(f+".scope", "%q: application, workspace, agent or session", b.Scope)
		}
		if keys[b.Key()] {
			add(f, "%s is bound twice", b.Key())
		}
		keys[b.Key()] = true
	}
	return ps
}

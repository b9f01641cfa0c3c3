package agents

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/clawdhq/clawd/internal/lazy"
)

// Custom agents are the person's own programs (a script, a bot, an agent
// clawd has no file for) declared in config.toml:
//
//	[[agents.custom]]
//	name = "mybot"            # the id is custom-mybot
//	display_name = "My Bot"
//	icon = "working"          # optional: a tray icon name
//
// They have no hooks, no installer and no decoder: they report their state
// themselves over the original app's POST /state ({"agent_id":
// "custom-mybot", "state": "working", ...}) on the runtime's socket or
// with the API token, and "sleeping" ends their session. clawd never
// answers a permission of theirs: a request they send is answered "no
// decision" at once and shows no bubble. An id with the custom- prefix
// that config.toml does not declare is no agent: clawd refuses it rather
// than take it for another.
//
// The registry learns them at run time, from whoever read config.toml
// (SetCustom); this package does no I/O. Lookup finds them, All does not
// list them: All is the agents clawd ships support for (installers,
// doctor, clawd agents); Custom lists the declared ones.

// CustomPrefix starts every custom agent's id.
const CustomPrefix = "custom-"

// CustomSpec is one [[agents.custom]] table of config.toml.
type CustomSpec struct {
	// Name is the id without CustomPrefix.
	Name string
	// Display is the name people see (the tray, the dashboard, clawd
	// status).
	Display string
	// Icon is a tray icon's name (internal/icons), "" for none.
	Icon string
}

// ID is the agent id of the spec: CustomPrefix and its name.
func (s CustomSpec) ID() string { return CustomPrefix + s.Name }

// Limits of a custom agent's names.
const (
	// MaxCustomName bounds the name: its id must fit an event's agent
	// word (MaxWordLen) with the prefix.
	MaxCustomName = MaxWordLen - len(CustomPrefix)
	// MaxCustomDisplay bounds the display name, in characters.
	MaxCustomDisplay = 40
)

// customName is what a custom agent's name may be: lower-case letters,
// digits and inner dashes, as ids are typed on command lines.
var customName = lazy.Regexp(`^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$`)

// Errors of CheckCustom.
var (
	ErrCustomName    = errors.New("not a custom agent name")
	ErrCustomDisplay = errors.New("not a display name")
)

// CheckCustom checks a spec's name and display name (the icon is the
// config's to check: the names of the tray's icons are not this
// package's).
func CheckCustom(s CustomSpec) error {
	switch {
	case len(s.Name) > MaxCustomName:
		return fmt.Errorf("%w: %q is longer than %d characters", ErrCustomName, clip(s.Name, MaxWordLen), MaxCustomName)
	case !customName().MatchString(s.Name):
		return fmt.Errorf("%w: %q: use lower-case letters, digits and dashes (not at either end), like \"my-bot\"", ErrCustomName, clip(s.Name, MaxWordLen))
	}
	d := strings.TrimSpace(s.Display)
	switch {
	case d == "":
		return fmt.Errorf("%w: it is empty: name the agent as people should see it, like \"My Bot\"", ErrCustomDisplay)
	case !utf8.ValidString(d) || utf8.RuneCountInString(d) > MaxCustomDisplay:
		return fmt.Errorf("%w: keep it to %d characters of one line", ErrCustomDisplay, MaxCustomDisplay)
	case strings.IndexFunc(d, unicode.IsControl) >= 0:
		return fmt.Errorf("%w: it holds a control character: keep it to one line of text", ErrCustomDisplay)
	}
	return nil
}

// custom holds the registered custom agents by id.
var custom struct {
	sync.RWMutex
	byID  map[string]*Agent
	order []*Agent
}

// SetCustom makes specs the registered custom agents, replacing any
// before: what clawd serve does with config.toml's [[agents.custom]] as
// it starts, and any command that shows sessions by their agent's name.
// A spec CheckCustom refuses, or a second one of an id, is an error, and
// nothing changes.
func SetCustom(specs []CustomSpec) error {
	byID := make(map[string]*Agent, len(specs))
	order := make([]*Agent, 0, len(specs))
	for _, s := range specs {
		if err := CheckCustom(s); err != nil {
			return err
		}
		if byID[s.ID()] != nil {
			return fmt.Errorf("custom agent %q is declared twice", s.Name)
		}
		a := newCustom(s)
		byID[a.ID] = a
		order = append(order, a)
	}
	custom.Lock()
	custom.byID, custom.order = byID, order
	custom.Unlock()
	return nil
}

// Custom returns the registered custom agents, in the order declared.
func Custom() []*Agent {
	custom.RLock()
	defer custom.RUnlock()
	return append([]*Agent(nil), custom.order...)
}

// IsCustomID reports whether id is in the custom agents' namespace,
// registered or not (Lookup normalizes it alike).
func IsCustomID(id string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(id)), CustomPrefix)
}

// lookupCustom finds a registered custom agent by its normalized id.
func lookupCustom(id string) *Agent {
	custom.RLock()
	defer custom.RUnlock()
	return custom.byID[id]
}

// errCustomSettings is a custom agent's ConfigDir: it keeps no settings
// clawd edits.
var errCustomSettings = errors.New("a custom agent has no settings for clawd to edit: it reports its state over POST /state")

// newCustom is the agent of a spec: states only, nothing to install,
// decode or answer.
func newCustom(s CustomSpec) *Agent {
	return &Agent{
		ID:       s.ID(),
		Name:     strings.TrimSpace(s.Display),
		Custom:   true,
		Icon:     s.Icon,
		Supports: Supports{States: true},
		Notes: []string{
			"declared in config.toml ([[agents.custom]]): it reports its own state over POST /state, with the API token or on the runtime's socket",
			"clawd answers none of its permission requests: each gets \"no decision\" at once",
		},
		Settings:   "none: [[agents.custom]] in clawd's config.toml declares it",
		ConfigDir:  func(Env) (string, error) { return "", errCustomSettings },
		NoDecision: noOutput,
		Render:     stateOnlyRender(noOutput),
	}
}

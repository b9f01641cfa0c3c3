package automations

// What the CLI and the dashboard see of the engine: definitions with
// their trust, previews and test runs.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// DefinitionView is a definition as the CLI and the dashboard show it.
type DefinitionView struct {
	Definition
	Hash   string   `json:"hash"`
	Leaves []string `json:"leaves"`
	// EffectivePolicy is Policy with the defaults clawd fills in.
	EffectivePolicy Policy        `json:"effective_policy"`
	Bindings        []BindingView `json:"binding_states"`
}

// BindingView is one binding of a definition and where its trust stands.
type BindingView struct {
	Key   string `json:"key"`
	State string `json:"state"` // active, needs_review, disabled
	// TrustedHash is the hash the binding is trusted for ("" never).
	TrustedHash string    `json:"trusted_hash,omitempty"`
	TrustedAt   time.Time `json:"trusted_at,omitzero"`
}

// Binding states, the wire's (see client.BindingActive).
const (
	BindingActive      = client.BindingActive
	BindingNeedsReview = client.BindingNeedsReview
	BindingDisabled    = client.BindingDisabled
)

// LoadError is why automations.toml as it is now is not used (nil when
// it is, or when there is none). Kept says whether the definitions of an
// earlier version stay in force meanwhile.
func (e *Engine) LoadError() error { return e.defs.Load().err }

// Kept reports whether automations.toml has problems and the definitions
// in force are those of its last version without any, read since serve
// started.
func (e *Engine) Kept() bool { return e.defs.Load().kept }

// Definitions lists the definitions in force with their hashes and
// bindings (those kept from an earlier version while the file has
// problems: see LoadError); its error is the store's.
func (e *Engine) Definitions(ctx context.Context) ([]DefinitionView, error) {
	set := e.defs.Load()
	out := []DefinitionView{}
	for i := range set.list {
		d := &set.list[i]
		v := DefinitionView{Definition: *d, Hash: d.Hash(), Leaves: d.Leaves(), EffectivePolicy: d.Policy.Effective()}
		for _, b := range d.bindings() {
			bv := BindingView{Key: b.Key()}
			hash, at, err := e.trustOf(ctx, d.ID, b.Key())
			if err != nil {
				return nil, err
			}
			bv.TrustedHash, bv.TrustedAt = hash, at
			switch {
			case !d.IsEnabled() || !b.IsEnabled():
				bv.State = BindingDisabled
			case hash == v.Hash:
				bv.State = BindingActive
			default:
				bv.State = BindingNeedsReview
			}
			v.Bindings = append(v.Bindings, bv)
		}
		out = append(out, v)
	}
	return out, nil
}

// Definition returns the definition id in force.
func (e *Engine) Definition(id string) (*Definition, bool) {
	d := e.defs.Load().byID[id]
	return d, d != nil
}

// Last returns the latest envelope of an event seen (for a preview).
func (e *Engine) Last(name EventName) (*Envelope, bool) {
	e.lastMu.Lock()
	defer e.lastMu.Unlock()
	env := e.last[name]
	return env, env != nil
}

// PreviewResult is what a definition would do with an event, without
// doing it.
type PreviewResult struct {
	Event    *Envelope      `json:"event"`
	Matched  bool           `json:"matched"`
	Binding  string         `json:"binding,omitempty"`
	Shadowed []string       `json:"shadowed,omitempty"`
	Input    map[string]any `json:"input,omitempty"`
	Error    string         `json:"error,omitempty"`
	Leaves   []string       `json:"leaves"`
	Trusted  bool           `json:"trusted"`
}

// Preview evaluates definition id against env (the last real one of its
// event when env is nil; a sample when there was none): binding,
// condition and input, no action.
func (e *Engine) Preview(ctx context.Context, id string, env *Envelope) (PreviewResult, error) {
	d, ok := e.Definition(id)
	if !ok {
		return PreviewResult{}, fmt.Errorf("%w: %s", ErrNoDefinition, id)
	}
	if env == nil {
		var found bool
		if env, found = e.Last(d.Event); !found {
			env = Sample(d.Event, e.o.Now())
		}
	}
	res := PreviewResult{Event: env, Leaves: d.Leaves()}
	doc, err := document(env)
	if err != nil {
		return res, err
	}
	win, shadowed, ok := winningBinding(d, env)
	if !ok {
		res.Error = "no binding of this definition applies to this event"
		return res, nil
	}
	res.Binding, res.Shadowed = win.Key(), shadowed
	if h, err := e.trustedHash(ctx, d.ID, win.Key()); err == nil {
		res.Trusted = h == d.Hash()
	}
	res.Matched = d.Condition == nil || d.Condition.eval(doc)
	if in, err := d.Input.eval(doc); err != nil {
		res.Error = err.Error()
	} else {
		res.Input = in
	}
	return res, nil
}

// TestRun queues a real run of definition id for env (as in Preview),
// marked as a test, without asking for trust: the person confirmed it.
// It returns the run's id.
func (e *Engine) TestRun(ctx context.Context, id string, env *Envelope) (string, error) {
	d, ok := e.Definition(id)
	if !ok {
		return "", fmt.Errorf("%w: %s", ErrNoDefinition, id)
	}
	if env == nil {
		var found bool
		if env, found = e.Last(d.Event); !found {
			env = Sample(d.Event, e.o.Now())
		}
	}
	now := e.o.Now()
	test := *env
	test.EventID = EventID(env.EventName, fmt.Sprintf("test:%s:%d", id, now.UnixNano()))
	b, err := json.Marshal(&test)
	if err != nil {
		return "", err
	}
	r := newRun(d, &test, Binding{Scope: ScopeApplication}, nil, now)
	r.Test = true
	if err := e.insertTestRun(ctx, &test, b, r, d); err != nil {
		return "", err
	}
	e.wake(e.wakeWork)
	return r.ID, nil
}

// Sample is an envelope of event name with made-up values, for a preview
// when no real event was seen yet. Its agent is the first one clawd knows.
func Sample(name EventName, now time.Time) *Envelope {
	a := agents.All()[0]
	env := &Envelope{
		SchemaVersion: envelopeSchema, EventName: name, OccurredAt: now.UTC(), Source: envelopeSource,
		Session:            SessionRef{ID: "sample-session", Title: "Sample session"},
		Turn:               &TurnRef{ID: "sample-turn"},
		Agent:              &AgentRef{ID: a.ID, Name: a.Name},
		Workspaces:         []Workspace{{ID: "/home/you/project", Name: "project"}},
		PrimaryWorkspaceID: "/home/you/project",
		Payload:            map[string]any{},
	}
	switch name {
	case TurnCompleted:
		env.Payload["durationMs"] = 42000
	case TurnFailed:
		env.Payload["message"], env.Payload["durationMs"] = "rate_limit", 1000
	case TurnCancelled:
		env.Payload["reason"], env.Payload["durationMs"] = "interrupt", 1000
	case ResponseCommitted:
		env.Payload["text"], env.Payload["messageId"] = "Done: the tests pass.", "sample-turn:response"
	case PermissionRequest:
		env.Payload = map[string]any{"requestId": "sample", "tool": "Bash", "summary": "npm test", "kind": "permission"}
	case QuestionRequested:
		env.Payload = map[string]any{"requestId": "sample", "tool": "question", "summary": "Which database?", "options": []any{"Postgres", "SQLite"}}
	}
	env.EventID = EventID(name, "sample")
	return env
}

// FileState is what automations.toml in home says, read without a
// running serve (for `clawd automations list` and `show` then): each
// definition with its hash, leaves and effective policy as the API shows
// them, its bindings' trust not known (client.BindingUnknown; disabled
// ones disabled), since the trust is in serve's store. A file with
// problems gives its error and no definition; no file, no definition.
func FileState(home string) client.AutomationsState {
	st := client.AutomationsState{FromFile: true, Definitions: []client.Automation{}}
	path := filepath.Join(home, File)
	data, err := ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return st
	}
	var list []Definition
	if err == nil {
		list, err = Parse(data, path)
	}
	if err != nil {
		st.Error = err.Error()
		return st
	}
	for i := range list {
		d := &list[i]
		v := DefinitionView{Definition: *d, Hash: d.Hash(), Leaves: d.Leaves(), EffectivePolicy: d.Policy.Effective()}
		for _, b := range d.bindings() {
			state := client.BindingUnknown
			if !d.IsEnabled() || !b.IsEnabled() {
				state = BindingDisabled
			}
			v.Bindings = append(v.Bindings, BindingView{Key: b.Key(), State: state})
		}
		// The wire's types, through the JSON the API sends: one shape.
		var a client.Automation
		b, err := json.Marshal(v)
		if err == nil {
			err = json.Unmarshal(b, &a)
		}
		if err != nil {
			st.Error = fmt.Sprintf("%s: automation %s: %v", path, d.ID, err)
			st.Definitions = []client.Automation{}
			return st
		}
		st.Definitions = append(st.Definitions, a)
	}
	return st
}

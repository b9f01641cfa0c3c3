package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// The automations API (see runtime/automations_api.go and
// runtime/automations, the engine behind it):
//
//	GET  /api/v1/automations                 -> AutomationsState
//	POST /api/v1/automations/reload          read automations.toml again -> AutomationsState (400: its problems)
//	POST /api/v1/automations/pause|resume    the master switch -> AutomationsState
//	POST /api/v1/automations/{id}/trust      TrustBody -> AutomationsState (409: the hash changed)
//	POST /api/v1/automations/{id}/preview    SampleBody -> AutomationPreview
//	POST /api/v1/automations/{id}/test       SampleBody -> TestRunResult
//	GET  /api/v1/automations/runs            ?state=&event=&automation=&since=RFC3339&limit= -> []AutomationRun
//	POST /api/v1/automations/runs/{id}/retry|cancel  (404 no such run, 409 not in its state)
//
// The types below are the wire's: the engine's own (runtime/automations)
// encode to the same JSON, which TestAutomationWireTypes in runtime holds
// them to.

// Binding states of AutomationBindingState.
const (
	BindingActive      = "active"
	BindingNeedsReview = "needs_review"
	BindingDisabled    = "disabled"
	// BindingUnknown is a binding's state read from automations.toml
	// with no clawd serve to ask: the trust is in its store.
	BindingUnknown = "unknown"
)

// RunStates lists the states a run can be in.
var RunStates = []string{"queued", "running", "succeeded", "failed", "skipped", "blocked", "cancelled", "outcome_unknown"}

// AutomationsState is GET /api/v1/automations, and what `clawd automations
// list` reads from automations.toml when no clawd serve runs (FromFile).
type AutomationsState struct {
	Paused      bool         `json:"paused"`
	Definitions []Automation `json:"definitions"`
	// Error is why automations.toml as it is now is not in force.
	Error string `json:"error,omitempty"`
	// Kept says that, meanwhile, Definitions are those of the file's last
	// version without problems (none when Error is set and Kept not).
	Kept bool `json:"kept,omitempty"`
	// Recovered says that the store was unreadable when serve started and
	// was moved aside for a fresh one (where, and what that lost).
	Recovered string `json:"recovered,omitempty"`
	// Backlog is the lifecycle events waiting in memory for the store.
	Backlog AutomationBacklog `json:"backlog"`
	// FromFile says that the state was read from automations.toml by the
	// CLI, no clawd serve running: the bindings' trust, the runs and the
	// master switch are not known then.
	FromFile bool `json:"from_file,omitempty"`
}

// AutomationBacklog is the events waiting in memory for the store.
type AutomationBacklog struct {
	Queued     int    `json:"queued"`
	Dropped    int64  `json:"dropped,omitempty"`
	WriteError string `json:"write_error,omitempty"`
}

// Automation is one definition of automations.toml as the API shows it:
// what the file says, its execution hash, the leaves it sends, its
// policy with clawd's defaults, and where its bindings' trust stands.
type Automation struct {
	ID          string           `json:"id"`
	Name        string           `json:"name,omitempty"`
	Description string           `json:"description,omitempty"`
	Enabled     *bool            `json:"enabled,omitempty"`
	Event       string           `json:"event"`
	Condition   json.RawMessage  `json:"condition,omitempty"`
	Action      AutomationAction `json:"action"`
	Input       json.RawMessage  `json:"input,omitempty"`
	Policy      AutomationPolicy `json:"policy"`
	Bindings    []Binding        `json:"bindings,omitempty"`
	// Line is where the definition starts in automations.toml.
	Line int `json:"line,omitempty"`

	Hash   string   `json:"hash"`
	Leaves []string `json:"leaves"`
	// EffectivePolicy is Policy with the defaults clawd fills in.
	EffectivePolicy AutomationPolicy         `json:"effective_policy"`
	BindingStates   []AutomationBindingState `json:"binding_states"`
}

// IsEnabled reports whether the definition is on: enabled unless it says
// enabled = false.
func (a *Automation) IsEnabled() bool { return a.Enabled == nil || *a.Enabled }

// AutomationAction is what a definition does (see automations.Action for
// each field).
type AutomationAction struct {
	Type         string            `json:"type"`
	Title        string            `json:"title,omitempty"`
	Body         string            `json:"body,omitempty"`
	Text         string            `json:"text,omitempty"`
	URL          string            `json:"url,omitempty"`
	Headers      map[string]string `json:"headers,omitempty"`
	BodyTemplate string            `json:"body_template,omitempty"`
	Blocks       string            `json:"blocks,omitempty"`
	Embeds       string            `json:"embeds,omitempty"`
	Username     string            `json:"username,omitempty"`
	Topic        string            `json:"topic,omitempty"`
	Priority     int               `json:"priority,omitempty"`
	Tags         []string          `json:"tags,omitempty"`
	Click        string            `json:"click,omitempty"`
	Argv         []string          `json:"argv,omitempty"`
}

// AutomationPolicy is how a definition's runs go; durations as Go writes
// them ("30s", "2m0s").
type AutomationPolicy struct {
	Timeout     string `json:"timeout"`
	Retry       string `json:"retry"`
	MaxAttempts int    `json:"max_attempts"`
	Backoff     string `json:"backoff"`
	Concurrency string `json:"concurrency"`
}

// Binding is where a definition applies, as automations.toml says it.
type Binding struct {
	Scope   string `json:"scope"`
	ID      string `json:"id,omitempty"`
	Enabled *bool  `json:"enabled,omitempty"`
}

// AutomationBindingState is one binding of a definition and where its
// trust stands.
type AutomationBindingState struct {
	Key string `json:"key"`
	// State is BindingActive, BindingNeedsReview, BindingDisabled, or
	// BindingUnknown (read from the file).
	State       string    `json:"state"`
	TrustedHash string    `json:"trusted_hash,omitempty"`
	TrustedAt   time.Time `json:"trusted_at,omitzero"`
}

// AutomationRun is one execution of a definition for one event.
type AutomationRun struct {
	ID            string    `json:"id"`
	AutomationID  string    `json:"automation_id"`
	Hash          string    `json:"hash"`
	Binding       string    `json:"binding"`
	Shadowed      []string  `json:"shadowed,omitempty"`
	EventID       string    `json:"event_id"`
	EventName     string    `json:"event_name"`
	SessionID     string    `json:"session_id"`
	State         string    `json:"state"`
	ErrorCode     string    `json:"error_code"`
	ErrorMessage  string    `json:"error_message,omitempty"`
	Attempts      int       `json:"attempts"`
	CreatedAt     time.Time `json:"created_at"`
	NextAt        time.Time `json:"next_at,omitzero"`
	StartedAt     time.Time `json:"started_at,omitzero"`
	FinishedAt    time.Time `json:"finished_at,omitzero"`
	InputSummary  string    `json:"input_summary,omitempty"`
	OutputSummary string    `json:"output_summary,omitempty"`
	Test          bool      `json:"test,omitempty"`
}

// AutomationEvent is one lifecycle event as a condition, an input mapping,
// a webhook and a command see it (automations.Envelope).
type AutomationEvent struct {
	SchemaVersion int       `json:"schemaVersion"`
	EventID       string    `json:"eventId"`
	EventName     string    `json:"eventName"`
	OccurredAt    time.Time `json:"occurredAt"`
	Source        string    `json:"source"`
	Session       struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	} `json:"session"`
	Turn *struct {
		ID string `json:"id"`
	} `json:"turn,omitempty"`
	Agent *struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"agent,omitempty"`
	Workspaces []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"workspaces"`
	PrimaryWorkspaceID string         `json:"primaryWorkspaceId,omitempty"`
	Payload            map[string]any `json:"payload"`
}

// AutomationPreview is what a definition would do with an event, without
// doing it.
type AutomationPreview struct {
	Event    *AutomationEvent `json:"event"`
	Matched  bool             `json:"matched"`
	Binding  string           `json:"binding,omitempty"`
	Shadowed []string         `json:"shadowed,omitempty"`
	Input    map[string]any   `json:"input,omitempty"`
	Error    string           `json:"error,omitempty"`
	Leaves   []string         `json:"leaves"`
	Trusted  bool             `json:"trusted"`
}

// TrustBody is POST /api/v1/automations/{id}/trust: the hash the person
// reviewed.
type TrustBody struct {
	Hash string `json:"hash"`
}

// SampleBody is a preview's or a test run's event (nil: the last real one
// of the definition's event, or a sample).
type SampleBody struct {
	Event *AutomationEvent `json:"event,omitempty"`
}

// TestRunResult is POST /api/v1/automations/{id}/test: the run queued.
type TestRunResult struct {
	Run string `json:"run"`
}

// MaxRunsListed is the most runs one call of AutomationRuns returns; a
// Limit of 0 lists the newest 100.
const MaxRunsListed = 1000

// RunQuery selects runs; zero fields select all.
type RunQuery struct {
	State      string
	Event      string
	Automation string
	Since      time.Time
	// Prefix keeps the runs whose id starts so.
	Prefix string
	Limit  int
}

// Automations returns the definitions in force and where their trust
// stands.
func (c *Client) Automations(ctx context.Context) (AutomationsState, error) {
	var st AutomationsState
	err := c.Call(ctx, http.MethodGet, "/api/v1/automations", nil, &st)
	return st, err
}

// ReloadAutomations has the runtime read automations.toml again.
func (c *Client) ReloadAutomations(ctx context.Context) (AutomationsState, error) {
	var st AutomationsState
	err := c.Call(ctx, http.MethodPost, "/api/v1/automations/reload", nil, &st)
	return st, err
}

// PauseAutomations turns the master switch: paused, no run starts.
func (c *Client) PauseAutomations(ctx context.Context, paused bool) (AutomationsState, error) {
	what := "resume"
	if paused {
		what = "pause"
	}
	var st AutomationsState
	err := c.Call(ctx, http.MethodPost, "/api/v1/automations/"+what, nil, &st)
	return st, err
}

// TrustAutomation trusts every binding of automation id for hash, the
// execution hash the person reviewed.
func (c *Client) TrustAutomation(ctx context.Context, id, hash string) error {
	return c.Call(ctx, http.MethodPost, "/api/v1/automations/"+url.PathEscape(id)+"/trust", TrustBody{Hash: hash}, nil)
}

// PreviewAutomation evaluates automation id against ev (nil: the last
// real event, or a sample), doing nothing.
func (c *Client) PreviewAutomation(ctx context.Context, id string, ev *AutomationEvent) (AutomationPreview, error) {
	var res AutomationPreview
	err := c.Call(ctx, http.MethodPost, "/api/v1/automations/"+url.PathEscape(id)+"/preview", SampleBody{Event: ev}, &res)
	return res, err
}

// TestAutomation queues a real run of automation id for ev (as in
// PreviewAutomation), marked as a test, and returns the run's id.
func (c *Client) TestAutomation(ctx context.Context, id string, ev *AutomationEvent) (string, error) {
	var res TestRunResult
	err := c.Call(ctx, http.MethodPost, "/api/v1/automations/"+url.PathEscape(id)+"/test", SampleBody{Event: ev}, &res)
	return res.Run, err
}

// AutomationRuns lists runs, newest first.
func (c *Client) AutomationRuns(ctx context.Context, q RunQuery) ([]AutomationRun, error) {
	v := url.Values{}
	for k, s := range map[string]string{"state": q.State, "event": q.Event, "automation": q.Automation, "prefix": q.Prefix} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if !q.Since.IsZero() {
		v.Set("since", q.Since.UTC().Format(time.RFC3339))
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	var runs []AutomationRun
	err := c.Call(ctx, http.MethodGet, "/api/v1/automations/runs?"+v.Encode(), nil, &runs)
	return runs, err
}

// RetryRun queues a finished run again now.
func (c *Client) RetryRun(ctx context.Context, id string) error {
	return c.Call(ctx, http.MethodPost, "/api/v1/automations/runs/"+url.PathEscape(id)+"/retry", nil, nil)
}

// CancelRun cancels a queued run.
func (c *Client) CancelRun(ctx context.Context, id string) error {
	return c.Call(ctx, http.MethodPost, "/api/v1/automations/runs/"+url.PathEscape(id)+"/cancel", nil, nil)
}

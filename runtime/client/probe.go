package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// A probe is doctor's connection test: doctor runs an agent's installed
// hook command with ProbeEnv set, and the hook, instead of the agent's
// event, posts a Probe naming it to the runtime, which keeps it for doctor
// to ask about and never shows it as a session nor notifies of it.

// ProbeEnv is the environment variable that marks a hook run as doctor's
// connection test; its value is the probe's id.
const ProbeEnv = "CLAWD_PROBE"

// probesPath is the route probes are posted to.
const probesPath = "/api/v1/probes"

// Probe is one connection test's arrival at the runtime.
type Probe struct {
	// ID is the probe's id, the value of ProbeEnv.
	ID string `json:"id"`
	// Agent is the agent the hook was run for, HookEvent the event named
	// on its command line.
	Agent     string `json:"agent"`
	HookEvent string `json:"hook_event,omitempty"`
	// Host is the remote profile it came through (set by the runtime);
	// "" for the runtime's own socket.
	Host string `json:"host,omitempty"`
	// ReceivedAt is when the runtime got it (set by the runtime).
	ReceivedAt time.Time `json:"received_at"`
}

// MaxProbeID caps a probe's id.
const MaxProbeID = 64

// PostProbeBlocking posts an encoded Probe to the runtime's socket at
// sock, all before deadline, as PostEventBlocking posts an event.
func PostProbeBlocking(sock string, probe []byte, deadline time.Time) error {
	head, err := roundTrip(sock, buildRequest(http.MethodPost, probesPath, probe), deadline)
	if err != nil {
		return err
	}
	return checkResponseHead(head)
}

// Probe returns the probe id if it has arrived; an *APIError with status
// 404 when it has not.
func (c *Client) Probe(ctx context.Context, id string) (Probe, error) {
	var p Probe
	err := c.Call(ctx, http.MethodGet, probesPath+"/"+url.PathEscape(id), nil, &p)
	return p, err
}

// On a remote machine the hook posts its probe to the desktop's runtime
// through the profile's ingress, and doctor asks there whether it
// arrived: the desktop keeps it as one of that profile's, which only the
// profile's token can ask about.

// PostProbe posts an encoded Probe to the desktop, given up when ctx
// ends.
func (r Remote) PostProbe(ctx context.Context, probe []byte) error {
	return r.endpoint().exchange(ctx, http.MethodPost, probesPath, probe, nil)
}

// Probe returns the probe id if it has arrived at the desktop; an
// *APIError with status 404 when it has not.
func (r Remote) Probe(ctx context.Context, id string) (Probe, error) {
	var p Probe
	err := r.endpoint().exchange(ctx, http.MethodGet, probesPath+"/"+url.PathEscape(id), nil, &p)
	return p, err
}

// Integration is how one agent's hooks fare under the runtime's
// self-repair: `clawd status --json`'s integrations.
type Integration struct {
	Agent string `json:"agent"`
	// ConfigPath is the file that holds clawd's hooks.
	ConfigPath string `json:"config_path"`
	// State is IntegrationOK, IntegrationRepaired,
	// IntegrationNeedsManualFix or IntegrationNotInstalled.
	State string `json:"state"`
	// Repairs counts the runtime's repairs of the file since it started.
	Repairs int `json:"repairs"`
	// Detail says why, for a state other than ok.
	Detail string `json:"detail"`
}

// Integration states.
const (
	IntegrationOK             = "ok"
	IntegrationRepaired       = "repaired"
	IntegrationNeedsManualFix = "needs_manual_fix"
	IntegrationNotInstalled   = "not_installed"
)

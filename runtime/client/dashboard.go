package client

import (
	"context"
	"net/http"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// The dashboard's side of the API. `clawd dashboard` (and the tray's
// "Open dashboard") asks the runtime for a one-time login URL over the
// socket, which only this user reaches; the browser exchanges the code in
// it once for its login.
//
//	POST /api/v1/dashboard/login   -> DashboardLogin (socket only)

// DashboardLogin is a one-time login to the web dashboard.
type DashboardLogin struct {
	// URL is http://127.0.0.1:<port>/login?code=...: the code in it is
	// exchanged once, until ExpiresAt.
	URL       string    `json:"url"`
	ExpiresAt time.Time `json:"expires_at"`
}

// PauseFor is how long "Pause notifications" lasts, in the tray and the
// dashboard.
const PauseFor = time.Hour

// DashboardLogin mints a one-time login URL of the dashboard.
func (c *Client) DashboardLogin(ctx context.Context) (DashboardLogin, error) {
	var l DashboardLogin
	err := c.Call(ctx, http.MethodPost, "/api/v1/dashboard/login", struct{}{}, &l)
	return l, err
}

// AgentInfo is what clawd knows of one agent on this machine: what
// `clawd agents` prints and the dashboard's Agents section shows.
type AgentInfo struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Detected  bool   `json:"detected"`
	Installed bool   `json:"installed"`
	// ConfigPath is the file that holds (or would hold) clawd's hooks.
	ConfigPath string `json:"config_path"`
	// Version is the installed release, where its files say it; Tested
	// the releases clawd was tested with (agents.Agent.Tested).
	Version  string          `json:"version,omitempty"`
	Tested   []string        `json:"tested,omitempty"`
	Supports agents.Supports `json:"supports"`
	Notes    []string        `json:"notes"`
	// Verified is how clawd's support was checked; Unsupported why clawd
	// knows the agent but installs nothing for it.
	Verified    agents.Verification `json:"verified,omitempty"`
	Unsupported string              `json:"unsupported,omitempty"`
	// Disabled: config.toml says enabled = false for the agent, so the
	// runtime ignores it (its hooks may still be installed).
	Disabled bool `json:"disabled"`
}

// DoctorReport is what `clawd doctor` finds of one agent's setup.
type DoctorReport struct {
	Agent    string          `json:"agent"`
	OK       bool            `json:"ok"`
	Findings []DoctorFinding `json:"findings"`
	// Fixable says that Fix would change something.
	Fixable bool `json:"fixable"`
}

// DoctorFinding is one thing the doctor checked.
type DoctorFinding struct {
	// Level is "ok", "skipped", "warn" or "error" (a failed check).
	Level   string `json:"level"`
	Message string `json:"message"`
}

// DoctorFix is what `clawd doctor --fix` did for one agent.
type DoctorFix struct {
	Agent string `json:"agent"`
	// Diff is the unified diff of every file it changed ("" when none).
	Diff    string `json:"diff"`
	Changed bool   `json:"changed"`
}

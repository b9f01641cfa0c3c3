package present

import (
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/runtime/client"
)

// Answered says how a permission request closed, in one sentence, with
// who answered when it was one of the person's clients: "Allowed Bash:
// npm test — from the dashboard". request is the request in one line
// (RequestSummary's, or the tool's name where the summary is not at
// hand).
func Answered(p i18n.Printer, a client.PermissionAnswer, request string) string {
	var what string
	switch a.Decision {
	case client.DecisionAllow:
		what = p.T("answered.allow", request)
		if a.Request == client.KindPlan {
			what = p.T("answered.approve_plan", request)
		}
	case client.DecisionAlways:
		what = p.T("answered.always", request, a.Rule)
	case client.DecisionAnswer:
		what = p.T("answered.answer", request, answeredList(p, a.Answers))
	case client.DecisionDeny:
		what = p.T("answered.deny", request)
		if a.Request == client.KindPlan {
			what = p.T("answered.keep_planning", request)
		}
	default:
		what = noDecision(p, a.Reason, request)
	}
	var from string
	switch a.Source {
	case client.SourceTray:
		from = p.T("answered.from_tray")
	case client.SourceDashboard:
		from = p.T("answered.from_dashboard")
	case client.SourceCLI:
		from = p.T("answered.from_cli")
	case client.SourceTelegram:
		from = p.T("answered.from_telegram")
	case client.SourceAPI:
		from = p.T("answered.from_api")
	default:
		// The reason says it all: the terminal, the timeout, do not
		// disturb, the config.
		return what
	}
	return p.T("answered.by", what, from)
}

// noDecision says why a request closed without a decision.
func noDecision(p i18n.Printer, reason, request string) string {
	switch reason {
	case client.ReasonTerminal:
		return p.T("answered.terminal", request)
	case client.ReasonWithdrawn:
		return p.T("answered.withdrawn", request)
	case client.ReasonTimeout:
		return p.T("answered.timeout", request)
	case client.ReasonDND:
		return p.T("answered.dnd", request)
	case client.ReasonShutdown:
		return p.T("answered.shutdown", request)
	case client.ReasonHeadless:
		return p.T("answered.headless", request)
	case client.ReasonBypass:
		return p.T("answered.bypass", request)
	case client.ReasonDisabled:
		return p.T("answered.disabled", request)
	case client.ReasonNative:
		return p.T("answered.native", request)
	}
	return p.T("answered.none", request, reason)
}

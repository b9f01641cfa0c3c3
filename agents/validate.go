package agents

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrInvalidEvent is wrapped by every error Validate returns.
var ErrInvalidEvent = errors.New("invalid event")

// Validate checks an event that came over the wire: a known agent and kind,
// a session id, and every field within its limit.
func (e *Event) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidEvent, fmt.Sprintf(format, a...))
	}
	if Lookup(e.Agent) == nil {
		return bad("unknown agent %q", clip(e.Agent, MaxWordLen))
	}
	if !e.Kind.Valid() {
		return bad("unknown kind %q", clip(string(e.Kind), MaxWordLen))
	}
	if e.SessionID == "" {
		return bad("session_id is empty")
	}
	if e.Time.IsZero() {
		return bad("time is missing")
	}
	for _, f := range []struct {
		name, val string
		max       int
	}{
		{"session_id", e.SessionID, MaxIDLen},
		{"turn_id", e.TurnID, MaxIDLen},
		{"response", e.Response, MaxResponseLen},
		{"hook_event", e.HookEvent, MaxWordLen},
		{"cwd", e.Cwd, MaxPathLen},
		{"project_dir", e.ProjectDir, MaxPathLen},
		{"transcript", e.Transcript, MaxPathLen},
		{"tool_name", e.ToolName, MaxIDLen},
		{"tool_use_id", e.ToolUseID, MaxIDLen},
		{"input_hash", e.InputHash, MaxWordLen},
		{"subagent_id", e.SubagentID, MaxIDLen},
		{"subagent_type", e.SubagentType, MaxIDLen},
		{"source", e.Source, MaxWordLen},
		{"reason", e.Reason, MaxWordLen},
		{"notification_type", e.NotificationType, MaxWordLen},
		{"error_kind", e.ErrorKind, MaxWordLen},
		{"error_text", e.ErrorText, MaxErrorLen},
		{"action", e.Action, MaxWordLen},
		{"state", e.State, MaxWordLen},
		{"permission_mode", e.PermissionMode, MaxWordLen},
		{"host", e.Host, MaxIDLen},
		{"wsl_distro", e.Distro, MaxWordLen},
	} {
		if len(f.val) > f.max {
			return bad("%s is longer than %d bytes", f.name, f.max)
		}
		if !utf8.ValidString(f.val) {
			return bad("%s is not valid UTF-8", f.name)
		}
	}
	if utf8.RuneCountInString(e.Title) > MaxTitleLen || !utf8.ValidString(e.Title) {
		return bad("title is longer than %d characters", MaxTitleLen)
	}
	switch e.Notice {
	case "", NoticeDialog, NoticeQuestion, NoticeAnswered, NoticeIdle, NoticeOther:
	default:
		return bad("unknown notice %q", clip(string(e.Notice), MaxWordLen))
	}
	if e.TitleSource != "" && e.TitleSource != TitleFromAgent && e.TitleSource != TitleFromPrompt {
		return bad("unknown title_source %q", clip(string(e.TitleSource), MaxWordLen))
	}
	if len(e.ToolUseIDs) > MaxBatchIDs {
		return bad("more than %d tool_use_ids", MaxBatchIDs)
	}
	for _, id := range e.ToolUseIDs {
		if len(id) > MaxIDLen {
			return bad("a tool_use_id is longer than %d bytes", MaxIDLen)
		}
	}
	if e.AgentPID < 0 || e.BackgroundTasks < 0 {
		return bad("negative number")
	}
	return nil
}

// clip cuts s to at most n bytes without splitting a UTF-8 sequence.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

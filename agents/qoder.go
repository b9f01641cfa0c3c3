package agents

import (
	"sync"
	"time"
)

// Qoder CLI (npm @qoder-ai/qodercli 1.1.52; its hook format as documented
// by the original app and as the CLI's own bundle ships it: a plugin's
// qoder-hooks.json there has Claude Code's nested shape).
//
// The CLI cannot answer a prompt here: it needs a Qoder account.
// `qodercli -p` prints "Not logged in · Please run /login" and exits 1
// before any model call, and custom model providers are only enabled for
// a logged-in account the server allows; so the decoder and installer are
// tested on payloads and settings built from the documented format. The
// real TUI goes as far as its sign-in screen: its SessionStart and
// SessionEnd, and its rewriting settings.json as it starts, are tested
// with the real CLI (e2e). Its transcripts are
// ~/.qoder/projects/<folder, / as ->/<session>.jsonl.
//
// Hook events (Claude Code's names and payload fields) and what they
// become (the display state is the state machine's):
//
//	SessionStart        session.start     idle
//	UserPromptSubmit    prompt.submit     thinking; title from the prompt
//	PreToolUse          tool.start        working
//	PostToolUse         tool.end          working
//	PostToolUseFailure  tool.failure      error flash, then working
//	Notification        notification      as Claude Code's notification types
//	Stop                turn.end          attention flash, then idle
//	SessionEnd          session.end       removed
//
// Qoder's permission dialog is its own: clawd registers no blocking event
// and answers nothing. Qoder names its sessions in the transcript its
// hooks point at (transcript_path), in the records Claude Code's
// transcripts have too: the runtime reads those names (TitleFile), only
// what was appended, after a session start, a prompt or a turn's end.
var Qoder = &Agent{
	ID:       qoderID,
	Name:     "Qoder CLI",
	Aliases:  []string{"qodercli", "qoder-cli"},
	Command:  "qodercli",
	Package:  "@qoder-ai/qodercli",
	Supports: Supports{States: true, Titles: true},
	Verified: VerifiedDocumented,
	Tested:   []string{"1.1.52"},
	Notes: []string{
		"tested from Qoder's documented hook format: the CLI needs a Qoder login to answer a prompt, so only its session's start and end (up to its sign-in screen) are tested with the real CLI",
		"Qoder's permission dialog stays its own: clawd shows the session and answers nothing",
		"a session is named by its first prompt, then by the name Qoder gives it (yours or its own), read from its session file after a session start, a prompt or a turn's end",
	},
	Settings: "settings.json in ~/.qoder",
	ConfigDir: func(getenv Env) (string, error) {
		return homeFolder(getenv, "Qoder CLI", ".qoder")
	},
	Hooks: []HookSpec{
		{Event: "SessionStart", Timeout: qoderTimeout},
		{Event: "UserPromptSubmit", Timeout: qoderTimeout},
		{Event: "PreToolUse", Timeout: qoderTimeout},
		{Event: "PostToolUse", Timeout: qoderTimeout},
		{Event: "PostToolUseFailure", Timeout: qoderTimeout},
		{Event: "Notification", Timeout: qoderTimeout},
		{Event: "Stop", Timeout: qoderTimeout},
		{Event: "SessionEnd", Timeout: qoderTimeout},
	},
	kinds: qoderKinds,
	Decode: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeQoder(b, ev, env, now, false)
	},
	DecodeTruncated: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeQoder(b, ev, env, now, true)
	},
	NoDecision: emptyObject,
	Render:     stateOnlyRender(emptyObject),
	TitleFile:  &TitleFile{Path: func(e *Event) string { return e.Transcript }, Line: sessionTitleRecords.line},
}

const qoderID = "qoder"

// qoderTimeout bounds a hook on Qoder's side, in seconds; the hook bounds
// itself far tighter.
const qoderTimeout = 10

var qoderKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"SessionStart":       KindSessionStart,
		"UserPromptSubmit":   KindPromptSubmit,
		"PreToolUse":         KindToolStart,
		"PostToolUse":        KindToolEnd,
		"PostToolUseFailure": KindToolFailure,
		"Notification":       KindNotification,
		"Stop":               KindTurnEnd,
		"SessionEnd":         KindSessionEnd,
	}
})

func decodeQoder(b []byte, hookEvent string, env Env, now time.Time, truncated bool) (Event, error) {
	e, _, err := claudeShape(qoderID, qoderKinds).decode(b, hookEvent, env, now, truncated)
	return e, err
}

package agents

import (
	"bytes"
	"path/filepath"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

// Gemini CLI (npm @google/gemini-cli, verified against 0.61.0).
//
// Hook events and what they become (the display state is the state
// machine's); the event name is also on the command line
// (`clawd hook gemini BeforeTool`), as Codex's is:
//
//	SessionStart        session.start       idle (source startup, resume, clear)
//	SessionEnd          session.end         removed (reason exit, clear, ...); /quit
//	                                        fires it twice, the second is ignored
//	BeforeAgent         prompt.submit       thinking; title from the prompt
//	BeforeTool          tool.start          working; fires before Gemini's own
//	                                        approval check, dialog or not
//	Notification        notification        ToolPermission → waiting: Gemini shows
//	                                        its tool dialog, answered in its terminal
//	AfterTool           tool.end            working (tool.failure, an error flash,
//	                                        when the tool reports an error); not
//	                                        fired for a call the person refused
//	AfterAgent          turn.end            attention flash, then idle
//	BeforeModel,        model.request       (no change)
//	BeforeToolSelection
//	AfterModel          model.response      (no change)
//	PreCompress         compact.check       (no change): fires before every model
//	                                        call with trigger "auto", compacting or
//	                                        not; it is not a compaction
//
// Not registered: BeforeModel, BeforeToolSelection and AfterModel fire on
// every model call (AfterModel on every streamed chunk), each with the
// whole conversation as its payload, and Gemini waits for each hook: they
// would cost a process per chunk and say nothing a state needs. Neither
// does PreCompress, which comes before every turn. The tool pair is tied
// by a fingerprint of its input (InputHash): Gemini's payloads carry no
// call id.
//
// A failed model call fires no hook at all (no AfterModel, no AfterAgent):
// the turn stays thinking until the state machine's working-stale rule
// ends it. No hook can grant a permission (BeforeTool's "allow" does not
// skip the dialog), so clawd registers no blocking event and never
// answers for Gemini: the person answers in Gemini's dialog, and the
// session shows waiting meanwhile. A refusal there fires no hook either
// (no AfterTool, no AfterAgent): the session waits until the next prompt.
// In a folder the person did not trust, Gemini runs no hook at all, not
// even the user's own.
var Gemini = &Agent{
	ID:       geminiID,
	Name:     "Gemini CLI",
	Aliases:  []string{"gemini-cli", "gemini_cli", "geminicli"},
	Command:  "gemini",
	Package:  "@google/gemini-cli",
	Supports: Supports{States: true, Titles: true, QuestionsInTerminal: geminiQuestions},
	Verified: VerifiedRealCLI,
	Tested:   []string{"0.61.0"},
	Notes: []string{
		"Gemini runs no hooks at all in a folder you have not trusted: clawd cannot see those sessions",
		"Gemini's tool permissions are answered in its own dialog (no hook can grant one): clawd shows the session waiting meanwhile, and after a refusal until your next prompt, as Gemini reports none",
		"a failed model call fires no hook: clawd shows the turn thinking until it goes stale (5 minutes)",
	},
	Settings: "settings.json in ~/.gemini (or $GEMINI_CLI_HOME/.gemini), comments kept",
	// ~/.gemini, where $GEMINI_CLI_HOME stands for the home folder.
	ConfigDir: func(getenv Env) (string, error) {
		home := getenv("GEMINI_CLI_HOME")
		if home == "" {
			home = UserHome(getenv)
		}
		if home == "" {
			return "", errNoHome("Gemini CLI", "GEMINI_CLI_HOME")
		}
		return filepath.Join(home, ".gemini"), nil
	},
	Hooks: []HookSpec{
		{Event: "SessionStart", Timeout: geminiStateTimeout},
		{Event: "SessionEnd", Timeout: geminiStateTimeout},
		{Event: "BeforeAgent", Timeout: geminiStateTimeout},
		{Event: "BeforeTool", Timeout: geminiStateTimeout},
		{Event: "Notification", Timeout: geminiStateTimeout},
		{Event: "AfterTool", Timeout: geminiStateTimeout},
		{Event: "AfterAgent", Timeout: geminiStateTimeout},
	},
	kinds:           geminiKinds,
	Decode:          decodeGemini,
	DecodeTruncated: decodeGeminiTruncated,
	NoDecision:      geminiNoDecision,
	Render:          geminiRender,
	// --resume takes a session's UUID besides "latest" and an index;
	// Gemini looks for it among the chats of the folder it runs in.
	Resume:    func(id string) []string { return []string{"--resume", id} },
	TitleFile: &TitleFile{Path: func(e *Event) string { return e.Transcript }, Line: geminiTitleLine},
}

// geminiQuestions says why Gemini's questions are answered in its
// terminal: ask_user (0.61.0, seen in the TUI) fires BeforeTool, then
// Notification ToolPermission, and takes its answers from its own dialog
// (the confirmation's payload; the model reads {"answers":{"0":...}}
// keyed by the question's index); BeforeTool can deny or rewrite a call,
// never answer one.
const geminiQuestions = "Gemini CLI takes the answers to its questions (ask_user) from its own dialog only: its hooks can block a tool, not answer it"

// geminiTitleLine reads one line of a Gemini CLI (0.61) chat file: the
// summary Gemini generates for a session (one sentence of at most 80
// characters, which its resume list shows as the session's name) is a
// metadata update, {"$set":{"summary":...}}. Gemini writes it for the
// previous session when it starts the next one, so clawd sees it when
// that session is resumed.
func geminiTitleLine(line []byte, _ string) (string, bool, bool) {
	if !bytes.HasPrefix(line, []byte(`{"$set":`)) || !gjson.ValidBytes(line) {
		return "", false, false
	}
	t := gjson.GetBytes(line, `\$set.summary`)
	if t.Type != gjson.String {
		return "", false, false
	}
	return t.String(), false, true
}

// geminiStateTimeout bounds a hook on Gemini's side, in seconds (the
// installer writes it in milliseconds). The hook bounds itself far
// tighter; this is only the backstop.
const geminiStateTimeout = 10

// geminiKinds maps Gemini CLI's hook_event_name to a kind.
var geminiKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"SessionStart":        KindSessionStart,
		"SessionEnd":          KindSessionEnd,
		"BeforeAgent":         KindPromptSubmit,
		"AfterAgent":          KindTurnEnd,
		"BeforeModel":         KindModelRequest,
		"BeforeToolSelection": KindModelRequest,
		"AfterModel":          KindModelResponse,
		"BeforeTool":          KindToolStart,
		"AfterTool":           KindToolEnd,
		"Notification":        KindNotification,
		"PreCompress":         KindCompactCheck,
	}
})

// geminiNotices maps Gemini's notification_type words to clawd's. 0.61.0
// sends only ToolPermission, when its tool confirmation dialog opens.
var geminiNotices = map[string]Notice{
	"ToolPermission": NoticeDialog,
}

func decodeGemini(payload []byte, hookEvent string, env Env, now time.Time) (Event, error) {
	return decodeGeminiOpts(payload, hookEvent, env, now, false)
}

// decodeGeminiTruncated decodes the start of a payload cut at the hook's
// stdin cap. Gemini writes session_id, transcript_path, cwd,
// hook_event_name and timestamp first, then the event's own fields in a
// fixed order (tool_name before tool_input before tool_response,
// notification_type before details), so what a state needs precedes the
// bulk.
func decodeGeminiTruncated(prefix []byte, hookEvent string, env Env, now time.Time) (Event, error) {
	return decodeGeminiOpts(prefix, hookEvent, env, now, true)
}

func decodeGeminiOpts(b []byte, hookEvent string, env Env, now time.Time, truncated bool) (Event, error) {
	p, err := openPayload(b, truncated)
	if err != nil {
		return Event{}, err
	}
	// GEMINI_SESSION_ID is the same id, for a payload cut before it.
	e, err := p.common(geminiID, geminiKinds, hookEvent, env("GEMINI_SESSION_ID"), now, truncated)
	if err != nil {
		return Event{}, err
	}
	e.ProjectDir = clip(env("GEMINI_PROJECT_DIR"), MaxPathLen)
	e.Transcript = p.str("transcript_path", MaxPathLen)

	switch e.Kind {
	case KindSessionStart:
		e.Source = p.str("source", MaxWordLen)
	case KindSessionEnd:
		e.Reason = p.str("reason", MaxWordLen)
	case KindCompactCheck:
		e.Source = p.str("trigger", MaxWordLen)
	case KindPromptSubmit:
		if t := PromptTitle(p.get("prompt").String()); t != "" {
			e.Title, e.TitleSource = t, TitleFromPrompt
		}
	case KindToolStart, KindToolEnd:
		// A cut payload still has the whole tool_input when the cut
		// fell in tool_response, after it: an object that parses is
		// complete.
		if in := p.get("tool_input"); in.IsObject() && (!truncated || gjson.Valid(in.Raw)) {
			e.InputHash = Fingerprint(geminiID, e.ToolName, []byte(in.Raw))
		}
		if e.Kind == KindToolEnd && p.get("tool_response").Get("error").IsObject() {
			e.Kind = KindToolFailure
		}
	case KindNotification:
		e.NotificationType = p.str("notification_type", MaxWordLen)
		e.Notice = geminiNotices[e.NotificationType]
		if e.Notice == "" {
			e.Notice = NoticeOther
		}
	}
	return e, nil
}

// geminiNoDecision is empty output for every event: Gemini reads empty
// stdout and stderr as "no output", whatever the exit code, and carries
// on as if there were no hook. `{}` would do the same, but any text that
// is not JSON would be shown as a system message.
func geminiNoDecision(string) []byte { return nil }

// geminiRender is the no-decision answer, whatever d says. clawd registers
// no blocking event for Gemini: no hook can grant a call (Gemini's dialog
// still asks after an "allow"), and a deny would be clawd answering for
// the person while Gemini's own dialog is theirs.
func geminiRender(hookEvent string, d *Decision) []byte { return geminiNoDecision(hookEvent) }

const geminiID = "gemini"

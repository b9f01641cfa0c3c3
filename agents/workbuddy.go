package agents

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// WorkBuddy (Tencent's desktop agent; documented format: settings.json in
// $WORKBUDDY_CONFIG_DIR or ~/.workbuddy-ai, Claude Code's nested hooks and
// payloads). No runnable client here.
//
// Hook events and what they become (the display state is the state
// machine's):
//
//	SessionStart      session.start    idle
//	UserPromptSubmit  prompt.submit    thinking; title from the prompt
//	PreToolUse        tool.start       working
//	PostToolUse       tool.end         working
//	Notification      notification     permission_prompt: waiting (WorkBuddy asks
//	                                   in its own window), as Claude Code's
//	PreCompact        compact.start    sweeping
//	Stop              turn.end         attention flash, then idle
//	SessionEnd        session.end      removed
//
// WorkBuddy settles permissions in its own sandbox and window, so clawd
// registers no blocking event: state and notifications only.
//
// WorkBuddy keeps its sessions in workbuddy.db, a SQLite file in its home
// ($WORKBUDDY_CONFIG_DIR, ~/.workbuddy-ai, or the older ~/.workbuddy): a
// sessions table with the person's custom_title, its own title, the
// session's cwd, and its status ("archived") and deleted_at. The runtime
// reads a session's row there (TitleDB) and falls back to the transcript
// the hooks name, which holds Qoder's title records (TitleFile). Only the
// database can say that the person archived or deleted a session.
var WorkBuddy = &Agent{
	ID:       workBuddyID,
	Name:     "WorkBuddy",
	Command:  "workbuddy",
	Supports: Supports{States: true, Titles: true},
	Verified: VerifiedDocumented,
	Notes: []string{
		"tested from WorkBuddy's documented hook format (Claude Code's): there is no WorkBuddy CLI to run here",
		"WorkBuddy settles permissions in its own window: clawd shows the session waiting and answers nothing",
		"a session is named by its first prompt, then by the name WorkBuddy gives it (yours or its own), read from its workbuddy.db or its transcript; one you archive or delete there leaves clawd",
	},
	Settings: "settings.json in $WORKBUDDY_CONFIG_DIR or ~/.workbuddy-ai",
	ConfigDir: func(getenv Env) (string, error) {
		if d := getenv("WORKBUDDY_CONFIG_DIR"); filepath.IsAbs(d) {
			return d, nil
		}
		return homeFolder(getenv, "WorkBuddy", ".workbuddy-ai")
	},
	Hooks: []HookSpec{
		{Event: "SessionStart", Timeout: claudeStateTimeout},
		{Event: "SessionEnd", Timeout: claudeStateTimeout},
		{Event: "UserPromptSubmit", Timeout: claudeStateTimeout},
		{Event: "PreToolUse", Timeout: claudeStateTimeout},
		{Event: "PostToolUse", Timeout: claudeStateTimeout},
		{Event: "Notification", Timeout: claudeStateTimeout},
		{Event: "PreCompact", Timeout: claudeStateTimeout},
		{Event: "Stop", Timeout: claudeStateTimeout},
	},
	kinds: workBuddyKinds,
	Decode: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		e, _, err := claudeShape(workBuddyID, workBuddyKinds).decode(b, ev, env, now, false)
		return e, err
	},
	DecodeTruncated: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		e, _, err := claudeShape(workBuddyID, workBuddyKinds).decode(b, ev, env, now, true)
		return e, err
	},
	NoDecision: emptyObject,
	Render:     stateOnlyRender(emptyObject),
	TitleFile:  &TitleFile{Path: func(e *Event) string { return e.Transcript }, Line: sessionTitleRecords.line},
	TitleDB: &TitleDB{
		Files: workBuddyDatabases,
		Queries: []string{
			`SELECT ` + boundedTitle("custom_title") + `, ` + boundedTitle("title") + `, cwd,
			 coalesce(status, '') = 'archived' OR deleted_at IS NOT NULL
			 FROM sessions WHERE id = ?`,
			// Before WorkBuddy had a status column it could not say a
			// session was archived, and a deleted one names nothing.
			`SELECT ` + boundedTitle("custom_title") + `, ` + boundedTitle("title") + `, cwd, NULL
			 FROM sessions WHERE id = ? AND deleted_at IS NULL`,
		},
	},
}

// boundedTitle selects a text column as a title: NULL when it is longer
// than MaxTitleDBBytes.
func boundedTitle(col string) string {
	return `CASE WHEN length(CAST(` + col + ` AS BLOB)) <= ` + strconv.Itoa(MaxTitleDBBytes) + ` THEN ` + col + ` END`
}

// workBuddyDatabases are the workbuddy.db files of WorkBuddy's homes. The
// home that holds the session's transcript owns it and comes first; a
// transcript in a "projects" folder of a home clawd does not know of
// (WorkBuddy run with its own WORKBUDDY_CONFIG_DIR) names that home.
func workBuddyDatabases(e *Event, getenv Env) []TitleDBFile {
	var homes []string
	if d := getenv("WORKBUDDY_CONFIG_DIR"); filepath.IsAbs(d) {
		homes = append(homes, filepath.Clean(d))
	}
	if h := UserHome(getenv); h != "" {
		homes = append(homes, filepath.Join(h, ".workbuddy-ai"), filepath.Join(h, ".workbuddy"))
	}
	homes = slices.Compact(homes)
	owner := ""
	if filepath.IsAbs(e.Transcript) {
		if i := slices.IndexFunc(homes, func(h string) bool { return within(h, e.Transcript) }); i >= 0 {
			owner = homes[i]
		} else {
			owner = projectsHome(e.Transcript)
		}
	}
	var files []TitleDBFile
	if owner != "" {
		files = append(files, TitleDBFile{Path: filepath.Join(owner, "workbuddy.db"), Owner: true})
	}
	for _, h := range homes {
		if h != owner {
			files = append(files, TitleDBFile{Path: filepath.Join(h, "workbuddy.db")})
		}
	}
	return files
}

// within reports whether path lies inside folder dir.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && !filepath.IsAbs(rel) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// projectsHome is the folder above the nearest "projects" folder among
// an absolute transcript's parents; "" for none.
func projectsHome(transcript string) string {
	dir := filepath.Dir(filepath.Clean(transcript))
	for range 8 {
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		if strings.EqualFold(filepath.Base(dir), "projects") {
			return parent
		}
		dir = parent
	}
	return ""
}

const workBuddyID = "workbuddy"

var workBuddyKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"SessionStart":     KindSessionStart,
		"SessionEnd":       KindSessionEnd,
		"UserPromptSubmit": KindPromptSubmit,
		"PreToolUse":       KindToolStart,
		"PostToolUse":      KindToolEnd,
		"Notification":     KindNotification,
		"PreCompact":       KindCompactStart,
		"Stop":             KindTurnEnd,
	}
})

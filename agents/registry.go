package agents

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// Env reads an environment variable of the hook process.
type Env func(key string) string

// HookSpec is one hook event an installer registers for an agent.
type HookSpec struct {
	// Event is the agent's own event name, the settings key.
	Event string
	// Timeout is the agent-side timeout written next to the command, in
	// seconds.
	Timeout int
	// Blocking events wait for a decision from the person.
	Blocking bool
	// Since is the first release of the agent that knows the event, ""
	// for every release: an older one warns of it (Claude Code's TUI
	// stops at a Settings Warning dialog on every start). See HooksFor.
	Since string
}

// Agent describes one supported coding agent.
type Agent struct {
	// ID is the short name used on the command line: `clawd hook claude`.
	ID string
	// Name is the agent's product name for people.
	Name string
	// Aliases are other names accepted for ID (the original app's ids).
	Aliases []string
	// Command is the name of the agent's executable on PATH.
	Command string
	// Package is the npm package the agent ships as: where its version
	// is read (the package.json above the executable).
	Package string
	// Supports says what clawd does for the agent.
	Supports Supports
	// Notes are what a person should know: clawd's blind spots with the
	// agent.
	Notes []string
	// Verified says how what clawd does for the agent was checked.
	Verified Verification
	// Tested are the agent's releases clawd's end-to-end tests ran
	// against, oldest first; the last is the one scripts/install-agents.sh
	// pins (a test holds the two together). Empty when no real CLI of
	// the agent ran. `clawd agents` shows them; `clawd doctor` warns when
	// the installed release is newer than all of them.
	Tested []string
	// Custom marks an agent the person declared in config.toml (see
	// SetCustom): it reports its own state over POST /state, and clawd
	// answers none of its permission requests.
	Custom bool
	// Icon is the tray icon a custom agent's idle sessions show (a
	// internal/icons name); "" shows the state's own.
	Icon string
	// Unsupported, when set, says why clawd knows the agent but installs
	// nothing for it: no source it can trust states its hook format. Such
	// an agent has no hooks and no decoder.
	Unsupported string
	// HookEnv is the environment variable the agent sets, non-empty, in
	// every hook it runs.
	HookEnv string
	// RunsHooksOf are the agents whose settings this agent also reads
	// hooks from (Grok Build runs the hooks of Claude Code's settings):
	// when it runs their hook, the event is not theirs (see
	// ForeignCaller).
	RunsHooksOf []string
	// Settings says, for help texts, which files clawd edits to hook the
	// agent up and where they are.
	Settings string
	// ConfigDir returns the folder the agent keeps its user settings in,
	// as the agent itself finds it from its environment (its override
	// variable, else a folder in the user's home). The folder need not
	// exist.
	ConfigDir func(getenv Env) (string, error)
	// Hooks are the events clawd registers, in settings order.
	Hooks []HookSpec
	// kinds maps every hook event name the agent fires that clawd
	// decodes to its normalized kind (see Kinds); nil for none.
	kinds func() map[string]Kind
	// Decode turns one hook payload into a normalized event. hookEvent is
	// the event name given on the command line, if any.
	Decode func(payload []byte, hookEvent string, env Env, now time.Time) (Event, error)
	// DecodeTruncated decodes the start of a payload cut at the hook's
	// stdin cap: the fields before the cut (the ids, the event and the
	// tool name come first in every agent's payloads).
	DecodeTruncated func(prefix []byte, hookEvent string, env Env, now time.Time) (Event, error)
	// Describe says what a blocking event asks a person (see Request);
	// cut says the payload was cut at the stdin cap.
	Describe func(ev Event, payload []byte, cut bool) Request
	// BypassModes are the permission modes in which the agent fires its
	// permission request and then proceeds without asking: clawd answers
	// those with no decision at once.
	BypassModes []string
	// NoDecision is what the hook prints for an event when clawd has no
	// decision to give: the agent then carries on as if clawd were absent.
	NoDecision func(hookEvent string) []byte
	// Render is what the hook prints for a blocking event the person
	// decided: the agent's exact answer format. A nil decision renders as
	// NoDecision.
	Render func(hookEvent string, d *Decision) []byte
	// Answer turns a person's answers to a question request (one per
	// Request.Questions, in order) into the decision that hands them to
	// the agent, for its Render. It is set for every agent whose
	// Supports.AnswersQuestions is, and only used then (an agent may have
	// one before its hook passes its questions on). It fails with
	// ErrBadAnswer when the answers do not fit the questions, with
	// ErrCannotAnswer when the request is not one it can answer.
	Answer func(req Request, answers []Answer) (Decision, error)
	// Approve returns the decision that approves a plan request
	// (RequestPlan); nil when a plain allow does.
	Approve func(req Request) Decision
	// Resume returns the arguments that make Command resume session id
	// in the current terminal (`clawd resume`); nil when the agent has no
	// way to resume a session by its id.
	Resume func(id string) []string
	// TitleFile is where the agent writes its own name for a session
	// besides its hooks (Claude Code's transcript); nil when its hooks and
	// monitors say all there is.
	TitleFile *TitleFile
	// TitleDB is a database of the agent's own that names its sessions
	// (WorkBuddy's); nil when it keeps none.
	TitleDB *TitleDB
}

// TitleFile is a file of the agent's own, appended to line by line, that
// names a session. The runtime reads it incrementally (only the lines
// added since its last look, at most a bounded window of them) and only
// when the session starts, takes a prompt or ends a turn, and hands each
// new whole line to Line; the last title the person named wins over the
// last one the agent generated.
type TitleFile struct {
	// Path returns the file of the session an event is about; "" when the
	// event names none.
	Path func(e *Event) string
	// Line reads one line of the file for session sessionID: the title it
	// gives and whether a person named it in the agent (a rename) rather
	// than the agent generated it. ok is false for a line that says
	// nothing of the title. It never sees a line longer than
	// MaxTitleFileLine.
	Line func(line []byte, sessionID string) (title string, named, ok bool)
	// Whole, set instead of Line, reads a small file the agent rewrites
	// rather than appends to: the runtime reads it whole at each look (a
	// file longer than MaxTitleFileLine says nothing) and Whole says what
	// Line says of a line.
	Whole func(data []byte, sessionID string) (title string, named, ok bool)
}

// TitleDB is a SQLite database of the agent's own that names its
// sessions, and may say that one is gone (archived or deleted in the
// agent) when no hook will. The runtime opens it read-only, never creates
// it, and asks it whenever it would look at the session's TitleFile, and
// first: what the database names wins over the file, which stands in for
// it when it says nothing (no database, a schema it does not know, a
// lock). A session it says is gone leaves clawd as if it had ended.
type TitleDB struct {
	// Files returns the databases that may hold the session e is about,
	// the likeliest first; getenv is the runtime's environment.
	Files func(e *Event, getenv Env) []TitleDBFile
	// Queries select one session's row by its id (the one parameter);
	// the first the database's schema accepts is used. The columns are
	// the title a person gave and the one the agent gave (NULL for none,
	// and for one longer than MaxTitleDBBytes), the session's folder
	// (NULL when unknown: a row of another folder is another session),
	// and 1 when the session is gone, 0 when it is not, NULL when the
	// database cannot tell.
	Queries []string
}

// TitleDBFile is one database a TitleDB may find a session in.
type TitleDBFile struct {
	Path string
	// Owner is set when the database is known to be the session's own
	// (it holds its transcript): only then may it say the session is
	// gone, never from another install's copy.
	Owner bool
}

// MaxTitleDBBytes bounds a title a TitleDB's query may return: its
// queries read a longer one as none, so it never reaches memory.
const MaxTitleDBBytes = 4 << 10

// MaxTitleFileLine bounds the lines a TitleFile's Line is given: longer
// ones (a transcript's messages) never carry a title and are skipped.
const MaxTitleFileLine = 16 << 10

// Verification says how clawd's support of an agent was checked.
type Verification string

// Verifications.
const (
	// VerifiedRealCLI: the agent's own CLI ran against clawd in the
	// end-to-end tests, and its recorded payloads drive the decoder tests.
	VerifiedRealCLI Verification = "real CLI"
	// VerifiedDocumented: no runnable client here; the decoder and the
	// installer are tested on payloads and settings built from the
	// agent's documented format (testdata/<agent>/documented-*).
	VerifiedDocumented Verification = "documented format"
)

// Supports says what clawd does for an agent.
type Supports struct {
	// States: the agent's lifecycle events drive its sessions' states.
	States bool `json:"states"`
	// Permissions: clawd shows its permission requests and answers them.
	Permissions bool `json:"permissions"`
	// Titles: its sessions get titles (the first prompt, or the agent's
	// own name for the thread).
	Titles bool `json:"titles"`
	// Subagents: its subagents show under their session.
	Subagents bool `json:"subagents"`
	// AnswersQuestions: a person answers the agent's own questions (its
	// question tool) from clawd, picking among the options or typing an
	// answer; the agent's Answer makes the decision.
	AnswersQuestions bool `json:"answers_questions"`
	// QuestionsInTerminal, when AnswersQuestions is false, says why the
	// agent's questions are answered in its terminal; "" when clawd sees
	// none of them.
	QuestionsInTerminal string `json:"questions_in_terminal,omitempty"`
}

// registry holds every supported agent, in display order.
var registry = []*Agent{
	Claude, Codex, Gemini, Qwen, Copilot, Opencode,
	Pi, OMP, OpenClaw, Qoder, Cursor, CodeBuddy, Kiro, Kimi, Antigravity, Grok, WorkBuddy, QwenWork, TraeCode, MiniMax, ZCode, CodeWhale, Reasonix,
	// Beyond the seed.
	Droid, Cline, Kilo, Auggie, Crush,
}

// Kinds maps every hook event name the agent fires that clawd decodes to
// its normalized kind; nil for an agent clawd decodes nothing of. The
// table is the agent's own, built on first use rather than at init in
// every hook process: read it, never change it.
func (a *Agent) Kinds() map[string]Kind {
	if a.kinds == nil {
		return nil
	}
	return a.kinds()
}

// All returns the supported agents.
func All() []*Agent { return append([]*Agent(nil), registry...) }

// Lookup finds an agent by id or alias, case-insensitively, among the
// supported agents and the registered custom ones (SetCustom). It returns
// nil for an unknown name: a custom- id that is not registered is no
// agent at all, never another's.
func Lookup(name string) *Agent {
	name = strings.ToLower(strings.TrimSpace(name))
	if strings.HasPrefix(name, CustomPrefix) {
		return lookupCustom(name)
	}
	for _, a := range registry {
		if a.ID == name {
			return a
		}
		for _, al := range a.Aliases {
			if al == name {
				return a
			}
		}
	}
	return nil
}

// ForeignCaller returns the agent that runs a's hook when that is not a
// itself: another agent whose HookEnv is set and that reads a's settings
// (Grok Build scans Claude Code's settings and runs the hooks there,
// clawd's included, with GROK_HOOK_EVENT set). Its events are not a's: the
// hook answers the caller's no-decision and records nothing, so no phantom
// session shows. nil when a's own agent runs it.
func (a *Agent) ForeignCaller(getenv Env) *Agent {
	for _, b := range registry {
		if b == a || b.HookEnv == "" || !slices.Contains(b.RunsHooksOf, a.ID) {
			continue
		}
		if getenv(b.HookEnv) != "" {
			return b
		}
	}
	return nil
}

// Hook returns the spec of an event clawd registers, or false.
func (a *Agent) Hook(event string) (HookSpec, bool) {
	for _, h := range a.Hooks {
		if h.Event == event {
			return h, true
		}
	}
	return HookSpec{}, false
}

// Fingerprint hashes a tool call's identity: agent, tool name and input.
// The input is compacted first, so the same call pretty-printed or not
// hashes the same. The hash, not the input, is what leaves the hook.
func Fingerprint(agent, tool string, input []byte) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, input); err != nil {
		buf.Reset()
		buf.Write(input)
	}
	h := sha256.New()
	h.Write([]byte(agent))
	h.Write([]byte{0})
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(buf.Bytes())
	return hex.EncodeToString(h.Sum(nil)[:12])
}

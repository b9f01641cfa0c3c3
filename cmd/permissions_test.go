package cmd

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/recap"
)

// fakeAPI is a runtime on the home's socket for the CLI: health, the
// permission list, decisions, the change stream and DND; what it holds
// for the other lists (history, recap, automations and their runs,
// remote links), set before the CLI asks; and the automations' changes
// (trust, test, reload, retry, cancel, pause, resume: each answers
// success) and preview.
type fakeAPI struct {
	home string
	mu   sync.Mutex
	list []client.PermissionView
	// decided records each decision by id.
	decided map[string]client.DecisionBody
	// closed ids answer 409.
	closed map[string]bool
	dnd    bool
	// stream carries the changes the stream sends after the pending list.
	stream chan client.PermissionChange

	history     client.History
	recap       recap.Summary
	automations client.AutomationsState
	runs        []client.AutomationRun
	links       []client.RemoteLink
	preview     client.AutomationPreview
	// posted records the path of each POST under /api/v1/automations/.
	posted []string
}

func newFakeAPI(t *testing.T, list ...client.PermissionView) *fakeAPI {
	t.Helper()
	f := &fakeAPI{home: t.TempDir(), list: list, decided: map[string]client.DecisionBody{},
		closed: map[string]bool{}, stream: make(chan client.PermissionChange, 4)}
	mux := http.NewServeMux()
	writeJSON := func(w http.ResponseWriter, code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("GET /api/v1/health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"ok": true, "app": "clawd"})
	})
	mux.HandleFunc("GET /api/v1/permissions", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		writeJSON(w, 200, append([]client.PermissionView{}, f.list...))
	})
	mux.HandleFunc("GET /api/v1/permissions/{id}", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, p := range f.list {
			if p.ID == r.PathValue("id") {
				writeJSON(w, 200, client.PermissionDetail{PermissionView: p})
				return
			}
		}
		if id := r.PathValue("id"); f.closed[id] {
			// The runtime keeps an answered request a while.
			writeJSON(w, 200, client.PermissionDetail{PermissionView: client.PermissionView{ID: id, Kind: client.KindPermission, State: "answered"}})
			return
		}
		writeJSON(w, 404, map[string]string{"error": "no permission request " + r.PathValue("id")})
	})
	mux.HandleFunc("POST /api/v1/permissions/{id}/decision", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		var d client.DecisionBody
		json.NewDecoder(r.Body).Decode(&d)
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.closed[id] {
			writeJSON(w, 409, map[string]string{"error": "permission request " + id + " was already answered"})
			return
		}
		for i, p := range f.list {
			if p.ID == id {
				f.decided[id] = d
				f.closed[id] = true
				f.list = append(f.list[:i], f.list[i+1:]...)
				p.State = "answered"
				writeJSON(w, 200, p)
				return
			}
		}
		writeJSON(w, 404, map[string]string{"error": "no permission request " + id})
	})
	mux.HandleFunc("GET /api/v1/permissions/events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(200)
		enc := json.NewEncoder(w)
		f.mu.Lock()
		for _, p := range f.list {
			enc.Encode(client.PermissionChange{Type: "added", Permission: p})
		}
		f.mu.Unlock()
		w.(http.Flusher).Flush()
		for {
			select {
			case <-r.Context().Done():
				return
			case ch := <-f.stream:
				if ch.Type == "added" {
					f.mu.Lock()
					f.list = append(f.list, ch.Permission)
					f.mu.Unlock()
				}
				enc.Encode(ch)
				w.(http.Flusher).Flush()
			}
		}
	})
	mux.HandleFunc("GET /api/v1/dnd", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		writeJSON(w, 200, client.DND{On: f.dnd})
	})
	mux.HandleFunc("POST /api/v1/dnd", func(w http.ResponseWriter, r *http.Request) {
		var d client.DND
		json.NewDecoder(r.Body).Decode(&d)
		f.mu.Lock()
		defer f.mu.Unlock()
		f.dnd = d.On
		writeJSON(w, 200, client.DND{On: f.dnd})
	})
	// The other lists, as they are.
	for path, v := range map[string]any{"history": &f.history, "recap": &f.recap, "automations": &f.automations,
		"automations/runs": &f.runs, "remotes": &f.links} {
		mux.HandleFunc("GET /api/v1/"+path, func(w http.ResponseWriter, r *http.Request) {
			f.mu.Lock()
			defer f.mu.Unlock()
			writeJSON(w, 200, v)
		})
	}
	mux.HandleFunc("POST /api/v1/automations/", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.posted = append(f.posted, r.URL.Path)
		switch path.Base(r.URL.Path) {
		case "preview":
			writeJSON(w, 200, f.preview)
		case "test":
			writeJSON(w, 200, map[string]string{"run": "r9"})
		case "reload":
			writeJSON(w, 200, f.automations)
		default:
			writeJSON(w, 200, map[string]any{})
		}
	})
	serveOnSocket(t, f.home, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(client.IdentityHeader, client.IdentityValue)
		if r.Header.Get("Authorization") != "" {
			// The socket needs no token, and the CLI sends none there.
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":"a token sent over the socket"}`)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	return f
}

var created = time.Date(2026, 5, 1, 11, 58, 0, 0, time.UTC)

func pendingView(id string) client.PermissionView {
	return client.PermissionView{
		ID: id, Kind: client.KindPermission, Agent: "claude", SessionID: "s1",
		Cwd: "/home/user/project", Tool: "Bash", Summary: "echo hello > out.txt",
		Suggestions: []string{"Add /home/user/project (session)", "Accept edits (session)"},
		CreatedAt:   created, State: "pending",
	}
}

// runCLI runs clawd with args against home and returns exit code and
// output.
func runCLI(t *testing.T, home string, args ...string) (int, string, string) {
	t.Helper()
	e, out, errb := testEnv(t, home, nil, map[string]string{"HOME": "/home/user"})
	e.now = func() time.Time { return created.Add(2 * time.Minute) }
	code := run(context.Background(), e, append([]string{"clawd"}, args...))
	return code, out.String(), errb.String()
}

func TestPermissionsList(t *testing.T) {
	titled := pendingView("p2")
	titled.Title, titled.Suggestions, titled.Headless = "Fix the login bug", nil, true
	f := newFakeAPI(t, pendingView("p1"), titled)

	code, out, errb := runCLI(t, f.home, "permissions")
	if code != 0 || errb != "" {
		t.Fatalf("permissions = %d, stderr %q", code, errb)
	}
	for _, want := range []string{"ID", "AGENT", "SESSION", "TOOL", "SUMMARY", "AGE", "SUGGESTIONS",
		"p1", "~/project", "echo hello > out.txt", "2m", "1) Add /home/user/project (session)  2) Accept edits (session)",
		"p2", "claude (headless)", "Fix the login bug"} {
		if !strings.Contains(out, want) {
			t.Errorf("permissions output lacks %q:\n%s", want, out)
		}
	}

	code, out, _ = runCLI(t, f.home, "permissions", "--json")
	var got []client.PermissionView
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got) != 2 || got[0].ID != "p1" || len(got[0].Suggestions) != 2 {
		t.Errorf("permissions --json = %d %v\n%s", code, err, out)
	}

	empty := newFakeAPI(t)
	if code, out, _ := runCLI(t, empty.home, "permissions"); code != 0 || out != "no pending permission requests\n" {
		t.Errorf("permissions with none pending = %d %q", code, out)
	}
	if code, out, _ := runCLI(t, empty.home, "permissions", "--json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("permissions --json with none pending = %d %q, want []", code, out)
	}
}

func TestPermissionsWait(t *testing.T) {
	f := newFakeAPI(t)
	e, _, errb := testEnv(t, f.home, nil, nil)
	out := &syncBuffer{}
	e.stdout = out
	done := make(chan int, 1)
	go func() { done <- run(context.Background(), e, []string{"clawd", "permissions", "--wait", "--json"}) }()
	// A waiter that returned with nothing pending lists no p9 below.
	f.stream <- client.PermissionChange{Type: "added", Permission: pendingView("p9")}
	select {
	case code := <-done:
		var got []client.PermissionView
		if err := json.Unmarshal([]byte(out.String()), &got); code != 0 || err != nil || len(got) != 1 || got[0].ID != "p9" {
			t.Errorf("permissions --wait --json = %d %v %q %q, want the list of p9", code, err, out, errb)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("permissions --wait did not return after a request was added")
	}

	// Already pending: at once.
	f2 := newFakeAPI(t, pendingView("p1"))
	if code, out, _ := runCLI(t, f2.home, "permissions", "--wait"); code != 0 || !strings.Contains(out, "p1") {
		t.Errorf("permissions --wait with one pending = %d %q", code, out)
	}
}

func TestPermissionsAnswer(t *testing.T) {
	cases := []struct {
		args    []string
		want    client.DecisionBody
		wantOut string
	}{
		{[]string{"allow", "p1"}, client.DecisionBody{Behavior: "allow", Via: "cli"}, "allowed p1 (Bash: echo hello > out.txt)\n"},
		{[]string{"deny", "p1"}, client.DecisionBody{Behavior: "deny", Via: "cli"}, "denied p1 (Bash: echo hello > out.txt)\n"},
		{[]string{"deny", "--message", "not there", "--interrupt", "p1"}, client.DecisionBody{Behavior: "deny", Message: "not there", Interrupt: true, Via: "cli"}, "denied p1"},
		{[]string{"deny", "p1", "-m", "use the tmp dir"}, client.DecisionBody{Behavior: "deny", Message: "use the tmp dir", Via: "cli"}, "denied p1"},
		{[]string{"always", "p1"}, client.DecisionBody{Behavior: "allow", Suggestion: 1, Via: "cli"}, `applied suggestion 1 "Add /home/user/project (session)"`},
		{[]string{"always", "p1", "2"}, client.DecisionBody{Behavior: "allow", Suggestion: 2, Via: "cli"}, `applied suggestion 2 "Accept edits (session)"`},
		{[]string{"terminal", "p1"}, client.DecisionBody{Behavior: "terminal", Via: "cli"}, "closed p1 here: answer it in the agent's terminal"},
	}
	for _, c := range cases {
		f := newFakeAPI(t, pendingView("p1"))
		code, out, errb := runCLI(t, f.home, append([]string{"permissions"}, c.args...)...)
		f.mu.Lock()
		got, ok := f.decided["p1"]
		f.mu.Unlock()
		if code != 0 || !ok || !reflect.DeepEqual(got, c.want) || !strings.Contains(out, c.wantOut) || strings.Count(out, "\n") != 1 {
			t.Errorf("permissions %q = %d, sent %+v (%v), stdout %q stderr %q; want 0, %+v, %q", c.args, code, got, ok, out, errb, c.want, c.wantOut)
		}
	}
}

func TestPermissionsAnswerErrors(t *testing.T) {
	f := newFakeAPI(t, pendingView("p1"))
	f.closed["gone"] = true
	cases := []struct {
		args     []string
		wantCode int
		wantErr  string
	}{
		{[]string{"allow", "gone"}, 1, "clawd: permission request gone was already answered\n"},
		{[]string{"deny", "nope"}, 1, "clawd: no such request: nope (see `clawd permissions`)\n"},
		{[]string{"allow"}, 2, "usage: clawd permissions allow ID"},
		{[]string{"allow", "p1", "p2"}, 2, "usage: clawd permissions allow ID"},
		{[]string{"always", "p1", "zero"}, 2, `suggestion "zero": want a number from 1`},
		{[]string{"always", "p1", "0"}, 2, `suggestion "0"`},
		{[]string{"maybe", "p1"}, 2, `unknown subcommand "maybe"`},
	}
	for _, c := range cases {
		code, out, errb := runCLI(t, f.home, append([]string{"permissions"}, c.args...)...)
		if code != c.wantCode || out != "" || !strings.Contains(errb, c.wantErr) || strings.Count(errb, "\n") != 1 {
			t.Errorf("permissions %q = %d, stdout %q stderr %q; want %d and one line with %q", c.args, code, out, errb, c.wantCode, c.wantErr)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.decided) != 0 {
		t.Errorf("decisions sent for bad commands: %+v", f.decided)
	}
}

// TestRequestPrefixes: every command that takes a request's id takes a
// unique start of it; an ambiguous start is an error naming the
// candidates, an unknown one the runtime's "no such request", and a whole
// id that starts another's (answered already) means itself.
func TestRequestPrefixes(t *testing.T) {
	question := pendingView("q7c0ffee")
	question.Kind = client.KindQuestion
	question.Questions = []agents.Question{{Text: "Which?", Options: []agents.QuestionOption{{Label: "Go"}, {Label: "Zig"}}}}
	plan := pendingView("pl4n99")
	plan.Kind, plan.Plan = client.KindPlan, "1. do it"
	list := []client.PermissionView{pendingView("k3ab12"), pendingView("k3cd34"), question, plan}
	cases := []struct {
		args    []string
		code    int
		decided string // the id answered, "" for none
		out     string // in stdout (code 0) or stderr
	}{
		{[]string{"permissions", "allow", "k3a"}, 0, "k3ab12", "allowed k3ab12 ("},
		{[]string{"permissions", "deny", "k3c"}, 0, "k3cd34", "denied k3cd34 ("},
		{[]string{"permissions", "always", "k3cd", "2"}, 0, "k3cd34", "allowed k3cd34 ("},
		{[]string{"permissions", "terminal", "k3ab1"}, 0, "k3ab12", "closed k3ab12 here"},
		{[]string{"answer", "q7", "Zig"}, 0, "q7c0ffee", "answered q7c0ffee ("},
		{[]string{"plan", "show", "pl"}, 0, "", "1. do it"},
		{[]string{"plan", "approve", "pl4"}, 0, "pl4n99", "approved the plan of pl4n99"},
		{[]string{"permissions", "allow", "k3"}, 1, "", "clawd: more than one pending request matches \"k3\": k3ab12, k3cd34; give more of the id\n"},
		{[]string{"answer", "k", "1"}, 1, "", "more than one pending request matches \"k\": k3ab12, k3cd34;"},
		{[]string{"plan", "keep", "x"}, 1, "", "clawd: no such request: x (see `clawd permissions`)\n"},
		{[]string{"permissions", "deny", "nope"}, 1, "", "clawd: no such request: nope (see `clawd permissions`)\n"},
		{[]string{"permissions", "allow", "k3ab"}, 1, "", "clawd: permission request k3ab was already answered\n"},
	}
	for _, c := range cases {
		f := newFakeAPI(t, append([]client.PermissionView{}, list...)...)
		f.closed["k3ab"] = true
		code, out, errb := runCLI(t, f.home, c.args...)
		f.mu.Lock()
		var decided []string
		for id := range f.decided {
			decided = append(decided, id)
		}
		f.mu.Unlock()
		got := out
		if c.code != 0 {
			got = errb
		}
		wantDecided := []string(nil)
		if c.decided != "" {
			wantDecided = []string{c.decided}
		}
		if code != c.code || !strings.Contains(got, c.out) || !reflect.DeepEqual(decided, wantDecided) {
			t.Errorf("clawd %q = %d, decided %v, stdout %q, stderr %q; want %d, decided %v, %q", c.args, code, decided, out, errb, c.code, wantDecided, c.out)
		}
	}
}

func TestMatchPrefix(t *testing.T) {
	ids := []string{"abc", "abcd", "abx", "zz"}
	for _, tt := range []struct {
		typed string
		want  []string
	}{
		{"abc", []string{"abc"}}, // whole wins over abcd
		{"abx", []string{"abx"}},
		{"ab", []string{"abc", "abcd", "abx"}},
		{"z", []string{"zz"}},
		{"q", nil},
		{"", nil},
	} {
		if got := matchPrefix(tt.typed, ids); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("matchPrefix(%q, %v) = %v, want %v", tt.typed, ids, got, tt.want)
		}
	}
}

func TestPermissionsNotRunning(t *testing.T) {
	for _, args := range [][]string{{"permissions"}, {"permissions", "allow", "p1"}, {"dnd"}, {"dnd", "on"}} {
		code, out, errb := runCLI(t, t.TempDir(), args...)
		if code != 1 || out != "" || !strings.HasPrefix(errb, "clawd: clawd is not running") || strings.Count(errb, "\n") != 1 {
			t.Errorf("%q without a runtime = %d, %q %q", args, code, out, errb)
		}
	}
}

// The whole loop against the real runtime: the hook holds a request, the
// CLI lists and answers it, the hook prints Claude's answer; a second
// answer is refused.
func TestPermissionsRealRuntime(t *testing.T) {
	home := t.TempDir()
	startRuntime(t, home)
	shortWait(t, 30*time.Second)

	hookOut := make(chan string, 1)
	go func() {
		e, out, _ := testEnv(t, home, fixture(t, "PermissionRequest.json"), map[string]string{"CLAUDE_CODE_SESSION_ATTENDED": "1"})
		run(context.Background(), e, []string{"clawd", "hook", "claude"})
		hookOut <- out.String()
	}()

	code, out, errb := runCLI(t, home, "permissions", "--wait", "--json")
	var list []client.PermissionView
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil || len(list) != 1 {
		t.Fatalf("permissions --wait --json = %d %v %q %q", code, err, out, errb)
	}
	p := list[0]
	if p.Agent != "claude" || p.Tool != "Bash" || p.State != "pending" || len(p.Suggestions) != 1 {
		t.Errorf("pending request = %+v", p)
	}
	if code, out, _ := runCLI(t, home, "permissions"); code != 0 || !strings.Contains(out, p.ID) || !strings.Contains(out, "1) ") {
		t.Errorf("permissions = %d\n%s", code, out)
	}

	code, out, errb = runCLI(t, home, "permissions", "always", p.ID)
	if code != 0 || !strings.HasPrefix(out, "allowed "+p.ID) {
		t.Fatalf("permissions always = %d %q %q", code, out, errb)
	}
	select {
	case got := <-hookOut:
		want := `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow",` +
			`"updatedPermissions":[{"type":"addDirectories","directories":["/home/user/project"],"destination":"session"}]}}}`
		if !sameJSON(t, []byte(got), []byte(want)) {
			t.Errorf("hook printed %q, want %s", got, want)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the hook did not print the decision")
	}

	code, out, errb = runCLI(t, home, "permissions", "deny", p.ID)
	if code != 1 || out != "" || !strings.Contains(errb, "already answered") {
		t.Errorf("second answer = %d %q %q, want exit 1 saying it was already answered", code, out, errb)
	}
	if code, _, errb := runCLI(t, home, "permissions", "allow", "nosuchid"); code != 1 || !strings.Contains(errb, "no such request: nosuchid") {
		t.Errorf("unknown id = %d %q", code, errb)
	}
	if code, out, _ := runCLI(t, home, "dnd", "on"); code != 0 || out != "do not disturb: on\n" {
		t.Errorf("dnd on = %d %q", code, out)
	}
	// With DND on the hook gets no decision at once.
	e, hout, _ := testEnv(t, home, fixture(t, "PermissionRequest.json"), map[string]string{"CLAUDE_CODE_SESSION_ATTENDED": "1"})
	start := time.Now()
	run(context.Background(), e, []string{"clawd", "hook", "claude"})
	if hout.String() != "{}\n" || time.Since(start) > 5*time.Second {
		t.Errorf("hook under DND = %q after %v, want {} at once", hout, time.Since(start))
	}
}

func TestRenderPermissionsShowsQuestionOptions(t *testing.T) {
	var b strings.Builder
	renderPermissions(&b, i18n.Printer{}, []client.PermissionView{{
		ID: "q1", Kind: client.KindQuestion, Agent: "claude", Tool: "AskUserQuestion",
		Summary: "Which color?", Options: []string{"Red", "Blue"}, CreatedAt: time.Now(),
	}}, time.Now(), "", 0)
	for _, want := range []string{"AskUserQuestion (question)", "Which color?", "options: Red | Blue"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("list lacks %q:\n%s", want, b.String())
		}
	}
}

// TestPermissionsMarkSubagent: a real hook registers Claude Code's
// subagent request with a real runtime; `clawd permissions` names the
// subagent in its table (English and Chinese) and --json carries its id
// and type, while the session's own request has no mark.
func TestPermissionsMarkSubagent(t *testing.T) {
	home := t.TempDir()
	startRuntime(t, home)
	shortWait(t, 30*time.Second)
	payload, err := os.ReadFile(filepath.Join("..", "testdata", "claude", "built", "PermissionRequest.subagent.json"))
	if err != nil {
		t.Fatal(err)
	}
	hooks := make(chan string, 2)
	hook := func(stdin []byte) {
		e, out, _ := testEnv(t, home, stdin, map[string]string{"CLAUDE_CODE_SESSION_ATTENDED": "1"})
		run(context.Background(), e, []string{"clawd", "hook", "claude", "PermissionRequest"})
		hooks <- out.String()
	}
	go hook(payload)
	var list []client.PermissionView
	if code, out, errb := runCLI(t, home, "permissions", "--wait", "--json"); code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("permissions --wait --json = %d %q %q", code, out, errb)
	}
	if p := list[0]; p.SubagentID != "afc7f71e8f325b97f" || p.SubagentType != "Explore" {
		t.Errorf("--json view = %+v, want subagent afc7f71e8f325b97f of type Explore", p)
	}
	go hook(fixture(t, "PermissionRequest.no-suggestions.json"))
	deadline := time.Now().Add(10 * time.Second)
	for ; len(list) < 2 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		_, out, _ := runCLI(t, home, "permissions", "--json")
		list = nil
		json.Unmarshal([]byte(out), &list)
	}
	if len(list) != 2 {
		t.Fatalf("pending = %+v, want the subagent's and the session's own", list)
	}
	if list[1].SubagentID != "" || list[1].SubagentType != "" {
		t.Errorf("the session's own request = %+v, want no subagent", list[1])
	}

	code, out, _ := runCLI(t, home, "permissions")
	lines := strings.Split(out, "\n")
	if code != 0 || len(lines) < 3 || !strings.Contains(lines[1], "claude (subagent: Explore)") || strings.Contains(lines[2], "subagent") {
		t.Errorf("permissions = %d\n%s\nwant the first request marked subagent: Explore, the second not", code, out)
	}
	if zh := inLang(t, home, "zh_CN.UTF-8", nil, "permissions"); !strings.Contains(zh, "claude（子智能体：Explore）") {
		t.Errorf("permissions in Chinese lacks the mark:\n%s", zh)
	}
	for _, p := range list {
		if code, _, errb := runCLI(t, home, "permissions", "deny", p.ID); code != 0 {
			t.Fatalf("deny %s = %d %q", p.ID, code, errb)
		}
	}
	for range 2 {
		select {
		case <-hooks:
		case <-time.After(20 * time.Second):
			t.Fatal("a hook did not print the decision")
		}
	}
}

// TestAnswersChinese: what an answer given on the command line did is
// said in the person's language (allow, deny, always, terminal, answer,
// plan, dnd), and in a narrow terminal wraps under its start.
func TestAnswersChinese(t *testing.T) {
	question := pendingView("q7c0ffee")
	question.Kind, question.Summary = client.KindQuestion, "Which language?"
	question.Questions = []agents.Question{{Text: "Which?", Options: []agents.QuestionOption{{Label: "Go"}, {Label: "Zig"}}}}
	plan := pendingView("pl4n99")
	plan.Kind, plan.Plan = client.KindPlan, "1. do it"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"permissions", "allow", "k3ab12"}, "已允许 k3ab12（Bash: echo hello > out.txt）\n"},
		{[]string{"permissions", "deny", "k3ab12"}, "已拒绝 k3ab12（Bash: echo hello > out.txt）\n"},
		{[]string{"permissions", "always", "k3ab12", "1"}, "已允许 k3ab12（Bash: echo hello > out.txt），并应用了建议 1“Add /home/user/project (session)”\n"},
		{[]string{"permissions", "terminal", "k3ab12"}, "已在这里关闭 k3ab12：请在智能体的终端里回答（Bash: echo hello > out.txt）\n"},
		{[]string{"answer", "q7c0ffee", "Zig"}, "已回答 q7c0ffee（Which language?）：Zig\n"},
		{[]string{"plan", "approve", "pl4n99"}, "已批准 pl4n99 的计划（Claude Code）\n"},
		{[]string{"plan", "keep", "pl4n99"}, "已把 pl4n99 的计划退回给 Claude Code，让它继续规划\n"},
		{[]string{"dnd", "on"}, "免打扰：开\n"},
	} {
		f := newFakeAPI(t, pendingView("k3ab12"), question, plan)
		if got := chinese(t, f, c.args...); got != c.want {
			t.Errorf("clawd %v in Chinese = %q, want %q", c.args, got, c.want)
		}
	}
	f := newFakeAPI(t, pendingView("k3ab12"))
	got := inEnv(t, f.home, map[string]string{"LANG": "C.UTF-8", "COLUMNS": "40"}, nil, "permissions", "always", "k3ab12", "1")
	want := "allowed k3ab12 (Bash: echo hello >\n  out.txt) and applied suggestion 1 \"Add\n  /home/user/project (session)\"\n"
	if got != want {
		t.Errorf("in 40 columns = %q, want %q", got, want)
	}
}

package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/atomicfile"
	"github.com/clawdhq/clawd/internal/handtimers"
	"github.com/clawdhq/clawd/runtime/automations"
	"github.com/clawdhq/clawd/runtime/client"
)

// settle fires the watcher's settle timers until ok holds: the watcher
// starts one per write it sees, which the test cannot count.
func settle(t *testing.T, timers *handtimers.Timers, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second) // a loaded machine under -race
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not applied within 60 s of the edit", what)
		}
		timers.Fire()
		time.Sleep(5 * time.Millisecond) // the watcher takes its turn
	}
}

// apiGet decodes the answer of the socket API's GET path into out.
func apiGet(t *testing.T, s *Server, path string, out any) string {
	t.Helper()
	w := httptest.NewRecorder()
	s.SocketHandler().ServeHTTP(w, httptest.NewRequest("GET", path, nil))
	if w.Code != http.StatusOK {
		t.Fatalf("GET %s = %d %s", path, w.Code, w.Body)
	}
	if err := json.Unmarshal(w.Body.Bytes(), out); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return w.Body.String()
}

// reloadServer is a Server on a temp home with automations.toml doc and
// its engine running, whose settle timers the test fires.
func reloadServer(t *testing.T, doc string) (*Server, string, *handtimers.Timers) {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, automations.File), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	timers := &handtimers.Timers{D: automations.ReloadSettle}
	s := New(Config{Home: home, OpenAutomations: func(ctx context.Context) (*automations.Engine, error) {
		return automations.Open(ctx, automations.Options{Home: home, After: timers.After, RepoRoot: func(string) string { return "" }})
	}})
	stop := s.openAutomations(context.Background())
	if stop == nil {
		t.Fatal("automations did not open")
	}
	t.Cleanup(stop)
	return s, filepath.Join(home, automations.File), timers
}

// edit replaces file whole, as an editor saves (temp + rename): the
// test fires the settle timers at once, so a write in place could be
// read half done.
func edit(t *testing.T, file, doc string) {
	t.Helper()
	if err := atomicfile.Write(file, []byte(doc), 0o600, false, nil); err != nil {
		t.Fatal(err)
	}
}

func soundAutomation(id string) string {
	return "[[automation]]\nid = \"" + id + "\"\nevent = \"turn.completed\"\naction = { type = \"sound\" }\n"
}

// fileProblem is the snapshot's problem about automations.toml (what
// `clawd status` prints in one line and doctor as a check), or nil.
func fileProblem(t *testing.T, s *Server) *client.Problem {
	var snap client.Snapshot
	apiGet(t, s, "/api/v1/sessions", &snap)
	for _, p := range snap.Problems {
		if p.ID == "automations.file" {
			return &p
		}
	}
	return nil
}

// TestServeReloadsEditedAutomations: a running serve applies a good edit
// of automations.toml by itself; a bad edit keeps the definitions in
// force, and the API and the snapshot's problems (status, doctor) say so
// with the parse error and its line; the fixed edit clears the report.
func TestServeReloadsEditedAutomations(t *testing.T) {
	s, file, timers := reloadServer(t, soundAutomation("a"))
	state := func() AutomationsState {
		var st AutomationsState
		apiGet(t, s, "/api/v1/automations", &st)
		return st
	}
	ids := func(st AutomationsState) []string {
		var out []string
		for _, d := range st.Definitions {
			out = append(out, d.ID)
		}
		return out
	}
	// Waiting for the watcher: a write before it follows the file is lost.
	deadline := time.Now().Add(60 * time.Second)
	for {
		edit(t, file, soundAutomation("a")+soundAutomation("b"))
		time.Sleep(50 * time.Millisecond)
		timers.Fire()
		if len(ids(state())) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the good edit was not applied within 60 s")
		}
	}
	if st := state(); st.Error != "" || st.Kept || fileProblem(t, s) != nil {
		t.Fatalf("after the good edit: error %q, kept %v, problem %+v", st.Error, st.Kept, fileProblem(t, s))
	}

	edit(t, file, soundAutomation("a")+"[[automation]]\nid = \"c\"\nevent = \"turn.nope\"\n")
	settle(t, timers, "the bad edit", func() bool { return state().Error != "" })
	st := state()
	if !st.Kept || !reflect.DeepEqual(ids(st), []string{"a", "b"}) || !strings.Contains(st.Error, "automations.toml:7:") {
		t.Errorf("after the bad edit: kept %v, definitions %v, error %q; want a and b kept and the error at line 7", st.Kept, ids(st), st.Error)
	}
	p := fileProblem(t, s)
	if p == nil || !strings.Contains(p.Text, "the definitions read before stay in force") || !strings.Contains(p.Text, "automations.toml:7:") ||
		strings.Contains(p.Text, "\n") {
		t.Errorf("the snapshot's problem after the bad edit = %+v, want one line: kept, with the file's line", p)
	}

	edit(t, file, soundAutomation("a"))
	settle(t, timers, "the fixed edit", func() bool { return state().Error == "" })
	if st := state(); st.Kept || !reflect.DeepEqual(ids(st), []string{"a"}) || fileProblem(t, s) != nil {
		t.Errorf("after the fix: kept %v, definitions %v, problem %+v; want a alone and no report", st.Kept, ids(st), fileProblem(t, s))
	}
}

// roundTrip decodes the API's answer into the wire type out and checks
// that it encodes back to the same JSON: a field the engine sends that
// the wire type lacks (or names otherwise) fails here.
func roundTrip(t *testing.T, what, body string, out any) {
	t.Helper()
	if err := json.Unmarshal([]byte(body), out); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	again, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON([]byte(body), again) {
		t.Errorf("%s: the wire type loses or changes fields\n api:  %s\n wire: %s", what, body, again)
	}
}

// TestAutomationWireTypes: the API's answers (the engine's types) and the
// client's wire types are one JSON, field for field: the state with a
// definition using every part of the format, a run, a preview.
func TestAutomationWireTypes(t *testing.T) {
	doc := `[[automation]]
id = "w"
name = "Post"
description = "posts"
event = "turn.completed"
condition = { all = [ { path = "session.title", op = "contains", value = "shop" }, { not = { path = "agent.id", op = "eq", value = "x" } } ] }
action = { type = "webhook", url = "https://example.com/h", headers = { X-Team = "a" } }
input = { title = { path = "session.title" }, n = { const = 3 }, s = { template = "in ${session.title}" }, z = { null = true } }
policy = { timeout = "20s", retry = "keyed", max_attempts = 4, backoff = "2s", concurrency = "parallel" }
bindings = [ { scope = "application" }, { scope = "workspace", id = "/src/shop", enabled = false } ]

[[automation]]
id = "n"
enabled = false
event = "turn.failed"
action = { type = "ntfy", url = "https://ntfy.sh", topic = "t", title = "T", text = "x", priority = 4, tags = ["a"], click = "https://e" }
`
	s, _, _ := reloadServer(t, doc)
	e := s.auto.Load()
	d, ok := e.Definition("w")
	if !ok {
		t.Fatalf("w not in force: %v", e.LoadError())
	}
	if err := e.Trust(context.Background(), "w", d.Hash()); err != nil {
		t.Fatal(err)
	}
	var raw json.RawMessage
	body := apiGet(t, s, "/api/v1/automations", &raw)
	var st client.AutomationsState
	roundTrip(t, "GET /api/v1/automations", body, &st)
	if len(st.Definitions) != 2 || st.Definitions[0].EffectivePolicy.Timeout != "20s" || st.Definitions[0].BindingStates[0].State != client.BindingActive {
		t.Errorf("state = %+v, want w trusted with its policy", st)
	}

	if _, err := e.TestRun(context.Background(), "w", nil); err != nil {
		t.Fatal(err)
	}
	body = apiGet(t, s, "/api/v1/automations/runs", &raw)
	var runs []client.AutomationRun
	roundTrip(t, "GET /api/v1/automations/runs", body, &runs)
	if len(runs) != 1 || !runs[0].Test {
		t.Errorf("runs = %+v, want the test run", runs)
	}

	w := httptest.NewRecorder()
	s.SocketHandler().ServeHTTP(w, httptest.NewRequest("POST", "/api/v1/automations/w/preview", strings.NewReader(`{}`)))
	if w.Code != http.StatusOK {
		t.Fatalf("preview = %d %s", w.Code, w.Body)
	}
	var pre client.AutomationPreview
	roundTrip(t, "POST /api/v1/automations/w/preview", w.Body.String(), &pre)
	if pre.Event == nil || pre.Event.EventName != "turn.completed" || pre.Binding == "" {
		t.Errorf("preview = %+v, want the sample event and a binding", pre)
	}
}

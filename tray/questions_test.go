package tray

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// trayQuestions are a single-select, a multi-select and a question with
// one option.
var trayQuestions = []agents.Question{
	{Header: "Database", Text: "Which database?", Custom: true, Options: []agents.QuestionOption{{Label: "Postgres", Description: "Relational"}, {Label: "SQLite"}}},
	{Header: "Features", Text: "Which features?", MultiSelect: true, Custom: true, Options: []agents.QuestionOption{{Label: "Auth"}, {Label: "Export"}}},
}

func askPerm(id string, qs ...agents.Question) client.PermissionView {
	return perm(id, "claude", "q", client.KindQuestion, func(p *client.PermissionView) {
		p.Tool, p.Summary, p.Questions, p.Answerable = "AskUserQuestion", qs[0].Text, qs, true
	})
}

// requestMenu is the submenu of the one request in v, as outline shows it.
func requestMenu(t *testing.T, v View) ([]string, Menu) {
	t.Helper()
	v.Now = t0
	m := Build(v)
	for _, it := range m.Items {
		if strings.HasPrefix(it.Key, "request:") {
			return outline(it.Children, 0), m
		}
	}
	t.Fatalf("no request in\n%s", strings.Join(outline(m.Items, 0), "\n"))
	return nil, m
}

func TestBuildQuestions(t *testing.T) {
	view := func(picks Picks, ps ...client.PermissionView) View {
		return View{View: client.View{Snapshot: client.Snapshot{DisplayState: "waiting"}, Permissions: ps}, Picks: picks}
	}
	cases := []struct {
		name string
		view View
		want []string
		// acts are the decisions items send, by key.
		acts map[string]client.DecisionBody
	}{{
		name: "one question, one option: a click answers",
		view: view(nil, askPerm("a1", trayQuestions[0])),
		want: []string{"Postgres — Relational", "SQLite", "Other answer… (type it in the terminal)"},
		acts: map[string]client.DecisionBody{
			"request:a1:answer:0:1": {Behavior: client.AnswerQuestions, Answers: []agents.Answer{{Labels: []string{"SQLite"}}}, Via: "tray"},
			"request:a1:terminal":   {Behavior: client.Terminal, Via: "tray"},
		},
	}, {
		name: "several questions: tick, then send",
		view: view(Picks{{"a2", 0, 1}: true, {"a2", 1, 0}: true, {"a2", 1, 1}: true, {"other", 0, 0}: true}, askPerm("a2", trayQuestions...)),
		want: []string{"Database: Which database? (off)", "[ ] Postgres — Relational", "[x] SQLite",
			"Features: Which features? (pick several) (off)", "[x] Auth", "[x] Export", "-", "Send answers",
			"Other answer… (type it in the terminal)"},
		acts: map[string]client.DecisionBody{
			"request:a2:send": {Behavior: client.AnswerQuestions, Via: "tray",
				Answers: []agents.Answer{{Labels: []string{"SQLite"}}, {Labels: []string{"Auth", "Export"}}}},
		},
	}, {
		name: "nothing ticked: nothing to send",
		view: view(nil, askPerm("a3", trayQuestions[1])),
		want: []string{"[ ] Auth", "[ ] Export", "-", "Send answers (off)", "Other answer… (type it in the terminal)"},
	}, {
		name: "a question clawd cannot answer: its options inert",
		view: view(nil, perm("a4", "qwen", "q", client.KindQuestion, func(p *client.PermissionView) {
			p.Options, p.Questions = []string{"Postgres", "SQLite"}, trayQuestions[:1]
		})),
		want: []string{"• Postgres (off)", "• SQLite (off)", "Answer in terminal"},
	}, {
		name: "a plan: its first lines, approve or keep planning",
		view: view(nil, perm("p1", "claude", "q", client.KindPlan, func(p *client.PermissionView) {
			p.Plan = "# Plan\n\n1. Add a table.\x1b[2J\n2. Write tests.\n3. a\n4. b\n5. c\n6. d\n"
		})),
		want: []string{"# Plan (off)", "1. Add a table.[2J (off)", "2. Write tests. (off)", "3. a (off)", "4. b (off)",
			"… (the whole plan: the dashboard or clawd plan show) (off)", "-", "Approve plan", "Keep planning", "Answer in terminal"},
		acts: map[string]client.DecisionBody{
			"request:p1:allow": {Behavior: client.Allow, Via: "tray"},
			"request:p1:keep":  {Behavior: client.Deny, Via: "tray"},
		},
	}}
	for _, c := range cases {
		got, m := requestMenu(t, c.view)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: the request's submenu =\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
		for key, want := range c.acts {
			it, ok := findItem(m.Items, key)
			if !ok || it.Action.Kind != ActDecide || !reflect.DeepEqual(it.Action.Decision, want) {
				t.Errorf("%s: item %s = %+v (found %v), want it to send %+v", c.name, key, it.Action, ok, want)
			}
		}
	}
}

func TestPicksToggle(t *testing.T) {
	ps := Picks{}
	ps.toggle(Pick{"r", 0, 0}, trayQuestions)
	ps.toggle(Pick{"r", 0, 1}, trayQuestions) // one option: the last ticked
	ps.toggle(Pick{"r", 1, 0}, trayQuestions)
	ps.toggle(Pick{"r", 1, 1}, trayQuestions) // several: both
	ps.toggle(Pick{"s", 0, 0}, trayQuestions) // another request keeps its own
	ps.toggle(Pick{"r", 1, 0}, trayQuestions) // ticked again: unticked
	want := Picks{{"r", 0, 1}: true, {"r", 1, 1}: true, {"s", 0, 0}: true}
	if !reflect.DeepEqual(ps, want) {
		t.Errorf("picks = %v, want %v", ps, want)
	}
}

// TestControllerAnswersAQuestion: ticking options in the menu and
// clicking Send answers the question through the runtime, and the agent
// (Claude Code's hook) gets the labels ticked in its updated input.
func TestControllerAnswersAQuestion(t *testing.T) {
	env := startTray(t)
	payload, err := os.ReadFile(filepath.Join("..", "testdata", "claude", "hooks", "PermissionRequest.AskUserQuestion.json"))
	if err != nil {
		t.Fatal(err)
	}
	e := agents.Event{Agent: "claude", Kind: agents.KindQuestion, SessionID: "s1", ToolName: "AskUserQuestion", Time: time.Now(), HookEvent: "PermissionRequest"}
	body, _ := json.Marshal(client.RequestBody{Event: e, Request: agents.Claude.Describe(e, payload, false), WaitSeconds: 60})
	ans := make(chan client.Answer, 1)
	go func() {
		a, err := client.AskPermission(context.Background(), env.sock, body)
		if err != nil {
			t.Errorf("AskPermission: %v", err)
		}
		ans <- a
	}()
	m := env.ui.waitMenu(t, "the question", func(m Menu) bool { return hasKey(m, "pending-header") })
	var id string
	for _, it := range m.Items {
		if rest, ok := strings.CutPrefix(it.Key, "request:"); ok {
			id = rest
		}
	}
	key := "request:" + id
	for _, k := range []string{":pick:0:0", ":pick:0:1", ":pick:1:0", ":pick:1:1", ":pick:2:0"} {
		env.click(t, key+k)
		env.ui.waitMenu(t, k+" ticked", func(m Menu) bool { it, _ := findItem(m.Items, key+k); return it.Checked })
	}
	if it, _ := findItem(env.ui.last().Items, key+":pick:0:0"); it.Checked {
		t.Error("Postgres stays ticked after SQLite was: a question that takes one option")
	}
	env.click(t, key+":send")
	select {
	case a := <-ans:
		if a.Decision == nil || !a.Decision.Allow {
			t.Fatalf("answer after Send = %+v, want an allow", a)
		}
		var in struct {
			Answers map[string]string `json:"answers"`
		}
		json.Unmarshal(a.Decision.UpdatedInput, &in)
		want := map[string]string{"Which database should we use?": "SQLite", "Which features do you want?": `Auth, "Search, full text"`, "Which language?": "Go"}
		if !reflect.DeepEqual(in.Answers, want) {
			t.Errorf("the answers Claude Code gets = %v, want %v", in.Answers, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the question got no answer after Send")
	}
	env.ui.waitMenu(t, "the question gone", func(m Menu) bool { return !hasKey(m, "pending-header") })
}

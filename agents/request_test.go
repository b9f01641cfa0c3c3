package agents

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestReadQuestions reads a question tool's questions, and none at all
// when one of them could not be answered exactly: clawd would have to
// name a label it never saw whole.
func TestReadQuestions(t *testing.T) {
	claude := questionFields{multi: "multiSelect"}
	opencode := questionFields{multi: "multiple", custom: "custom", customDefault: true}
	long := strings.Repeat("x", maxLabel+1)
	cases := []struct {
		name, in string
		f        questionFields
		want     []Question
	}{
		{"claude", `[{"question":"Q1?","header":"H1","options":[{"label":"a","description":"the a"},{"label":"b"}],"multiSelect":true},{"question":"Q2?","options":[]}]`,
			claude, []Question{
				{Header: "H1", Text: "Q1?", MultiSelect: true, Custom: true, Options: []QuestionOption{{"a", "the a"}, {"b", ""}}},
				{Text: "Q2?", Custom: true}}},
		{"opencode custom default and off", `[{"question":"Q?","options":[{"label":"a"}],"multiple":true},{"question":"R?","options":[{"label":"b"}],"custom":false}]`,
			opencode, []Question{
				{Text: "Q?", MultiSelect: true, Custom: true, Options: []QuestionOption{{Label: "a"}}},
				{Text: "R?", Options: []QuestionOption{{Label: "b"}}}}},
		{"not a list", `{"question":"Q?"}`, claude, nil},
		{"no question text", `[{"header":"H","options":[{"label":"a"}]}]`, claude, nil},
		{"a label missing", `[{"question":"Q?","options":[{"label":"a"},{"description":"no label"}]}]`, claude, nil},
		{"a label twice", `[{"question":"Q?","options":[{"label":"a"},{"label":"a"}]}]`, claude, nil},
		{"a label too long", `[{"question":"Q?","options":[{"label":"` + long + `"}]}]`, claude, nil},
		{"too many questions", `[` + strings.Repeat(`{"question":"Q?"},`, maxQuestions) + `{"question":"Q?"}]`, claude, nil},
	}
	for _, c := range cases {
		if got := readQuestions(gjson.Parse(c.in), c.f); !reflect.DeepEqual(got, c.want) {
			t.Errorf("readQuestions(%s) = %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestFitAnswers(t *testing.T) {
	qs := []Question{
		{Text: "One?", Custom: true, Options: []QuestionOption{{Label: "a"}, {Label: "b"}}},
		{Text: "Many?", MultiSelect: true, Custom: true, Options: []QuestionOption{{Label: "x"}, {Label: "y"}}},
		{Text: "Fixed?", Options: []QuestionOption{{Label: "p"}, {Label: "q"}}},
	}
	cases := []struct {
		name    string
		answers []Answer
		want    error
	}{
		{"each kind", []Answer{{Labels: []string{"a"}}, {Labels: []string{"x", "y"}, Text: "z"}, {Labels: []string{"q"}}}, nil},
		{"own text alone", []Answer{{Text: "c"}, {}, {}}, nil},
		{"one left unanswered", []Answer{{}, {Labels: []string{"y"}}, {}}, nil},
		{"too few", []Answer{{Labels: []string{"a"}}}, ErrBadAnswer},
		{"unknown label", []Answer{{Labels: []string{"c"}}, {}, {}}, ErrBadAnswer},
		{"a label twice", []Answer{{}, {Labels: []string{"x", "x"}}, {}}, ErrBadAnswer},
		{"two answers to one", []Answer{{Labels: []string{"a", "b"}}, {}, {}}, ErrBadAnswer},
		{"a label and text to one", []Answer{{Labels: []string{"a"}, Text: "c"}, {}, {}}, ErrBadAnswer},
		{"text where none is taken", []Answer{{}, {}, {Text: "r"}}, ErrBadAnswer},
		{"text too long", []Answer{{Text: strings.Repeat("x", MaxAnswerText+1)}, {}, {}}, ErrBadAnswer},
		{"nothing answered", []Answer{{}, {Text: "  "}, {}}, ErrBadAnswer},
	}
	for _, c := range cases {
		if err := fitAnswers(qs, c.answers); !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("fitAnswers(%s) = %v, want %v", c.name, err, c.want)
		}
	}
	if err := fitAnswers(nil, []Answer{{Text: "x"}}); !errors.Is(err, ErrCannotAnswer) {
		t.Errorf("fitAnswers(no questions) = %v, want ErrCannotAnswer", err)
	}
}

// TestAnswersAndSupports: an agent that answers questions has an Answer;
// one that does not, and asks questions of its own, says why.
func TestAnswersAndSupports(t *testing.T) {
	for _, a := range All() {
		s := a.Supports
		if s.AnswersQuestions && (a.Answer == nil || !s.Permissions || s.QuestionsInTerminal != "") {
			t.Errorf("%s answers questions without an Answer, without permissions, or with a reason not to: %+v", a.ID, s)
		}
	}
	for _, a := range []*Agent{Codex, Qwen, Gemini, Copilot} {
		if a.Supports.AnswersQuestions || a.Supports.QuestionsInTerminal == "" {
			t.Errorf("%s has a question tool clawd cannot answer today: want AnswersQuestions false and the reason, got %+v", a.ID, a.Supports)
		}
	}
	for _, a := range []*Agent{Claude, Opencode} {
		if !a.Supports.AnswersQuestions {
			t.Errorf("%s's questions are answered from clawd: want AnswersQuestions", a.ID)
		}
		if spec, ok := a.Hook(map[string]string{"claude": "PermissionRequest", "opencode": "question.asked"}[a.ID]); !ok || !spec.Blocking {
			t.Errorf("%s: the hook its questions come through is %+v (%v), want a blocking one", a.ID, spec, ok)
		}
	}
}

// decodeFile reads a captured payload and decodes it with a as the hook
// for event does.
func decodeFile(t *testing.T, a *Agent, path, event string) ([]byte, Event) {
	t.Helper()
	payload, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	e, err := a.Decode(payload, event, noEnv, now)
	if err != nil {
		t.Fatalf("%s.Decode(%s): %v", a.ID, path, err)
	}
	return payload, e
}

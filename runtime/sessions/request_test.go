package sessions

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// TestSummarize: the line a list shows is the agent's summary, else the
// question's text, the first string of the input or the message, always
// one line of at most maxSummary runes through the text policy.
func TestSummarize(t *testing.T) {
	cases := []struct {
		kind                    agents.Kind
		summary, input, message string
		want                    string
	}{
		{agents.KindPermissionRequest, "go test ./...", `{"command":"go test ./..."}`, "", "go test ./..."},
		{agents.KindPermissionRequest, "echo a\n\techo b\u001b[31m\u202e", "", "", "echo a echo b[31m"},
		{agents.KindPermissionRequest, "", `{"count":3,"repo":"clawdhq/clawd","title":"x"}`, "", "clawdhq/clawd"},
		{agents.KindPermissionRequest, "", `"{\"file_path\":\"/cut"`, "", `{"file_path":"/cut`},
		{agents.KindPermissionRequest, "", `{"n":1}`, "from the hook", "from the hook"},
		{agents.KindQuestion, "", `{"a":"input"}`, "Pick one", "Pick one"},
		{agents.KindPermissionRequest, strings.Repeat("a", 200), "", "", strings.Repeat("a", 119) + "…"},
		{agents.KindPermissionRequest, "", ``, "", ""},
	}
	for _, c := range cases {
		e := agents.Event{Kind: c.kind}
		body := client.RequestBody{Request: agents.Request{Summary: c.summary, ToolInput: json.RawMessage(c.input), Message: c.message}}
		if got := summarize(&e, &body); got != c.want {
			t.Errorf("summarize(%q, %s, %q) = %q, want %q", c.summary, c.input, c.message, got, c.want)
		}
	}
}

// TestLabels: every offered suggestion gets a label, in order, unique and
// one line; options are clipped and capped.
func TestLabels(t *testing.T) {
	cases := []struct {
		given []string
		n     int
		want  []string
	}{
		{[]string{"Always allow Bash(npm test)"}, 1, []string{"Always allow Bash(npm test)"}},
		{[]string{"Always allow X", "Always allow X"}, 2, []string{"Always allow X", "Always allow X (2)"}},
		{nil, 2, []string{"Apply suggestion 1", "Apply suggestion 2"}},
		{[]string{"a\u202eb"}, 1, []string{"ab"}},
		{[]string{strings.Repeat("y", 100)}, 1, []string{strings.Repeat("y", 79) + "…"}},
		{[]string{"extra"}, 0, nil},
	}
	for _, c := range cases {
		if got := labels(c.given, c.n); !reflect.DeepEqual(got, c.want) {
			t.Errorf("labels(%q, %d) = %q, want %q", c.given, c.n, got, c.want)
		}
	}
	many := make([]string, 40)
	for i := range many {
		many[i] = "opt\n" + strings.Repeat("z", 200)
	}
	got := options(many)
	if len(got) != maxOptions || got[0] != "opt "+strings.Repeat("z", 115)+"…" {
		t.Errorf("options(40 long) = %d options, first %q", len(got), got[0])
	}
}

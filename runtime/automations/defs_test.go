package automations

import (
	"strings"
	"testing"
	"time"
)

// issueExample is the definition the file format promises to load as
// written.
const issueExample = `[[automation]]
id = "post-done"
name = "Post when a turn completes in this repo"
event = "turn.completed"
enabled = true
condition = { all = [ { path = "agent.id", op = "eq", value = "claude" },
                      { path = "workspaces.0.name", op = "contains", value = "shop" } ] }
action = { type = "webhook", url = "http://127.0.0.1:9999/in" }
input = { title = { template = "${session.title} is done" }, agent = { path = "agent.id" } }
policy = { timeout = "15s", retry = "safe", max_attempts = 3, backoff = "1s", concurrency = "serial" }
`

func TestParseIssueExample(t *testing.T) {
	defs, err := Parse([]byte(issueExample), "automations.toml")
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) != 1 {
		t.Fatalf("got %d definitions", len(defs))
	}
	d := defs[0]
	if d.ID != "post-done" || d.Event != TurnCompleted || !d.IsEnabled() || d.Action.URL != "http://127.0.0.1:9999/in" ||
		len(d.Condition.All) != 2 || d.Input["title"].Template != "${session.title} is done" ||
		time.Duration(d.Policy.Timeout) != 15*time.Second || d.Policy.Retry != RetrySafe || d.Line != 1 {
		t.Errorf("parsed %+v", d)
	}
}

// TestParseErrors: each problem names the file, the line, the
// automation and the field.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"bad event", "[[automation]]\nid = \"a\"\nevent = \"turn.done\"\naction = { type = \"sound\" }\n",
			`automations.toml:3: automation a: event: "turn.done" is not a lifecycle event`},
		{"bad op", "[[automation]]\nid = \"a\"\nevent = \"turn.completed\"\naction = { type = \"sound\" }\ncondition = { path = \"agent.id\", op = \"eqq\", value = \"x\" }\n",
			`automations.toml:5: automation a: condition.op: unknown operator "eqq"`},
		{"path not allowed", "[[automation]]\nid = \"a\"\nevent = \"turn.started\"\naction = { type = \"sound\" }\ncondition = { path = \"payload.text\", op = \"exists\" }\n",
			`automations.toml:5: automation a: condition.path: path "payload.text" cannot be read for turn.started`},
		{"bad path syntax", "[[automation]]\nid = \"a\"\nevent = \"turn.completed\"\naction = { type = \"sound\" }\ninput = { x = { path = \"__proto__..x\" } }\n",
			`automations.toml:5: automation a: input.x.path: path "__proto__..x" is not a path`},
		{"template path", "[[automation]]\nid = \"a\"\nevent = \"turn.completed\"\naction = { type = \"notification\", title = \"${payload.nope}\" }\n",
			`automations.toml:4: automation a: action.title.template: path "payload.nope" cannot be read`},
		{"keyed on a command", "[[automation]]\nid = \"a\"\nevent = \"turn.completed\"\naction = { type = \"command\", argv = [\"/bin/true\"] }\npolicy = { retry = \"keyed\" }\n",
			`automations.toml:5: automation a: policy.retry: keyed retries need an action that takes an idempotency key`},
		{"timeout range", "[[automation]]\nid = \"a\"\nevent = \"turn.completed\"\naction = { type = \"sound\" }\npolicy = { timeout = \"5m\" }\n",
			`automations.toml:5: automation a: policy.timeout: 5m0s: between 1s and 2m0s`},
		{"webhook url", "[[automation]]\nid = \"a\"\nevent = \"turn.completed\"\naction = { type = \"webhook\", url = \"ftp://x\" }\n",
			`automations.toml:4: automation a: action.url: "ftp://x": a webhook needs an http:// or https:// URL`},
		{"duplicate id", "[[automation]]\nid = \"a\"\nevent = \"turn.completed\"\naction = { type = \"sound\" }\n[[automation]]\nid = \"a\"\nevent = \"turn.failed\"\naction = { type = \"sound\" }\n",
			`automations.toml:6: automation a: id: used twice`},
		{"unknown key", "[[automation]]\nid = \"a\"\nevent = \"turn.completed\"\naction = { type = \"sound\" }\nretries = 3\n",
			`automations.toml:5: unknown key automation.retries`},
		{"bad binding", "[[automation]]\nid = \"a\"\nevent = \"turn.completed\"\naction = { type = \"sound\" }\nbindings = [ { scope = \"agent\", id = \"nosuch\" } ]\n",
			`automations.toml:5: automation a: bindings[0].id: "nosuch" is not an agent clawd knows`},
		{"syntax", "[[automation]\n", `automations.toml:2: expected end of table array name`},
		{"both leaf and all", "[[automation]]\nid = \"a\"\nevent = \"turn.completed\"\naction = { type = \"sound\" }\ncondition = { path = \"agent.id\", op = \"exists\", all = [ { path = \"turn.id\", op = \"exists\" } ] }\n",
			`automations.toml:5: automation a: condition: one of all, any, not, or a leaf`},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.doc), "automations.toml")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Parse = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

// TestHash: the execution hash covers what a definition does, not what it
// is called or whether it is on; key order and written-out defaults do
// not change it.
func TestHash(t *testing.T) {
	parse := func(doc string) Definition {
		t.Helper()
		defs, err := Parse([]byte(doc), "a.toml")
		if err != nil {
			t.Fatal(err)
		}
		return defs[0]
	}
	base := parse(issueExample)
	same := []string{
		strings.Replace(issueExample, `name = "Post when a turn completes in this repo"`, `name = "Renamed"`, 1),
		strings.Replace(issueExample, "enabled = true", "enabled = false\ndescription = \"x\"", 1),
		strings.Replace(issueExample, `input = { title = { template = "${session.title} is done" }, agent = { path = "agent.id" } }`,
			`input = { agent = { path = "agent.id" }, title = { template = "${session.title} is done" } }`, 1),
		strings.Replace(issueExample, `policy = { timeout = "15s", retry = "safe", max_attempts = 3, backoff = "1s", concurrency = "serial" }`,
			`policy = { retry = "safe" }`, 1),
		strings.Replace(issueExample, `{ type = "webhook", url = "http://127.0.0.1:9999/in" }`, `{ url = "http://127.0.0.1:9999/in", type = "webhook" }`, 1),
	}
	for i, doc := range same {
		if d := parse(doc); d.Hash() != base.Hash() {
			t.Errorf("variant %d changed the hash", i)
		}
	}
	different := []string{
		strings.Replace(issueExample, `timeout = "15s"`, `timeout = "20s"`, 1),
		strings.Replace(issueExample, `value = "shop"`, `value = "shops"`, 1),
		strings.Replace(issueExample, `9999/in`, `9999/other`, 1),
		strings.Replace(issueExample, `agent = { path = "agent.id" }`, `agent = { const = "claude" }`, 1),
		strings.Replace(issueExample, `event = "turn.completed"`, `event = "turn.failed"`, 1),
	}
	for i, doc := range different {
		if d := parse(doc); d.Hash() == base.Hash() {
			t.Errorf("change %d kept the hash", i)
		}
	}
	noCond := parse("[[automation]]\nid = \"a\"\nevent = \"turn.completed\"\naction = { type = \"sound\" }\n")
	emptyCond := parse("[[automation]]\nid = \"a\"\nevent = \"turn.completed\"\naction = { type = \"sound\" }\ncondition = {}\n")
	if noCond.Hash() != emptyCond.Hash() {
		t.Error("an absent and an empty condition hash differently")
	}
	if !strings.HasPrefix(base.Hash(), "sha256:") || len(base.Hash()) != 71 {
		t.Errorf("hash %q, want sha256: and 64 hex", base.Hash())
	}
}

package automations

import (
	"os"
	"slices"
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

// TestParseActionErrors: the new actions' problems, each at its file's
// line with the field: keyed retries refused where no idempotency key is
// taken (Slack, Discord and ntfy take none), a field on an action it does
// not belong to, an input an action would not send, and each service's
// own bounds.
func TestParseActionErrors(t *testing.T) {
	def := func(action, extra string) string {
		return "[[automation]]\nid = \"a\"\nevent = \"turn.completed\"\naction = { " + action + " }\n" + extra
	}
	slack := `type = "slack", url = "https://hooks.slack.com/services/T/B/x", text = "done"`
	discord := `type = "discord", url = "https://discord.com/api/webhooks/1/x", text = "done"`
	ntfy := `type = "ntfy", url = "https://ntfy.sh", topic = "clawd", text = "done"`
	tests := []struct {
		name, doc, want string
	}{
		{"keyed slack", def(slack, "policy = { retry = \"keyed\" }\n"),
			`automations.toml:5: automation a: policy.retry: keyed retries need an action that takes an idempotency key, and only a webhook does (slack does not)`},
		{"keyed discord", def(discord, "policy = { retry = \"keyed\" }\n"), `automations.toml:5: automation a: policy.retry: keyed retries need`},
		{"keyed ntfy", def(ntfy, "policy = { retry = \"keyed\" }\n"), `automations.toml:5: automation a: policy.retry: keyed retries need`},
		{"unknown type", def(`type = "teams"`, ""), `automations.toml:4: automation a: action.type: "teams": notification, sound, webhook, command, slack, discord or ntfy`},
		{"slack url", def(`type = "slack", url = "hooks.slack.com/x", text = "x"`, ""), `automations.toml:4: automation a: action.url: "hooks.slack.com/x": a slack action (its incoming webhook's URL) needs an http:// or https:// URL`},
		{"slack no text", def(`type = "slack", url = "https://h/x"`, ""), `automations.toml:4: automation a: action.text: a slack message needs a text (or blocks)`},
		{"slack text path", def(`type = "slack", url = "https://h/x", text = "${payload.text}"`, ""), `automations.toml:4: automation a: action.text.template: path "payload.text" cannot be read for turn.completed`},
		{"slack headers", def(slack+`, headers = { X = "y" }`, ""), `automations.toml:4: automation a: action.headers: belongs to webhook or ntfy, not to slack`},
		{"slack input", def(slack, "input = { t = { path = \"session.title\" } }\n"), `automations.toml:5: automation a: input: a slack action sends its own text, not an input`},
		{"slack blocks not an array", def(slack+`, blocks = '{"type": "section"}'`, ""), `automations.toml:4: automation a: action.blocks: a JSON array`},
		{"slack blocks not JSON", def(slack+`, blocks = '[{"text": "${session.title}"'`, ""), `automations.toml:4: automation a: action.blocks: not JSON with its placeholders filled in`},
		{"discord username", def(discord+`, username = "`+strings.Repeat("x", 81)+`"`, ""), `automations.toml:4: automation a: action.username: "` + strings.Repeat("x", 81) + `": one line of at most 80 characters`},
		{"discord embeds", def(discord+`, embeds = '[1,]'`, ""), `automations.toml:4: automation a: action.embeds: not JSON`},
		{"discord topic", def(discord+`, topic = "t"`, ""), `automations.toml:4: automation a: action.topic: belongs to ntfy, not to discord`},
		{"ntfy topic", def(`type = "ntfy", url = "https://ntfy.sh", topic = "a/b", text = "x"`, ""), `automations.toml:4: automation a: action.topic: "a/b": an ntfy topic is 1 to 64 letters, digits, '-' and '_'`},
		{"ntfy no text", def(`type = "ntfy", url = "https://ntfy.sh", topic = "t"`, ""), `automations.toml:4: automation a: action.text: an ntfy message needs a text`},
		{"ntfy priority", def(ntfy+`, priority = 7`, ""), `automations.toml:4: automation a: action.priority: 7: 1 (min) to 5 (max)`},
		{"ntfy tag", def(ntfy+`, tags = ["a,b"]`, ""), `automations.toml:4: automation a: action.tags: "a,b": a tag is one line without commas`},
		{"ntfy click", def(ntfy+`, click = "example.com"`, ""), `automations.toml:4: automation a: action.click: "example.com": an absolute URL`},
		{"ntfy header value", def(ntfy+`, headers = { Authorization = "Bearer x\ny" }`, ""), `automations.toml:4: automation a: action.headers: "Authorization": a header's value is one line`},
		{"ntfy title path", def(ntfy+`, title = "${nope}"`, ""), `automations.toml:4: automation a: action.title.template: path "nope" cannot be read`},
		{"webhook text", def(`type = "webhook", url = "https://h/x", text = "x"`, ""), `automations.toml:4: automation a: action.text: belongs to slack or discord or ntfy, not to webhook`},
		{"webhook body_template", def(`type = "webhook", url = "https://h/x", body_template = '{"a": ${session.title}'`, ""), `automations.toml:4: automation a: action.body_template: not JSON`},
		{"webhook body_template input", def(`type = "webhook", url = "https://h/x", body_template = '{}'`, "input = { t = { path = \"session.title\" } }\n"),
			`automations.toml:5: automation a: input: a webhook with a body_template sends its own text, not an input`},
		{"notification text", def(`type = "notification", text = "x"`, ""), `automations.toml:4: automation a: action.text: belongs to slack or discord or ntfy, not to notification`},
		{"command url", def(`type = "command", argv = ["/bin/true"], url = "https://h"`, ""), `automations.toml:4: automation a: action.url: belongs to webhook or slack or discord or ntfy, not to command`},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.doc), "automations.toml")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Parse = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	for _, ok := range []string{def(slack, "policy = { retry = \"safe\" }\n"), def(discord, ""), def(ntfy, ""),
		def(ntfy+`, title = "${session.title}", priority = 5, tags = ["robot"], click = "https://example.com", headers = { Authorization = "Bearer tk_x" }`, ""),
		def(`type = "slack", url = "https://h/x", blocks = '[{"type": "section", "text": {"type": "mrkdwn", "text": "${session.title}"}}]'`, ""),
		def(`type = "webhook", url = "https://h/x", body_template = '{"t": "${session.title}"}'`, ""),
	} {
		if _, err := Parse([]byte(ok), "automations.toml"); err != nil {
			t.Errorf("Parse(%s) = %v, want no error", ok, err)
		}
	}
}

// TestHashOfNewFields: every field an action sends from is in the
// execution hash, so changing what a Slack, Discord or ntfy message says
// or where it goes needs a new trust; and a definition written before
// these fields existed keeps the hash it was trusted for (these were
// computed before they were added).
func TestHashOfNewFields(t *testing.T) {
	parse := func(doc string) Definition {
		t.Helper()
		defs, err := Parse([]byte(doc), "a.toml")
		if err != nil {
			t.Fatal(err)
		}
		return defs[0]
	}
	for doc, want := range map[string]string{
		issueExample: "sha256:8424481e1ce722eef717285af0e5c33d1a1c4978e3ff23f01af04199b02608a2",
		"[[automation]]\nid = \"n\"\nevent = \"turn.completed\"\naction = { type = \"notification\", title = \"${session.title}\", body = \"done\" }\n": "sha256:9d9d414fb2cef3e1729546e2e17465559ec63f029862edabef41d1df008b3e85",
	} {
		d := parse(doc)
		if got := d.Hash(); got != want {
			t.Errorf("hash of an existing definition = %s, want %s as before", got, want)
		}
	}
	bases := map[string]string{
		"slack":   `type = "slack", url = "https://h/services/a", text = "${session.title} done", blocks = '[{"type": "divider"}]'`,
		"discord": `type = "discord", url = "https://h/api/webhooks/1/a", text = "${session.title} done", username = "clawd", embeds = '[{"title": "x"}]'`,
		"ntfy":    `type = "ntfy", url = "https://ntfy.sh", topic = "clawd", text = "${session.title} done", title = "t", priority = 4, tags = ["a"], click = "https://x", headers = { Authorization = "Bearer a" }`,
		"webhook": `type = "webhook", url = "https://h/in", body_template = '{"t": "${session.title}"}'`,
	}
	changes := map[string][][2]string{
		"slack":   {{`${session.title} done`, `${session.title} finished`}, {`divider`, `header`}, {`/services/a`, `/services/b`}},
		"discord": {{`${session.title} done`, `${session.id} done`}, {`"clawd"`, `"bot"`}, {`"x"`, `"y"`}},
		"ntfy": {{`${session.title} done`, `${agent.name} done`}, {`title = "t"`, `title = "u"`}, {`priority = 4`, `priority = 5`},
			{`["a"]`, `["b"]`}, {`https://x`, `https://y`}, {`topic = "clawd"`, `topic = "other"`}, {`Bearer a`, `Bearer b`}},
		"webhook": {{`"t": "${session.title}"`, `"t": ${session.title}`}},
	}
	for kind, action := range bases {
		doc := "[[automation]]\nid = \"a\"\nevent = \"turn.completed\"\naction = { " + action + " }\n"
		d := parse(doc)
		base := d.Hash()
		for _, c := range changes[kind] {
			if !strings.Contains(doc, c[0]) {
				t.Fatalf("%s: %q not in the base", kind, c[0])
			}
			if changed := parse(strings.Replace(doc, c[0], c[1], 1)); changed.Hash() == base {
				t.Errorf("%s: changing %s to %s kept the hash", kind, c[0], c[1])
			}
		}
	}
}

// TestLeavesOfNewActions: what trust shows leaves the machine: the
// service and its host, each template as written, the header names
// without their values, and for a Slack or Discord URL not its token.
func TestLeavesOfNewActions(t *testing.T) {
	for _, tc := range []struct {
		action string
		want   []string
		not    string
	}{
		{`type = "slack", url = "https://hooks.slack.com/services/T0/B0/SeCrEt", text = "${session.title} done", blocks = '[{"type": "divider"}]'`,
			[]string{"a Slack message to https://hooks.slack.com/services/T0/B0/…", `text = "${session.title} done"`, `blocks = "[{\"type\": \"divider\"}]"`}, "SeCrEt"},
		{`type = "discord", url = "https://discord.com/api/webhooks/1/SeCrEt?thread_id=2", text = "done", username = "clawd"`,
			[]string{"a Discord message to https://discord.com/api/webhooks/1/…", `content = "done"`, `username = "clawd"`}, "SeCrEt"},
		{`type = "ntfy", url = "https://ntfy.sh", topic = "clawd", text = "done", priority = 4, tags = ["a", "b"], click = "https://x", headers = { Authorization = "Bearer SeCrEt" }`,
			[]string{"an ntfy message to topic clawd on https://ntfy.sh", `title = "clawd: a turn is done"`, `message = "done"`, "priority = 4", "tags = a,b", "click = https://x",
				"headers Authorization (their values not shown)"}, "SeCrEt"},
		{`type = "webhook", url = "https://h/in", body_template = '{"t": "${session.title}"}', headers = { X-Api-Key = "SeCrEt" }`,
			[]string{`the JSON of body_template "{\"t\": \"${session.title}\"}" with its placeholders filled in, to https://h/in`, "headers X-Api-Key (their values not shown)"}, "SeCrEt"},
	} {
		defs, err := Parse([]byte("[[automation]]\nid = \"a\"\nevent = \"turn.completed\"\naction = { "+tc.action+" }\n"), "a.toml")
		if err != nil {
			t.Fatal(err)
		}
		got := defs[0].Leaves()
		if !slices.Equal(got, tc.want) {
			t.Errorf("Leaves(%s) =\n%q\nwant\n%q", tc.action, got, tc.want)
		}
		if strings.Contains(strings.Join(got, "\n"), tc.not) {
			t.Errorf("Leaves(%s) shows %q", tc.action, tc.not)
		}
	}
}

// TestDocExamples: every automations.toml example in docs/automations.md
// is read without a problem.
func TestDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/automations.md")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, block := range strings.Split(string(doc), "```toml\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		defs, err := Parse([]byte(block), "automations.md")
		if err != nil {
			t.Errorf("docs/automations.md example:\n%s\n%v", block, err)
		}
		for _, d := range defs {
			ids = append(ids, d.ID)
		}
	}
	for _, id := range []string{"post-done", "night-ding", "log-failure", "slack-done", "discord-done", "phone-approval", "post-summary"} {
		if !slices.Contains(ids, id) {
			t.Errorf("docs/automations.md examples %v, want %s among them", ids, id)
		}
	}
}

package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
)

// TestLoadCustomAgents: [[agents.custom]] tables beside [agents.<id>]
// ones give the person's own agents, in file order, with their display
// names and icons; they leave the built-in agents' tables as they were.
func TestLoadCustomAgents(t *testing.T) {
	home := t.TempDir()
	write(t, home, `
[agents.claude]
permissions = false

[[agents.custom]]
name = "my-bot"
display_name = "My Bot"
icon = "working"

[[agents.custom]]
name = "ci2"
display_name = "  CI runner  "
`)
	c, err := Load(home)
	if err != nil {
		t.Fatalf("Load = %v", err)
	}
	want := []agents.CustomSpec{{Name: "my-bot", Display: "My Bot", Icon: "working"}, {Name: "ci2", Display: "  CI runner  "}}
	if !reflect.DeepEqual(c.Custom, want) {
		t.Errorf("Custom = %+v, want %+v", c.Custom, want)
	}
	if a, ok := c.Agents["claude"]; !ok || a.Permissions {
		t.Errorf("[agents.claude] beside them = %+v (%v), want permissions off", a, ok)
	}
	if def := Default(); def.Custom != nil {
		t.Errorf("Default().Custom = %v, want none", def.Custom)
	}
}

// TestLoadCustomAgentErrors: every bad [[agents.custom]] is reported with
// its line and what to write instead; a custom id never gets a table of
// its own.
func TestLoadCustomAgentErrors(t *testing.T) {
	tests := []struct {
		name, file string
		want       []string
	}{
		{"no display name", "[[agents.custom]]\nname = \"bot\"\n",
			[]string{`:1: [[agents.custom]] number 1 needs name and display_name: name = "my-bot" makes the id custom-my-bot, display_name is what people see`}},
		{"bad name", "[[agents.custom]]\nname = \"My Bot\"\ndisplay_name = \"x\"\n",
			[]string{`:2: [[agents.custom]] number 1: name: not a custom agent name: "My Bot": use lower-case letters, digits and dashes (not at either end), like "my-bot"`}},
		{"name too long", "[[agents.custom]]\nname = \"" + strings.Repeat("a", agents.MaxCustomName+1) + "\"\ndisplay_name = \"x\"\n",
			[]string{`:2: [[agents.custom]] number 1: name: not a custom agent name: "` + strings.Repeat("a", agents.MaxCustomName+1) + `" is longer than 57 characters`}},
		{"blank display name", "[[agents.custom]]\nname = \"bot\"\ndisplay_name = \"  \"\n",
			[]string{`:3: [[agents.custom]] number 1: display_name: not a display name: it is empty: name the agent as people should see it, like "My Bot"`}},
		{"two-line display name", "[[agents.custom]]\nname = \"bot\"\ndisplay_name = \"a\\nb\"\n",
			[]string{`:3: [[agents.custom]] number 1: display_name: not a display name: it holds a control character: keep it to one line of text`}},
		{"unknown icon", "[[agents.custom]]\nname = \"bot\"\ndisplay_name = \"Bot\"\nicon = \"robot\"\n",
			[]string{`:4: [[agents.custom]] number 1: icon = "robot" is not one of the tray's icons: want one of sleeping, idle, thinking, working, juggling, done, needs-you, question, error, dnd`}},
		{"a name twice", "[[agents.custom]]\nname = \"bot\"\ndisplay_name = \"A\"\n[[agents.custom]]\nname = \"bot\"\ndisplay_name = \"B\"\n",
			[]string{`:5: [[agents.custom]] number 2: name "bot" is declared already by number 1: keep one`}},
		{"unknown key", "[[agents.custom]]\nname = \"bot\"\ndisplay_name = \"Bot\"\ncolor = \"red\"\n",
			[]string{`:4: unknown key agents.custom.color (known keys in [[agents.custom]]: name, display_name, icon)`}},
		{"a table, not an array", "[agents.custom]\nname = \"bot\"\n",
			[]string{`:1: agents.custom has the wrong type: want an array of tables, each written [[agents.custom]]`}},
		{"a custom id's own table", "[agents.custom-bot]\nenabled = false\n",
			[]string{`:1: [agents.custom-bot]: a custom agent takes no table of its own: it has no hooks and clawd answers none of its permissions; declare it with [[agents.custom]] name = "bot"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			write(t, home, tt.file)
			path := filepath.Join(home, FileName)
			c, err := Load(home)
			if err == nil {
				t.Fatalf("Load(%q) = %+v, want an error", tt.file, c)
			}
			want := make([]string, len(tt.want))
			for i, l := range tt.want {
				want[i] = path + l
			}
			if got := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(got, want) {
				t.Errorf("Load(%q) error =\n%s\nwant\n%s", tt.file, err, strings.Join(want, "\n"))
			}
		})
	}
}

package installers

import (
	"fmt"
	"slices"
	"testing"

	"github.com/clawdhq/clawd/agents"
)

// TestEachHandler checks the one walk of the hooks shape: every handler
// that is an object with one string command, with its indexes, grouped
// and flat; and that findOurs and hookCommands, which both read through
// it, see the same handlers (findOurs clawd's alone).
func TestEachHandler(t *testing.T) {
	const clawd = "/usr/local/bin/clawd hook claude"
	tests := []struct {
		name string
		cfg  hooksConfig
		data string
		want []string // "event/group/handler command"
		ours []string // the same, of findOurs
	}{
		{
			name: "grouped",
			cfg:  hooksConfig{agentID: agents.Claude.ID},
			data: `{"hooks": {
				"Stop": [
					{"hooks": [{"type": "command", "command": "` + clawd + ` Stop"}, {"command": "say done"}]},
					{"matcher": "x"},
					{"hooks": ["not an object", {"command": 1}, {"command": "a", "command": "b"}, {"command": "` + clawd + ` Stop"}]}
				],
				"Notification": [{"hooks": [{"command": "notify-send hi"}]}]
			}}`,
			want: []string{"0/0/0 " + clawd + " Stop", "0/0/1 say done", "0/2/3 " + clawd + " Stop", "1/0/0 notify-send hi"},
			ours: []string{"0/0/0 " + clawd + " Stop", "0/2/3 " + clawd + " Stop"},
		},
		{
			name: "flat",
			cfg:  hooksConfig{agentID: agents.Claude.ID, flat: true},
			data: `{"hooks": {"stop": [{"command": "` + clawd + ` stop"}, 7, {"command": "say done"}], "beforeShellExecution": []}}`,
			want: []string{"0/0/0 " + clawd + " stop", "0/2/0 say done"},
			ours: []string{"0/0/0 " + clawd + " stop"},
		},
		{
			name: "none",
			cfg:  hooksConfig{agentID: agents.Claude.ID},
			data: `{"hooks": {}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := tt.cfg.parse([]byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			hooks, _, err := hooksObject(root)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			eachHandler(hooks, tt.cfg, func(ei, gi, hi int, h *node, command string) {
				if h.kind != kindObject {
					t.Errorf("eachHandler gave a %s handler", h.kind)
				}
				got = append(got, fmt.Sprintf("%d/%d/%d %s", ei, gi, hi, command))
			})
			if !slices.Equal(got, tt.want) {
				t.Errorf("eachHandler(%s) = %q, want %q", tt.name, got, tt.want)
			}
			var ours []string
			for _, f := range findOurs(hooks, tt.cfg) {
				c, _ := f.node.get("command")
				ours = append(ours, fmt.Sprintf("%d/%d/%d %s", f.event, f.group, f.handler, c.str))
			}
			if !slices.Equal(ours, tt.ours) {
				t.Errorf("findOurs(%s) = %q, want %q", tt.name, ours, tt.ours)
			}
			var cmds, wantCmds []string
			for _, h := range hookCommands(tt.cfg)([]byte(tt.data)) {
				cmds = append(cmds, h.Event+" "+h.Command)
			}
			for _, w := range tt.want {
				var ei, gi, hi int
				var c string
				fmt.Sscanf(w, "%d/%d/%d", &ei, &gi, &hi)
				c = w[len(fmt.Sprintf("%d/%d/%d ", ei, gi, hi)):]
				wantCmds = append(wantCmds, hooks.members[ei].key+" "+c)
			}
			if !slices.Equal(cmds, wantCmds) {
				t.Errorf("hookCommands(%s) = %q, want %q", tt.name, cmds, wantCmds)
			}
		})
	}
}

package cmd

import (
	"strings"
	"testing"
)

// TestUnknownCommand: a word that names no command is an error on stderr
// with exit 2, naming the command it was probably meant to be when one is
// close, never urfave's "No help topic".
func TestUnknownCommand(t *testing.T) {
	tests := []struct {
		args   []string
		stderr string
	}{
		{[]string{"frobnicate"}, "clawd: unknown command \"frobnicate\": see `clawd help`\n"},
		{[]string{"statu"}, "clawd: unknown command \"statu\": did you mean \"status\"?\n"},
		{[]string{"unistall"}, "clawd: unknown command \"unistall\": did you mean \"uninstall\"?\n"},
		{[]string{"sevre", "--headless"}, "clawd: unknown command \"sevre\": did you mean \"serve\"?\n"},
		{[]string{"perm"}, "clawd: unknown command \"perm\": did you mean \"permissions\"?\n"},
		{[]string{"hepl"}, "clawd: unknown command \"hepl\": did you mean \"help\"?\n"},
		// One letter is close to too much to guess.
		{[]string{"x"}, "clawd: unknown command \"x\": see `clawd help`\n"},
		{[]string{"--bogus"}, "clawd: flag provided but not defined: -bogus\n"},
		{[]string{"status", "--bogus"}, "clawd: flag provided but not defined: -bogus\n"},
		{[]string{"permissions", "allow", "--bogus"}, "clawd: flag provided but not defined: -bogus\n"},
		{[]string{"help", "frobnicate"}, "clawd: unknown command \"frobnicate\": see `clawd help`\n"},
		{[]string{"help", "evnets"}, "clawd: unknown command \"evnets\": did you mean \"events\"?\n"},
		// What a person reads of a word they did not type is inert.
		{[]string{"\x1b[2J\u202e"}, "clawd: unknown command \"\\x1b[2J\\u202e\": see `clawd help`\n"},
	}
	for _, tt := range tests {
		code, out, errb := runCLI(t, t.TempDir(), tt.args...)
		if code != 2 || out != "" || errb != tt.stderr {
			t.Errorf("clawd %q = exit %d, stdout %q, stderr %q; want exit 2, stderr %q", tt.args, code, out, errb, tt.stderr)
		}
	}
}

func TestNearest(t *testing.T) {
	names := []string{"help", "serve", "status", "events", "permissions", "dnd", "agents", "install", "uninstall", "hook", "version"}
	tests := []struct{ typed, want string }{
		{"status", "status"},
		{"Status", "status"},
		{"stauts", "status"},
		{"instal", "install"},
		{"dn", "dnd"},
		{"agent", "agents"},
		{"ver", "version"},
		{"s", ""}, // too short to pick a prefix
		{"st", "status"},
		{"se", "serve"},
		{"e", ""},
		{"in", "install"}, // uninstall does not start with it
		{"un", "uninstall"},
		{"frobnicate", ""},
		{"hoo", "hook"},
	}
	for _, tt := range tests {
		if got := nearest(tt.typed, names); got != tt.want {
			t.Errorf("nearest(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}

// TestRootHelp: clawd alone, clawd help and clawd --help describe today's
// clawd as gh does: what it is, its commands in groups (core, agents,
// more, help topics) in that order, examples; the hook, which agents run,
// is not listed but still answers.
func TestRootHelp(t *testing.T) {
	for _, args := range [][]string{nil, {"help"}, {"--help"}, {"h"}} {
		code, out, errb := runCLI(t, t.TempDir(), args...)
		if code != 0 || errb != "" {
			t.Errorf("clawd %q = exit %d, stderr %q; want 0", args, code, errb)
		}
		at := 0
		for _, want := range []string{"CORE COMMANDS:\n   status ", "   permissions ", "   serve ",
			"AGENT COMMANDS:\n   install ", "   doctor ", "MORE COMMANDS:\n   history ", "   completion ",
			"HELP TOPICS:\n   environment ", "GLOBAL OPTIONS:", "EXAMPLES:\n   $ clawd install --all", "$ clawd doctor", "LEARN MORE:"} {
			i := strings.Index(out[at:], want)
			if i < 0 {
				t.Errorf("clawd %q help lacks %q after what came before:\n%s", args, want, out)
				continue
			}
			at += i
		}
		for _, want := range []string{"Claude Code", "Codex", "whoever answers first wins"} {
			if !strings.Contains(out, want) {
				t.Errorf("clawd %q help lacks %q:\n%s", args, want, out)
			}
		}
		if strings.Contains(out, "\n   hook ") {
			t.Errorf("clawd %q help lists the hidden hook:\n%s", args, out)
		}
	}
	if code, out, _ := runCLI(t, t.TempDir(), "hook", "--help"); code != 0 || !strings.Contains(out, "clawd hook") {
		t.Errorf("clawd hook --help = %d %q, want its help", code, out)
	}
	if code, out, _ := runCLI(t, t.TempDir(), "environment"); code != 0 || !strings.Contains(out, "NO_COLOR") {
		t.Errorf("clawd environment = %d %q, want the variables", code, out)
	}
	// The hook never exits 2, which would block the agent.
	if code, _, _ := runCLI(t, t.TempDir(), "hook", "claude", "--bogus"); code == 2 {
		t.Errorf("clawd hook claude --bogus = exit 2, which blocks the agent")
	}
	// A command's own help still comes.
	if code, out, _ := runCLI(t, t.TempDir(), "help", "status"); code != 0 || !strings.Contains(out, "clawd status") {
		t.Errorf("clawd help status = %d %q", code, out)
	}
}

// TestRootHelpGroups: every command the root help may list is in one of
// its groups, once, and every name in the groups is a command.
func TestRootHelpGroups(t *testing.T) {
	root := helpTree(t, "C.UTF-8") // with the commands urfave adds as it runs
	seen := map[string]bool{}
	for _, g := range rootGroups {
		for _, name := range g.commands {
			if seen[name] {
				t.Errorf("%s is in two groups", name)
			}
			seen[name] = true
			if c := root.Command(name); c == nil || c.Hidden {
				t.Errorf("group %s names %s, which is no visible command", g.heading, name)
			}
		}
	}
	for _, c := range root.Commands {
		if !c.Hidden && !seen[c.Name] {
			t.Errorf("clawd %s is in no group of the root help (rootGroups in help.go)", c.Name)
		}
	}
	if c := root.Command("hook"); c == nil || !c.Hidden {
		t.Errorf("clawd hook is %v, want a hidden command", c)
	}
}

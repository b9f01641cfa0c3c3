package card

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// describe is what the hook makes of a captured (or built) Claude Code
// payload under testdata/claude.
func describe(t *testing.T, dir, name string) agents.Request {
	t.Helper()
	payload, err := os.ReadFile(filepath.Join("..", "..", "testdata", "claude", dir, name))
	if err != nil {
		t.Fatal(err)
	}
	e, err := agents.Claude.Decode(payload, "", func(string) string { return "" }, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return agents.Claude.Describe(e, payload, false)
}

func TestDiff(t *testing.T) {
	const root = "/home/user/project"
	tests := []struct {
		name   string
		change *agents.FileChange
		want   client.Diff
	}{
		{"captured Edit", describe(t, "hooks", "PermissionRequest.Edit.json").Change, client.Diff{Path: "main.go",
			Lines: []string{"-\tprintln(\"hello\")", "+\tprintln(\"hello, world\")", "+\tprintln(\"bye\")"}}},
		{"captured Write", describe(t, "hooks", "PermissionRequest.Write.json").Change, client.Diff{Path: "notes.md", Whole: true,
			Lines: []string{"+# Notes", "+", "+first line", "+second line"}}},
		{"built MultiEdit", describe(t, "built", "PermissionRequest.MultiEdit.json").Change, client.Diff{Path: "main.go",
			Lines: []string{"-\tprintln(\"hello\")", "+\tprintln(\"hello, world\")", "@", "+// Command main greets.", " package main"}}},
		{"context around a change, replace_all", &agents.FileChange{Path: "/elsewhere/x.go", Edits: []agents.TextEdit{{All: true,
			Old: "a\nb\nc\nd\ne\nf\ng\nh\n", New: "a\nb\nc\nd\nE\nf\ng\nh\n"}}},
			client.Diff{Path: "/elsewhere/x.go", All: true, Lines: []string{" b", " c", " d", "-e", "+E", " f", " g", " h"}}},
		{"opencode's unified diff", &agents.FileChange{Path: root + "/src/a.go", Patch: "Index: /home/user/project/src/a.go\n" +
			"===================================================================\n--- /home/user/project/src/a.go\n+++ /home/user/project/src/a.go\n" +
			"@@ -1,3 +1,3 @@\n package a\n-var x = 1\n+var x = 2\n \n--- not a header inside a hunk\n"},
			client.Diff{Path: "src/a.go", Lines: []string{"@@@ -1,3 +1,3 @@", " package a", "-var x = 1", "+var x = 2", " ", "--- not a header inside a hunk"}}},
		{"Codex's apply_patch", &agents.FileChange{Path: "hello.txt", Patch: "*** Begin Patch\n*** Add File: hello.txt\n+hello from patch\n" +
			"*** Update File: b.txt\n@@ def f():\n-old\n+new\n*** End Patch\n"},
			client.Diff{Path: "hello.txt", Lines: []string{"@*** Add File: hello.txt", "+hello from patch", "@*** Update File: b.txt",
				"@@@ def f():", "-old", "+new"}}},
		{"a cut payload: the file, no text", &agents.FileChange{Path: root + "/big.bin", Cut: true},
			client.Diff{Path: "big.bin", Cut: true, Lines: []string{}}},
	}
	for _, tt := range tests {
		got := Diff(tt.change, root)
		if got == nil || got.Path != tt.want.Path || got.Whole != tt.want.Whole || got.All != tt.want.All || got.Cut != tt.want.Cut ||
			got.More != tt.want.More || !slices.Equal(got.Lines, tt.want.Lines) {
			t.Errorf("%s: Diff = %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
	if Diff(nil, root) != nil {
		t.Error("Diff(nil) is not nil")
	}
}

// hostile is 20 MB of lines, each with an ESC sequence, a bidi override
// and a zero-width space, indented by a tab.
func hostile() string {
	return strings.Repeat("\t\x1b[2J\u202eevil\u200b line\n", 20<<20/22)
}

// TestDiffBounded: a change with a 20 MB new text, full of escapes and
// bidi overrides, given straight to Diff (past the agent's own cap): at
// most MaxDiffLines lines and MaxDiffBytes, the rest counted, the change
// marked cut, every line with its indentation and without a control or
// format character; in bounded time and memory.
func TestDiffBounded(t *testing.T) {
	big := hostile()
	for _, c := range []*agents.FileChange{
		{Path: "/p/a", Edits: []agents.TextEdit{{Old: "\tx\n", New: big}}},
		{Path: "/p/a", Edits: []agents.TextEdit{{Old: big[:len(big)/2] + "\ty\n", New: big}}},
		{Path: "/p/a", Whole: true, Edits: []agents.TextEdit{{New: big}}},
		{Path: "/p/a", Patch: "@@ -1 +1 @@\n" + strings.ReplaceAll(big, "\t", "+\t")},
	} {
		var before goruntime.MemStats
		goruntime.ReadMemStats(&before)
		start := time.Now()
		d := Diff(c, "/p")
		took := time.Since(start)
		var after goruntime.MemStats
		goruntime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("whole %v patch %v: %d lines, %d more, in %v, %d MiB allocated", c.Whole, c.Patch != "", len(d.Lines), d.More, took.Round(time.Millisecond), alloc>>20)
		size := 0
		for _, l := range d.Lines {
			size += len(l)
			if strings.ContainsAny(l, "\x1b\u202e\u200b\r") || !strings.HasPrefix(l[1:], "\t") && l[0] != '@' {
				t.Fatalf("a line of the diff reads %q: want its tab kept and no escape, override or zero-width space", l)
			}
		}
		// Both sides cut to the same start leave no difference to show:
		// only the mark that the change goes on.
		sameStart := len(c.Edits) == 1 && len(c.Edits[0].Old) > maxSide
		if len(d.Lines) > client.MaxDiffLines || size > client.MaxDiffBytes || d.More == 0 && !sameStart {
			t.Errorf("Diff of 20 MB: %d lines, %d bytes, %d more; want at most %d lines and %d bytes, the rest counted",
				len(d.Lines), size, d.More, client.MaxDiffLines, client.MaxDiffBytes)
		}
		if !d.Cut {
			t.Error("Diff of a 20 MB text is not marked cut")
		}
		if took > 5*time.Second || alloc > 256<<20 {
			t.Errorf("Diff of 20 MB took %v and %d MiB", took, alloc>>20)
		}
	}
}

func TestWhere(t *testing.T) {
	top := t.TempDir()
	checkout := filepath.Join(top, "shop")
	if err := os.MkdirAll(filepath.Join(checkout, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(checkout, "api", "v2")
	if folder, root := Where(sub, true); folder != "shop/api/v2" || root != checkout {
		t.Errorf("Where(%s, local) = %q, %q; want shop/api/v2 and the checkout", sub, folder, root)
	}
	// A remote machine's path is never looked for here.
	if folder, root := Where(sub, false); folder != "v2" || root != "" {
		t.Errorf("Where(%s, remote) = %q, %q; want v2 alone", sub, folder, root)
	}
	if folder, _ := Where(filepath.Join(top, "loose"), true); folder != "loose" {
		t.Errorf("Where(outside a repository) = %q, want its own name", folder)
	}
}

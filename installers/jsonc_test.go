package installers

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// jsoncTest is a hooks engine for a JSON-with-comments file whose
// timeouts count milliseconds, as Gemini's settings are.
func jsoncTest(specs []agents.HookSpec) hooksConfig {
	return hooksConfig{
		agentID:     "claude",
		specs:       specs,
		command:     func(string) string { return goldenBinary + " hook claude" },
		jsonc:       true,
		timeoutUnit: time.Millisecond,
	}
}

var jsoncSpecs = []agents.HookSpec{{Event: "Stop", Timeout: 10}, {Event: "BeforeTool", Timeout: 600}}

const jsoncOriginal = `// My Gemini settings
{
  /* theme first */
  "theme": "dark", // I like it dark
  "hooks": {
    // my own stop hook
    "Stop": [
      { "hooks": [ { "type": "command", "command": "say done" } ] } // trailing
    ]
  }
  // the end
}
`

// TestJSONCKeepsComments: in a file with comments, install keeps every
// comment byte for byte, writes timeouts in milliseconds, and uninstall
// gives the file back; after the person edited around clawd's entries,
// uninstall still removes only them and no comment.
func TestJSONCKeepsComments(t *testing.T) {
	in := []byte(jsoncOriginal)
	out, ch, err := editHooks(in, jsoncTest(jsoncSpecs))
	if err != nil {
		t.Fatal(err)
	}
	if ch.Added != 2 {
		t.Errorf("install changes = %+v, want 2 added", ch)
	}
	for _, c := range []string{"// My Gemini settings", "/* theme first */", "// I like it dark", "// my own stop hook", "// trailing", "// the end"} {
		if !bytes.Contains(out, []byte(c)) {
			t.Errorf("install lost the comment %q:\n%s", c, out)
		}
	}
	if !bytes.Contains(out, []byte(`"timeout": 600000`)) || !bytes.Contains(out, []byte(`"timeout": 10000`)) {
		t.Errorf("install did not write the timeouts in milliseconds:\n%s", out)
	}
	if _, err := parseJSONC(out); err != nil {
		t.Fatalf("installed file does not parse: %v\n%s", err, out)
	}
	again, ch, err := editHooks(out, jsoncTest(jsoncSpecs))
	if err != nil || ch.Any() || !bytes.Equal(again, out) {
		t.Errorf("second install = %+v, %v; want no change", ch, err)
	}
	back, _, err := editHooks(out, jsoncTest(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, in) {
		t.Errorf("uninstall(install(in)) differs from in:\n%s", unifiedDiff("in", "back", in, back))
	}

	// The person comments around clawd's entries after the install.
	edited := strings.Replace(string(out), `"BeforeTool": [`, "// clawd's, do not touch\n    \"BeforeTool\": [ /* inline */", 1)
	edited = strings.Replace(edited, `"Stop": [`, `"Stop": [ // stops`, 1)
	back, ch, err = editHooks([]byte(edited), jsoncTest(nil))
	if err != nil {
		t.Fatal(err)
	}
	if ch.Removed != 2 || strings.Contains(string(back), "hook claude") {
		t.Errorf("uninstall of the edited file = %+v:\n%s", ch, back)
	}
	for _, c := range []string{"// My Gemini settings", "// my own stop hook", "// trailing", "// the end", "// clawd's, do not touch", "// stops"} {
		if !bytes.Contains(back, []byte(c)) {
			t.Errorf("uninstall lost the comment %q:\n%s", c, back)
		}
	}
	if _, err := parseJSONC(back); err != nil {
		t.Errorf("uninstalled file does not parse: %v\n%s", err, back)
	}
}

// TestJSONCRemovalKeepsCommentsBetweenItems removes clawd's items from
// every place in a list, with comments on each side.
func TestJSONCRemovalKeepsCommentsBetweenItems(t *testing.T) {
	ours := `{ "hooks": [ { "type": "command", "command": "/usr/local/bin/clawd hook claude" } ] }`
	theirs := `{ "hooks": [ { "type": "command", "command": "say hi" } ] }`
	for _, layout := range [][]string{
		{ours, theirs},
		{theirs, ours},
		{ours, theirs, ours},
		{ours, ours},
		{ours},
	} {
		var b strings.Builder
		b.WriteString("{\n  \"hooks\": {\n    \"Stop\": [ // head\n")
		for i, it := range layout {
			if i > 0 {
				b.WriteString(", // after " + string(rune('a'+i-1)) + "\n")
			}
			b.WriteString("      /* before " + string(rune('a'+i)) + " */ " + it)
		}
		b.WriteString(" // tail\n    ]\n  }\n}\n")
		in := b.String()
		out, _, err := editHooks([]byte(in), jsoncTest(nil))
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if _, err := parseJSONC(out); err != nil {
			t.Errorf("uninstall of\n%s\ngave a file that does not parse: %v\n%s", in, err, out)
			continue
		}
		if strings.Contains(string(out), "clawd hook") {
			t.Errorf("uninstall left clawd's entry:\n%s", out)
		}
		for _, c := range commentsOf(in) {
			if !strings.Contains(string(out), c) {
				t.Errorf("uninstall of\n%s\nlost %q:\n%s", in, c, out)
			}
		}
	}
}

// commentsOf lists the comments of a JSONC text (outside its strings).
func commentsOf(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '/':
			if n := commentLen([]byte(s[i:])); n > 0 {
				out = append(out, s[i:i+n])
				i += n - 1
			}
		}
	}
	return out
}

func TestJSONCErrors(t *testing.T) {
	for in, want := range map[string]string{
		"{ /* open":   "unterminated /* comment",
		"{ / }":       "unexpected '/'",
		"{\"a\": 1,}": "trailing comma",
	} {
		_, err := parseJSONC([]byte(in))
		if !errors.Is(err, ErrUnparseable) || !strings.Contains(err.Error(), want) {
			t.Errorf("parseJSONC(%q) = %v, want an error saying %q", in, err, want)
		}
	}
	if _, err := parse([]byte("{} // c")); err == nil || !strings.Contains(err.Error(), "comments are not allowed") {
		t.Errorf("strict parse of a comment = %v, want refused", err)
	}
}

// FuzzJSONC checks, on any JSON-with-comments file the engine accepts,
// that install and uninstall write files that parse and that neither ever
// loses a comment of the person's.
func FuzzJSONC(f *testing.F) {
	f.Add([]byte(jsoncOriginal))
	f.Add([]byte("{ /* a */ \"hooks\": { // b\n \"Stop\": [] } }"))
	f.Add([]byte("// x\n{}"))
	f.Add([]byte("{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"/usr/local/bin/clawd hook claude\"} /* c */]}]}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := parseJSONC(data); err != nil {
			return
		}
		installed, _, err := editHooks(data, jsoncTest(jsoncSpecs))
		if err != nil {
			return // a layout clawd refuses
		}
		if _, err := parseJSONC(installed); err != nil {
			t.Fatalf("install of %q wrote %q, which does not parse: %v", data, installed, err)
		}
		back, _, err := editHooks(installed, jsoncTest(nil))
		if err != nil {
			t.Fatalf("uninstall of %q: %v", installed, err)
		}
		if _, err := parseJSONC(back); err != nil {
			t.Fatalf("uninstall of %q wrote %q, which does not parse: %v", installed, back, err)
		}
		for _, c := range commentsOf(string(data)) {
			if !bytes.Contains(installed, []byte(c)) || !bytes.Contains(back, []byte(c)) {
				t.Fatalf("the comment %q of %q was lost:\ninstalled %q\nback %q", c, data, installed, back)
			}
		}
	})
}

package text

import (
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	for _, tt := range []struct {
		s     string
		width int
		want  []string
	}{
		{"fits as it is", 0, []string{"fits as it is"}},
		{"fits as it is", 13, []string{"fits as it is"}},
		{"clawd serve is not running: the hooks deliver nothing", 20,
			[]string{"clawd serve is not", "running: the hooks", "deliver nothing"}},
		// A path fills the line up to a slash, and goes on after it.
		{"not installed in /home/me/.claude/settings.json: reports nothing", 30,
			[]string{"not installed in /home/me/", ".claude/settings.json: reports", "nothing"}},
		// No slash that fits in what is left: the path starts a line.
		{"see /a-very-long-folder-name/x", 12,
			[]string{"see", "/a-very-long", "-folder-name", "/x"}},
		// No space, no slash: cut at the width, by columns.
		{"abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"修复登录页面的错误", 6, []string{"修复登", "录页面", "的错误"}},
		// Chinese fills the line; a path in it breaks after a slash.
		{"claude.config: 其设置可以解析：/tmp/x/settings.json", 24,
			[]string{"claude.config: 其设置可", "以解析：/tmp/x/", "settings.json"}},
		// Not before a comma.
		{"重启后，在", 6, []string{"重启", "后，在"}},
		// A wide character in one column still moves on.
		{"修复", 1, []string{"修", "复"}},
	} {
		got := Wrap(tt.s, tt.width)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tt.s, tt.width, got, tt.want)
		}
		for _, l := range got {
			if tt.width > 1 && Width(l) > tt.width {
				t.Errorf("Wrap(%q, %d): line %q is %d columns", tt.s, tt.width, l, Width(l))
			}
		}
	}
}

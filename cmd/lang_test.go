package cmd

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestJSONNeverTranslated: what scripts read (--json) is the same bytes
// in every language, while the text for people beside it is translated.
func TestJSONNeverTranslated(t *testing.T) {
	f := newFakeAPI(t, pendingView("p1"))
	fillTables(t, f)
	clawd := func(lang string, args ...string) string {
		t.Helper()
		e, out, errb := testEnv(t, f.home, nil, map[string]string{"HOME": "/home/user", "LANG": lang})
		e.now = func() time.Time { return tablesNow }
		// doctor exits 1 for the check that fails here: runtime.json
		// missing beside the fake runtime.
		if code := run(context.Background(), e, append([]string{"clawd"}, args...)); code != 0 && (args[0] != "doctor" || code != 1) {
			t.Fatalf("LANG=%s clawd %s = %d: %s", lang, strings.Join(args, " "), code, errb)
		}
		return out.String()
	}
	for _, args := range [][]string{{"agents"}, {"permissions"}, {"autostart", "status"}, {"doctor", "--agent", "claude"}, {"version"},
		{"history"}, {"recap"}, {"automations", "list"}, {"automations", "runs"}, {"automations", "show", "post-done"},
		{"automations", "preview", "post-done"}, {"remote", "list"}} {
		json := append(append([]string{}, args...), "--json")
		if en, zh := clawd("C.UTF-8", json...), clawd("zh_CN.UTF-8", json...); en != zh {
			t.Errorf("clawd %s differs in Chinese:\n%s\nin English:\n%s", strings.Join(json, " "), zh, en)
		}
		if args[0] == "version" {
			continue // the same words in both: "clawd <version>"
		}
		if en, zh := clawd("C.UTF-8", args...), clawd("zh_CN.UTF-8", args...); en == zh {
			t.Errorf("clawd %s is the same in Chinese as in English:\n%s", strings.Join(args, " "), en)
		}
	}
}

package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/golden"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/recap"
)

// TestRenderRecap draws the runtime's golden recap (recorded Claude Code
// sessions replayed across a DST night, see runtime.TestRecapGolden) and
// compares the terminal summary with testdata/recap.golden.txt, and in
// Chinese with testdata/recap.zh-CN.golden.txt; then again with nothing
// seen, and with the folders named.
func TestRenderRecap(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "runtime", "testdata", "recap", "replay.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		lang   i18n.Lang
		golden string
		says   []string
	}{
		{i18n.English, "recap.golden.txt", []string{"(2h22m of 2d05h)", "43% of a 23-hour day", "0%: clawd was not running", "<1%"}},
		{i18n.Chinese, "recap.zh-CN.golden.txt", []string{"（2小时22分 / 2天05小时）", "43%（这天共 23 小时）", "0%：clawd 未运行", "3月29日 周日"}},
	} {
		var sum recap.Summary
		if err := json.Unmarshal(data, &sum); err != nil {
			t.Fatal(err)
		}
		p := i18n.For(tt.lang)
		var got bytes.Buffer
		renderRecap(&got, p, sum, "/home/user", 0)
		// Narrow: the bars shorter, the least useful columns gone.
		got.WriteString("\n--- in 60 columns\n\n")
		var narrow bytes.Buffer
		renderRecap(&narrow, p, sum, "/home/user", 60)
		for _, l := range strings.Split(narrow.String(), "\n") {
			if text.Width(l) > 60 {
				t.Errorf("the recap in %s in 60 columns has a line of %d: %q", tt.lang, text.Width(l), l)
			}
		}
		got.Write(narrow.Bytes())
		got.WriteString("\n--- without the folders' names\n\n")
		for i := range sum.Folders {
			sum.Folders[i].Name = ""
		}
		renderRecap(&got, p, sum, "/home/user", 0)
		got.WriteString("\n--- a window clawd never saw\n\n")
		renderRecap(&got, p, recap.Summary{Zone: "UTC", From: "2026-01-01", To: "2026-01-07", Seconds: 7 * 86400}, "", 0)
		golden.Check(t, filepath.Join("testdata", tt.golden), got.Bytes())
		for _, s := range tt.says {
			if !strings.Contains(got.String(), s) {
				t.Errorf("the recap in %s does not say %q", tt.lang, s)
			}
		}
	}
}

// TestDayLabel: every weekday and month has its name in every language,
// Chinese in its own order.
func TestDayLabel(t *testing.T) {
	for _, l := range i18n.Langs() {
		p := i18n.For(l)
		for d := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() == 2026; d = d.AddDate(0, 0, 1) {
			got := dayLabel(p, recap.Day(d.Format(recap.DayLayout)))
			if strings.Contains(got, "recap.") {
				t.Fatalf("dayLabel(%s, %s) = %q: a name missing from the catalog", l, d.Format(time.DateOnly), got)
			}
		}
	}
	for _, tt := range []struct {
		lang i18n.Lang
		want string
	}{{i18n.English, "Mon 23 Mar"}, {i18n.Chinese, "3月23日 周一"}} {
		if got := dayLabel(i18n.For(tt.lang), "2026-03-23"); got != tt.want {
			t.Errorf("dayLabel(%s, 2026-03-23) = %q, want %q", tt.lang, got, tt.want)
		}
	}
	if got := dayLabel(i18n.Printer{}, "not a day"); got != "not a day" {
		t.Errorf("dayLabel(not a day) = %q, want it as it is", got)
	}
}

func TestBar(t *testing.T) {
	for _, tt := range []struct {
		v, max int64
		want   string
	}{
		{0, 10, ""},
		{10, 10, strings.Repeat("█", barWidth)},
		{5, 10, strings.Repeat("█", barWidth/2)},
		{1, 1000, "▏"}, // something is never nothing
		{3, 16, "███▊"},
	} {
		if got := bar(tt.v, tt.max, barWidth); got != tt.want {
			t.Errorf("bar(%d, %d, barWidth) = %q, want %q", tt.v, tt.max, got, tt.want)
		}
	}
	if got, want := bar(10, 10, minBar), strings.Repeat("█", minBar); got != want {
		t.Errorf("bar(10, 10, minBar) = %q, want %q", got, want)
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{"", time.Time{}, false},
		{"7d", now.AddDate(0, 0, -7), false},
		{"12h", now.Add(-12 * time.Hour), false},
		{"90m", now.Add(-90 * time.Minute), false},
		{"2026-06-01", time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), false},
		{"-3d", time.Time{}, true},
		{"yesterday", time.Time{}, true},
	} {
		got, err := parseSince(tt.in, now)
		if (err != nil) != tt.bad || !got.Equal(tt.want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v (error: %v)", tt.in, got, err, tt.want, tt.bad)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"/home/u/shop", "/home/u/shop"},
		{"/home/u/my shop", "'/home/u/my shop'"},
		{"it's", `'it'\''s'`},
		{"", "''"},
		// A name that would repaint the terminal is printed inert, and
		// pastes back as the same name.
		{"/tmp/\x1b[2Jx", `$'/tmp/\x1b[2Jx'`},
		{"a\nb'c", `$'a\x0ab\'c'`},
		{"bidi\u202eevil", `$'bidi\u202eevil'`},
	} {
		if got := shellQuote(tt.in); got != tt.want {
			t.Errorf("shellQuote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

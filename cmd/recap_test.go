package cmd

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/runtime/recap"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestRenderRecap draws the runtime's golden recap (recorded Claude Code
// sessions replayed across a DST night, see runtime.TestRecapGolden) and
// compares the terminal summary with testdata/recap.golden.txt; then
// again with nothing seen, and with the folders named.
func TestRenderRecap(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "runtime", "testdata", "recap", "replay.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum recap.Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	renderRecap(&got, sum, "/home/user")
	got.WriteString("\n--- without the folders' names\n\n")
	for i := range sum.Folders {
		sum.Folders[i].Name = ""
	}
	renderRecap(&got, sum, "/home/user")
	got.WriteString("\n--- a window clawd never saw\n\n")
	renderRecap(&got, recap.Summary{Zone: "UTC", From: "2026-01-01", To: "2026-01-07", Seconds: 7 * 86400}, "")
	golden := filepath.Join("testdata", "recap.golden.txt")
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got.String() != string(want) {
		t.Errorf("recap differs from %s (-update rewrites it):\n%s", golden, got.String())
	}
	for _, s := range []string{"(2h22m of 2d05h)", "43% of a 23-hour day", "0%: clawd was not running", "<1%"} {
		if !strings.Contains(got.String(), s) {
			t.Errorf("the recap does not say %q", s)
		}
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
		if got := bar(tt.v, tt.max); got != tt.want {
			t.Errorf("bar(%d, %d) = %q, want %q", tt.v, tt.max, got, tt.want)
		}
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

package agents

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestWorkBuddyDatabases: the workbuddy.db files a WorkBuddy session is
// looked up in: the home holding its transcript first and the only owner,
// then $WORKBUDDY_CONFIG_DIR (when absolute), ~/.workbuddy-ai and
// ~/.workbuddy, each once.
func TestWorkBuddyDatabases(t *testing.T) {
	home := filepath.FromSlash("/home/u")
	db := func(parts ...string) string {
		return filepath.Join(append(append([]string{home}, parts...), "workbuddy.db")...)
	}
	transcript := func(h string) string { return filepath.Join(h, "projects", "-repo", "s1.jsonl") }
	tests := []struct {
		name       string
		env        map[string]string
		transcript string
		want       []TitleDBFile
	}{
		{"no transcript", map[string]string{"HOME": home}, "",
			[]TitleDBFile{{db(".workbuddy-ai"), false}, {db(".workbuddy"), false}}},
		{"transcript in the older home", map[string]string{"HOME": home}, transcript(filepath.Join(home, ".workbuddy")),
			[]TitleDBFile{{db(".workbuddy"), true}, {db(".workbuddy-ai"), false}}},
		{"config dir", map[string]string{"HOME": home, "WORKBUDDY_CONFIG_DIR": filepath.Join(home, "wb")}, "",
			[]TitleDBFile{{db("wb"), false}, {db(".workbuddy-ai"), false}, {db(".workbuddy"), false}}},
		{"config dir is the default", map[string]string{"HOME": home, "WORKBUDDY_CONFIG_DIR": filepath.Join(home, ".workbuddy-ai")}, "",
			[]TitleDBFile{{db(".workbuddy-ai"), false}, {db(".workbuddy"), false}}},
		{"relative config dir ignored", map[string]string{"HOME": home, "WORKBUDDY_CONFIG_DIR": "wb"}, "",
			[]TitleDBFile{{db(".workbuddy-ai"), false}, {db(".workbuddy"), false}}},
		{"transcript in a home clawd does not know", map[string]string{"HOME": home}, transcript(filepath.Join(home, "elsewhere")),
			[]TitleDBFile{{db("elsewhere"), true}, {db(".workbuddy-ai"), false}, {db(".workbuddy"), false}}},
		{"transcript in the sessions folder of the older home", map[string]string{"HOME": home},
			filepath.Join(home, ".workbuddy", "sessions", "s1.jsonl"),
			[]TitleDBFile{{db(".workbuddy"), true}, {db(".workbuddy-ai"), false}}},
		{"transcript outside every home", map[string]string{"HOME": home}, filepath.Join(home, "notes", "s1.jsonl"),
			[]TitleDBFile{{db(".workbuddy-ai"), false}, {db(".workbuddy"), false}}},
		{"a home's name as a prefix is not the home", map[string]string{"HOME": home},
			filepath.Join(home, ".workbuddy-old", "sessions", "s1.jsonl"),
			[]TitleDBFile{{db(".workbuddy-ai"), false}, {db(".workbuddy"), false}}},
		{"relative transcript", map[string]string{"HOME": home}, filepath.Join("projects", "s1.jsonl"),
			[]TitleDBFile{{db(".workbuddy-ai"), false}, {db(".workbuddy"), false}}},
	}
	for _, tt := range tests {
		e := Event{Transcript: tt.transcript}
		got := WorkBuddy.TitleDB.Files(&e, func(k string) string { return tt.env[k] })
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: Files = %v, want %v", tt.name, got, tt.want)
		}
	}
}

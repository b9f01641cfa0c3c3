package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkDecodeBigPrompt decodes a UserPromptSubmit whose prompt is one
// line just short of the hook's 4 MiB stdin cap.
func BenchmarkDecodeBigPrompt(b *testing.B) {
	p, err := os.ReadFile(filepath.Join("..", "testdata", "claude", "hooks", "UserPromptSubmit.json"))
	if err != nil {
		b.Fatal(err)
	}
	line := strings.Repeat("refactor the lexer and the parser ", (4<<20-4<<10)/34)
	payload := []byte(strings.Replace(string(p), `"CAPTURE_ALL please"`, `"`+line+`"`, 1))
	env := func(string) string { return "" }
	now := time.Now()
	b.SetBytes(int64(len(payload)))
	for b.Loop() {
		e, err := Claude.Decode(payload, "", env, now)
		if err != nil || e.Title == "" {
			b.Fatalf("Decode = %+v, %v", e, err)
		}
	}
}

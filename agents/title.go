package agents

import (
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/clawdhq/clawd/internal/text"
)

// secretLike matches text that looks like it holds a credential. A prompt
// whose first line matches never becomes a title: titles are shown in the
// tray, notifications and `clawd status`, which end up in screenshots. It
// is compiled on first use: every hook process starts this package, and
// only prompt events need it.
var secretLike = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)` + strings.Join([]string{
		`api[_-]?key`, `access[_-]?key`, `authorization`, `bearer`, `passw(or)?d`, `passwd`,
		`secret`, `token`, `private[_-]?key`, `credential`,
		`\bsk-[a-z0-9_-]{6,}`,             // OpenAI / Anthropic style keys
		`\bgh[pousr]_[a-z0-9]{10,}`,       // GitHub tokens
		`\bgithub_pat_[a-z0-9_]{10,}`,     // GitHub fine-grained tokens
		`\bAKIA[0-9A-Z]{12,}`,             // AWS access key ids
		`\bAIza[0-9a-z_-]{20,}`,           // Google API keys
		`\bxox[abprs]-[a-z0-9-]{6,}`,      // Slack tokens
		`\bglpat-[a-z0-9_-]{10,}`,         // GitLab tokens
		`\beyJ[a-z0-9_-]{8,}\.[a-z0-9_-]`, // JWTs
		`-----BEGIN [A-Z ]*PRIVATE KEY`,
	}, "|"))
})

// titleScan bounds how much of a prompt's first line PromptTitle looks at:
// the title shows its first MaxTitleLen characters, and a credential that
// starts past the first KiB cannot reach them. Cleaning and the secret
// regex cost a few hundred nanoseconds a byte, so a 4 MiB one-line prompt
// (the hook's stdin cap) would otherwise cost the hook a second and more.
const titleScan = 1 << 10

// PromptTitle derives a session title from a prompt: its first non-blank
// line, whitespace collapsed, control and format characters dropped (see
// internal/text), cut to MaxTitleLen characters. It returns "" when the
// start of the line looks like it carries a secret, and for text the agent
// itself injected as a prompt (Claude's <task-notification> blocks). Its
// cost does not grow with the prompt past the first line's start.
func PromptTitle(prompt string) string {
	line := text.ClipBytes(firstLine(prompt), titleScan)
	line = text.Line(line, 0)
	if line == "" || strings.HasPrefix(line, "<") {
		return ""
	}
	if secretLike().MatchString(line) {
		return ""
	}
	return text.Line(line, MaxTitleLen)
}

// firstLine returns the first line of s that is not blank, without its
// newline, looking at each line only as far as its first non-space.
func firstLine(s string) string {
	for s != "" {
		line, rest, _ := strings.Cut(s, "\n")
		if strings.TrimLeftFunc(text.ClipBytes(line, titleScan), unicode.IsSpace) != "" {
			return line
		}
		s = rest
	}
	return ""
}

// AgentTitle cleans a title the agent reported itself.
func AgentTitle(t string) string {
	return text.Line(t, MaxTitleLen)
}

package agents

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
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

// PromptTitle derives a session title from a prompt: its first non-blank
// line, whitespace collapsed, cut to MaxTitleLen characters. It returns ""
// when the line looks like it carries a secret, and for text the agent
// itself injected as a prompt (Claude's <task-notification> blocks).
func PromptTitle(prompt string) string {
	var line string
	for _, l := range strings.Split(prompt, "\n") {
		if strings.TrimSpace(l) != "" {
			line = l
			break
		}
	}
	line = clean(line)
	if line == "" || strings.HasPrefix(line, "<") {
		return ""
	}
	if secretLike().MatchString(line) {
		return ""
	}
	return cutTitle(line)
}

// AgentTitle cleans a title the agent reported itself.
func AgentTitle(t string) string {
	return cutTitle(clean(t))
}

// clean collapses whitespace and drops control characters: titles are
// printed in terminals, where an escape sequence would be obeyed.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && !unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

func cutTitle(s string) string {
	if utf8.RuneCountInString(s) <= MaxTitleLen {
		return s
	}
	r := []rune(s)
	return strings.TrimRightFunc(string(r[:MaxTitleLen-1]), unicode.IsSpace) + "…"
}

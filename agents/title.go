package agents

import (
	"errors"
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

// AgentTitle cleans a title the agent reported itself (a rename in the
// agent, its generated title, a thread name): the same policy as a
// prompt's title, secret filter included, except that it is not cut at its
// first line's end (the agents keep titles to one line anyway).
func AgentTitle(t string) string {
	t = text.Line(text.ClipBytes(t, titleScan), 0)
	if t == "" || secretLike().MatchString(t) {
		return ""
	}
	return text.Line(t, MaxTitleLen)
}

// ErrSecretTitle is PersonTitle's answer for a title that looks like it
// carries a credential.
var ErrSecretTitle = errors.New("that title looks like it carries a credential (a key, a token, a password): titles show in the tray, notifications and screenshots; pick another")

// PersonTitle cleans a title a person gave a session (`clawd rename`): the
// same policy as every title, but a title the filter refuses is an error
// the person gets to see, not a title silently dropped. An empty title
// (after cleaning) is "" and no error: it takes the person's title away.
func PersonTitle(t string) (string, error) {
	t = text.Line(text.ClipBytes(t, titleScan), 0)
	if t == "" {
		return "", nil
	}
	if secretLike().MatchString(t) {
		return "", ErrSecretTitle
	}
	return text.Line(t, MaxTitleLen), nil
}

// Titles are the names one session has from each source.
type Titles struct {
	// Person is the title the person set with `clawd rename`.
	Person string
	// Agent is the agent's own: a rename in the agent, the title it
	// generated, a thread's name.
	Agent string
	// Prompt is the first line of the session's first prompt.
	Prompt string
}

// Best returns the title a session shows and where it came from: the
// person's over the agent's over the first prompt's.
func (t Titles) Best() (string, TitleSource) {
	switch {
	case t.Person != "":
		return t.Person, TitleFromPerson
	case t.Agent != "":
		return t.Agent, TitleFromAgent
	case t.Prompt != "":
		return t.Prompt, TitleFromPrompt
	}
	return "", ""
}

// Set records a title from src and reports whether it changed anything.
// The person's and the agent's replace their earlier ones; an empty one
// takes the person's away and says nothing of the agent's. A prompt's
// title only names a session that has none from a prompt yet: the first
// prompt says best what the session is about.
func (t *Titles) Set(title string, src TitleSource) bool {
	var slot *string
	switch src {
	case TitleFromPerson:
		slot = &t.Person
	case TitleFromAgent:
		if title == "" {
			return false
		}
		slot = &t.Agent
	case TitleFromPrompt:
		if title == "" || t.Prompt != "" {
			return false
		}
		slot = &t.Prompt
	default:
		return false
	}
	if *slot == title {
		return false
	}
	*slot = title
	return true
}

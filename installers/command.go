package installers

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/clawdhq/clawd/internal/lazy"
)

// ErrTemporaryBinary reports a clawd binary that will not exist for long,
// such as the one `go run` builds: hooks pointing at it would break as soon
// as it exits.
var ErrTemporaryBinary = errors.New("clawd is running from a temporary build")

// Command returns the hook command an agent runs: binary (an absolute
// path) followed by " hook <agentID>". The path is written with forward
// slashes, since agents run hooks through a POSIX shell (bash, also on
// Windows), and is double-quoted only when a POSIX shell would otherwise
// split or expand it.
func Command(binary, agentID string) string {
	return shellWord(filepath.ToSlash(binary)) + " hook " + agentID
}

// SplitCommand reports whether cmd has the shape of a hook command clawd
// writes for agentID, and returns the executable it runs. The shape is
// exactly: a path, plain or in double quotes, then " hook <agentID>",
// then optionally " <EventName>". Whether the path is clawd's is Known's
// question; a command of another shape (`echo clawd hook claude >> log`,
// `sudo clawd hook claude`) is never clawd's.
func SplitCommand(cmd, agentID string) (binary string, ok bool) {
	var path, rest string
	if strings.HasPrefix(cmd, `"`) {
		var b strings.Builder
		i := 1
		for ; i < len(cmd) && cmd[i] != '"'; i++ {
			if cmd[i] == '\\' && i+1 < len(cmd) && strings.IndexByte("\\\"$`", cmd[i+1]) >= 0 {
				i++
			}
			b.WriteByte(cmd[i])
		}
		if i >= len(cmd) {
			return "", false
		}
		path, rest = b.String(), cmd[i+1:]
	} else {
		sp := strings.IndexByte(cmd, ' ')
		if sp < 0 {
			return "", false
		}
		path, rest = cmd[:sp], cmd[sp:]
		for i := 0; i < len(path); i++ {
			// Backslashes are accepted so that a hand-written Windows path
			// is recognised, and repaired, rather than duplicated.
			if !isShellSafe(path[i]) && path[i] != '\\' && path[i] != '~' {
				return "", false
			}
		}
	}
	if path == "" || strings.HasSuffix(path, "/") || strings.HasSuffix(path, `\`) {
		return "", false
	}
	suffix := " hook " + agentID
	if !strings.HasPrefix(rest, suffix) {
		return "", false
	}
	if rest = rest[len(suffix):]; rest != "" {
		if rest[0] != ' ' || !isEventName(rest[1:]) {
			return "", false
		}
	}
	return path, true
}

// CheckBinary reports why path cannot be written into an agent's hooks: it
// must be absolute, valid UTF-8, and not a throwaway `go run` build.
func CheckBinary(path string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("clawd binary path %q is not absolute", path)
	}
	if !utf8.ValidString(path) {
		return fmt.Errorf("clawd binary path %q is not valid UTF-8; move clawd to a plainer path", path)
	}
	if isGoRunBinary(path) {
		return fmt.Errorf("%w (%s, made by `go run`, is deleted when it exits): install clawd first with `go install github.com/clawdhq/clawd@latest` or `go build`, then run that binary's install", ErrTemporaryBinary, path)
	}
	return nil
}

// isGoRunBinary recognises what `go run` executes, whatever the package
// is called: a fresh build, $GOTMPDIR/go-buildNNN/bNNN/exe/<name>, or
// (Go 1.24 and later, from the second run on) the copy in the build cache,
// $GOCACHE/<xx>/<64 hex>-d/<name>, which `go clean -cache` and the cache's
// own trimming delete. Test binaries (`go test`, including testscript's
// copies) live elsewhere and are not refused.
func isGoRunBinary(path string) bool {
	parts := strings.Split(filepath.ToSlash(path), "/")
	n := len(parts)
	if n >= 4 && parts[n-2] == "exe" && strings.HasPrefix(parts[n-4], "go-build") && strings.HasPrefix(parts[n-3], "b") {
		return true
	}
	return n >= 3 && goCacheEntry().MatchString(parts[n-3]+"/"+parts[n-2])
}

// goCacheEntry is the folder of an executable in Go's build cache.
var goCacheEntry = lazy.Regexp(`^[0-9a-f]{2}/[0-9a-f]{64}-d$`)

// placeholderBinary stands for clawd's binary where the path does not
// matter: in an install that is only there to be uninstalled again.
const placeholderBinary = "/clawd"

// shellWord returns s as one POSIX shell word: unchanged when it holds only
// characters no shell treats specially, else in double quotes with the
// four characters that stay special inside them escaped.
func shellWord(s string) string {
	safe := s != ""
	for i := 0; i < len(s); i++ {
		if !isShellSafe(s[i]) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if strings.IndexByte("\\\"$`", s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
	return b.String()
}

// isShellSafe reports whether c needs no quoting anywhere in a POSIX shell
// word that starts with '/' or a drive letter.
func isShellSafe(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("/._-+:@%,", c) >= 0
}

func isEventName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

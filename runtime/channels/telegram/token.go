package telegram

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/clawdhq/clawd/internal/boundedfile"
)

// DefaultTokenFile is the bot token's file in the clawd home when
// [channels.telegram] token_file does not name another.
const DefaultTokenFile = "telegram.token"

// maxTokenFile caps what ReadToken reads: a token is under 100 bytes.
const maxTokenFile = 4096

// Errors of ReadToken, for errors.Is.
var (
	// ErrNoToken: there is no token file.
	ErrNoToken = errors.New("no bot token")
	// ErrTokenOpen: others than its owner may read the token file, or it
	// belongs to someone else.
	ErrTokenOpen = errors.New("the bot token's file is not private")
	// ErrTokenShape: the file does not hold a bot token.
	ErrTokenShape = errors.New("not a bot token")
)

// ReadToken reads the bot token from its file at path: one line, the
// token @BotFather gave ("123456789:AA..."). The file must be a regular
// file of this user's that nobody else may read (mode 600 on Unix): the
// token is all it takes to answer for the bot. The errors say what to do
// and never hold the file's content.
func ReadToken(path string) (string, error) {
	if err := checkPrivate(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%w in %s: put the token @BotFather gave you in that file (mode 600)", ErrNoToken, path)
		}
		return "", err
	}
	data, err := boundedfile.Read(path, maxTokenFile)
	if err != nil {
		return "", fmt.Errorf("read the bot token: %w", err)
	}
	tok := strings.TrimSpace(string(data))
	if !tokenShape(tok) {
		return "", fmt.Errorf("%s: %w: want the one line @BotFather gave, digits, a colon and letters (like 123456789:AAF...)", path, ErrTokenShape)
	}
	return tok, nil
}

// tokenShape reports whether s looks like a bot token: the bot's id, a
// colon, and the secret of letters, digits, '-' and '_'.
func tokenShape(s string) bool {
	id, secret, ok := strings.Cut(s, ":")
	if !ok || len(id) == 0 || len(id) > 20 || len(secret) < 20 || len(secret) > 200 {
		return false
	}
	for _, r := range id {
		if r < '0' || r > '9' {
			return false
		}
	}
	for _, r := range secret {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
		default:
			return false
		}
	}
	return true
}

// fileInfo is os.Stat, which follows a link to the file it names: a
// token kept elsewhere and linked in is checked where it is.
var fileInfo = os.Stat

package doctor

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"strings"

	"github.com/clawdhq/clawd/internal/config"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/lazy"
	"github.com/clawdhq/clawd/runtime/channels/telegram"
	"github.com/clawdhq/clawd/runtime/client"
)

// reportLogLines is how many of hook.log's last lines a report carries.
const reportLogLines = 50

// WriteReport writes a diagnostic to share (`clawd doctor --report`):
// clawd's version, the OS, the checks and the last lines of hook.log,
// with the API token, anything that looks like a secret, and the home
// folder's path redacted.
func WriteReport(w io.Writer, o Options, r Report) error {
	o.defaults()
	var b bytes.Buffer
	fmt.Fprintf(&b, "# clawd doctor report\n\nclawd: %s\nbinary: %s\nos: %s/%s\ndate: %s\n\n## checks\n\n",
		o.Version, o.Binary, goruntime.GOOS, goruntime.GOARCH, o.Now().UTC().Format("2006-01-02 15:04:05 UTC"))
	r.WriteText(&b, false, i18n.Printer{}, 0) // for whoever reads the report: English, whole lines
	logPath := filepath.Join(o.Home, "logs", "hook.log")
	fmt.Fprintf(&b, "\n## %s (last %d lines)\n\n", logPath, reportLogLines)
	lines, err := lastLines(logPath, reportLogLines)
	switch {
	case os.IsNotExist(err):
		b.WriteString("(no hook.log: no hook has failed to deliver)\n")
	case err != nil:
		fmt.Fprintf(&b, "(cannot read it: %v)\n", err)
	}
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	_, err = w.Write(redact(b.Bytes(), o))
	return err
}

// lastLines returns the last n lines of the file at path.
func lastLines(path string, n int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
		if len(out) > n {
			out = out[1:]
		}
	}
	return out, sc.Err()
}

// secrets are what a report never carries: long hex strings (tokens,
// hashes), the values of keys named like secrets, bearer tokens, and the
// prefixed keys of well-known services.
var secrets = []func() *regexp.Regexp{
	lazy.Regexp(`(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]+`),
	lazy.Regexp(`(?i)((?:token|secret|password|passwd|api[_-]?key|auth)[a-z_]*"?\s*[:=]\s*"?)[^\s",}]{8,}`),
	lazy.Regexp(`\b(?:sk|pk|rk|ghp|gho|ghs|ghu|github_pat|xox[abprs])[-_][A-Za-z0-9_-]{10,}`),
	lazy.Regexp(`\b[0-9a-fA-F]{32,}\b`),
	// A Telegram bot token: the bot's id, a colon, the secret (also
	// inside a Bot API URL, /bot<token>/).
	lazy.Regexp(`[0-9]{5,20}:[A-Za-z0-9_-]{30,}`),
}

// redact takes the secrets, the API token and the home folder's path out
// of a report.
func redact(b []byte, o Options) []byte {
	s := string(b)
	if info, err := client.ReadInfo(o.Home); err == nil && info.Token != "" {
		s = strings.ReplaceAll(s, info.Token, "[redacted]")
	}
	if cfg, err := config.Load(o.Home); err == nil {
		if tok, err := telegram.ReadToken(cfg.Channels.Telegram.TokenPath(o.Home)); err == nil {
			s = strings.ReplaceAll(s, tok, "[redacted]")
		}
	}
	for _, secret := range secrets {
		re := secret()
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			sub := re.FindStringSubmatch(m)
			if len(sub) > 1 {
				return sub[1] + "[redacted]"
			}
			return "[redacted]"
		})
	}
	for _, k := range []string{"HOME", "USERPROFILE"} {
		if h := o.Getenv(k); len(h) > 1 {
			s = strings.ReplaceAll(s, h, "~")
			s = strings.ReplaceAll(s, filepath.ToSlash(h), "~")
		}
	}
	return []byte(s)
}

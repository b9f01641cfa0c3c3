package automations

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/clawdhq/clawd/internal/text"
)

// What the services take, from their documentation.
const (
	// slackMaxText: Slack truncates a message's text past 40,000
	// characters (api.slack.com/changelog/2018-04-truncating-really-long-messages);
	// clawd cuts it there, before sending, rather than send up to 1 MiB.
	slackMaxText = 40000
	// discordMaxContent: "the message contents (up to 2000 characters)"
	// (discord-api-docs, resources/webhook, Execute Webhook); counted
	// in UTF-16 code units, which is never fewer than the characters.
	discordMaxContent = 2000
	// discordMaxUsername: a webhook username is 1 to 80 characters
	// (discord-api-docs, resources/webhook).
	discordMaxUsername = 80
	// ntfyMaxMessage: "Each message can be up to 4,096 bytes long. Longer
	// messages are treated as attachments" (ntfy docs/publish.md,
	// Limitations), and a server without attachments refuses them; clawd
	// cuts the message rather. A real ntfy server (v2.13) takes a body of
	// 4,096 bytes as over its limit (it peeks 4,096 and calls reaching
	// them too long): 4,095.
	ntfyMaxMessage = 4095
	// ntfyMaxTitle bounds an ntfy title, one line in a header: ntfy
	// documents no bound, a phone shows a line.
	ntfyMaxTitle = 250
)

// slack posts a Slack incoming-webhook message: {"text"} and, when the
// definition has them, {"blocks"} (docs.slack.dev, "Sending messages
// using incoming webhooks"). Each placeholder's value has &, < and >
// written as Slack's entities, the escaping Slack asks for
// (api.slack.com/reference/surfaces/formatting#escaping), so that an
// agent's text cannot mention @channel or disguise a link; the template's
// own text can.
func (e *Engine) slack(ctx context.Context, a *Action, doc any) result {
	var msg struct {
		Text   string          `json:"text,omitempty"`
		Blocks json.RawMessage `json:"blocks,omitempty"`
	}
	msg.Text, _ = expandEscaped(a.Text, doc, maxValue, slackEscape)
	msg.Text = cutRunes(msg.Text, slackMaxText)
	if a.Blocks != "" {
		blocks, err := renderJSON(a.Blocks, doc, slackEscape)
		if err != nil {
			return result{err: fmt.Errorf("slack: blocks: %w", err)}
		}
		msg.Blocks = blocks
	}
	req, err := jsonRequest(ctx, a.URL, msg)
	if err != nil {
		return result{err: fmt.Errorf("slack: %w", err)}
	}
	return e.post(req, ActionSlack)
}

// slackEscape writes &, < and > as the entities Slack decodes.
var slackEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace

// discord executes a Discord webhook: {"content", "username", "embeds"}
// (discord-api-docs, resources/webhook, Execute Webhook), content cut to
// Discord's 2,000 characters, with allowed_mentions {"parse": []} so that
// no text of an agent's pings @everyone, a role or a user (resources/
// message, Allowed Mentions Object), and ?wait=true so that Discord
// answers only once the message is saved, or with the error that kept it
// from being saved (without it, "a message that is not saved does not
// return an error").
func (e *Engine) discord(ctx context.Context, a *Action, doc any) result {
	type mentions struct {
		Parse []string `json:"parse"`
	}
	var msg struct {
		Content         string          `json:"content,omitempty"`
		Username        string          `json:"username,omitempty"`
		Embeds          json.RawMessage `json:"embeds,omitempty"`
		AllowedMentions mentions        `json:"allowed_mentions"`
	}
	msg.Content, _ = expand(a.Text, doc, maxValue)
	msg.Content = cutUTF16(msg.Content, discordMaxContent)
	msg.Username = a.Username
	msg.AllowedMentions.Parse = []string{}
	if a.Embeds != "" {
		embeds, err := renderJSON(a.Embeds, doc, nil)
		if err != nil {
			return result{err: fmt.Errorf("discord: embeds: %w", err)}
		}
		msg.Embeds = embeds
	}
	u, err := url.Parse(a.URL)
	if err != nil {
		return result{err: fmt.Errorf("discord: %w", err)}
	}
	q := u.Query()
	q.Set("wait", "true")
	u.RawQuery = q.Encode()
	req, err := jsonRequest(ctx, u.String(), msg)
	if err != nil {
		return result{err: fmt.Errorf("discord: %w", err)}
	}
	return e.post(req, ActionDiscord)
}

// ntfy publishes to an ntfy topic: POST <server>/<topic> with the message
// as the body and the title, priority, tags and click URL in X-Title,
// X-Priority, X-Tags and X-Click (ntfy docs/publish.md, "List of all
// parameters"). The title is one line, RFC 2047-encoded when it is not
// ASCII, as ntfy's docs propose for headers; the message is cut to ntfy's
// 4,095 bytes. An empty title falls back to the event's own, as a desktop
// notification's does.
func (e *Engine) ntfy(ctx context.Context, a *Action, env *Envelope, doc any) result {
	message, _ := expand(a.Text, doc, maxValue)
	message = cutBytes(message, ntfyMaxMessage)
	title, _ := expand(a.Title, doc, maxValue)
	if title = text.Line(title, ntfyMaxTitle); title == "" {
		title = fallbackTitles[env.EventName]
	}
	req, err := newPost(ctx, topicURL(a.URL, a.Topic), []byte(message), "text/plain; charset=utf-8")
	if err != nil {
		return result{err: fmt.Errorf("ntfy: %w", err)}
	}
	req.Header.Set("X-Title", encodeHeader(title))
	if a.Priority != 0 {
		req.Header.Set("X-Priority", strconv.Itoa(a.Priority))
	}
	if len(a.Tags) > 0 {
		req.Header.Set("X-Tags", encodeHeader(strings.Join(a.Tags, ",")))
	}
	if a.Click != "" {
		req.Header.Set("X-Click", a.Click)
	}
	for k, v := range a.Headers {
		req.Header.Set(k, v)
	}
	return e.post(req, ActionNtfy)
}

// topicURL is the URL of topic on the ntfy server at server (which may
// have a path of its own, behind a proxy).
func topicURL(server, topic string) string {
	u, err := url.Parse(server)
	if err != nil {
		return server // validated when read: not reached
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/" + topic
	u.RawPath = ""
	return u.String()
}

// encodeHeader is s as a header value ntfy reads back as s: RFC 2047
// encoded words (base64) when it is not plain ASCII, or when it holds
// "=?", which ntfy would decode as one.
func encodeHeader(s string) string {
	plain := !strings.Contains(s, "=?")
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] < utf8.RuneSelf
	}
	if plain {
		return s
	}
	// mime.BEncoding leaves ASCII as it is, "=?" included: encode by
	// hand, in words of at most 45 bytes (75 characters encoded, RFC 2047
	// section 2), whole runes each.
	var words []string
	for s != "" {
		n := len(text.ClipBytes(s, 45))
		if n == 0 {
			_, n = utf8.DecodeRuneInString(s)
		}
		words = append(words, "=?UTF-8?B?"+base64.StdEncoding.EncodeToString([]byte(s[:n]))+"?=")
		s = s[n:]
	}
	return strings.Join(words, " ")
}

// renderJSON fills a JSON template (see expandJSON) within maxBody.
func renderJSON(tmpl string, doc any, esc func(string) string) (json.RawMessage, error) {
	s, ok, err := expandJSON(tmpl, doc, maxBody, esc)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, fmt.Errorf("the template makes more than the %d KiB an action is sent: use fewer placeholders", maxBody>>10)
	}
	return json.RawMessage(s), nil
}

// jsonRequest is a POST of v's JSON to u, refused over maxBody.
func jsonRequest(ctx context.Context, u string, v any) (*http.Request, error) {
	b := marshalJSON(v)
	if len(b) > maxBody {
		return nil, fmt.Errorf("the message makes %d KiB, over the %d KiB an action is sent: use fewer placeholders", len(b)>>10, maxBody>>10)
	}
	return newPost(ctx, u, b, "application/json")
}

// newPost is a POST of body, of contentType, to u, from clawd.
func newPost(ctx context.Context, u string, body []byte, contentType string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("User-Agent", "clawd-automations")
	return req, nil
}

// post sends req, an action's request (name: "webhook", "slack"...), and
// says how it went. 2xx succeeds; 408, 425, 429 and 5xx and network
// errors are transient, with the answer's Retry-After as the least wait
// before the next attempt (Slack and Discord answer 429 with one); other
// statuses fail for good. A redirect is never followed, whatever client
// the engine was given: the person trusted this URL, and following would
// re-send the body and the definition's headers (an API key) to a host
// they never saw. Errors name the host, not the URL: a Slack or Discord
// webhook's URL is its credential, and errors are kept in the run record.
func (e *Engine) post(req *http.Request, name string) result {
	client := *e.o.HTTP
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		msg := err
		if ue, ok := errors.AsType[*url.Error](err); ok {
			msg = fmt.Errorf("%s %s://%s: %w", ue.Op, req.URL.Scheme, req.URL.Host, ue.Err)
		}
		return result{err: fmt.Errorf("%s: %w", name, msg), transient: transientNet(err)}
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	out := fmt.Sprintf("HTTP %d", resp.StatusCode)
	if s := text.Line(string(snippet), 120); s != "" {
		out += ": " + redact(s)
	}
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return result{output: out}
	case c >= 300 && c < 400:
		msg := fmt.Sprintf("%s answered %d", name, c)
		if loc := resp.Header.Get("Location"); loc != "" {
			msg += " to " + redact(text.Line(loc, 200))
		}
		return result{output: out, err: errors.New(msg + ": redirects are not followed; put the final URL in the definition")}
	case c == 408 || c == 425 || c == 429 || c >= 500:
		return result{output: out, err: fmt.Errorf("%s answered %d", name, c), transient: true,
			retryAfter: retryAfter(resp.Header.Get("Retry-After"), e.o.Now())}
	default:
		return result{output: out, err: fmt.Errorf("%s answered %d", name, c)}
	}
}

// retryAfter reads a Retry-After header (RFC 9110: seconds, or an HTTP
// date; Discord writes fractions of seconds too) as a wait from now,
// within MaxBackoff; 0 when there is none or it does not parse.
func retryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseFloat(h, 64); err == nil {
		if secs <= 0 || secs != secs {
			return 0
		}
		d = time.Duration(min(secs, MaxBackoff.Seconds()) * float64(time.Second))
	} else if at, err := http.ParseTime(h); err == nil {
		d = at.Sub(now)
	}
	return max(0, min(d, MaxBackoff))
}

// cutRunes cuts s to at most n runes, the last of them an ellipsis when
// it was longer.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + text.Ellipsis
}

// cutUTF16 cuts s to at most n UTF-16 code units, the last of them an
// ellipsis when it was longer.
func cutUTF16(s string, n int) string {
	units, keep := 0, 0 // keep: the bytes of s within n-1 units
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		u := utf16.RuneLen(r)
		if units+u > n {
			return s[:keep] + text.Ellipsis
		}
		i += size
		if units += u; units <= n-1 {
			keep = i
		}
	}
	return s
}

// cutBytes cuts s to at most n bytes at a rune boundary, ending in an
// ellipsis when it was longer.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return text.ClipBytes(s, n-len(text.Ellipsis)) + text.Ellipsis
}

package telegram

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/present"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

// Limits of a card, within the Bot API's (4096 characters of text, 64
// bytes of callback data, 200 characters of a press's notice).
const (
	maxSummary     = 1500
	maxOptions     = 8
	maxSuggestions = 3
	maxLabel       = 40
	maxMessage     = 4096
	maxNotice      = 200
	tokenBytes     = 16
)

// A press's action, the last part of a button's callback data.
const (
	actAllow    = "a"
	actDeny     = "d"
	actTerminal = "t"
	actRule     = "s" // + the suggestion's number, from 1
	actOption   = "o" // + the option's index, from 0
)

// dataPrefix starts every callback data of clawd's: "c1.<token>.<action>".
const dataPrefix = "c1."

// card is one request as a message in the paired chat. Its token is in
// every one of its buttons' callback data: a press counts only when it
// carries the token of the message it was made on, and only once.
type card struct {
	view   client.PermissionView
	token  string   // base64url, tokenBytes of randomness
	hash   [32]byte // the token's, the key of Channel.tokens
	chatID int64
	msgID  int64         // 0 until the message is sent
	sent   chan struct{} // closed once msgID is set
	made   time.Time
	header string // the message's text without its ending
	kb     *keyboard

	used   bool   // a press was taken: the token is spent
	closed bool   // the request closed
	final  string // how it closed, the message's last line once closed
}

// newCard makes the card of request v for chat, with a fresh token from
// random.
func newCard(p i18n.Printer, v client.PermissionView, chatID int64, now time.Time, random io.Reader, options bool) (*card, error) {
	if random == nil {
		random = rand.Reader
	}
	b := make([]byte, tokenBytes)
	if _, err := io.ReadFull(random, b); err != nil {
		return nil, fmt.Errorf("make a button token: %w", err)
	}
	c := &card{view: v, token: base64.RawURLEncoding.EncodeToString(b), chatID: chatID, made: now, sent: make(chan struct{})}
	c.hash = sha256.Sum256([]byte(c.token))
	c.header = cardText(p, v, options)
	c.kb = c.keyboard(p, options)
	return c, nil
}

// cardText is what a request's message says: who asks what, where, and
// for a question its options.
func cardText(p i18n.Printer, v client.PermissionView, options bool) string {
	who := present.Requester(p, v)
	var b strings.Builder
	switch v.Kind {
	case client.KindQuestion:
		b.WriteString(p.T("telegram.card.question", who))
	case client.KindPlan:
		b.WriteString(p.T("telegram.card.plan", who))
	default:
		b.WriteString(p.T("telegram.card.permission", who, text.Line(v.Tool, maxLabel)))
	}
	if s := text.Line(v.Summary, maxSummary); s != "" && s != v.Tool {
		b.WriteString("\n\n" + s)
	}
	if v.Kind == client.KindQuestion {
		for i, o := range v.Options {
			if i == maxOptions {
				break
			}
			b.WriteString("\n• " + text.Line(o, maxLabel*2))
		}
		if !options {
			b.WriteString("\n\n" + p.T("telegram.card.question_terminal"))
		}
	}
	if place := text.Line(present.Place(v.Title, v.Cwd), 80); place != "" {
		b.WriteString("\n\n" + p.T("telegram.card.where", place))
	}
	return b.String()
}

// keyboard is the card's buttons: Allow and Deny, the "always" rules and
// "Answer in terminal" for a permission; Approve for a plan; a question's
// options when options (they can be answered from here), and always the
// terminal.
func (c *card) keyboard(p i18n.Printer, options bool) *keyboard {
	btn := func(label, act string) button {
		return button{Text: label, CallbackData: dataPrefix + c.token + "." + act}
	}
	var rows [][]button
	switch c.view.Kind {
	case client.KindQuestion:
		if options {
			for i, o := range c.view.Options {
				if i == maxOptions {
					break
				}
				rows = append(rows, []button{btn(text.Line(o, maxLabel), actOption+strconv.Itoa(i))})
			}
		}
	case client.KindPlan:
		rows = append(rows, []button{btn(p.T("telegram.button.approve"), actAllow)})
	default:
		rows = append(rows, []button{btn(p.T("telegram.button.allow"), actAllow), btn(p.T("telegram.button.deny"), actDeny)})
		for i, s := range c.view.Suggestions {
			if i == maxSuggestions {
				break
			}
			rows = append(rows, []button{btn(p.T("telegram.button.always", text.Line(s, maxLabel)), actRule+strconv.Itoa(i+1))})
		}
	}
	rows = append(rows, []button{btn(p.T("telegram.button.terminal"), actTerminal)})
	return &keyboard{InlineKeyboard: rows}
}

// parseData splits a button's callback data into its token and action;
// ok is false for data that is not clawd's.
func parseData(data string) (token, act string, ok bool) {
	rest, ok := strings.CutPrefix(data, dataPrefix)
	if !ok {
		return "", "", false
	}
	token, act, ok = strings.Cut(rest, ".")
	if !ok || len(token) != base64.RawURLEncoding.EncodedLen(tokenBytes) || act == "" {
		return "", "", false
	}
	return token, act, true
}

// pressed is what a press on c with act asks: a decision for the broker,
// or an option of a question (option >= 0). ok is false for an action c
// does not offer.
func (c *card) pressed(act string) (d client.DecisionBody, option int, ok bool) {
	d.Via = client.SourceTelegram
	option = -1
	switch {
	case act == actTerminal:
		d.Behavior = client.Terminal
		return d, option, true
	case act == actAllow && c.view.Kind != client.KindQuestion:
		d.Behavior = client.Allow
		return d, option, true
	case act == actDeny && c.view.Kind == client.KindPermission:
		d.Behavior = client.Deny
		return d, option, true
	case strings.HasPrefix(act, actRule) && c.view.Kind == client.KindPermission:
		n, err := strconv.Atoi(act[len(actRule):])
		if err != nil || n < 1 || n > min(len(c.view.Suggestions), maxSuggestions) {
			return d, option, false
		}
		d.Behavior, d.Suggestion = client.Allow, n
		return d, option, true
	case strings.HasPrefix(act, actOption) && c.view.Kind == client.KindQuestion:
		n, err := strconv.Atoi(act[len(actOption):])
		if err != nil || n < 0 || n >= min(len(c.view.Options), maxOptions) {
			return d, option, false
		}
		return d, n, true
	}
	return d, option, false
}

// finalText is the card's message once its request closed: what it asked
// and how it closed, without buttons.
func (c *card) finalText() string {
	return clip(c.header+"\n\n"+c.final, maxMessage)
}

// clip cuts s to at most n runes.
func clip(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + text.Ellipsis
}

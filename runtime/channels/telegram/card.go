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

	"github.com/clawdhq/clawd/agents"
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
	maxQuestions   = 4
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
	actPick     = "p" // + the question's index, "_", the option's index, from 0
	actSend     = "g" // send the options picked
)

// answerMode is how the phone answers a question.
type answerMode int

const (
	// answerTerminal: the options are text, the terminal answers.
	answerTerminal answerMode = iota
	// answerTap: one tap on an option answers (one single-select question).
	answerTap
	// answerPick: options are picked (toggled), then Send answers (several
	// questions, or a multi-select).
	answerPick
)

// modeOf is how the phone answers request v when canAnswer (the channel
// has an Answerer): by one tap, by picking, or not at all. Questions
// without options (free text only), or more than fit a message, go to the
// terminal (or the dashboard).
func modeOf(v client.PermissionView, canAnswer bool) answerMode {
	if !canAnswer || v.Kind != client.KindQuestion || !v.Answerable || len(v.Questions) == 0 || len(v.Questions) > maxQuestions {
		return answerTerminal
	}
	for _, q := range v.Questions {
		if len(q.Options) == 0 || len(q.Options) > maxOptions {
			return answerTerminal
		}
	}
	if oneTap(v) {
		return answerTap
	}
	return answerPick
}

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
	mode   answerMode
	picks  [][]bool // answerPick: per question, per option, picked

	used   bool   // a press was taken: the token is spent
	closed bool   // the request closed
	final  string // how it closed, the message's last line once closed
}

// newCard makes the card of request v for chat, with a fresh token from
// random.
func newCard(p i18n.Printer, v client.PermissionView, chatID int64, now time.Time, random io.Reader, mode answerMode) (*card, error) {
	if random == nil {
		random = rand.Reader
	}
	b := make([]byte, tokenBytes)
	if _, err := io.ReadFull(random, b); err != nil {
		return nil, fmt.Errorf("make a button token: %w", err)
	}
	c := &card{view: v, token: base64.RawURLEncoding.EncodeToString(b), chatID: chatID, made: now, sent: make(chan struct{}), mode: mode}
	c.hash = sha256.Sum256([]byte(c.token))
	if mode == answerPick {
		c.picks = make([][]bool, len(v.Questions))
		for i, q := range v.Questions {
			c.picks[i] = make([]bool, len(q.Options))
		}
	}
	c.header = cardText(p, v, mode)
	c.kb = c.keyboard(p)
	return c, nil
}

// cardText is what a request's message says: who asks what, where, and
// for a question its options (each question's, when there are several).
func cardText(p i18n.Printer, v client.PermissionView, mode answerMode) string {
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
	several := v.Kind == client.KindQuestion && len(v.Questions) > 1
	if s := text.Line(v.Summary, maxSummary); s != "" && s != v.Tool && !several {
		b.WriteString("\n\n" + s)
	}
	switch {
	case several:
		for i, q := range v.Questions {
			if i == maxQuestions {
				break
			}
			fmt.Fprintf(&b, "\n\n%d. %s", i+1, text.Line(q.Text, maxSummary/maxQuestions))
			if q.MultiSelect {
				b.WriteString(" " + p.T("telegram.card.pick_any"))
			}
			for j, o := range q.Options {
				if j == maxOptions {
					break
				}
				b.WriteString("\n• " + text.Line(o.Label, maxLabel*2))
			}
		}
	case v.Kind == client.KindQuestion:
		if len(v.Questions) == 1 && v.Questions[0].MultiSelect {
			b.WriteString(" " + p.T("telegram.card.pick_any"))
		}
		for i, o := range v.Options {
			if i == maxOptions {
				break
			}
			b.WriteString("\n• " + text.Line(o, maxLabel*2))
		}
	}
	if v.Kind == client.KindQuestion && mode == answerTerminal {
		b.WriteString("\n\n" + p.T("telegram.card.question_terminal"))
	}
	if place := text.Line(present.Place(v.Title, v.Cwd), 80); place != "" {
		b.WriteString("\n\n" + p.T("telegram.card.where", place))
	}
	return b.String()
}

// keyboard is the card's buttons: Allow and Deny, the "always" rules and
// "Answer in terminal" for a permission; Approve for a plan; a question's
// options when the phone can answer it (to tap, or to pick with a mark
// saying which are picked, then Send), and always the terminal.
func (c *card) keyboard(p i18n.Printer) *keyboard {
	btn := func(label, act string) button {
		return button{Text: label, CallbackData: dataPrefix + c.token + "." + act}
	}
	var rows [][]button
	switch c.view.Kind {
	case client.KindQuestion:
		switch c.mode {
		case answerTap:
			for i, o := range c.view.Options {
				if i == maxOptions {
					break
				}
				rows = append(rows, []button{btn(text.Line(o, maxLabel), actOption+strconv.Itoa(i))})
			}
		case answerPick:
			for i, q := range c.view.Questions {
				for j, o := range q.Options {
					label := pickMark(q.MultiSelect, c.picks[i][j]) + " " + text.Line(o.Label, maxLabel)
					if len(c.view.Questions) > 1 {
						label = strconv.Itoa(i+1) + ". " + label
					}
					rows = append(rows, []button{btn(label, actPick+strconv.Itoa(i)+"_"+strconv.Itoa(j))})
				}
			}
			rows = append(rows, []button{btn(p.T("telegram.button.send"), actSend)})
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

// pickMark is the sign before an option to pick: a box for a
// multi-select, a circle for one of several.
func pickMark(multi, picked bool) string {
	switch {
	case multi && picked:
		return "☑"
	case multi:
		return "☐"
	case picked:
		return "●"
	}
	return "○"
}

// pick toggles option o of question q (a single-select question keeps
// one pick: the new one) and remakes the keyboard; it returns the
// option's label and whether it is now picked. Callers hold the channel's
// lock.
func (c *card) pick(p i18n.Printer, q, o int) (label string, picked bool) {
	picks := c.picks[q]
	picked = !picks[o]
	if !c.view.Questions[q].MultiSelect {
		clear(picks)
	}
	picks[o] = picked
	c.kb = c.keyboard(p)
	return c.view.Questions[q].Options[o].Label, picked
}

// answers is the options picked, one Answer per question; ok is false
// while a question has none.
func (c *card) answers() (out []agents.Answer, ok bool) {
	for i, q := range c.view.Questions {
		var a agents.Answer
		for j, picked := range c.picks[i] {
			if picked {
				a.Labels = append(a.Labels, q.Options[j].Label)
			}
		}
		if len(a.Labels) == 0 {
			return nil, false
		}
		out = append(out, a)
	}
	return out, true
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

// pressKind is what a press asks for.
type pressKind int

const (
	pressDecide pressKind = iota // a decision for the broker
	pressOption                  // answerTap: option o answers
	pressPick                    // answerPick: toggle option o of question q
	pressSend                    // answerPick: send the picks
)

// press is one press of a card's button, read.
type press struct {
	kind pressKind
	body client.DecisionBody // pressDecide
	q, o int                 // pressOption (o), pressPick (q, o)
}

// pressed is what a press on c with act asks; ok is false for an action
// c does not offer.
func (c *card) pressed(act string) (pr press, ok bool) {
	pr.body.Via = client.SourceTelegram
	switch {
	case act == actTerminal:
		pr.body.Behavior = client.Terminal
		return pr, true
	case act == actAllow && c.view.Kind != client.KindQuestion:
		pr.body.Behavior = client.Allow
		return pr, true
	case act == actDeny && c.view.Kind == client.KindPermission:
		pr.body.Behavior = client.Deny
		return pr, true
	case strings.HasPrefix(act, actRule) && c.view.Kind == client.KindPermission:
		n, err := strconv.Atoi(act[len(actRule):])
		if err != nil || n < 1 || n > min(len(c.view.Suggestions), maxSuggestions) {
			return pr, false
		}
		pr.body.Behavior, pr.body.Suggestion = client.Allow, n
		return pr, true
	case strings.HasPrefix(act, actOption) && c.mode == answerTap:
		n, err := strconv.Atoi(act[len(actOption):])
		if err != nil || n < 0 || n >= min(len(c.view.Options), maxOptions) {
			return pr, false
		}
		pr.kind, pr.o = pressOption, n
		return pr, true
	case strings.HasPrefix(act, actPick) && c.mode == answerPick:
		qs, os, cut := strings.Cut(act[len(actPick):], "_")
		q, qerr := strconv.Atoi(qs)
		o, oerr := strconv.Atoi(os)
		if !cut || qerr != nil || oerr != nil || q < 0 || q >= len(c.picks) || o < 0 || o >= len(c.picks[q]) {
			return pr, false
		}
		pr.kind, pr.q, pr.o = pressPick, q, o
		return pr, true
	case act == actSend && c.mode == answerPick:
		pr.kind = pressSend
		return pr, true
	}
	return pr, false
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

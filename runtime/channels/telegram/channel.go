// Package telegram is clawd's Telegram channel: the runtime's permission
// requests, plan reviews and questions arrive as messages with buttons in
// one paired chat, and a press answers through the runtime's broker like
// the tray's and the dashboard's buttons (the first answer wins, wherever
// it comes from). The message is then edited to say how the request
// closed and where it was answered; a request nobody answers in time goes
// to the agent's own terminal as always, it is never denied.
//
// The channel only calls out: it long-polls the Bot API's getUpdates over
// HTTPS, nothing listens on the network. It follows the runtime like the
// tray does, as a client of its feed (Runtime), off the broker's hot
// path: the feed never waits for it, its messages go through a bounded
// queue, and a slow or cut network delays nothing but the phone.
//
// A press counts only when it comes from the paired chat and the person
// who paired it, carries the token of the very message it was made on (a
// random one per message, in every button's callback data), within the
// button's lifetime, and only once: a callback delivered again, a second
// tap, a button of another message or data made up by a client are all
// refused. The tokens, the bot's and the buttons', never reach a log.
//
// Pairing: `clawd channels pair telegram` writes a one-time code's hash
// (StartPairing); the first chat to send the code to the bot is paired
// (its id and the sender's, in the chat file), and only it is listened
// to from then on. What the channel does, and why it fails, is in its
// status file for `clawd doctor` (ReadStatus).
package telegram

import (
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/present"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

// Runtime is what the channel needs of the runtime: its feed and the
// broker's decisions; *runtime.Server has it.
type Runtime interface {
	View() client.View
	Subscribe(buf int) (changes <-chan client.Change, cancel func())
	Decide(id string, d client.DecisionBody) (client.PermissionView, error)
}

// Answerer answers a question with the options picked, one Answer per
// question, for the client via (QuestionAnswerer: the runtime's broker).
// Without one (Options.Answers nil), or for a question the phone cannot
// answer (see modeOf), a question's options are shown as text and its one
// button leaves it to the agent's terminal.
type Answerer interface {
	AnswerQuestion(id string, answers []agents.Answer, via string) (client.PermissionView, error)
}

// oneTap reports whether a question can be answered by one button of the
// phone: clawd can hand the agent its answer, it is one question, and one
// option answers it. Several questions or a multi-select are picked, then
// sent (modeOf); only free text goes to the agent's terminal (or the
// dashboard).
func oneTap(v client.PermissionView) bool {
	return v.Kind == client.KindQuestion && v.Answerable && len(v.Questions) == 1 &&
		!v.Questions[0].MultiSelect && len(v.Questions[0].Options) > 0 && len(v.Options) > 0
}

// QuestionAnswerer is the Answerer of a runtime.
type QuestionAnswerer struct{ Runtime Runtime }

// AnswerQuestion answers request id's questions with answers.
func (q QuestionAnswerer) AnswerQuestion(id string, answers []agents.Answer, via string) (client.PermissionView, error) {
	return q.Runtime.Decide(id, client.DecisionBody{Behavior: client.AnswerQuestions, Answers: answers, Via: via})
}

// Defaults and limits of the channel.
const (
	// DefaultPollTimeout is how long one getUpdates waits for news.
	DefaultPollTimeout = 25 * time.Second
	// DefaultLifetime is a button's longest life when Options.Lifetime
	// is zero: the broker's longest wait for a person.
	DefaultLifetime = 23 * time.Hour

	feedBuffer  = 256 // changes of the runtime the channel may fall behind by
	queueLength = 256 // messages waiting to go out
	closedKeep  = 30 * time.Minute
	maxCards    = 512
	queryKeep   = time.Hour
	maxQueries  = 4096
	maxBackoff  = time.Minute
	tokenRetry  = 30 * time.Second // a missing or rejected token is looked at again
	sendTries   = 3
	drainFor    = 2 * time.Second // at exit, for the last edits
	sentWait    = 5 * time.Second // a press waits for its message's id this long
)

// Options configure a Channel.
type Options struct {
	Runtime Runtime
	// Answers answers questions from their option buttons; nil: none.
	Answers Answerer
	// Home is the clawd home (the channel's files are in it).
	Home string
	// TokenFile is the bot token's file (see ReadToken).
	TokenFile string
	// APIURL is the Bot API server; "" is DefaultAPIURL.
	APIURL string
	// RootCAs are the certificates the client trusts; nil: the system's.
	RootCAs *x509.CertPool
	// PollTimeout is one getUpdates' wait; 0 is DefaultPollTimeout.
	PollTimeout time.Duration
	// Lifetime bounds how long after its message a button counts; 0 is
	// DefaultLifetime.
	Lifetime time.Duration
	// Printer is the language of the messages.
	Printer i18n.Printer
	Log     *slog.Logger
	Now     func() time.Time
	// After is the clock of the waits between tries; default time.After.
	After func(time.Duration) <-chan time.Time
	// Random makes the pairing codes' and buttons' tokens; default
	// crypto/rand.
	Random io.Reader
	// PID is what the status file names as the runtime; default
	// os.Getpid().
	PID int
}

// Channel is the Telegram channel of one clawd serve.
type Channel struct {
	o    Options
	log  *slog.Logger
	bot  atomic.Pointer[bot]
	jobs chan job

	mu      sync.Mutex
	cards   map[string]*card // by request id
	tokens  map[[32]byte]*card
	queries map[string]time.Time // callback queries seen, by id
	status  Status
	botName string

	// statusMu orders the status file's writes (taken before mu): each
	// writes the status as it is then, so the file never ends on a
	// snapshot older than the last change.
	statusMu sync.Mutex

	offset int64 // the poller's own
}

// job is one message to send or edit.
type job struct {
	send, edit *card
	keys       *card // an open card's keyboard changed (a pick)
	chatID     int64 // with text: a notice
	text       string
	stop       bool
}

// New returns the channel; Run runs it.
func New(o Options) *Channel {
	o.Log = cmp.Or(o.Log, slog.New(slog.DiscardHandler))
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.After == nil {
		o.After = time.After
	}
	o.PollTimeout = cmp.Or(o.PollTimeout, DefaultPollTimeout)
	o.Lifetime = cmp.Or(o.Lifetime, DefaultLifetime)
	o.PID = cmp.Or(o.PID, os.Getpid())
	return &Channel{
		o: o, log: o.Log, jobs: make(chan job, queueLength),
		cards: map[string]*card{}, tokens: map[[32]byte]*card{}, queries: map[string]time.Time{},
	}
}

// Run polls the bot and follows the runtime until ctx ends, then tells
// the phone how the last requests closed, briefly.
func (c *Channel) Run(ctx context.Context) {
	changes, cancel := c.o.Runtime.Subscribe(feedBuffer)
	defer cancel()
	c.setStatus(StateStarting, "")
	// The sender outlives ctx by the drain.
	sctx, stopSender := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSender()
	var sender, follower sync.WaitGroup
	sender.Go(func() { c.send(sctx) })
	follower.Go(func() { c.follow(ctx, changes) })
	c.poll(ctx)
	follower.Wait()
	for drained := false; !drained; {
		select {
		case ch := <-changes:
			c.apply(ch)
		default:
			drained = true
		}
	}
	select {
	case c.jobs <- job{stop: true}:
		timer := time.NewTimer(drainFor)
		done := make(chan struct{})
		go func() { sender.Wait(); close(done) }()
		select {
		case <-done:
		case <-timer.C:
		}
		timer.Stop()
	default:
	}
	stopSender()
	sender.Wait()
	if b := c.bot.Load(); b != nil {
		b.close()
	}
	c.setStatus(StateStopped, "")
}

// sleep waits d, or until ctx ends.
func (c *Channel) sleep(ctx context.Context, d time.Duration) {
	select {
	case <-c.o.After(d):
	case <-ctx.Done():
	}
}

// poll long-polls the bot's updates and handles them, one at a time.
func (c *Channel) poll(ctx context.Context) {
	fails := 0
	for ctx.Err() == nil {
		b, fresh, err := c.connect(ctx)
		if fresh {
			c.healthy()
		}
		var us []update
		if err == nil {
			// After a failure, a short poll says at once whether
			// Telegram is back.
			wait := c.o.PollTimeout
			if fails > 0 {
				wait = 0
			}
			us, err = b.getUpdates(ctx, c.offset, wait)
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			fails++
			c.sleep(ctx, c.failed(err, fails))
			continue
		}
		fails = 0
		c.healthy()
		for _, u := range us {
			if u.UpdateID < c.offset {
				continue // delivered before
			}
			c.offset = u.UpdateID + 1
			c.handle(ctx, u)
		}
	}
}

// healthy records that Telegram answers; back after a failure, what was
// not sent meanwhile goes now.
func (c *Channel) healthy() {
	if c.setStatus(StateOK, "") {
		c.resync()
	}
}

// errNoToken is a token file that cannot be used.
type errNoToken struct{ err error }

func (e errNoToken) Error() string { return e.err.Error() }
func (e errNoToken) Unwrap() error { return e.err }

// connect returns the bot client, reading the token and asking getMe
// first when there is none yet (at the start, and after Telegram rejected
// the token: a new one in the file is picked up); fresh says getMe just
// answered.
func (c *Channel) connect(ctx context.Context) (b *bot, fresh bool, err error) {
	if b := c.bot.Load(); b != nil {
		return b, false, nil
	}
	tok, err := ReadToken(c.o.TokenFile)
	if err != nil {
		return nil, false, errNoToken{err}
	}
	b = newBot(c.o.APIURL, tok, c.o.RootCAs)
	me, err := b.getMe(ctx)
	if err != nil {
		b.close()
		return nil, false, err
	}
	c.mu.Lock()
	c.botName = me.Username
	c.mu.Unlock()
	c.bot.Store(b)
	return b, true, nil
}

// failed records why a poll failed and returns how long to wait before
// the next.
func (c *Channel) failed(err error, fails int) time.Duration {
	var nt errNoToken
	var ae *APIError
	switch {
	case errors.As(err, &nt):
		c.setStatus(StateNoToken, err.Error())
		return tokenRetry
	case errors.Is(err, ErrTokenRejected):
		if b := c.bot.Swap(nil); b != nil {
			b.close()
		}
		c.setStatus(StateTokenRejected, err.Error())
		return tokenRetry
	case errors.Is(err, ErrConflict):
		c.setStatus(StateConflict, err.Error())
		return 10 * time.Second
	case errors.As(err, &ae) && ae.RetryAfter > 0:
		return min(ae.RetryAfter, maxBackoff)
	}
	c.setStatus(StateFailing, err.Error())
	c.log.Debug("telegram poll failed", "err", err, "fails", fails)
	return min(time.Second<<min(fails-1, 6), maxBackoff)
}

// setStatus records the channel's state and reports whether it changed
// to it; a change is written to the status file and logged.
func (c *Channel) setStatus(state, why string) bool {
	c.mu.Lock()
	if c.status.State == state && c.status.Error == why && c.status.Bot == c.botName {
		c.mu.Unlock()
		return false
	}
	was := c.status.State
	c.status.PID, c.status.State, c.status.Error, c.status.Bot = c.o.PID, state, why, c.botName
	c.status.Since = c.o.Now().UTC()
	s := c.status
	c.mu.Unlock()
	c.writeStatus()
	switch state {
	case StateOK:
		c.log.Info("telegram channel connected", "bot", s.Bot)
	case StateStarting, StateStopped:
	default:
		c.log.Warn("telegram channel failing", "state", state, "err", why)
	}
	return was != state
}

// setSendError records why the last message did not go out ("" once one
// did).
func (c *Channel) setSendError(why string) {
	c.mu.Lock()
	if c.status.SendError == why {
		c.mu.Unlock()
		return
	}
	c.status.SendError = why
	c.mu.Unlock()
	c.writeStatus()
	if why != "" {
		c.log.Warn("telegram message not sent", "err", why)
	}
}

// writeStatus writes the status file with the status as it is now. Two
// changes that race each write the latest (statusMu): a snapshot taken
// before the lock could be older than one already written.
func (c *Channel) writeStatus() {
	c.statusMu.Lock()
	defer c.statusMu.Unlock()
	c.mu.Lock()
	s := c.status
	c.mu.Unlock()
	if err := writeStatus(c.o.Home, s); err != nil {
		c.log.Warn("telegram status file", "err", err)
	}
}

// handle takes one update: a press, or a message (a pairing code).
func (c *Channel) handle(ctx context.Context, u update) {
	switch {
	case u.CallbackQuery != nil:
		c.onPress(ctx, u.CallbackQuery)
	case u.Message != nil:
		c.onMessage(u.Message)
	}
}

// onMessage pairs the chat a waiting pairing code comes from. Any other
// message is ignored, unanswered: a stranger learns nothing.
func (c *Channel) onMessage(m *message) {
	now := c.o.Now()
	if m.From == nil || m.Text == "" {
		return
	}
	ok, waited, err := consumePairing(c.o.Home, m.Text, now)
	switch {
	case err != nil:
		c.log.Warn("telegram pairing", "err", err)
		return
	case waited && !ok:
		c.log.Info("telegram: a message that is not the pairing code, ignored", "chat", m.Chat.ID)
		return
	case !ok:
		return
	}
	name := cmp.Or(m.From.Username, m.From.FirstName)
	if m.From.Username != "" {
		name = "@" + m.From.Username
	}
	pc := Chat{ChatID: m.Chat.ID, UserID: m.From.ID, Name: text.Line(name, 64), PairedAt: now.UTC()}
	// The cards of a chat paired before are that chat's: forget them, in
	// one step with the new pairing (add reads the chat file under mu).
	c.mu.Lock()
	err = writeChat(c.o.Home, pc)
	if err == nil {
		clear(c.cards)
		clear(c.tokens)
	}
	c.mu.Unlock()
	if err != nil {
		c.log.Warn("telegram pairing", "err", err)
		return
	}
	c.log.Info("telegram paired", "chat", pc.ChatID, "user", pc.UserID)
	c.enqueue(job{chatID: pc.ChatID, text: c.o.Printer.T("telegram.paired")})
	c.resync()
}

// onPress takes a button press and always answers it (the phone shows a
// spinner until then), except a callback query seen before: it was
// answered the first time.
func (c *Channel) onPress(ctx context.Context, q *callbackQuery) {
	if !c.firstSight(q.ID) {
		c.log.Info("telegram: a press delivered again, ignored")
		return
	}
	notice := c.press(q)
	b := c.bot.Load()
	if b == nil {
		return
	}
	if err := b.answerCallbackQuery(ctx, q.ID, clip(notice, maxNotice)); err != nil {
		c.log.Debug("telegram answerCallbackQuery", "err", err)
	}
}

// firstSight reports whether callback query id is new, and remembers it.
func (c *Channel) firstSight(id string) bool {
	now := c.o.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, seen := c.queries[id]; seen {
		return false
	}
	if len(c.queries) >= maxQueries {
		for k, at := range c.queries {
			if now.Sub(at) > queryKeep || len(c.queries) >= maxQueries {
				delete(c.queries, k)
			}
		}
	}
	c.queries[id] = now
	return true
}

// press applies a press if it counts, and returns the notice the phone
// shows for it.
func (c *Channel) press(q *callbackQuery) string {
	p := c.o.Printer
	paired, ok, err := ReadChat(c.o.Home)
	if err != nil {
		c.log.Warn("telegram chat file", "err", err)
	}
	if !ok || q.Message == nil || q.Message.Chat.ID != paired.ChatID || q.From.ID != paired.UserID {
		var chatID int64
		if q.Message != nil {
			chatID = q.Message.Chat.ID
		}
		c.log.Info("telegram: a press from a chat or a person not paired, ignored", "chat", chatID, "user", q.From.ID)
		return p.T("telegram.press.not_paired")
	}
	tok, act, ok := parseData(q.Data)
	if !ok {
		c.log.Info("telegram: a press that is not of a clawd button, ignored")
		return p.T("telegram.press.invalid")
	}
	h := sha256.Sum256([]byte(tok))
	c.mu.Lock()
	cd := c.tokens[h]
	if cd != nil && cd.msgID == 0 {
		// Its message is on the phone, so sendMessage's answer is on its
		// way: the press is checked against the message id it brings.
		c.mu.Unlock()
		select {
		case <-cd.sent:
		case <-time.After(sentWait):
		}
		c.mu.Lock()
	}
	var refuse string
	switch {
	case cd == nil:
		refuse = p.T("telegram.press.gone")
	case cd.chatID != q.Message.Chat.ID || cd.msgID != q.Message.MessageID:
		c.log.Info("telegram: a button of another message, ignored", "request", cd.view.ID)
		refuse = p.T("telegram.press.invalid")
	case cd.used || cd.closed:
		refuse = p.T("telegram.press.already")
	case c.o.Now().Sub(cd.made) > c.o.Lifetime:
		refuse = p.T("telegram.press.expired")
	}
	if refuse != "" {
		c.mu.Unlock()
		return refuse
	}
	pr, ok := cd.pressed(act)
	if !ok || (pr.kind != pressDecide && c.o.Answers == nil) {
		c.mu.Unlock()
		c.log.Info("telegram: a press of an action the request does not offer, ignored", "request", cd.view.ID)
		return p.T("telegram.press.invalid")
	}
	var answers []agents.Answer
	switch pr.kind {
	case pressPick:
		// A pick spends nothing: the message's keyboard shows it, Send
		// answers.
		label, picked := cd.pick(p, pr.q, pr.o)
		c.mu.Unlock()
		c.enqueue(job{keys: cd})
		if picked {
			return p.T("telegram.press.picked", text.Line(label, maxLabel))
		}
		return p.T("telegram.press.unpicked", text.Line(label, maxLabel))
	case pressSend:
		if answers, ok = cd.answers(); !ok {
			c.mu.Unlock()
			return p.T("telegram.press.pick_first")
		}
	case pressOption:
		answers = []agents.Answer{{Labels: []string{cd.view.Options[pr.o]}}}
	}
	cd.used = true
	v := cd.view
	c.mu.Unlock()
	body := pr.body
	var derr error
	if answers != nil {
		_, derr = c.o.Answers.AnswerQuestion(v.ID, answers, client.SourceTelegram)
	} else {
		_, derr = c.o.Runtime.Decide(v.ID, body)
	}
	if derr != nil {
		c.log.Info("telegram decision not applied", "request", v.ID, "err", derr)
		if c.pending(v.ID) {
			return p.T("telegram.press.failed", text.Line(derr.Error(), 120))
		}
		return p.T("telegram.press.already")
	}
	c.log.Info("telegram decision", "request", v.ID, "behavior", body.Behavior, "suggestion", body.Suggestion, "answers", len(answers))
	switch {
	case answers != nil:
		return p.T("telegram.press.answered", text.Line(answerText(answers), maxNotice))
	case body.Behavior == client.Terminal:
		return p.T("telegram.press.terminal")
	case body.Behavior == client.Deny:
		return p.T("telegram.press.denied")
	case v.Kind == client.KindPlan:
		return p.T("telegram.press.approved")
	case body.Suggestion > 0:
		return p.T("telegram.press.always")
	}
	return p.T("telegram.press.allowed")
}

// answerText is answers as one line: each question's labels, questions
// apart by "; ".
func answerText(answers []agents.Answer) string {
	parts := make([]string, len(answers))
	for i, a := range answers {
		parts[i] = strings.Join(a.Labels, ", ")
	}
	return strings.Join(parts, "; ")
}

// pending reports whether request id is still pending.
func (c *Channel) pending(id string) bool {
	for _, v := range c.o.Runtime.View().Permissions {
		if v.ID == id {
			return true
		}
	}
	return false
}

// follow applies the runtime's changes until ctx ends.
func (c *Channel) follow(ctx context.Context, changes <-chan client.Change) {
	for {
		select {
		case <-ctx.Done():
			return
		case ch := <-changes:
			c.apply(ch)
		}
	}
}

// apply takes one change of the runtime: a request added gets its card,
// a request closed has its card say how (from the event stream's record
// of the answer, which names who answered). After a loss, the cards are
// brought in line with the runtime's view.
func (c *Channel) apply(ch client.Change) {
	if ch.Dropped > 0 {
		c.resync()
	}
	switch {
	case ch.Permission != nil && ch.Permission.Type == client.ChangeAdded:
		c.add(ch.Permission.Permission)
	case ch.Permission != nil && ch.Permission.Type == client.ChangeClosed:
		c.mu.Lock()
		if cd := c.cards[ch.Permission.Permission.ID]; cd != nil && !cd.closed {
			cd.closed = true
		}
		c.mu.Unlock()
	case ch.Event != nil && ch.Event.Kind == client.KindPermissionAnswered && ch.Event.Answer != nil:
		c.answered(*ch.Event.Answer)
	}
}

// add makes and queues the card of request v, when a chat is paired and v
// has none yet.
func (c *Channel) add(v client.PermissionView) {
	now := c.o.Now()
	c.mu.Lock()
	if c.cards[v.ID] != nil {
		c.mu.Unlock()
		return
	}
	paired, ok, err := ReadChat(c.o.Home)
	if err != nil {
		c.log.Warn("telegram chat file", "err", err)
	}
	if !ok {
		c.mu.Unlock()
		return
	}
	cd, err := newCard(c.o.Printer, v, paired.ChatID, now, c.o.Random, modeOf(v, c.o.Answers != nil))
	if err != nil {
		c.mu.Unlock()
		c.log.Warn("telegram card", "err", err)
		return
	}
	c.cards[v.ID] = cd
	c.tokens[cd.hash] = cd
	c.pruneLocked(now)
	c.mu.Unlock()
	c.enqueue(job{send: cd})
}

// answered closes the card of the request a says, with how it closed.
func (c *Channel) answered(a client.PermissionAnswer) {
	c.mu.Lock()
	cd := c.cards[a.ID]
	if cd == nil {
		c.mu.Unlock()
		return
	}
	cd.closed = true
	cd.final = mark(a) + present.Answered(c.o.Printer, a, present.RequestSummary(cd.view))
	c.mu.Unlock()
	c.enqueue(job{edit: cd})
}

// mark is the sign before how a request closed.
func mark(a client.PermissionAnswer) string {
	switch a.Decision {
	case client.DecisionAllow, client.DecisionAlways:
		return "✅ "
	case client.DecisionDeny:
		return "⛔ "
	}
	return "↩️ "
}

// resync brings the cards in line with the runtime's view: a card whose
// request closed unseen says it closed, a pending request without a card
// (or whose message never went out) gets one.
func (c *Channel) resync() {
	v := c.o.Runtime.View()
	open := map[string]bool{}
	for _, p := range v.Permissions {
		open[p.ID] = true
	}
	var jobs []job
	c.mu.Lock()
	for id, cd := range c.cards {
		switch {
		case !open[id] && (!cd.closed || cd.final == ""):
			cd.closed = true
			cd.final = "↩️ " + c.o.Printer.T("telegram.closed")
			jobs = append(jobs, job{edit: cd})
		case open[id] && cd.msgID == 0:
			jobs = append(jobs, job{send: cd})
		}
	}
	c.mu.Unlock()
	for _, p := range v.Permissions {
		c.add(p)
	}
	for _, j := range jobs {
		c.enqueue(j)
	}
}

// pruneLocked forgets cards closed long ago, and the oldest closed ones
// beyond maxCards: their buttons then answer "no longer open".
func (c *Channel) pruneLocked(now time.Time) {
	for id, cd := range c.cards {
		if cd.closed && (now.Sub(cd.made) > closedKeep || len(c.cards) > maxCards) {
			delete(c.cards, id)
			delete(c.tokens, cd.hash)
		}
	}
}

// enqueue queues j for the sender without waiting: when the queue is
// full the message is dropped (and said so): nothing upstream waits.
func (c *Channel) enqueue(j job) {
	select {
	case c.jobs <- j:
	default:
		c.log.Warn("telegram queue full: a message to the phone was dropped")
	}
}

// send sends and edits the queued messages, one at a time, until ctx ends
// or a stop job comes.
func (c *Channel) send(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case j := <-c.jobs:
			switch {
			case j.stop:
				return
			case j.send != nil:
				c.sendCard(ctx, j.send)
			case j.edit != nil:
				c.editCard(ctx, j.edit)
			case j.keys != nil:
				c.editKeys(ctx, j.keys)
			case j.text != "":
				_ = c.retry(ctx, func(b *bot) error {
					_, err := b.sendMessage(ctx, j.chatID, j.text, nil)
					return err
				})
			}
		}
	}
}

// sendCard sends cd's message, unless it went out already or its request
// closed meanwhile.
func (c *Channel) sendCard(ctx context.Context, cd *card) {
	c.mu.Lock()
	if cd.msgID != 0 || cd.closed {
		c.mu.Unlock()
		return
	}
	chatID, body, kb := cd.chatID, clip(cd.header, maxMessage), cd.kb
	c.mu.Unlock()
	var m message
	err := c.retry(ctx, func(b *bot) error {
		c.mu.Lock()
		closed := cd.closed
		c.mu.Unlock()
		if closed {
			return errSkip // closed between two tries: nothing to ask
		}
		var err error
		m, err = b.sendMessage(ctx, chatID, body, kb)
		return err
	})
	if err != nil {
		return
	}
	c.mu.Lock()
	cd.msgID = m.MessageID
	closed := cd.closed
	close(cd.sent)
	c.mu.Unlock()
	if closed {
		// It closed while its message went out.
		c.editCard(ctx, cd)
	}
}

// editCard has cd's message say how its request closed, without buttons.
func (c *Channel) editCard(ctx context.Context, cd *card) {
	c.mu.Lock()
	if cd.msgID == 0 || cd.final == "" {
		c.mu.Unlock()
		return
	}
	chatID, id, body := cd.chatID, cd.msgID, cd.finalText()
	c.mu.Unlock()
	err := c.retry(ctx, func(b *bot) error {
		err := b.editMessageText(ctx, chatID, id, body, nil)
		var ae *APIError
		if errors.As(err, &ae) && strings.Contains(ae.Description, "message is not modified") {
			return nil
		}
		return err
	})
	if err != nil {
		c.log.Debug("telegram edit", "request", cd.view.ID, "err", err)
	}
}

// editKeys has cd's message show its keyboard as it is now (the options
// picked), while its request is open.
func (c *Channel) editKeys(ctx context.Context, cd *card) {
	c.mu.Lock()
	if cd.msgID == 0 || cd.closed || cd.used {
		c.mu.Unlock()
		return
	}
	chatID, id, body, kb := cd.chatID, cd.msgID, clip(cd.header, maxMessage), cd.kb
	c.mu.Unlock()
	err := c.retry(ctx, func(b *bot) error {
		c.mu.Lock()
		gone := cd.closed || cd.used
		c.mu.Unlock()
		if gone {
			return errSkip // answered meanwhile: its final edit follows
		}
		err := b.editMessageText(ctx, chatID, id, body, kb)
		var ae *APIError
		if errors.As(err, &ae) && strings.Contains(ae.Description, "message is not modified") {
			return nil
		}
		return err
	})
	if err != nil && !errors.Is(err, errSkip) {
		c.log.Debug("telegram edit keyboard", "request", cd.view.ID, "err", err)
	}
}

// errOffline: there is no bot client (no token, or the token rejected).
var errOffline = errors.New("not connected to telegram")

// errSkip: the message is no longer wanted; not a failure.
var errSkip = errors.New("no longer wanted")

// retry runs f a few times, waiting between tries as Telegram's flood
// control says or a little longer each time, and records whether
// messages go out.
func (c *Channel) retry(ctx context.Context, f func(*bot) error) error {
	var err error
	for try := 1; try <= sendTries; try++ {
		b := c.bot.Load()
		if b == nil {
			err = errOffline
			break
		}
		if err = f(b); err == nil {
			c.setSendError("")
			return nil
		}
		if errors.Is(err, errSkip) {
			return err
		}
		if ctx.Err() != nil || errors.Is(err, ErrTokenRejected) {
			break
		}
		var ae *APIError
		wait := time.Second << (try - 1)
		switch {
		case errors.As(err, &ae) && ae.RetryAfter > 0:
			wait = min(ae.RetryAfter, maxBackoff)
		case errors.As(err, &ae) && ae.Code != 429 && ae.Code < 500:
			try = sendTries // a refusal: asking again changes nothing
			continue
		}
		if try < sendTries {
			c.sleep(ctx, wait)
		}
	}
	c.setSendError(err.Error())
	return err
}

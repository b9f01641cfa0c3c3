// Package faketelegram is a stand-in for Telegram's Bot API on loopback,
// for tests of clawd's Telegram channel. It follows the published contract
// (https://core.telegram.org/bots/api) of the methods the channel uses:
//
//   - requests are https://<host>/bot<token>/<method>, GET or POST, with
//     the parameters in the query string, an
//     application/x-www-form-urlencoded body or an application/json body;
//     method names are case-insensitive;
//   - every answer is a JSON object with "ok"; a result in "result", an
//     error in "error_code" and "description" (401 Unauthorized for a
//     wrong or revoked token, 404 Not Found for an unknown method, 400 Bad
//     Request for a bad parameter, 409 Conflict for a getUpdates
//     terminated by another, 403 Forbidden for a chat that blocked the
//     bot);
//   - getUpdates long-polls for at most "timeout" seconds and returns the
//     updates from "offset" on (an update is confirmed, and forgotten,
//     once a call asks for an offset above its update_id; a negative
//     offset takes the last updates and forgets the rest), at most
//     "limit" (1-100, default 100), of the types of "allowed_updates"
//     (kept across calls when a call does not give it);
//   - sendMessage needs a chat that wrote to the bot first (400 "chat not
//     found"), a text of 1-4096 characters, and an inline keyboard whose
//     buttons have a text and callback_data of 1-64 bytes (or a url);
//   - editMessageText edits a message of the bot's (text and keyboard:
//     an edit without reply_markup removes the keyboard), and refuses an
//     edit that changes nothing ("message is not modified");
//   - answerCallbackQuery answers a callback query once, with a text of
//     at most 200 characters.
//
// A test plays the person: Send writes to the bot, Press presses a button
// of a message (or sends any callback data at all, as a bad client can),
// Replay delivers a callback query again. It plays the network: Cut drops
// every connection and refuses new ones until Heal; Revoke makes the
// token invalid (what @BotFather's /revoke does). It reads what the bot
// did with Messages, Answers and Calls, and waits for it with Wait.
package faketelegram

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// The Bot API's objects, as far as the channel uses them.
type (
	// User is a Telegram user or bot.
	User struct {
		ID        int64  `json:"id"`
		IsBot     bool   `json:"is_bot"`
		FirstName string `json:"first_name"`
		Username  string `json:"username,omitempty"`
	}
	// Chat is a conversation: with a person ("private": its id is the
	// person's), or a group.
	Chat struct {
		ID        int64  `json:"id"`
		Type      string `json:"type"`
		Title     string `json:"title,omitempty"`
		Username  string `json:"username,omitempty"`
		FirstName string `json:"first_name,omitempty"`
	}
	// Message is a message in a chat.
	Message struct {
		MessageID   int64     `json:"message_id"`
		From        *User     `json:"from,omitempty"`
		Chat        Chat      `json:"chat"`
		Date        int64     `json:"date"`
		EditDate    int64     `json:"edit_date,omitempty"`
		Text        string    `json:"text,omitempty"`
		ReplyMarkup *Keyboard `json:"reply_markup,omitempty"`
	}
	// Keyboard is an InlineKeyboardMarkup: rows of buttons.
	Keyboard struct {
		InlineKeyboard [][]Button `json:"inline_keyboard"`
	}
	// Button is an InlineKeyboardButton.
	Button struct {
		Text         string `json:"text"`
		CallbackData string `json:"callback_data,omitempty"`
		URL          string `json:"url,omitempty"`
	}
	// CallbackQuery is a press of an inline button.
	CallbackQuery struct {
		ID           string   `json:"id"`
		From         User     `json:"from"`
		Message      *Message `json:"message,omitempty"`
		ChatInstance string   `json:"chat_instance"`
		Data         string   `json:"data,omitempty"`
	}
	// Update is one item of getUpdates.
	Update struct {
		UpdateID      int64          `json:"update_id"`
		Message       *Message       `json:"message,omitempty"`
		CallbackQuery *CallbackQuery `json:"callback_query,omitempty"`
	}
)

// Answer is one answerCallbackQuery the bot made.
type Answer struct {
	QueryID   string
	Text      string
	ShowAlert bool
}

// Call is one request the server answered: its method (as the contract
// spells it, "getUpdates") and the HTTP status.
type Call struct {
	Method string
	Status int
}

// Limits of the contract.
const (
	maxText         = 4096
	maxCallbackData = 64
	maxAnswerText   = 200
	maxLimit        = 100
)

// firstUpdate is the first update_id: Telegram's do not start at 0 or 1.
const firstUpdate = 700_000_001

// Server is a fake Bot API server on loopback.
type Server struct {
	// Bot is the bot getMe returns.
	Bot User

	srv *httptest.Server
	ln  *cutListener

	mu         sync.Mutex
	token      string
	revoked    bool
	updates    []Update // not yet confirmed, update_id ascending
	nextUpdate int64
	allowed    []string
	pollGen    int // bumped by every getUpdates: an older waiting one gets 409
	chats      map[int64]Chat
	blocked    map[int64]bool
	messages   map[int64][]*Message // by chat, oldest first
	nextMsg    int64
	queries    map[string]*query
	nextQuery  int
	answers    []Answer
	data       []string // every callback_data the bot sent
	calls      []Call
	changed    chan struct{} // closed and replaced at every change
}

type query struct {
	q        CallbackQuery
	answered bool
}

// New starts a fake Bot API over plain HTTP on 127.0.0.1 that accepts
// token.
func New(token string) *Server {
	s := newServer(token)
	s.srv.Start()
	return s
}

// NewTLS starts a fake Bot API over HTTPS on 127.0.0.1 that accepts
// token, with a certificate of httptest's own test CA for 127.0.0.1:
// a client trusts it through CertPool (or CertPEM in an SSL_CERT_FILE).
func NewTLS(token string) *Server {
	s := newServer(token)
	s.srv.StartTLS()
	return s
}

func newServer(token string) *Server {
	s := &Server{
		Bot:        User{ID: 7_000_000_001, IsBot: true, FirstName: "clawd test", Username: "clawd_test_bot"},
		token:      token,
		nextUpdate: firstUpdate,
		chats:      map[int64]Chat{},
		blocked:    map[int64]bool{},
		messages:   map[int64][]*Message{},
		nextMsg:    1,
		queries:    map[string]*query{},
		changed:    make(chan struct{}),
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	// A client that refuses the certificate, or a cut, is the test's
	// point, not noise on stderr.
	s.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.ln = &cutListener{Listener: s.srv.Listener}
	s.srv.Listener = s.ln
	return s
}

// URL is the server's base URL, what the channel's API URL is set to.
func (s *Server) URL() string { return s.srv.URL }

// CertPool is a pool that trusts the server's certificate (NewTLS).
func (s *Server) CertPool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(s.srv.Certificate())
	return pool
}

// CertPEM is the server's certificate (NewTLS) in PEM.
func (s *Server) CertPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw})
}

// Close stops the server; waiting getUpdates calls end.
func (s *Server) Close() {
	s.mu.Lock()
	s.changeLocked()
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Cut plays a network that went down: every open connection is dropped
// (a getUpdates waiting included) and new ones are closed as soon as they
// are made, until Heal.
func (s *Server) Cut() {
	s.ln.cut(true)
	s.srv.CloseClientConnections()
}

// Heal brings the network back after Cut.
func (s *Server) Heal() { s.ln.cut(false) }

// Revoke makes the token invalid: every call is answered 401 from now on.
func (s *Server) Revoke() {
	s.mu.Lock()
	s.revoked = true
	s.changeLocked()
	s.mu.Unlock()
}

// Block plays the person blocking the bot: sendMessage to chat is
// answered 403.
func (s *Server) Block(chat int64) {
	s.mu.Lock()
	s.blocked[chat] = true
	s.mu.Unlock()
}

// Send plays from writing text to the bot in their private chat (whose id
// is theirs), and returns the message.
func (s *Server) Send(from User, text string) Message {
	return s.SendIn(Chat{ID: from.ID, Type: "private", FirstName: from.FirstName, Username: from.Username}, from, text)
}

// SendIn plays from writing text in chat (a group the bot is in).
func (s *Server) SendIn(chat Chat, from User, text string) Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chats[chat.ID] = chat
	m := s.addMessageLocked(chat, &from, text, nil)
	s.queueLocked(Update{Message: m.copy()})
	return *m.copy()
}

// Press plays from pressing a button that carries data on message id of
// chat, and returns the callback query's id. The data need not be a
// button's: a bad client can send any. The message must exist.
func (s *Server) Press(from User, chat, id int64, data string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.findLocked(chat, id)
	if m == nil {
		return "", fmt.Errorf("no message %d in chat %d", id, chat)
	}
	s.nextQuery++
	q := CallbackQuery{ID: strconv.Itoa(4_000_000+s.nextQuery) + "-" + strconv.FormatInt(from.ID, 10), From: from,
		Message: m.copy(), ChatInstance: "ci" + strconv.FormatInt(chat, 10), Data: data}
	s.queries[q.ID] = &query{q: q}
	s.queueLocked(Update{CallbackQuery: &q})
	return q.ID, nil
}

// PressButton presses the button labelled label of message id of chat.
func (s *Server) PressButton(from User, chat, id int64, label string) (string, error) {
	m, ok := s.Message(chat, id)
	if !ok {
		return "", fmt.Errorf("no message %d in chat %d", id, chat)
	}
	b, ok := m.Button(label)
	if !ok {
		return "", fmt.Errorf("message %d has no button %q (it has %q)", id, label, m.Labels())
	}
	return s.Press(from, chat, id, b.CallbackData)
}

// Replay delivers callback query id again, as a new update: the same
// query, the same data.
func (s *Server) Replay(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queries[id]
	if q == nil {
		return fmt.Errorf("no callback query %q", id)
	}
	c := q.q
	s.queueLocked(Update{CallbackQuery: &c})
	return nil
}

// Messages returns the messages of chat, oldest first, as they are now.
func (s *Server) Messages(chat int64) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, m := range s.messages[chat] {
		out = append(out, *m.copy())
	}
	return out
}

// Message returns message id of chat as it is now.
func (s *Server) Message(chat, id int64) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.findLocked(chat, id); m != nil {
		return *m.copy(), true
	}
	return Message{}, false
}

// BotMessages returns the messages the bot sent to chat, oldest first.
func (s *Server) BotMessages(chat int64) []Message {
	var out []Message
	for _, m := range s.Messages(chat) {
		if m.From != nil && m.From.ID == s.Bot.ID {
			out = append(out, m)
		}
	}
	return out
}

// Answers returns the answers the bot gave to callback queries, in order.
func (s *Server) Answers() []Answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.answers)
}

// AnswerTo returns the bot's answer to callback query id.
func (s *Server) AnswerTo(id string) (Answer, bool) {
	for _, a := range s.Answers() {
		if a.QueryID == id {
			return a, true
		}
	}
	return Answer{}, false
}

// CallbackData returns every callback_data the bot has sent in a
// keyboard, in order.
func (s *Server) CallbackData() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.data)
}

// Calls returns the requests answered so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// CallsOf counts the answered calls of method, and those of them that
// failed (status other than 200).
func (s *Server) CallsOf(method string) (n, failed int) {
	for _, c := range s.Calls() {
		if c.Method == method {
			n++
			if c.Status != http.StatusOK {
				failed++
			}
		}
	}
	return n, failed
}

// Wait returns once cond holds, checking it at every change of the
// server's state, or ctx's error.
func (s *Server) Wait(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Button returns the button labelled label of m's keyboard.
func (m Message) Button(label string) (Button, bool) {
	if m.ReplyMarkup == nil {
		return Button{}, false
	}
	for _, row := range m.ReplyMarkup.InlineKeyboard {
		for _, b := range row {
			if b.Text == label {
				return b, true
			}
		}
	}
	return Button{}, false
}

// Labels lists the labels of m's buttons.
func (m Message) Labels() []string {
	var out []string
	if m.ReplyMarkup != nil {
		for _, row := range m.ReplyMarkup.InlineKeyboard {
			for _, b := range row {
				out = append(out, b.Text)
			}
		}
	}
	return out
}

func (m *Message) copy() *Message {
	c := *m
	if m.From != nil {
		f := *m.From
		c.From = &f
	}
	if m.ReplyMarkup != nil {
		k := Keyboard{}
		for _, row := range m.ReplyMarkup.InlineKeyboard {
			k.InlineKeyboard = append(k.InlineKeyboard, slices.Clone(row))
		}
		c.ReplyMarkup = &k
	}
	return &c
}

func (s *Server) changeLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) queueLocked(u Update) {
	u.UpdateID = s.nextUpdate
	s.nextUpdate++
	s.updates = append(s.updates, u)
	s.changeLocked()
}

func (s *Server) addMessageLocked(chat Chat, from *User, text string, kb *Keyboard) *Message {
	m := &Message{MessageID: s.nextMsg, From: from, Chat: chat, Date: time.Now().Unix(), Text: text, ReplyMarkup: kb}
	s.nextMsg++
	s.messages[chat.ID] = append(s.messages[chat.ID], m)
	s.changeLocked()
	return m
}

func (s *Server) findLocked(chat, id int64) *Message {
	for _, m := range s.messages[chat] {
		if m.MessageID == id {
			return m
		}
	}
	return nil
}

// apiError is an unsuccessful answer.
type apiError struct {
	code int
	desc string
}

func badRequest(format string, args ...any) *apiError {
	return &apiError{http.StatusBadRequest, "Bad Request: " + fmt.Sprintf(format, args...)}
}

// methods are the Bot API methods the server knows, by lower-case name.
var methods = map[string]string{
	"getme": "getMe", "getupdates": "getUpdates", "sendmessage": "sendMessage",
	"editmessagetext": "editMessageText", "answercallbackquery": "answerCallbackQuery",
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	token, name, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/bot"), "/")
	method := methods[strings.ToLower(name)]
	var result any
	var aerr *apiError
	s.mu.Lock()
	good := strings.HasPrefix(r.URL.Path, "/bot") && ok && token == s.token && !s.revoked
	s.mu.Unlock()
	switch {
	case !good:
		aerr = &apiError{http.StatusUnauthorized, "Unauthorized"}
	case method == "":
		aerr = &apiError{http.StatusNotFound, "Not Found"}
	default:
		p, err := readParams(r)
		if err != nil {
			aerr = badRequest("%v", err)
			break
		}
		result, aerr = s.call(r.Context(), method, p)
	}
	status := http.StatusOK
	body := map[string]any{"ok": true, "result": result}
	if aerr != nil {
		status = aerr.code
		body = map[string]any{"ok": false, "error_code": aerr.code, "description": aerr.desc}
	}
	s.mu.Lock()
	s.calls = append(s.calls, Call{Method: cmpOr(method, name), Status: status})
	s.changeLocked()
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// params are a call's parameters: a string as itself, any other JSON
// value (a number, an object) as its JSON text, as a form would carry it.
type params map[string]string

func readParams(r *http.Request) (params, error) {
	p := params{}
	for k, v := range r.URL.Query() {
		p[k] = v[0]
	}
	if r.Method != http.MethodPost {
		return p, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, fmt.Errorf("can't parse JSON object")
		}
		for k, v := range m {
			var s string
			if json.Unmarshal(v, &s) == nil {
				p[k] = s
			} else {
				p[k] = string(v)
			}
		}
	case "application/x-www-form-urlencoded":
		vals, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, fmt.Errorf("can't parse form")
		}
		for k, v := range vals {
			p[k] = v[0]
		}
	case "":
	default:
		return nil, fmt.Errorf("unsupported content type %q", ct)
	}
	return p, nil
}

func (p params) int(key string) (int64, bool, error) {
	v, ok := p[key]
	if !ok || v == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, true, fmt.Errorf("field %q must be of type Integer", key)
	}
	return n, true, nil
}

func (s *Server) call(ctx context.Context, method string, p params) (any, *apiError) {
	switch method {
	case "getMe":
		return s.Bot, nil
	case "getUpdates":
		return s.getUpdates(ctx, p)
	case "sendMessage":
		return s.sendMessage(p)
	case "editMessageText":
		return s.editMessageText(p)
	case "answerCallbackQuery":
		return s.answerCallbackQuery(p)
	}
	return nil, &apiError{http.StatusNotFound, "Not Found"}
}

func (s *Server) getUpdates(ctx context.Context, p params) (any, *apiError) {
	offset, hasOffset, err := p.int("offset")
	if err != nil {
		return nil, badRequest("%v", err)
	}
	limit, hasLimit, err := p.int("limit")
	if err != nil {
		return nil, badRequest("%v", err)
	}
	if !hasLimit || limit > maxLimit {
		limit = maxLimit
	}
	limit = max(limit, 1)
	timeout, _, err := p.int("timeout")
	if err != nil {
		return nil, badRequest("%v", err)
	}
	var allowed []string
	_, hasAllowed := p["allowed_updates"]
	if hasAllowed {
		if err := json.Unmarshal([]byte(p["allowed_updates"]), &allowed); err != nil {
			return nil, badRequest("can't parse allowed updates")
		}
	}
	deadline := time.After(time.Duration(max(timeout, 0)) * time.Second)
	s.mu.Lock()
	defer s.mu.Unlock()
	if hasAllowed {
		s.allowed = allowed
	}
	s.pollGen++
	gen := s.pollGen
	s.changeLocked()
	for {
		switch {
		case hasOffset && offset < 0:
			n := int(min(-offset, int64(len(s.updates))))
			s.updates = s.updates[len(s.updates)-n:]
		case hasOffset:
			s.updates = slices.DeleteFunc(s.updates, func(u Update) bool { return u.UpdateID < offset })
		}
		var out []Update
		for _, u := range s.updates {
			if len(out) < int(limit) && s.wantsLocked(u) {
				out = append(out, u)
			}
		}
		if len(out) > 0 || timeout <= 0 {
			return orEmpty(out), nil
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			timeout = 0
		case <-ctx.Done():
		}
		s.mu.Lock()
		switch {
		case s.pollGen != gen:
			return nil, &apiError{http.StatusConflict, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"}
		case s.revoked:
			return nil, &apiError{http.StatusUnauthorized, "Unauthorized"}
		case ctx.Err() != nil:
			return []Update{}, nil
		}
	}
}

func orEmpty(u []Update) []Update {
	if u == nil {
		return []Update{}
	}
	return u
}

func (s *Server) wantsLocked(u Update) bool {
	if len(s.allowed) == 0 {
		return true
	}
	switch {
	case u.Message != nil:
		return slices.Contains(s.allowed, "message")
	case u.CallbackQuery != nil:
		return slices.Contains(s.allowed, "callback_query")
	}
	return false
}

// chat reads chat_id: a known chat's id (a @username is not supported).
func (s *Server) chatLocked(p params) (Chat, *apiError) {
	v, ok := p["chat_id"]
	if !ok || v == "" {
		return Chat{}, badRequest("chat_id is empty")
	}
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return Chat{}, badRequest("chat not found")
	}
	c, ok := s.chats[id]
	if !ok {
		return Chat{}, badRequest("chat not found")
	}
	return c, nil
}

func checkText(p params) (string, *apiError) {
	t := p["text"]
	switch n := utf8.RuneCountInString(t); {
	case strings.TrimSpace(t) == "":
		return "", badRequest("message text is empty")
	case n > maxText:
		return "", badRequest("message is too long")
	}
	return t, nil
}

func readKeyboard(p params) (*Keyboard, *apiError) {
	v, ok := p["reply_markup"]
	if !ok || v == "" {
		return nil, nil
	}
	var kb Keyboard
	if err := json.Unmarshal([]byte(v), &kb); err != nil || kb.InlineKeyboard == nil {
		return nil, badRequest("can't parse reply keyboard markup JSON object")
	}
	for _, row := range kb.InlineKeyboard {
		for _, b := range row {
			switch {
			case b.Text == "":
				return nil, badRequest("text buttons are unallowed in the inline keyboard")
			case b.URL == "" && b.CallbackData == "":
				return nil, badRequest("text buttons are unallowed in the inline keyboard")
			case b.URL == "" && len(b.CallbackData) > maxCallbackData:
				return nil, badRequest("BUTTON_DATA_INVALID")
			}
		}
	}
	return &kb, nil
}

func (s *Server) sendMessage(p params) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	chat, aerr := s.chatLocked(p)
	if aerr != nil {
		return nil, aerr
	}
	if s.blocked[chat.ID] {
		return nil, &apiError{http.StatusForbidden, "Forbidden: bot was blocked by the user"}
	}
	text, aerr := checkText(p)
	if aerr != nil {
		return nil, aerr
	}
	kb, aerr := readKeyboard(p)
	if aerr != nil {
		return nil, aerr
	}
	s.noteDataLocked(kb)
	bot := s.Bot
	return s.addMessageLocked(chat, &bot, text, kb).copy(), nil
}

func (s *Server) editMessageText(p params) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := p["inline_message_id"]; ok {
		return nil, badRequest("MESSAGE_ID_INVALID") // the channel sends no inline messages
	}
	chat, aerr := s.chatLocked(p)
	if aerr != nil {
		return nil, aerr
	}
	id, has, err := p.int("message_id")
	switch {
	case err != nil:
		return nil, badRequest("%v", err)
	case !has:
		return nil, badRequest("message identifier is not specified")
	}
	m := s.findLocked(chat.ID, id)
	switch {
	case m == nil:
		return nil, badRequest("message to edit not found")
	case m.From == nil || m.From.ID != s.Bot.ID:
		return nil, badRequest("message can't be edited")
	}
	text, aerr := checkText(p)
	if aerr != nil {
		return nil, aerr
	}
	kb, aerr := readKeyboard(p)
	if aerr != nil {
		return nil, aerr
	}
	if text == m.Text && sameKeyboard(kb, m.ReplyMarkup) {
		return nil, badRequest("message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")
	}
	s.noteDataLocked(kb)
	m.Text, m.ReplyMarkup, m.EditDate = text, kb, time.Now().Unix()
	s.changeLocked()
	return m.copy(), nil
}

func (s *Server) noteDataLocked(kb *Keyboard) {
	if kb == nil {
		return
	}
	for _, row := range kb.InlineKeyboard {
		for _, b := range row {
			if b.CallbackData != "" {
				s.data = append(s.data, b.CallbackData)
			}
		}
	}
}

func sameKeyboard(a, b *Keyboard) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func (s *Server) answerCallbackQuery(p params) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := p["callback_query_id"]
	q := s.queries[id]
	if q == nil || q.answered {
		return nil, badRequest("query is too old and response timeout expired or query ID is invalid")
	}
	text := p["text"]
	if utf8.RuneCountInString(text) > maxAnswerText {
		return nil, badRequest("MESSAGE_TOO_LONG")
	}
	q.answered = true
	s.answers = append(s.answers, Answer{QueryID: id, Text: text, ShowAlert: p["show_alert"] == "true"})
	s.changeLocked()
	return true, nil
}

// cutListener is the server's listener, which Cut makes close every new
// connection at once.
type cutListener struct {
	net.Listener
	mu   sync.Mutex
	down bool
}

func (l *cutListener) cut(down bool) {
	l.mu.Lock()
	l.down = down
	l.mu.Unlock()
}

func (l *cutListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		down := l.down
		l.mu.Unlock()
		if !down {
			return c, nil
		}
		c.Close()
	}
}

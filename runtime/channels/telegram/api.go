package telegram

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultAPIURL is Telegram's Bot API server.
const DefaultAPIURL = "https://api.telegram.org"

// Timeouts and caps of the Bot API client.
const (
	callTimeout   = 15 * time.Second // every call but getUpdates
	pollGrace     = 10 * time.Second // a getUpdates may take its timeout plus this
	dialTimeout   = 10 * time.Second
	maxAnswerBody = 4 << 20 // 100 updates with long texts fit many times over
)

// The Bot API's objects, as far as the channel reads and writes them
// (https://core.telegram.org/bots/api#available-types).
type (
	user struct {
		ID        int64  `json:"id"`
		IsBot     bool   `json:"is_bot"`
		FirstName string `json:"first_name"`
		Username  string `json:"username,omitempty"`
	}
	chat struct {
		ID        int64  `json:"id"`
		Type      string `json:"type"`
		Title     string `json:"title,omitempty"`
		Username  string `json:"username,omitempty"`
		FirstName string `json:"first_name,omitempty"`
	}
	message struct {
		MessageID int64  `json:"message_id"`
		From      *user  `json:"from,omitempty"`
		Chat      chat   `json:"chat"`
		Date      int64  `json:"date"`
		Text      string `json:"text,omitempty"`
	}
	callbackQuery struct {
		ID      string   `json:"id"`
		From    user     `json:"from"`
		Message *message `json:"message,omitempty"`
		Data    string   `json:"data,omitempty"`
	}
	update struct {
		UpdateID      int64          `json:"update_id"`
		Message       *message       `json:"message,omitempty"`
		CallbackQuery *callbackQuery `json:"callback_query,omitempty"`
	}
	keyboard struct {
		InlineKeyboard [][]button `json:"inline_keyboard"`
	}
	button struct {
		Text         string `json:"text"`
		CallbackData string `json:"callback_data"`
	}
)

// APIError is an unsuccessful answer of the Bot API: its error_code and
// description, and for flood control how long to wait.
type APIError struct {
	Code        int
	Description string
	RetryAfter  time.Duration
}

func (e *APIError) Error() string {
	return fmt.Sprintf("telegram answered %d: %s", e.Code, e.Description)
}

// Errors of the Bot API client, for errors.Is.
var (
	// ErrTokenRejected: the Bot API does not know the token (401, or 404
	// for a token of the wrong shape): it is wrong or was revoked.
	ErrTokenRejected = errors.New("telegram rejected the bot token")
	// ErrConflict: another program takes this bot's updates (409): a
	// second clawd with the same bot, or a webhook.
	ErrConflict = errors.New("another program takes this bot's updates")
)

// Is makes an APIError match the client's sentinels.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrTokenRejected:
		return e.Code == http.StatusUnauthorized || e.Code == http.StatusNotFound
	case ErrConflict:
		return e.Code == http.StatusConflict
	}
	return false
}

// bot is a Bot API client. Its errors never carry the token: a request's
// URL holds it, and net/http's errors name the URL, so they are unwrapped
// to the cause before they leave (and scrubbed once more, in case).
type bot struct {
	base  string // without the trailing slash
	token string
	hc    *http.Client
}

// newBot returns a client of the Bot API at base (DefaultAPIURL when
// empty) with token, trusting roots (nil: the system's) and going through
// the environment's proxy (HTTPS_PROXY), as people behind one need.
func newBot(base, token string, roots *x509.CertPool) *bot {
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: dialTimeout}).DialContext,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots},
		TLSHandshakeTimeout:   dialTimeout,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          4,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	if base == "" {
		base = DefaultAPIURL
	}
	return &bot{base: strings.TrimRight(base, "/"), token: token, hc: &http.Client{Transport: tr}}
}

// close drops the client's idle connections.
func (b *bot) close() { b.hc.CloseIdleConnections() }

// call runs method with params (a JSON object) and decodes its result into
// out. timeout bounds the whole call.
func (b *bot) call(ctx context.Context, method string, params any, out any, timeout time.Duration) error {
	body, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.base+"/bot"+b.token+"/"+method, bytes.NewReader(body))
	if err != nil {
		return b.scrub(fmt.Errorf("%s: %w", method, causeOf(err)))
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.hc.Do(req)
	if err != nil {
		return b.scrub(fmt.Errorf("%s: %w", method, causeOf(err)))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBody+1))
	if err != nil {
		return b.scrub(fmt.Errorf("%s: read the answer: %w", method, causeOf(err)))
	}
	if len(data) > maxAnswerBody {
		return fmt.Errorf("%s: the answer is over %d bytes", method, maxAnswerBody)
	}
	var ans struct {
		OK          bool            `json:"ok"`
		Result      json.RawMessage `json:"result"`
		ErrorCode   int             `json:"error_code"`
		Description string          `json:"description"`
		Parameters  struct {
			RetryAfter int `json:"retry_after"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(data, &ans); err != nil {
		return fmt.Errorf("%s: HTTP %d and no Bot API answer: is the API URL right?", method, resp.StatusCode)
	}
	if !ans.OK {
		return b.scrub(&APIError{Code: cmpCode(ans.ErrorCode, resp.StatusCode), Description: oneLine(ans.Description),
			RetryAfter: time.Duration(ans.Parameters.RetryAfter) * time.Second})
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(ans.Result, out); err != nil {
		return fmt.Errorf("%s: decode the result: %w", method, err)
	}
	return nil
}

func cmpCode(code, status int) int {
	if code != 0 {
		return code
	}
	return status
}

// oneLine bounds a description of Telegram's to one short line.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}

// causeOf strips net/http's *url.Error, whose text holds the URL and so
// the token, down to what went wrong.
func causeOf(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return errTimeout{ue.Err}
		}
		return ue.Err
	}
	return err
}

type errTimeout struct{ err error }

func (e errTimeout) Error() string { return "no answer in time" }
func (e errTimeout) Unwrap() error { return e.err }

// scrub makes sure err's text does not hold the token, whatever it wraps.
func (b *bot) scrub(err error) error {
	if b.token == "" || !strings.Contains(err.Error(), b.token) {
		return err
	}
	return scrubbed{err, strings.ReplaceAll(err.Error(), b.token, "[token]")}
}

type scrubbed struct {
	err error
	msg string
}

func (e scrubbed) Error() string { return e.msg }
func (e scrubbed) Unwrap() error { return e.err }

// getMe returns the bot itself.
func (b *bot) getMe(ctx context.Context) (user, error) {
	var u user
	err := b.call(ctx, "getMe", struct{}{}, &u, callTimeout)
	return u, err
}

// getUpdates long-polls for the updates from offset on, for at most wait.
func (b *bot) getUpdates(ctx context.Context, offset int64, wait time.Duration) ([]update, error) {
	params := struct {
		Offset         int64    `json:"offset,omitempty"`
		Timeout        int      `json:"timeout"`
		AllowedUpdates []string `json:"allowed_updates"`
	}{offset, int(wait / time.Second), []string{"message", "callback_query"}}
	var us []update
	err := b.call(ctx, "getUpdates", params, &us, wait+pollGrace)
	return us, err
}

// sendMessage sends text with kb (nil: no buttons) to chat.
func (b *bot) sendMessage(ctx context.Context, chatID int64, text string, kb *keyboard) (message, error) {
	params := struct {
		ChatID      int64     `json:"chat_id"`
		Text        string    `json:"text"`
		ReplyMarkup *keyboard `json:"reply_markup,omitempty"`
	}{chatID, text, kb}
	var m message
	err := b.call(ctx, "sendMessage", params, &m, callTimeout)
	return m, err
}

// editMessageText replaces the text of message id in chat, and its
// buttons with kb (nil: none).
func (b *bot) editMessageText(ctx context.Context, chatID, id int64, text string, kb *keyboard) error {
	params := struct {
		ChatID      int64     `json:"chat_id"`
		MessageID   int64     `json:"message_id"`
		Text        string    `json:"text"`
		ReplyMarkup *keyboard `json:"reply_markup,omitempty"`
	}{chatID, id, text, kb}
	return b.call(ctx, "editMessageText", params, nil, callTimeout)
}

// answerCallbackQuery ends the press id's spinner on the phone, with text
// as a short notice when it is not empty.
func (b *bot) answerCallbackQuery(ctx context.Context, id, text string) error {
	params := struct {
		ID   string `json:"callback_query_id"`
		Text string `json:"text,omitempty"`
	}{id, text}
	return b.call(ctx, "answerCallbackQuery", params, nil, callTimeout)
}

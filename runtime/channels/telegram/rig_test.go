package telegram_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/faketelegram"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/channels/telegram"
	"github.com/clawdhq/clawd/runtime/client"
)

// testToken is the bot token of every test: the shape @BotFather gives.
const testToken = "7000000001:AAH-test_token_for_clawd_0123456789abc"

// The people of the tests.
var (
	person   = faketelegram.User{ID: 1001, FirstName: "Ada", Username: "ada"}
	stranger = faketelegram.User{ID: 2002, FirstName: "Mallory"}
)

// syncBuffer is a log sink safe for the channel's goroutines and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// clock is the channel's clock, moved by the test.
type clock struct{ off atomic.Int64 }

func (c *clock) now() time.Time          { return time.Now().Add(time.Duration(c.off.Load())) }
func (c *clock) advance(d time.Duration) { c.off.Add(int64(d)) }

// timer is one wait the broker asked for; the test fires it.
type timer struct {
	d  time.Duration
	ch chan time.Time
}

// rig is a runtime on its socket, a fake Bot API over HTTPS with a test
// CA, and the channel between them, all logging into one buffer that no
// token may reach.
type rig struct {
	t      *testing.T
	home   string
	srv    *runtime.Server
	sock   string
	api    *faketelegram.Server
	ch     *telegram.Channel
	clock  *clock
	timers chan timer
	logs   *syncBuffer
	// stopRuntime stops the runtime alone; stop stops both.
	stopRuntime, stop func()
}

type rigOptions struct {
	noRoots bool // the client does not trust the test CA
	answers telegram.Answerer
	// runtimeAnswers answers with the runtime's own QuestionAnswerer.
	runtimeAnswers bool
	lifetime       time.Duration
	paired         *faketelegram.User
	group          *faketelegram.Chat
}

func newRig(t *testing.T, o rigOptions) *rig {
	t.Helper()
	r := &rig{t: t, home: t.TempDir(), clock: &clock{}, timers: make(chan timer, 64), logs: &syncBuffer{}}
	log := slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r.srv = runtime.New(runtime.Config{
		Home: r.home, Version: "test", Logger: log, Alive: func(int) bool { return true },
		After: func(d time.Duration) <-chan time.Time {
			ch := make(chan time.Time, 1)
			r.timers <- timer{d, ch}
			return ch
		},
	})
	ln, err := runtime.Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	r.sock = client.SocketPath(r.home)
	sln, err := runtime.ListenSocket(r.sock, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.api = faketelegram.NewTLS(testToken)
	tokenFile := filepath.Join(r.home, telegram.DefaultTokenFile)
	if err := os.WriteFile(tokenFile, []byte(testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if o.paired != nil {
		r.pair(*o.paired, o.group)
	}
	opts := telegram.Options{
		Runtime: r.srv, Answers: answerer(o, r), Home: r.home, TokenFile: tokenFile, APIURL: r.api.URL(),
		RootCAs: r.api.CertPool(), PollTimeout: 5 * time.Second, Lifetime: o.lifetime, Log: log, Now: r.clock.now,
		// The waits between tries are short, not gone: a cut network is
		// tried again at once, but not in a hot loop.
		After: func(d time.Duration) <-chan time.Time { return time.After(min(d, 20*time.Millisecond)) },
	}
	if o.noRoots {
		opts.RootCAs = nil
	}
	r.ch = telegram.New(opts)
	// The channel outlives the runtime, as in clawd serve.
	sctx, stopServe := context.WithCancel(context.Background())
	cctx, stopChannel := context.WithCancel(context.Background())
	served, ran := make(chan error, 1), make(chan struct{})
	go func() { served <- r.srv.Serve(sctx, ln, sln) }()
	go func() { r.ch.Run(cctx); close(ran) }()
	var serveOnce, once sync.Once
	r.stopRuntime = func() {
		serveOnce.Do(func() {
			stopServe()
			if err := <-served; err != nil {
				t.Errorf("Serve: %v", err)
			}
		})
	}
	r.stop = func() {
		once.Do(func() {
			r.stopRuntime()
			stopChannel()
			<-ran
			r.api.Close()
		})
	}
	t.Cleanup(func() {
		r.stop()
		r.noSecrets()
	})
	return r
}

// pair pairs u (in group, when set) the way the channel does: through a
// code sent to the bot.
func (r *rig) pair(u faketelegram.User, group *faketelegram.Chat) {
	r.t.Helper()
	p, err := telegram.StartPairing(r.home, r.clock.now(), telegram.DefaultPairingTTL, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	if group != nil {
		r.api.SendIn(*group, u, p.Code)
	} else {
		r.api.Send(u, p.Code)
	}
}

// waitPaired waits until the channel paired a chat.
func (r *rig) waitPaired() telegram.Chat {
	r.t.Helper()
	var c telegram.Chat
	r.eventually("a paired chat", func() bool {
		var ok bool
		c, ok, _ = telegram.ReadChat(r.home)
		return ok
	})
	return c
}

// eventually waits up to 10 s for cond, looking every few milliseconds.
func (r *rig) eventually(what string, cond func() bool) {
	r.t.Helper()
	end := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(end) {
			r.t.Fatalf("no %s within 10 s; log:\n%s", what, r.logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitAPI waits up to 10 s for cond, checked at every change of the fake.
func (r *rig) waitAPI(what string, cond func() bool) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.api.Wait(ctx, cond); err != nil {
		r.t.Fatalf("no %s within 10 s; messages %+v; log:\n%s", what, r.api.Messages(person.ID), r.logs.String())
	}
}

// status reads the channel's status file.
func (r *rig) status() telegram.Status {
	s, _, err := telegram.ReadStatus(r.home)
	if err != nil {
		r.t.Fatal(err)
	}
	return s
}

// waitState waits for the status file to say state.
func (r *rig) waitState(state string) telegram.Status {
	r.t.Helper()
	var s telegram.Status
	r.eventually("channel state "+state, func() bool { s = r.status(); return s.State == state })
	return s
}

// hookResult is what a hook got.
type hookResult struct {
	ans client.Answer
	err error
	at  time.Time
}

// ask registers a Bash request for command as `clawd hook claude` does,
// over the socket, and returns where its answer will arrive.
func (r *rig) ask(sid, command string) <-chan hookResult {
	in, _ := json.Marshal(map[string]any{"tool_input": map[string]string{"command": command, "description": "run it"}})
	return r.askRaw(sid, "Bash", string(in))
}

func (r *rig) askRaw(sid, tool, payload string) <-chan hookResult {
	e := agents.Event{Agent: "claude", Kind: agents.KindPermissionRequest, SessionID: sid, Time: time.Now().UTC(),
		ToolName: tool, InputHash: sid + "-h", Cwd: "/work/proj", HookEvent: "PermissionRequest"}
	if tool == "AskUserQuestion" {
		e.Kind = agents.KindQuestion // as Claude's decoder says
	}
	body := client.RequestBody{Event: e, Request: agents.Claude.Describe(e, []byte(payload), false), WaitSeconds: 3595}
	b, _ := json.Marshal(body)
	out := make(chan hookResult, 1)
	go func() {
		a, err := client.AskPermission(context.Background(), r.sock, b)
		out <- hookResult{a, err, time.Now()}
	}()
	return out
}

// pending waits for a pending request of session sid and returns it.
func (r *rig) pending(sid string) client.PermissionView {
	r.t.Helper()
	var v client.PermissionView
	r.eventually("pending request of "+sid, func() bool {
		for _, p := range r.srv.Permissions() {
			if p.SessionID == sid {
				v = p
				return true
			}
		}
		return false
	})
	return v
}

// card waits for the bot's message in chat whose text has want, with
// buttons, and returns it.
func (r *rig) card(chat int64, want string) faketelegram.Message {
	r.t.Helper()
	var m faketelegram.Message
	r.waitAPI("card with "+want, func() bool {
		for _, bm := range r.api.BotMessages(chat) {
			if strings.Contains(bm.Text, want) && bm.ReplyMarkup != nil {
				m = bm
				return true
			}
		}
		return false
	})
	return m
}

// edited waits for message id of chat to have no buttons and a text with
// want.
func (r *rig) edited(chat, id int64, want string) faketelegram.Message {
	r.t.Helper()
	var m faketelegram.Message
	r.waitAPI("message edited to "+want, func() bool {
		var ok bool
		m, ok = r.api.Message(chat, id)
		return ok && m.ReplyMarkup == nil && strings.Contains(m.Text, want)
	})
	return m
}

// answerTo waits for the bot's answer to callback query id.
func (r *rig) answerTo(id string) faketelegram.Answer {
	r.t.Helper()
	var a faketelegram.Answer
	r.waitAPI("answer to press "+id, func() bool {
		var ok bool
		a, ok = r.api.AnswerTo(id)
		return ok
	})
	return a
}

// press presses the button labelled label of m as u.
func (r *rig) press(u faketelegram.User, m faketelegram.Message, label string) string {
	r.t.Helper()
	id, err := r.api.PressButton(u, m.Chat.ID, m.MessageID, label)
	if err != nil {
		r.t.Fatal(err)
	}
	return id
}

// hookAnswer waits for a hook's answer.
func (r *rig) hookAnswer(c <-chan hookResult) hookResult {
	r.t.Helper()
	select {
	case h := <-c:
		if h.err != nil {
			r.t.Fatalf("hook: %v", h.err)
		}
		return h
	case <-time.After(10 * time.Second):
		r.t.Fatalf("hook got no answer; log:\n%s", r.logs.String())
	}
	return hookResult{}
}

// noSecrets checks that neither the bot token nor any button's token is
// in the log or the status file.
func (r *rig) noSecrets() {
	r.t.Helper()
	status, _ := os.ReadFile(filepath.Join(r.home, "channels", "telegram.status.json"))
	secrets := []string{testToken, strings.SplitN(testToken, ":", 2)[1]}
	for _, d := range r.api.CallbackData() {
		if parts := strings.Split(d, "."); len(parts) == 3 {
			secrets = append(secrets, parts[1])
		}
	}
	for _, s := range secrets {
		if strings.Contains(r.logs.String(), s) {
			r.t.Errorf("the log holds a secret %q:\n%s", s, r.logs.String())
		}
		if bytes.Contains(status, []byte(s)) {
			r.t.Errorf("the status file holds a secret %q: %s", s, status)
		}
	}
}

// groupChat is a group the person and the stranger are both in.
var groupChat = faketelegram.Chat{ID: -100300, Type: "supergroup", Title: "team"}

// answerer is the rig's Answerer: the test's, or the runtime's own.
func answerer(o rigOptions, r *rig) telegram.Answerer {
	if o.runtimeAnswers {
		return telegram.QuestionAnswerer{Runtime: r.srv}
	}
	return o.answers
}

//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/faketelegram"
	"github.com/clawdhq/clawd/runtime/client"
)

// TestTelegram drives the Telegram channel of a real `clawd serve`
// against a fake Bot API over HTTPS, trusted the way a person's clawd
// trusts Telegram: through the system's roots, here SSL_CERT_FILE naming
// the test CA. `clawd channels pair telegram` pairs the phone; a real
// `clawd hook claude` request is allowed from the phone and then refused
// to the CLI as already answered; with the network cut a request is still
// answered from the CLI at once and `clawd doctor` warns; the bot token is
// in no output.
func TestTelegram(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const token = "7000000001:AAH-e2e_token_for_clawd_0123456789abcd"
	w := newWorld(t)
	api := faketelegram.NewTLS(token)
	defer api.Close()
	ca := filepath.Join(w.dir, "ca.pem")
	for _, f := range []struct {
		path, data string
	}{
		{ca, string(api.CertPEM())},
		{filepath.Join(w.clawdHome, "telegram.token"), token + "\n"},
		{filepath.Join(w.clawdHome, "config.toml"), "[channels.telegram]\nenabled = true\napi_url = \"" + api.URL() + "\"\n"},
	} {
		if err := os.WriteFile(f.path, []byte(f.data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := append(w.clawdEnv(), "SSL_CERT_FILE="+ca)
	clawd := func(stdin string, args ...string) result {
		t.Helper()
		cmd := exec.CommandContext(ctx, clawdBin, args...)
		cmd.Env, cmd.Dir, cmd.Stdin = env, w.project, strings.NewReader(stdin)
		return run(t, cmd)
	}

	// serve, with the test CA among the system's roots.
	cmd := exec.Command(clawdBin, "serve", "--headless", "--port", "0", "--log-level", "debug")
	cmd.Env, cmd.Dir = env, w.dir
	serve := startProc(t, "clawd serve", cmd, io.Discard)
	for end := time.Now().Add(15 * time.Second); ; {
		if r := clawd("", "channels", "status", "--json"); strings.Contains(r.stdout, `"state": "ok"`) {
			break
		}
		if time.Now().After(end) || serve.exited() {
			t.Fatalf("the channel did not connect:\n%s", serve.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Pairing: the code pair prints, sent from the phone.
	pairOut := &syncBuffer{}
	pcmd := exec.CommandContext(ctx, clawdBin, "channels", "pair", "telegram")
	pcmd.Env = env
	pair := startProc(t, "clawd channels pair", pcmd, pairOut)
	re := regexp.MustCompile(`\b[A-Z2-9]{4}-[A-Z2-9]{4}\b`)
	var code string
	for end := time.Now().Add(15 * time.Second); code == ""; {
		code = re.FindString(pairOut.String())
		if time.Now().After(end) || (code == "" && pair.exited()) {
			t.Fatalf("pair printed no code: %q %s", pairOut, pair.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	phone := faketelegram.User{ID: 1001, FirstName: "Ada", Username: "ada"}
	api.Send(phone, code)
	select {
	case <-pair.done:
	case <-time.After(15 * time.Second):
		t.Fatalf("pair did not return after the code was sent: %q", pairOut)
	}
	if pair.err != nil || !strings.Contains(pairOut.String(), "Paired with @ada (chat 1001)") {
		t.Fatalf("pair: %v %q %s", pair.err, pairOut, pair.stderr.String())
	}

	// A real hook's request, allowed from the phone.
	const sid = "5e550000-0000-4000-8000-0000000071e1"
	hook := w.blockingHookEnv(ctx, env, claudePayload(t, "PermissionRequest.json", sid, w.project,
		"tool_input", map[string]string{"command": "npm test", "description": "run the tests"}))
	card := waitCard(t, api, phone.ID, "npm test")
	p := pendingOf(t, clawd, sid)
	if _, err := api.PressButton(phone, phone.ID, card.MessageID, "Allow"); err != nil {
		t.Fatal(err)
	}
	r := hookResult(t, hook)
	if r.code != 0 || !strings.Contains(r.stdout, `"behavior":"allow"`) {
		t.Fatalf("the hook after Allow on the phone: %s", r)
	}
	waitEdited(t, api, phone.ID, card.MessageID, "from Telegram")
	if r := clawd("", "permissions", "deny", p.ID); r.code == 0 || !strings.Contains(r.stderr, "already answered") {
		t.Errorf("clawd permissions deny after the phone's Allow: %s", r)
	}
	if r := clawd("", "doctor"); !regexp.MustCompile(`ok\s+channels.telegram.link: clawd serve polls Telegram as @clawd_test_bot`).MatchString(r.stdout) {
		t.Errorf("clawd doctor with the channel up:\n%s", r.stdout)
	}

	// The network cut: doctor warns, and a hook is answered from the CLI
	// at once.
	api.Cut()
	var doctor string
	for end := time.Now().Add(20 * time.Second); ; {
		doctor = clawd("", "doctor").stdout
		if regexp.MustCompile(`warn\s+channels.telegram.link: clawd serve cannot reach Telegram`).MatchString(doctor) {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("clawd doctor does not warn with the network cut:\n%s", doctor)
		}
		time.Sleep(100 * time.Millisecond)
	}
	const sid2 = "5e550000-0000-4000-8000-0000000071e2"
	hook = w.blockingHookEnv(ctx, env, claudePayload(t, "PermissionRequest.json", sid2, w.project))
	p = pendingOf(t, clawd, sid2)
	start := time.Now()
	if r := clawd("", "permissions", "allow", p.ID); r.code != 0 {
		t.Fatalf("clawd permissions allow with the network cut: %s", r)
	}
	r = hookResult(t, hook)
	took := time.Since(start)
	if r.code != 0 || !strings.Contains(r.stdout, `"behavior":"allow"`) {
		t.Fatalf("the hook with the network cut: %s", r)
	}
	t.Logf("with the network cut, clawd permissions allow to the hook's answer: %v", took.Round(time.Millisecond))
	if took > 3*time.Second {
		t.Errorf("the CLI's answer took %v to reach the hook with the network cut", took)
	}

	// Back online; clawd serve stops with a request pending: the phone
	// hears that it went to the agent's terminal.
	api.Heal()
	const sid3 = "5e550000-0000-4000-8000-0000000071e3"
	hook = w.blockingHookEnv(ctx, env, claudePayload(t, "PermissionRequest.json", sid3, w.project,
		"tool_input", map[string]string{"command": "make release", "description": "release"}))
	card = waitCard(t, api, phone.ID, "make release")

	reportFile := filepath.Join(w.dir, "report.txt")
	clawd("", "doctor", "--report", reportFile)
	reportData, err := os.ReadFile(reportFile)
	if err != nil {
		t.Fatal(err)
	}
	report := string(reportData)
	serve.stop()
	if r := hookResult(t, hook); r.code != 0 || strings.Contains(r.stdout, "behavior") {
		t.Errorf("the hook pending when serve stopped: %s, want no decision", r)
	}
	waitEdited(t, api, phone.ID, card.MessageID, "clawd stopped")
	for what, out := range map[string]string{"serve's log": serve.stderr.String(), "doctor": doctor, "doctor --report": report,
		"pair": pairOut.String()} {
		if strings.Contains(out, token) || strings.Contains(out, strings.SplitN(token, ":", 2)[1]) {
			t.Errorf("%s holds the bot token:\n%s", what, out)
		}
	}
}

// blockingHookEnv is blockingHook with env.
func (w *world) blockingHookEnv(ctx context.Context, env []string, payload string) *blockedHook {
	h := &blockedHook{done: make(chan result, 1)}
	go func() {
		cmd := exec.CommandContext(ctx, clawdBin, "hook", "claude")
		cmd.Env, cmd.Dir, cmd.Stdin = env, w.project, strings.NewReader(payload)
		h.done <- run(w.t, cmd)
	}()
	return h
}

func hookResult(t *testing.T, h *blockedHook) result {
	t.Helper()
	select {
	case r := <-h.done:
		return r
	case <-time.After(20 * time.Second):
		t.Fatal("the hook got no answer")
	}
	return result{}
}

// pendingOf waits for the pending request of session sid.
func pendingOf(t *testing.T, clawd func(string, ...string) result, sid string) client.PermissionView {
	t.Helper()
	for end := time.Now().Add(15 * time.Second); ; {
		var list []client.PermissionView
		json.Unmarshal([]byte(clawd("", "permissions", "--json").stdout), &list)
		for _, p := range list {
			if p.SessionID == sid {
				return p
			}
		}
		if time.Now().After(end) {
			t.Fatalf("no pending request of %s: %+v", sid, list)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func waitCard(t *testing.T, api *faketelegram.Server, chat int64, want string) faketelegram.Message {
	t.Helper()
	var m faketelegram.Message
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := api.Wait(ctx, func() bool {
		for _, bm := range api.BotMessages(chat) {
			if strings.Contains(bm.Text, want) && bm.ReplyMarkup != nil {
				m = bm
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no card with %q: %+v", want, api.BotMessages(chat))
	}
	return m
}

func waitEdited(t *testing.T, api *faketelegram.Server, chat, id int64, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := api.Wait(ctx, func() bool {
		m, ok := api.Message(chat, id)
		return ok && m.ReplyMarkup == nil && strings.Contains(m.Text, want)
	}); err != nil {
		m, _ := api.Message(chat, id)
		t.Fatalf("message %d not edited to %q: %+v", id, want, m)
	}
}

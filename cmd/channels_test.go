package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/faketelegram"
	"github.com/clawdhq/clawd/runtime/channels/telegram"
)

const channelsTestToken = "7000000001:AAH-test_token_for_clawd_0123456789abc"

func writeHomeFile(t *testing.T, home, name, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(home, name), []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(home, name), mode); err != nil {
		t.Fatal(err)
	}
}

// TestChannelsStatus: the JSON says what is set up and what is not, and
// never the token.
func TestChannelsStatus(t *testing.T) {
	home := t.TempDir()
	e, out, _ := testEnv(t, home, nil, nil)
	if code := run(context.Background(), e, []string{"clawd", "channels", "status", "--json"}); code != 0 {
		t.Fatalf("channels status --json: exit %d", code)
	}
	var got map[string]telegramState
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if st := got["telegram"]; st.Enabled || st.Token != "missing" || st.Paired || st.Serving || st.TokenFile != filepath.Join(home, "telegram.token") {
		t.Errorf("status of a fresh home: %+v", st)
	}

	writeHomeFile(t, home, "config.toml", "[channels.telegram]\nenabled = true\n", 0o600)
	writeHomeFile(t, home, "telegram.token", channelsTestToken+"\n", 0o644)
	e, out, _ = testEnv(t, home, nil, nil)
	if code := run(context.Background(), e, []string{"clawd", "channels", "status"}); code != 0 {
		t.Fatalf("channels status: exit %d", code)
	}
	for _, want := range []string{"telegram: on", "others may read", "chmod 600", "not paired", "clawd serve does not run it"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("channels status lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out.String(), channelsTestToken) {
		t.Errorf("channels status prints the token:\n%s", out)
	}
}

// TestChannelsPairRefusals: pairing says what is missing first.
func TestChannelsPairRefusals(t *testing.T) {
	home := t.TempDir()
	try := func(want string, code int, args ...string) {
		t.Helper()
		e, _, errb := testEnv(t, home, nil, nil)
		if got := run(context.Background(), e, append([]string{"clawd", "channels"}, args...)); got != code || !strings.Contains(errb.String(), want) {
			t.Errorf("clawd channels %s: exit %d, stderr %q; want exit %d with %q", strings.Join(args, " "), got, errb, code, want)
		}
	}
	try("unknown channel \"slack\"", 2, "pair", "slack")
	try("usage: clawd channels pair telegram", 2, "pair")
	try("the Telegram channel is off", 1, "pair", "telegram")
	writeHomeFile(t, home, "config.toml", "[channels.telegram]\nenabled = true\n", 0o600)
	try("no bot token in", 1, "pair", "telegram")
	writeHomeFile(t, home, "telegram.token", channelsTestToken, 0o640)
	try("chmod 600", 1, "pair", "telegram")
	writeHomeFile(t, home, "telegram.token", channelsTestToken, 0o600)
	try("clawd is not running", 1, "pair", "telegram")
	try("--for 5s", 2, "pair", "--for", "5s", "telegram")
	startRuntime(t, home) // without the channel: a serve started before the config changed
	try("does not run the Telegram channel: restart it", 1, "pair", "telegram")
}

// TestChannelsPair: the code the command prints, sent to the bot, pairs
// the chat; the command says so and returns; unpair forgets it.
func TestChannelsPair(t *testing.T) {
	home := t.TempDir()
	writeHomeFile(t, home, "config.toml", "[channels.telegram]\nenabled = true\n", 0o600)
	writeHomeFile(t, home, "telegram.token", channelsTestToken, 0o600)
	srv := startRuntime(t, home)
	api := faketelegram.New(channelsTestToken)
	defer api.Close()
	ch := telegram.New(telegram.Options{Runtime: srv, Home: home, TokenFile: filepath.Join(home, "telegram.token"), APIURL: api.URL()})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { ch.Run(ctx); close(ran) }()
	defer func() { cancel(); <-ran }()
	for end := time.Now().Add(10 * time.Second); ; {
		if s, ok, _ := telegram.ReadStatus(home); ok && s.State == telegram.StateOK {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the channel did not connect")
		}
		time.Sleep(5 * time.Millisecond)
	}

	out := &syncBuffer{}
	e, _, errb := testEnv(t, home, nil, nil)
	e.stdout = out
	code := make(chan int, 1)
	go func() { code <- run(context.Background(), e, []string{"clawd", "channels", "pair", "telegram"}) }()
	re := regexp.MustCompile(`\b([A-Z2-9]{4}-[A-Z2-9]{4})\b`)
	var pairing string
	for end := time.Now().Add(10 * time.Second); pairing == ""; {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			pairing = m[1]
		}
		if time.Now().After(end) {
			t.Fatalf("no code printed: %q %q", out, errb)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "@clawd_test_bot") || !strings.Contains(out.String(), "https://t.me/clawd_test_bot?start="+strings.ReplaceAll(pairing, "-", "")) {
		t.Errorf("pair names neither the bot nor its link:\n%s", out)
	}
	person := faketelegram.User{ID: 1001, FirstName: "Ada", Username: "ada"}
	api.Send(person, pairing)
	select {
	case c := <-code:
		if c != 0 || !strings.Contains(out.String(), "Paired with @ada (chat 1001)") {
			t.Fatalf("pair: exit %d\n%s%s", c, out, errb)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("pair did not return after the code was sent:\n%s", out)
	}

	e, sout, _ := testEnv(t, home, nil, nil)
	if c := run(context.Background(), e, []string{"clawd", "channels", "status"}); c != 0 ||
		!strings.Contains(sout.String(), "paired with @ada (chat 1001)") || !strings.Contains(sout.String(), "connected to Telegram as @clawd_test_bot") {
		t.Errorf("status after pairing: exit %d\n%s", c, sout)
	}
	e, sout, _ = testEnv(t, home, nil, nil)
	if c := run(context.Background(), e, []string{"clawd", "channels", "unpair", "telegram"}); c != 0 || !strings.Contains(sout.String(), "Unpaired from @ada") {
		t.Errorf("unpair: exit %d\n%s", c, sout)
	}
	if _, ok, _ := telegram.ReadChat(home); ok {
		t.Error("a chat is still paired after unpair")
	}
	e, sout, _ = testEnv(t, home, nil, nil)
	if c := run(context.Background(), e, []string{"clawd", "channels", "unpair", "telegram"}); c != 0 || !strings.Contains(sout.String(), "No chat was paired.") {
		t.Errorf("unpair again: exit %d\n%s", c, sout)
	}
}

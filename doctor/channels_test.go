package doctor

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/config"
	"github.com/clawdhq/clawd/internal/faketelegram"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/channels/telegram"
	"github.com/clawdhq/clawd/runtime/client"
)

const botToken = "7000000001:AAH-test_token_for_clawd_0123456789abc"

// channelChecks runs the runtime's and the channels' checks of home.
func channelChecks(t *testing.T, home string) map[string]Check {
	t.Helper()
	o := Options{Home: home, Getenv: func(string) string { return "" }, Version: "test", Ports: []int{closedPort(t)}}
	o.defaults()
	cfg, err := config.Load(home)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Check{}
	for _, c := range checkChannels(o, cfg, checkRuntime(context.Background(), o)) {
		out[c.ID] = c
	}
	return out
}

func telegramHome(t *testing.T) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), ".clawd")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[channels.telegram]\nenabled = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// TestChannelChecksFiles: the token file and the pairing, without and
// with a clawd serve.
func TestChannelChecksFiles(t *testing.T) {
	if got := channelChecks(t, t.TempDir()); len(got) != 0 {
		t.Errorf("checks of a channel that is off: %+v", got)
	}
	home := telegramHome(t)
	checks := channelChecks(t, home)
	want(t, checks, "channels.telegram.token", Fail, "no bot token in "+filepath.Join(home, "telegram.token"))
	want(t, checks, "channels.telegram.paired", Warn, "no chat is paired")
	want(t, checks, "channels.telegram.link", Skipped, "clawd serve is not running")
	path := filepath.Join(home, "telegram.token")
	if err := os.WriteFile(path, []byte(botToken), 0o644); err != nil {
		t.Fatal(err)
	}
	checks = channelChecks(t, home)
	want(t, checks, "channels.telegram.token", Fail, "others may read")
	if c := checks["channels.telegram.token"]; c.Fix != "chmod 600 "+path {
		t.Errorf("the token check's fix = %q, want chmod 600 %s", c.Fix, path)
	}
	os.Chmod(path, 0o600)
	want(t, channelChecks(t, home), "channels.telegram.token", OK, "readable by you alone")
	// A serve that does not run the channel (started before it was on).
	startRuntime(t, home)
	want(t, channelChecks(t, home), "channels.telegram.link", Warn, "does not run the Telegram channel")
}

// TestChannelChecksLink: the channel of a real clawd serve against a fake
// Bot API: connected, then the network cut (a warning that says so),
// then back, then the token revoked (a failure).
func TestChannelChecksLink(t *testing.T) {
	home := telegramHome(t)
	path := filepath.Join(home, "telegram.token")
	if err := os.WriteFile(path, []byte(botToken), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := runtime.New(runtime.Config{Home: home, Version: "test"})
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() { done <- srv.Run(ctx, 0, func(client.Info) { close(ready) }) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("runtime: %v", err)
	}
	api := faketelegram.New(botToken)
	defer api.Close()
	ch := telegram.New(telegram.Options{Runtime: srv, Home: home, TokenFile: path, APIURL: api.URL(),
		After: func(d time.Duration) <-chan time.Time { return time.After(min(d, 20*time.Millisecond)) }})
	ran := make(chan struct{})
	go func() { ch.Run(ctx); close(ran) }()
	t.Cleanup(func() { cancel(); <-ran; <-done })
	p, err := telegram.StartPairing(home, time.Now(), time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	api.Send(faketelegram.User{ID: 1001, FirstName: "Ada", Username: "ada"}, p.Code)

	until := func(id string, s Status) map[string]Check {
		t.Helper()
		var checks map[string]Check
		for end := time.Now().Add(10 * time.Second); ; {
			checks = channelChecks(t, home)
			if checks[id].Status == s {
				return checks
			}
			if time.Now().After(end) {
				t.Fatalf("%s never %s: %+v", id, s, checks[id])
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	checks := until("channels.telegram.link", OK)
	want(t, checks, "channels.telegram.link", OK, "clawd serve polls Telegram as @clawd_test_bot")
	until("channels.telegram.paired", OK)
	want(t, channelChecks(t, home), "channels.telegram.paired", OK, "paired with @ada (chat 1001)")

	api.Cut()
	checks = until("channels.telegram.link", Warn)
	want(t, checks, "channels.telegram.link", Warn, "clawd serve cannot reach Telegram")
	if c := checks["channels.telegram.link"]; !strings.Contains(c.Fix, "network") {
		t.Errorf("the cut link's fix = %q", c.Fix)
	}
	api.Heal()
	until("channels.telegram.link", OK)

	api.Revoke()
	checks = until("channels.telegram.link", Fail)
	want(t, checks, "channels.telegram.link", Fail, "Telegram rejected the bot token")
	for _, c := range checks {
		if strings.Contains(c.Finding+c.Fix, botToken) {
			t.Errorf("%s holds the token: %+v", c.ID, c)
		}
	}
}

// TestReportRedactsBotToken: doctor --report carries neither the bot
// token of the configured file nor anything shaped like a bot token.
func TestReportRedactsBotToken(t *testing.T) {
	home := telegramHome(t)
	if err := os.WriteFile(filepath.Join(home, "telegram.token"), []byte(botToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := "123456789:AAEhBOweik6ad9r_QXMENQjcrGbqCr4K-ac"
	logs := filepath.Join(home, "logs")
	os.MkdirAll(logs, 0o700)
	os.WriteFile(filepath.Join(logs, "hook.log"), []byte("a line with "+botToken+" and "+other+"\n"), 0o600)
	r := Report{Checks: []Check{{ID: "channels.telegram.link", Status: Warn, Finding: "sent to /bot" + botToken + "/getMe"}}}
	var b bytes.Buffer
	if err := WriteReport(&b, Options{Home: home, Getenv: func(string) string { return "" }, Version: "test"}, r); err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{botToken, strings.SplitN(botToken, ":", 2)[1], other} {
		if strings.Contains(b.String(), secret) {
			t.Errorf("the report holds %q:\n%s", secret, b.String())
		}
	}
}

package telegram_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/faketelegram"
	"github.com/clawdhq/clawd/runtime/channels/telegram"
	"github.com/clawdhq/clawd/runtime/client"
)

// feedRuntime is a Runtime whose view and feed the test sets.
type feedRuntime struct {
	mu      sync.Mutex
	pending []client.PermissionView
	changes chan client.Change
}

func (f *feedRuntime) View() client.View {
	f.mu.Lock()
	defer f.mu.Unlock()
	return client.View{Permissions: append([]client.PermissionView(nil), f.pending...)}
}

func (f *feedRuntime) Subscribe(int) (<-chan client.Change, func()) { return f.changes, func() {} }

func (f *feedRuntime) Decide(id string, d client.DecisionBody) (client.PermissionView, error) {
	return client.PermissionView{ID: id}, nil
}

func (f *feedRuntime) set(p ...client.PermissionView) {
	f.mu.Lock()
	f.pending = p
	f.mu.Unlock()
}

// TestResyncAfterLoss: requests pending when the channel starts get their
// messages; after the feed lost changes, a request that closed unseen has
// its message say so and one added unseen gets its message.
func TestResyncAfterLoss(t *testing.T) {
	home := t.TempDir()
	tokenFile := filepath.Join(home, telegram.DefaultTokenFile)
	if err := os.WriteFile(tokenFile, []byte(testToken), 0o600); err != nil {
		t.Fatal(err)
	}
	api := faketelegram.New(testToken)
	defer api.Close()
	rt := &feedRuntime{changes: make(chan client.Change, 8)}
	view := func(id, cmd string) client.PermissionView {
		return client.PermissionView{ID: id, Kind: client.KindPermission, Agent: "claude", Tool: "Bash", Summary: cmd, State: "pending"}
	}
	rt.set(view("a1", "make a"))
	p, err := telegram.StartPairing(home, time.Now(), time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	api.Send(person, p.Code)
	ch := telegram.New(telegram.Options{Runtime: rt, Home: home, TokenFile: tokenFile, APIURL: api.URL()})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { ch.Run(ctx); close(ran) }()
	defer func() { cancel(); <-ran }()

	wait := func(what string, cond func() bool) {
		t.Helper()
		wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
		defer wcancel()
		if err := api.Wait(wctx, cond); err != nil {
			t.Fatalf("no %s: %q", what, messageTexts(api.BotMessages(person.ID)))
		}
	}
	find := func(want string) (faketelegram.Message, bool) {
		for _, m := range api.BotMessages(person.ID) {
			if strings.Contains(m.Text, want) {
				return m, true
			}
		}
		return faketelegram.Message{}, false
	}
	wait("message of the request pending at the start", func() bool { _, ok := find("make a"); return ok })

	rt.set(view("b2", "make b"))
	rt.changes <- client.Change{Display: true, Dropped: 5}
	wait("message of the request added unseen", func() bool { _, ok := find("make b"); return ok })
	wait("the unseen close on the first message", func() bool {
		m, ok := find("make a")
		return ok && m.ReplyMarkup == nil && strings.Contains(m.Text, "Closed: answered elsewhere or withdrawn.")
	})
}

package faketelegram

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

const token = "123:abcdefghijklmnopqrstuvwxyz"

// answer is the Bot API's envelope.
type answer struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
}

func post(t *testing.T, s *Server, hc *http.Client, method string, params any) (int, answer) {
	t.Helper()
	b, _ := json.Marshal(params)
	resp, err := hc.Post(s.URL()+"/bot"+token+"/"+method, "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	var a answer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return resp.StatusCode, a
}

func TestContract(t *testing.T) {
	s := New(token)
	defer s.Close()
	hc := &http.Client{Timeout: 10 * time.Second}

	// A wrong token is 401, an unknown method 404; method names are
	// case-insensitive, and GET with a query string works.
	resp, err := hc.Get(s.URL() + "/bot999:wrong/getMe")
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong token: %v %v, want 401", resp, err)
	}
	if code, a := post(t, s, hc, "nosuch", nil); code != 404 || a.OK || a.Description != "Not Found" {
		t.Errorf("unknown method: %d %+v", code, a)
	}
	resp, err = hc.Get(s.URL() + "/bot" + token + "/GETME")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("GET GETME: %v %v", resp, err)
	}

	// The bot cannot write first.
	if code, a := post(t, s, hc, "sendMessage", map[string]any{"chat_id": 1001, "text": "hi"}); code != 400 || !strings.Contains(a.Description, "chat not found") {
		t.Errorf("sendMessage to a chat that never wrote: %d %+v", code, a)
	}
	u := User{ID: 1001, FirstName: "Ada"}
	s.Send(u, "hello")
	// getUpdates returns it; the next call with offset past it confirms it.
	code, a := post(t, s, hc, "getUpdates", map[string]any{"timeout": 0})
	var ups []Update
	json.Unmarshal(a.Result, &ups)
	if code != 200 || len(ups) != 1 || ups[0].Message.Text != "hello" || ups[0].UpdateID < 1000 {
		t.Fatalf("getUpdates: %d %s", code, a.Result)
	}
	_, a = post(t, s, hc, "getUpdates", map[string]any{"offset": ups[0].UpdateID + 1, "timeout": 0})
	if string(a.Result) != "[]" {
		t.Errorf("getUpdates after confirming: %s, want []", a.Result)
	}

	// callback_data over 64 bytes is refused; a keyboard message goes.
	long := map[string]any{"chat_id": 1001, "text": "x", "reply_markup": map[string]any{
		"inline_keyboard": [][]map[string]string{{{"text": "A", "callback_data": strings.Repeat("d", 65)}}}}}
	if code, a := post(t, s, hc, "sendMessage", long); code != 400 || !strings.Contains(a.Description, "BUTTON_DATA_INVALID") {
		t.Errorf("65-byte callback data: %d %+v", code, a)
	}
	kb := map[string]any{"inline_keyboard": [][]map[string]string{{{"text": "Allow", "callback_data": "c1.x.a"}}}}
	code, a = post(t, s, hc, "sendMessage", map[string]any{"chat_id": 1001, "text": "may I?", "reply_markup": kb})
	var m Message
	json.Unmarshal(a.Result, &m)
	if code != 200 || m.MessageID == 0 || m.From == nil || !m.From.IsBot || m.ReplyMarkup == nil {
		t.Fatalf("sendMessage: %d %s", code, a.Result)
	}

	// A long poll wakes when the person presses.
	got := make(chan []Update, 1)
	go func() {
		_, a := post(t, s, hc, "getUpdates", map[string]any{"timeout": 30})
		var ups []Update
		json.Unmarshal(a.Result, &ups)
		got <- ups
	}()
	s.Wait(context.Background(), func() bool { s.mu.Lock(); defer s.mu.Unlock(); return s.pollGen >= 3 })
	qid, err := s.PressButton(u, 1001, m.MessageID, "Allow")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case ups := <-got:
		if len(ups) != 1 || ups[0].CallbackQuery == nil || ups[0].CallbackQuery.Data != "c1.x.a" || ups[0].CallbackQuery.Message.MessageID != m.MessageID {
			t.Errorf("long poll got %+v, want the press", ups)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the long poll did not wake on the press")
	}

	// A press is answered once.
	if code, _ := post(t, s, hc, "answerCallbackQuery", map[string]any{"callback_query_id": qid, "text": "ok"}); code != 200 {
		t.Errorf("answerCallbackQuery: %d", code)
	}
	if code, a := post(t, s, hc, "answerCallbackQuery", map[string]any{"callback_query_id": qid}); code != 400 || !strings.Contains(a.Description, "query is too old") {
		t.Errorf("a second answerCallbackQuery: %d %+v", code, a)
	}

	// An edit without reply_markup drops the keyboard; the same edit again
	// is "not modified".
	edit := map[string]any{"chat_id": 1001, "message_id": m.MessageID, "text": "allowed"}
	if code, _ := post(t, s, hc, "editMessageText", edit); code != 200 {
		t.Errorf("editMessageText: %d", code)
	}
	if now, _ := s.Message(1001, m.MessageID); now.Text != "allowed" || now.ReplyMarkup != nil || now.EditDate == 0 {
		t.Errorf("after the edit: %+v", now)
	}
	if code, a := post(t, s, hc, "editMessageText", edit); code != 400 || !strings.Contains(a.Description, "message is not modified") {
		t.Errorf("the same edit again: %d %+v", code, a)
	}

	// Form bodies work too.
	resp, err = hc.PostForm(s.URL()+"/bot"+token+"/sendMessage", url.Values{"chat_id": {"1001"}, "text": {"form"}})
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("form sendMessage: %v %v", resp, err)
	}

	// Revoked: 401 from then on.
	s.Revoke()
	if code, _ := post(t, s, hc, "getMe", nil); code != 401 {
		t.Errorf("getMe after Revoke: %d, want 401", code)
	}
}

// TestConflict: a second getUpdates ends the one waiting with 409.
func TestConflict(t *testing.T) {
	s := New(token)
	defer s.Close()
	hc := &http.Client{Timeout: 10 * time.Second}
	first := make(chan int, 1)
	go func() {
		code, _ := post(t, s, hc, "getUpdates", map[string]any{"timeout": 30})
		first <- code
	}()
	s.Wait(context.Background(), func() bool { s.mu.Lock(); defer s.mu.Unlock(); return s.pollGen == 1 })
	if code, _ := post(t, s, hc, "getUpdates", map[string]any{"timeout": 0}); code != 200 {
		t.Errorf("the second getUpdates: %d", code)
	}
	select {
	case code := <-first:
		if code != http.StatusConflict {
			t.Errorf("the first getUpdates: %d, want 409", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first getUpdates did not end")
	}
}

// TestTLSAndCut: over TLS a client must trust the test CA; Cut refuses
// connections until Heal.
func TestTLSAndCut(t *testing.T) {
	s := NewTLS(token)
	defer s.Close()
	if _, err := (&http.Client{Timeout: 5 * time.Second}).Get(s.URL() + "/bot" + token + "/getMe"); err == nil {
		t.Error("a client without the test CA connected")
	}
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.CertPool()}}}
	if code, _ := post(t, s, hc, "getMe", nil); code != 200 {
		t.Fatalf("getMe with the test CA: %d", code)
	}
	s.Cut()
	hc.CloseIdleConnections()
	if _, err := hc.Get(s.URL() + "/bot" + token + "/getMe"); err == nil {
		t.Error("a request went through the cut")
	}
	s.Heal()
	if code, _ := post(t, s, hc, "getMe", nil); code != 200 {
		t.Errorf("getMe after Heal: %d", code)
	}
}

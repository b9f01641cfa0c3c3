package telegram_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/faketelegram"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/channels/telegram"
	"github.com/clawdhq/clawd/runtime/client"
)

// TestPairing: only the chat that sends the waiting code is paired, once;
// a wrong code, a used code and an expired code pair nobody.
func TestPairing(t *testing.T) {
	r := newRig(t, rigOptions{})
	r.waitState(telegram.StateOK)
	if _, ok, _ := telegram.ReadChat(r.home); ok {
		t.Fatal("a chat is paired before any pairing")
	}
	p, err := telegram.StartPairing(r.home, r.clock.now(), telegram.DefaultPairingTTL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Code) != 9 || p.Code[4] != '-' {
		t.Errorf("pairing code %q, want XXXX-XXXX", p.Code)
	}
	// A guess first, then the code, in lower case after /start as a deep
	// link sends it.
	r.api.Send(stranger, "ABCD-EFGH")
	r.api.Send(person, "/start "+strings.ToLower(p.Code))
	c := r.waitPaired()
	if c.ChatID != person.ID || c.UserID != person.ID || c.Name != "@ada" {
		t.Errorf("paired %+v, want the person's chat %d", c, person.ID)
	}
	for _, name := range []string{"telegram.chat.json"} {
		fi, err := os.Stat(filepath.Join(r.home, "channels", name))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v; want 0600", name, err, fi.Mode().Perm())
		}
	}
	if _, err := os.Stat(filepath.Join(r.home, "channels", "telegram.pairing.json")); !os.IsNotExist(err) {
		t.Errorf("the pairing file is still there after the pairing (stat: %v)", err)
	}
	r.waitAPI("the paired notice", func() bool {
		ms := r.api.BotMessages(person.ID)
		return len(ms) == 1 && strings.Contains(ms[0].Text, "Paired")
	})
	if ms := r.api.BotMessages(stranger.ID); len(ms) != 0 {
		t.Errorf("the bot wrote to the stranger: %+v", ms)
	}

	// The code is used up: the stranger sending it now pairs nothing.
	r.api.Send(stranger, p.Code)
	// And an expired code pairs nobody either.
	p2, err := telegram.StartPairing(r.home, r.clock.now(), time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.clock.advance(2 * time.Minute)
	r.api.Send(stranger, p2.Code)
	r.eventually("the expired code's file to go", func() bool {
		_, err := os.Stat(filepath.Join(r.home, "channels", "telegram.pairing.json"))
		return os.IsNotExist(err)
	})
	if c, _, _ := telegram.ReadChat(r.home); c.ChatID != person.ID {
		t.Errorf("paired with %+v after a used and an expired code, want still %d", c, person.ID)
	}
	if !strings.Contains(r.logs.String(), "not the pairing code") {
		t.Errorf("the log does not say the guess was ignored:\n%s", r.logs.String())
	}
}

// TestAllowFromPhone: a request arrives with its buttons, Allow on the
// phone answers the hook, the message says so, and the dashboard's button
// for the same request is then refused as already answered.
func TestAllowFromPhone(t *testing.T) {
	r := newRig(t, rigOptions{paired: &person})
	r.waitPaired()
	hook := r.ask("s1", "npm test")
	v := r.pending("s1")
	m := r.card(person.ID, "npm test")
	for _, want := range []string{"Claude Code", "Bash", "proj"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("card %q lacks %q", m.Text, want)
		}
	}
	if got, want := m.Labels(), []string{"Allow", "Deny", "Answer in terminal"}; !slices.Equal(got, want) {
		t.Errorf("buttons %q, want %q", got, want)
	}
	q := r.press(person, m, "Allow")
	h := r.hookAnswer(hook)
	if h.ans.Decision == nil || !h.ans.Decision.Allow {
		t.Fatalf("hook got %+v, want allow", h.ans)
	}
	if a := r.answerTo(q); a.Text != "Allowed." {
		t.Errorf("the press's notice = %q, want Allowed.", a.Text)
	}
	r.edited(person.ID, m.MessageID, "Allowed Bash: npm test — from Telegram")
	_, err := r.srv.Decide(v.ID, client.DecisionBody{Behavior: client.Deny, Via: client.SourceDashboard})
	if !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("the dashboard's Deny after the phone's Allow: %v, want ErrClosed", err)
	}
}

// TestDashboardFirst: the dashboard answers first; the phone's message
// says so, and its button is then refused.
func TestDashboardFirst(t *testing.T) {
	r := newRig(t, rigOptions{paired: &person})
	r.waitPaired()
	hook := r.ask("s1", "make deploy")
	v := r.pending("s1")
	m := r.card(person.ID, "make deploy")
	if _, err := r.srv.Decide(v.ID, client.DecisionBody{Behavior: client.Deny, Via: client.SourceDashboard}); err != nil {
		t.Fatal(err)
	}
	if h := r.hookAnswer(hook); h.ans.Decision == nil || h.ans.Decision.Allow {
		t.Fatalf("hook got %+v, want deny", h.ans)
	}
	r.edited(person.ID, m.MessageID, "Denied Bash: make deploy — from the dashboard")
	// A stale view on the phone: the press of the keyboard it still shows.
	q, err := r.api.Press(person, person.ID, m.MessageID, m.ReplyMarkup.InlineKeyboard[0][0].CallbackData)
	if err != nil {
		t.Fatal(err)
	}
	if a := r.answerTo(q); a.Text != "Already answered." {
		t.Errorf("the phone's Allow after the dashboard's Deny: notice %q, want Already answered.", a.Text)
	}
}

// TestTimeoutNeverDenies: a request nobody answers goes to the agent's
// terminal with no decision, and the message says so.
func TestTimeoutNeverDenies(t *testing.T) {
	r := newRig(t, rigOptions{paired: &person})
	r.waitPaired()
	hook := r.ask("s1", "rm -rf build")
	m := r.card(person.ID, "rm -rf build")
	var tm timer
	select {
	case tm = <-r.timers:
	case <-time.After(10 * time.Second):
		t.Fatal("the broker set no timeout")
	}
	tm.ch <- time.Now()
	h := r.hookAnswer(hook)
	if h.ans.Decision != nil || h.ans.Reason != client.ReasonTimeout {
		t.Fatalf("hook got %+v after the timeout, want no decision (timeout)", h.ans)
	}
	got := r.edited(person.ID, m.MessageID, "in time: the agent asks in its terminal")
	if strings.Contains(got.Text, "Denied") {
		t.Errorf("the timed-out card says %q", got.Text)
	}
}

// TestPressFromOthers: a press from another chat, or in the paired group
// by someone who did not pair it, is ignored: the request stays pending
// and the person's own press then answers it.
func TestPressFromOthers(t *testing.T) {
	group := groupChat
	r := newRig(t, rigOptions{paired: &person, group: &group})
	if c := r.waitPaired(); c.ChatID != group.ID || c.UserID != person.ID {
		t.Fatalf("paired %+v, want the group %d by %d", c, group.ID, person.ID)
	}
	hook := r.ask("s1", "git push")
	v := r.pending("s1")
	m := r.card(group.ID, "git push")
	allow, _ := m.Button("Allow")

	// The stranger presses Allow in the paired group: the right message,
	// the right token, the wrong person.
	q1 := r.press(stranger, m, "Allow")
	// And sends the same data from a chat of their own, on a message of
	// theirs (a bad client can send any data).
	own := r.api.Send(stranger, "hello")
	q2, err := r.api.Press(stranger, stranger.ID, own.MessageID, allow.CallbackData)
	if err != nil {
		t.Fatal(err)
	}
	// The person who paired the group, in their private chat with the
	// bot: the right person, the wrong chat.
	mine := r.api.Send(person, "hello")
	q3, err := r.api.Press(person, person.ID, mine.MessageID, allow.CallbackData)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{q1, q2, q3} {
		if a := r.answerTo(q); a.Text != "This chat is not paired with clawd." {
			t.Errorf("a press from another person or chat got notice %q", a.Text)
		}
	}
	if p := r.pending("s1"); p.ID != v.ID {
		t.Fatalf("request %s gone after the stranger's presses", v.ID)
	}
	select {
	case h := <-hook:
		t.Fatalf("the hook was answered by a press from another person or chat: %+v", h)
	default:
	}
	r.press(person, m, "Deny")
	if h := r.hookAnswer(hook); h.ans.Decision == nil || h.ans.Decision.Allow {
		t.Fatalf("hook got %+v, want the person's deny", h.ans)
	}
	r.edited(group.ID, m.MessageID, "Denied Bash: git push — from Telegram")
}

// TestReplayedPress: a callback query delivered again is ignored (not
// answered twice), a second tap and a button of another request's
// message are refused, and data made up is refused.
func TestReplayedPress(t *testing.T) {
	r := newRig(t, rigOptions{paired: &person})
	r.waitPaired()
	hookA := r.ask("sa", "echo a")
	hookB := r.ask("sb", "echo b")
	a := r.card(person.ID, "echo a")
	b := r.card(person.ID, "echo b")

	// A's Allow on B's message: A's token, B's message.
	allowA, _ := a.Button("Allow")
	q, err := r.api.Press(person, person.ID, b.MessageID, allowA.CallbackData)
	if err != nil {
		t.Fatal(err)
	}
	if ans := r.answerTo(q); ans.Text != "This is not a button of this request." {
		t.Errorf("A's button on B's message: notice %q", ans.Text)
	}
	// Made-up data: a request id where the token goes.
	vb := r.pending("sb")
	q, _ = r.api.Press(person, person.ID, b.MessageID, "c1."+vb.ID+".a")
	if ans := r.answerTo(q); ans.Text != "This is not a button of this request." {
		t.Errorf("made-up data: notice %q", ans.Text)
	}
	r.pending("sa")
	r.pending("sb")

	// A's Deny, then the same query delivered again.
	qa := r.press(person, a, "Deny")
	if h := r.hookAnswer(hookA); h.ans.Decision == nil || h.ans.Decision.Allow {
		t.Fatalf("hook A got %+v, want deny", h.ans)
	}
	r.answerTo(qa)
	r.edited(person.ID, a.MessageID, "Denied")
	if err := r.api.Replay(qa); err != nil {
		t.Fatal(err)
	}
	// The replay is behind B's press below in the fake's queue: once B's
	// press is answered, the replay has been taken.
	qb := r.press(person, b, "Allow")
	r.answerTo(qb)
	if h := r.hookAnswer(hookB); h.ans.Decision == nil || !h.ans.Decision.Allow {
		t.Fatalf("hook B got %+v, want allow", h.ans)
	}
	if n := r.answersOf(qa); n != 1 {
		t.Errorf("the replayed press was answered %d times, want once", n)
	}
	if !strings.Contains(r.logs.String(), "a press delivered again, ignored") {
		t.Errorf("the log does not say the replay was ignored:\n%s", r.logs.String())
	}
	// A second tap on A's keyboard as the phone still showed it.
	denyA, _ := a.Button("Deny")
	q, _ = r.api.Press(person, person.ID, a.MessageID, denyA.CallbackData)
	if ans := r.answerTo(q); ans.Text != "Already answered." {
		t.Errorf("a second tap: notice %q", ans.Text)
	}
}

// answersOf counts the answerCallbackQuery calls the fake got for query
// id, answered or refused.
func (r *rig) answersOf(id string) int {
	n := 0
	for _, a := range r.api.Answers() {
		if a.QueryID == id {
			n++
		}
	}
	_, failed := r.api.CallsOf("answerCallbackQuery")
	return n + failed
}

// TestButtonLifetime: a button past its lifetime is refused though its
// request still waits.
func TestButtonLifetime(t *testing.T) {
	r := newRig(t, rigOptions{paired: &person, lifetime: time.Hour})
	r.waitPaired()
	hook := r.ask("s1", "npm publish")
	m := r.card(person.ID, "npm publish")
	r.clock.advance(2 * time.Hour)
	q := r.press(person, m, "Allow")
	if a := r.answerTo(q); a.Text != "This button has expired." {
		t.Errorf("a press past the lifetime: notice %q", a.Text)
	}
	r.pending("s1")
	select {
	case h := <-hook:
		t.Fatalf("the hook was answered by an expired button: %+v", h)
	default:
	}
}

// TestNetworkCut: with the network cut mid-poll, a hook's request is
// still answered at once from the CLI, the status says the channel
// fails (what doctor reads), and once the network is back the request
// that came meanwhile is on the phone.
func TestNetworkCut(t *testing.T) {
	r := newRig(t, rigOptions{paired: &person})
	r.waitPaired()
	r.waitState(telegram.StateOK)
	r.api.Cut()
	st := r.waitState(telegram.StateFailing)
	if st.Error == "" || st.PID != os.Getpid() {
		t.Errorf("status %+v, want an error and this process", st)
	}
	hook := r.ask("s1", "go test ./...")
	v := r.pending("s1")
	start := time.Now()
	cli := client.NewSocket(r.sock, client.Options{})
	if _, err := cli.Decide(context.Background(), v.ID, client.DecisionBody{Behavior: client.Allow, Via: client.SourceCLI}); err != nil {
		t.Fatal(err)
	}
	h := r.hookAnswer(hook)
	if h.ans.Decision == nil || !h.ans.Decision.Allow {
		t.Fatalf("hook got %+v, want allow", h.ans)
	}
	if d := h.at.Sub(start); d > time.Second {
		t.Errorf("the CLI's answer took %v to reach the hook with the network cut", d)
	}
	hook2 := r.ask("s2", "go vet ./...")
	r.pending("s2")
	r.api.Heal()
	r.waitState(telegram.StateOK)
	m := r.card(person.ID, "go vet")
	r.press(person, m, "Allow")
	if h := r.hookAnswer(hook2); h.ans.Decision == nil || !h.ans.Decision.Allow {
		t.Fatalf("hook 2 got %+v, want allow", h.ans)
	}
	if strings.Contains(strings.Join(messageTexts(r.api.BotMessages(person.ID)), "\n"), "go test") {
		t.Errorf("the request answered during the cut was sent after it: %q", messageTexts(r.api.BotMessages(person.ID)))
	}
}

func messageTexts(ms []faketelegram.Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Text)
	}
	return out
}

// TestTokenRejected: a revoked token puts the channel in token_rejected;
// a request is still answered from the CLI.
func TestTokenRejected(t *testing.T) {
	r := newRig(t, rigOptions{paired: &person})
	r.waitPaired()
	r.waitState(telegram.StateOK)
	r.api.Revoke()
	st := r.waitState(telegram.StateTokenRejected)
	if !strings.Contains(st.Error, "401") {
		t.Errorf("status error %q, want Telegram's 401", st.Error)
	}
	hook := r.ask("s1", "ls")
	v := r.pending("s1")
	if _, err := r.srv.Decide(v.ID, client.DecisionBody{Behavior: client.Allow, Via: client.SourceCLI}); err != nil {
		t.Fatal(err)
	}
	if h := r.hookAnswer(hook); h.ans.Decision == nil || !h.ans.Decision.Allow {
		t.Fatalf("hook got %+v, want allow", h.ans)
	}
}

// TestUntrustedCertificate: the client checks the server's certificate:
// without the test CA the channel does not connect, and says why.
func TestUntrustedCertificate(t *testing.T) {
	r := newRig(t, rigOptions{noRoots: true})
	st := r.waitState(telegram.StateFailing)
	if !strings.Contains(st.Error, "certificate") {
		t.Errorf("status error %q, want a certificate error", st.Error)
	}
	if n, _ := r.api.CallsOf("getMe"); n != 0 {
		t.Errorf("the fake answered %d getMe calls over an untrusted connection", n)
	}
}

// TestPlanAndQuestion: a plan offers Approve (an allow); a question
// without an answer API offers only the terminal and lists its options;
// with one, its options are buttons that answer it.
func TestPlanAndQuestion(t *testing.T) {
	rec := &answers{}
	r := newRig(t, rigOptions{paired: &person, answers: rec})
	r.waitPaired()
	plan := r.askRaw("sp", "ExitPlanMode", `{"tool_input":{"plan":"1. Write the parser\n2. Test it"}}`)
	m := r.card(person.ID, "plan")
	if got, want := m.Labels(), []string{"Approve plan", "Answer in terminal"}; !slices.Equal(got, want) {
		t.Errorf("plan buttons %q, want %q", got, want)
	}
	r.press(person, m, "Approve plan")
	if h := r.hookAnswer(plan); h.ans.Decision == nil || !h.ans.Decision.Allow {
		t.Fatalf("plan hook got %+v, want allow", h.ans)
	}
	r.edited(person.ID, m.MessageID, "Approved the plan")

	question := `{"tool_input":{"questions":[{"question":"Which database?","header":"DB","multiSelect":false,` +
		`"options":[{"label":"Postgres","description":"p"},{"label":"SQLite","description":"s"}]}]}}`
	r.askRaw("sq", "AskUserQuestion", question)
	v := r.pending("sq")
	m = r.card(person.ID, "Which database?")
	if got, want := m.Labels(), []string{"Postgres", "SQLite", "Answer in terminal"}; !slices.Equal(got, want) {
		t.Errorf("question buttons %q, want %q", got, want)
	}
	q := r.press(person, m, "SQLite")
	r.answerTo(q)
	if got := rec.got(); len(got) != 1 || got[0] != v.ID+" SQLite telegram" {
		t.Errorf("answers %q, want %s SQLite from telegram", got, v.ID)
	}
}

// TestQuestionAnsweredFromPhone: with the runtime's own answerer, a tap on
// an option of a one-question, single-select question answers the agent
// (the hook gets Claude Code's updatedInput with the answer).
func TestQuestionAnsweredFromPhone(t *testing.T) {
	r := newRig(t, rigOptions{paired: &person, runtimeAnswers: true})
	r.waitPaired()
	question := `{"tool_input":{"questions":[{"question":"Which database?","header":"DB","multiSelect":false,` +
		`"options":[{"label":"Postgres","description":"p"},{"label":"SQLite","description":"s"}]}]}}`
	hook := r.askRaw("sq", "AskUserQuestion", question)
	m := r.card(person.ID, "Which database?")
	q := r.press(person, m, "SQLite")
	r.answerTo(q)
	h := r.hookAnswer(hook)
	if h.ans.Decision == nil || !h.ans.Decision.Allow || !strings.Contains(string(h.ans.Decision.UpdatedInput), `"Which database?":"SQLite"`) {
		t.Fatalf("hook got %+v, want an allow carrying the answer SQLite", h.ans)
	}
}

// TestQuestionsPickedOnPhone: several questions, or a multi-select, are
// answered by picking options (the keyboard marks them; one pick per
// single-select question) and then Send, which is refused until every
// question has a pick; the hook gets every answer, and the spent card's
// buttons answer nothing more.
func TestQuestionsPickedOnPhone(t *testing.T) {
	r := newRig(t, rigOptions{paired: &person, runtimeAnswers: true})
	r.waitPaired()
	questions := `{"tool_input":{"questions":[` +
		`{"question":"Which database?","header":"DB","multiSelect":false,"options":[{"label":"Postgres","description":"p"},{"label":"SQLite","description":"s"}]},` +
		`{"question":"Which features?","header":"F","multiSelect":true,"options":[{"label":"Auth","description":"a"},{"label":"Export","description":"e"}]}]}}`
	hook := r.askRaw("sm", "AskUserQuestion", questions)
	m := r.card(person.ID, "Which features?")
	want := []string{"1. ○ Postgres", "1. ○ SQLite", "2. ☐ Auth", "2. ☐ Export", "Send answer", "Answer in terminal"}
	if got := m.Labels(); !slices.Equal(got, want) {
		t.Fatalf("buttons %q, want %q", got, want)
	}
	for _, line := range []string{"1. Which database?", "2. Which features? (pick any)", "• Export"} {
		if !strings.Contains(m.Text, line) {
			t.Errorf("card %q lacks %q", m.Text, line)
		}
	}
	if a := r.answerTo(r.press(person, m, "Send answer")); !strings.Contains(a.Text, "every question") {
		t.Errorf("Send with nothing picked answered %q, want to pick first", a.Text)
	}
	// pressLatest presses label on the message as it is now, once its
	// keyboard shows the last pick.
	pressLatest := func(label, notice string) {
		t.Helper()
		var cur faketelegram.Message
		r.waitAPI("button "+label, func() bool {
			var ok bool
			cur, ok = r.api.Message(person.ID, m.MessageID)
			_, has := cur.Button(label)
			return ok && has
		})
		if a := r.answerTo(r.press(person, cur, label)); !strings.Contains(a.Text, notice) {
			t.Errorf("press %q answered %q, want %q", label, a.Text, notice)
		}
	}
	pressLatest("1. ○ Postgres", "Picked: Postgres")
	pressLatest("1. ○ SQLite", "Picked: SQLite") // replaces Postgres
	pressLatest("2. ☐ Auth", "Picked: Auth")
	pressLatest("2. ☐ Export", "Picked: Export")
	pressLatest("2. ☑ Export", "Unpicked: Export")
	pressLatest("1. ○ Postgres", "Picked: Postgres")
	pressLatest("1. ○ SQLite", "Picked: SQLite")
	select {
	case h := <-hook:
		t.Fatalf("picking answered the hook already: %+v", h.ans)
	default:
	}
	pressLatest("Send answer", "Answered: SQLite; Auth")
	h := r.hookAnswer(hook)
	in := string(h.ans.Decision.UpdatedInput)
	if h.ans.Decision == nil || !h.ans.Decision.Allow || !strings.Contains(in, `"Which database?":"SQLite"`) || !strings.Contains(in, `"Which features?":"Auth"`) {
		t.Fatalf("hook got %+v (%s), want an allow carrying SQLite and Auth", h.ans, in)
	}
	r.edited(person.ID, m.MessageID, "Which features?")
	old, _ := m.Button("2. ☐ Export")
	id, err := r.api.Press(person, person.ID, m.MessageID, old.CallbackData)
	if err != nil {
		t.Fatal(err)
	}
	if a := r.answerTo(id); !strings.Contains(a.Text, "Already answered") {
		t.Errorf("a pick on the answered card answered %q, want already answered", a.Text)
	}
}

// TestQuestionWithoutAnswers: without an answer API a question's options
// are text and the only button is the terminal.
func TestQuestionWithoutAnswers(t *testing.T) {
	r := newRig(t, rigOptions{paired: &person})
	r.waitPaired()
	question := `{"tool_input":{"questions":[{"question":"Which database?","header":"DB","multiSelect":false,` +
		`"options":[{"label":"Postgres","description":"p"},{"label":"SQLite","description":"s"}]}]}}`
	hook := r.askRaw("sq", "AskUserQuestion", question)
	m := r.card(person.ID, "Which database?")
	if got, want := m.Labels(), []string{"Answer in terminal"}; !slices.Equal(got, want) {
		t.Errorf("question buttons %q, want %q", got, want)
	}
	for _, want := range []string{"• Postgres", "• SQLite", "Answer it in the agent's terminal."} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("question card %q lacks %q", m.Text, want)
		}
	}
	r.press(person, m, "Answer in terminal")
	if h := r.hookAnswer(hook); h.ans.Decision != nil || h.ans.Reason != client.ReasonTerminal {
		t.Fatalf("hook got %+v, want no decision (terminal)", h.ans)
	}
	r.edited(person.ID, m.MessageID, "to the agent's terminal — from Telegram")
}

// answers is a fake Answerer that records.
type answers struct {
	mu   sync.Mutex
	list []string
}

func (a *answers) AnswerQuestion(id string, answers []agents.Answer, via string) (client.PermissionView, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var labels []string
	for _, ans := range answers {
		labels = append(labels, strings.Join(ans.Labels, ","))
	}
	a.list = append(a.list, id+" "+strings.Join(labels, ";")+" "+via)
	return client.PermissionView{ID: id}, nil
}

func (a *answers) got() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.list)
}

// TestNotPairedSendsNothing: before pairing, requests go nowhere and a
// press is refused.
func TestNotPairedSendsNothing(t *testing.T) {
	r := newRig(t, rigOptions{})
	r.waitState(telegram.StateOK)
	hook := r.ask("s1", "npm test")
	v := r.pending("s1")
	own := r.api.Send(person, "hi")
	q, _ := r.api.Press(person, person.ID, own.MessageID, "c1.AAAAAAAAAAAAAAAAAAAAAA.a")
	if a := r.answerTo(q); a.Text != "This chat is not paired with clawd." {
		t.Errorf("a press before pairing: notice %q", a.Text)
	}
	if n, _ := r.api.CallsOf("sendMessage"); n != 0 {
		t.Errorf("%d messages sent with no chat paired", n)
	}
	if _, err := r.srv.Decide(v.ID, client.DecisionBody{Behavior: client.Allow, Via: client.SourceCLI}); err != nil {
		t.Fatal(err)
	}
	r.hookAnswer(hook)
}

// TestShutdownTellsThePhone: requests pending when clawd serve stops go
// to the agents' terminals, and the phone's messages say so; the status
// file then says the channel stopped.
func TestShutdownTellsThePhone(t *testing.T) {
	r := newRig(t, rigOptions{paired: &person})
	r.waitPaired()
	hook := r.ask("s1", "cargo build")
	m := r.card(person.ID, "cargo build")
	r.stopRuntime()
	if h := r.hookAnswer(hook); h.ans.Decision != nil || h.ans.Reason != client.ReasonShutdown {
		t.Fatalf("hook got %+v at shutdown, want no decision (shutdown)", h.ans)
	}
	r.edited(person.ID, m.MessageID, "went to the agent's terminal: clawd stopped")
	r.stop()
	if st := r.status(); st.State != telegram.StateStopped {
		t.Errorf("status after the stop: %+v, want stopped", st)
	}
}

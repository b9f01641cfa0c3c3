package automations

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// serviceCall is one request a fake service got.
type serviceCall struct {
	method, path, query string
	header              http.Header
	body                []byte
}

// serviceAnswer is what a fake service answers one request with.
type serviceAnswer struct {
	code   int
	header map[string]string
	body   string
}

// service is a fake Slack, Discord or ntfy endpoint: it records each
// request and answers what its script says, in order (200 "ok" when the
// script runs out).
type service struct {
	*httptest.Server
	mu      sync.Mutex
	calls   []serviceCall
	answers []serviceAnswer
}

func newService(t *testing.T, answers ...serviceAnswer) *service {
	s := &service{answers: answers}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.calls = append(s.calls, serviceCall{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), b})
		a := serviceAnswer{code: http.StatusOK, body: "ok"}
		if len(s.answers) > 0 {
			a, s.answers = s.answers[0], s.answers[1:]
		}
		s.mu.Unlock()
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(a.code)
		io.WriteString(w, a.body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *service) got() []serviceCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]serviceCall(nil), s.calls...)
}

// hostileTitle is a session title that tries every way out of a JSON
// string and into a service's markup.
const hostileTitle = "Fix \"the\" <shop> & <!channel> \\ }], \"x\": \"\n\t\u2028 @everyone"

// serviceDef is a definition of id on turn.completed with action (an
// inline table's inside) and extra lines.
func serviceDef(id, action, extra string) string {
	return "[[automation]]\nid = \"" + id + "\"\nevent = \"turn.completed\"\naction = { " + action + " }\n" + extra
}

// runOnce trusts definition id of e, observes env and runs what is due.
func runOnce(t *testing.T, e *Engine, id string, env *Envelope) {
	t.Helper()
	trust(t, e, id)
	if err := e.Observe(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	drain(t, e)
}

// titled is a turn.completed envelope whose session is titled title.
func titled(title string, at time.Time) *Envelope {
	env := completed("s", "t", at)
	env.Session.Title = title
	return env
}

// TestSlackMessage: a slack action POSTs Slack's incoming-webhook body.
// Each assertion and the page it comes from:
//   - docs.slack.dev "Sending messages using incoming webhooks": a POST
//     of a JSON payload, Content-type: application/json, with "text" and
//     optionally "blocks";
//   - api.slack.com/reference/surfaces/formatting#escaping: &, < and >
//     are control characters, sent as &amp;, &lt; and &gt; when they are
//     not meant as markup. A placeholder's value is escaped, the
//     template's own <!here> is not;
//   - a block's text is a JSON string, whatever the title holds.
func TestSlackMessage(t *testing.T) {
	clock := newFakeClock()
	svc := newService(t)
	e := testEngine(t, clock, serviceDef("s", `type = "slack", url = "`+svc.URL+`/services/T0/B0/tok",
		text = "<!here> ${session.title} is done in ${workspaces.0.name}",
		blocks = '[{"type": "section", "text": {"type": "mrkdwn", "text": "*${session.title}*"}}]'`, ""))
	runOnce(t, e, "s", titled(hostileTitle, clock.Now()))
	calls := svc.got()
	if len(calls) != 1 {
		t.Fatalf("slack got %d calls, want 1", len(calls))
	}
	c := calls[0]
	if c.method != http.MethodPost || c.path != "/services/T0/B0/tok" || c.header.Get("Content-Type") != "application/json" {
		t.Errorf("request = %s %s (%s), want POST /services/T0/B0/tok, application/json", c.method, c.path, c.header.Get("Content-Type"))
	}
	var got struct {
		Text   string `json:"text"`
		Blocks []struct {
			Type string `json:"type"`
			Text struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"text"`
		} `json:"blocks"`
	}
	if err := json.Unmarshal(c.body, &got); err != nil {
		t.Fatalf("body %s: %v", c.body, err)
	}
	escaped := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(hostileTitle)
	if want := "<!here> " + escaped + " is done in shop"; got.Text != want {
		t.Errorf("text = %q, want %q", got.Text, want)
	}
	if len(got.Blocks) != 1 || got.Blocks[0].Type != "section" || got.Blocks[0].Text.Type != "mrkdwn" || got.Blocks[0].Text.Text != "*"+escaped+"*" {
		t.Errorf("blocks = %+v, want one section whose text is the escaped title in stars", got.Blocks)
	}
	if r := runsOf(t, e)[0]; r.State != StateSucceeded || r.OutputSummary != "HTTP 200: ok" {
		t.Errorf("run = %+v, want succeeded with Slack's ok", r)
	}
}

// TestDiscordMessage: a discord action executes the webhook as
// discord-api-docs resources/webhook "Execute Webhook" documents it:
// POST with JSON params content ("up to 2000 characters"), username and
// embeds ("array of up to 10 embed objects"), and allowed_mentions
// (resources/message "Allowed Mentions Object": parse [] suppresses every
// mention, so "@everyone" in a title pings nobody); the query wait=true
// ("waits for server confirmation of message send", or its error). A
// 3,000-character answer with emoji (two UTF-16 units each) is cut to
// 2,000 units.
func TestDiscordMessage(t *testing.T) {
	clock := newFakeClock()
	svc := newService(t)
	e := testEngine(t, clock, `[[automation]]
id = "d"
event = "response.committed"
action = { type = "discord", url = "`+svc.URL+`/api/webhooks/123/tok?thread_id=9", username = "clawd",
  text = "${session.title}: ${payload.text}",
  embeds = '[{"title": "${session.title}", "description": "took ${payload.messageId}", "color": 5814783}]' }
`)
	answer := strings.Repeat("🦀 done. ", 400) // 3,600 runes, 4,000 UTF-16 units
	env := responded("s", "t", answer, clock.Now())
	env.Session.Title = hostileTitle
	runOnce(t, e, "d", env)
	calls := svc.got()
	if len(calls) != 1 {
		t.Fatalf("discord got %d calls, want 1", len(calls))
	}
	c := calls[0]
	if c.method != http.MethodPost || c.path != "/api/webhooks/123/tok" || c.header.Get("Content-Type") != "application/json" {
		t.Errorf("request = %s %s (%s)", c.method, c.path, c.header.Get("Content-Type"))
	}
	if c.query != "thread_id=9&wait=true" {
		t.Errorf("query = %q, want the definition's thread_id and wait=true", c.query)
	}
	var got struct {
		Content  string `json:"content"`
		Username string `json:"username"`
		Embeds   []struct {
			Title       string `json:"title"`
			Description string `json:"description"`
			Color       int    `json:"color"`
		} `json:"embeds"`
		AllowedMentions *struct {
			Parse []string `json:"parse"`
		} `json:"allowed_mentions"`
	}
	if err := json.Unmarshal(c.body, &got); err != nil {
		t.Fatalf("body %s: %v", c.body, err)
	}
	if n := len(utf16.Encode([]rune(got.Content))); n > 2000 || n < 1999 {
		t.Errorf("content is %d UTF-16 units, want cut to at most 2000", n)
	}
	if !strings.HasPrefix(got.Content, hostileTitle+": 🦀 done.") || !strings.HasSuffix(got.Content, "…") || !utf8.ValidString(got.Content) {
		t.Errorf("content = %q…, want the title, the answer and an ellipsis where it was cut", got.Content[:60])
	}
	if got.Username != "clawd" {
		t.Errorf("username = %q", got.Username)
	}
	if len(got.Embeds) != 1 || got.Embeds[0].Title != hostileTitle || got.Embeds[0].Description != "took t:response" || got.Embeds[0].Color != 5814783 {
		t.Errorf("embeds = %+v", got.Embeds)
	}
	if got.AllowedMentions == nil || got.AllowedMentions.Parse == nil || len(got.AllowedMentions.Parse) != 0 {
		t.Errorf("allowed_mentions = %s, want {\"parse\": []}", c.body[strings.Index(string(c.body), `"allowed_mentions"`):])
	}
}

// ntfyMessage is ntfy's JSON message format (docs/subscribe/api.md, "JSON
// message format"), the fields clawd sets.
type ntfyMessage struct {
	ID       string   `json:"id"`
	Time     int64    `json:"time"`
	Event    string   `json:"event"`
	Topic    string   `json:"topic"`
	Message  string   `json:"message"`
	Title    string   `json:"title"`
	Tags     []string `json:"tags"`
	Priority int      `json:"priority"`
	Click    string   `json:"click"`
}

// newNtfy is a receiver of ntfy's publish API, as docs/publish.md
// describes it: POST /<topic> with the message as the body; X-Title,
// X-Priority (1-5), X-Tags (comma-separated) and X-Click, each header
// RFC 2047-decoded ("you may also encode any header ... as RFC 2047");
// a message of 4,096 bytes or more is not a message ("Longer messages are
// treated as attachments", and a real server reading a body of exactly
// 4,096 takes it as longer; a server without attachments answers 400). With a token, publishing
// takes "Authorization: Bearer <token>" (docs/publish.md, "Access
// tokens"). GET /<topic>/json?poll=1 returns what was published
// (docs/subscribe/api.md, "Poll for messages").
func newNtfy(t *testing.T, token string) *httptest.Server {
	var mu sync.Mutex
	var msgs []ntfyMessage
	dec := new(mime.WordDecoder)
	header := func(r *http.Request, name string) string {
		v, err := dec.DecodeHeader(r.Header.Get(name))
		if err != nil {
			return r.Header.Get(name)
		}
		return v
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		topic, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if !ntfyTopic().MatchString(topic) {
			http.Error(w, `{"code":40009,"http":400,"error":"invalid topic"}`, http.StatusBadRequest)
			return
		}
		if r.Method == http.MethodGet && rest == "json" && r.URL.Query().Get("poll") == "1" {
			mu.Lock()
			defer mu.Unlock()
			for _, m := range msgs {
				if m.Topic == topic {
					json.NewEncoder(w).Encode(m)
				}
			}
			return
		}
		if r.Method != http.MethodPost || rest != "" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, `{"code":40301,"http":403,"error":"forbidden"}`, http.StatusForbidden)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if len(body) >= 4096 {
			http.Error(w, `{"code":40014,"http":400,"error":"invalid request: attachments not allowed"}`, http.StatusBadRequest)
			return
		}
		m := ntfyMessage{Event: "message", Topic: topic, Message: string(body), Title: header(r, "X-Title"), Click: header(r, "X-Click"), Time: time.Now().Unix()}
		if p := header(r, "X-Priority"); p != "" {
			n, err := strconv.Atoi(p)
			if err != nil || n < 1 || n > 5 {
				http.Error(w, `{"code":40007,"http":400,"error":"invalid priority"}`, http.StatusBadRequest)
				return
			}
			m.Priority = n
		}
		if tags := header(r, "X-Tags"); tags != "" {
			m.Tags = strings.Split(tags, ",")
		}
		mu.Lock()
		m.ID = fmt.Sprint("m", len(msgs))
		msgs = append(msgs, m)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(m)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// pollNtfy reads topic's messages from the ntfy server at base.
func pollNtfy(t *testing.T, base, topic, token string) []ntfyMessage {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/"+topic+"/json?poll=1", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []ntfyMessage
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m ntfyMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("poll line %q: %v", sc.Text(), err)
		}
		if m.Event == "message" {
			out = append(out, m)
		}
	}
	return out
}

// checkNtfyPublish publishes through an ntfy action to the server at base
// (topic on it, token when it asks for one) and reads the message back
// with the poll API: the title (not ASCII: "Fix “the” shop ✓" travels
// RFC 2047-encoded), the message, priority, tags and click URL are what
// the definition said; an answer of 10,000 bytes arrives cut to 4,095
// bytes as a message, not an attachment.
func checkNtfyPublish(t *testing.T, base, topic, token string) {
	t.Helper()
	clock := newFakeClock()
	headers := ""
	if token != "" {
		headers = `, headers = { Authorization = "Bearer ` + token + `" }`
	}
	e := testEngine(t, clock, `[[automation]]
id = "n"
event = "response.committed"
action = { type = "ntfy", url = "`+base+`", topic = "`+topic+`", title = "${session.title} ✓",
  text = "${agent.name}: ${payload.text}", priority = 4, tags = ["robot", "white_check_mark"],
  click = "https://example.com/sessions/s"`+headers+` }
`)
	env := responded("s", "t", strings.Repeat("é", 5000), clock.Now())
	env.Session.Title = "Fix “the” shop"
	runOnce(t, e, "n", env)
	if r := runsOf(t, e)[0]; r.State != StateSucceeded {
		t.Fatalf("run = %+v, want succeeded", r)
	}
	msgs := pollNtfy(t, base, topic, token)
	if len(msgs) != 1 {
		t.Fatalf("poll = %+v, want one message", msgs)
	}
	m := msgs[0]
	if m.Title != "Fix “the” shop ✓" {
		t.Errorf("title = %q, want %q", m.Title, "Fix “the” shop ✓")
	}
	if !strings.HasPrefix(m.Message, "Claude Code: éé") || !strings.HasSuffix(m.Message, "…") || len(m.Message) > 4095 || len(m.Message) < 4090 {
		t.Errorf("message = %d bytes %q…, want the answer cut to at most 4095 bytes", len(m.Message), m.Message[:20])
	}
	if m.Priority != 4 || strings.Join(m.Tags, ",") != "robot,white_check_mark" || m.Click != "https://example.com/sessions/s" {
		t.Errorf("priority %d, tags %v, click %q; want 4, [robot white_check_mark], the definition's URL", m.Priority, m.Tags, m.Click)
	}
}

// TestNtfyPublish: publishing to a receiver of ntfy's publish API, with
// and without an access token; without the token that server asks for,
// the run fails for good (403) and nothing is published.
func TestNtfyPublish(t *testing.T) {
	t.Run("open", func(t *testing.T) { checkNtfyPublish(t, newNtfy(t, "").URL, "clawd-test", "") })
	t.Run("token", func(t *testing.T) { checkNtfyPublish(t, newNtfy(t, "tk_test").URL, "clawd-test", "tk_test") })
	t.Run("no token", func(t *testing.T) {
		srv := newNtfy(t, "tk_test")
		clock := newFakeClock()
		e := testEngine(t, clock, serviceDef("n", `type = "ntfy", url = "`+srv.URL+`/", topic = "clawd-test", text = "done"`, `policy = { retry = "safe" }`+"\n"))
		runOnce(t, e, "n", completed("s", "t", clock.Now()))
		clock.Advance(time.Hour)
		drain(t, e)
		if r := runsOf(t, e)[0]; r.State != StateFailed || r.ErrorCode != CodeActionFailed || r.Attempts != 1 || !strings.Contains(r.ErrorMessage, "ntfy answered 403") {
			t.Errorf("run = %+v, want failed for good on 403", r)
		}
		if msgs := pollNtfy(t, srv.URL, "clawd-test", "tk_test"); len(msgs) != 0 {
			t.Errorf("published %+v without the token", msgs)
		}
	})
}

// TestNtfyHeaders: what ntfy's publish API reads from the request, as
// sent: the topic's path below the server's own path, X-Title as the
// event's own title when the definition has none, no X-Priority, X-Tags
// or X-Click unless set (ntfy's defaults stay), the body as text/plain.
func TestNtfyHeaders(t *testing.T) {
	clock := newFakeClock()
	svc := newService(t)
	e := testEngine(t, clock, serviceDef("n", `type = "ntfy", url = "`+svc.URL+`/ntfy/", topic = "a_b-1", text = "${session.title}"`, ""))
	runOnce(t, e, "n", completed("s", "t", clock.Now()))
	calls := svc.got()
	if len(calls) != 1 {
		t.Fatalf("%d calls", len(calls))
	}
	c := calls[0]
	if c.method != http.MethodPost || c.path != "/ntfy/a_b-1" || string(c.body) != "Fix the shop" || c.header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("request = %s %s %q (%s)", c.method, c.path, c.body, c.header.Get("Content-Type"))
	}
	if got := c.header.Get("X-Title"); got != fallbackTitles[TurnCompleted] {
		t.Errorf("X-Title = %q, want the event's own %q", got, fallbackTitles[TurnCompleted])
	}
	// A title that reads as an RFC 2047 encoded word arrives as written.
	literal := "=?UTF-8?B?aGk=?= done"
	e = testEngine(t, clock, serviceDef("n", `type = "ntfy", url = "`+svc.URL+`", topic = "t", title = "${session.title}", text = "x"`, ""))
	runOnce(t, e, "n", titled(literal, clock.Now()))
	if calls = svc.got(); len(calls) != 2 {
		t.Fatalf("%d calls, want 2", len(calls))
	}
	if got, err := new(mime.WordDecoder).DecodeHeader(calls[1].header.Get("X-Title")); err != nil || got != literal {
		t.Errorf("X-Title %q decodes to %q (%v), want %q", calls[1].header.Get("X-Title"), got, err, literal)
	}
	for _, h := range []string{"X-Priority", "X-Tags", "X-Click", "Authorization"} {
		if v, ok := c.header[h]; ok {
			t.Errorf("%s = %q, want it left out", h, v)
		}
	}
}

// TestServiceRetries: Slack, Discord and ntfy failures are classified as
// a webhook's: 429 and 5xx are transient and retried by a safe policy,
// waiting at least the Retry-After the service sent (Slack's and Discord's
// rate limits answer 429 with one: api.slack.com/apis/rate-limits,
// discord-api-docs topics/rate-limits) rather than the shorter backoff;
// 4xx fails for good; unsafe never retries.
func TestServiceRetries(t *testing.T) {
	for _, kind := range []string{"slack", "discord", "ntfy"} {
		action := func(u string) string {
			if kind == "ntfy" {
				return `type = "ntfy", url = "` + u + `", topic = "t", text = "done"`
			}
			return `type = "` + kind + `", url = "` + u + `/hook", text = "done"`
		}
		t.Run(kind+"/429 waits for Retry-After", func(t *testing.T) {
			clock := newFakeClock()
			svc := newService(t, serviceAnswer{code: 429, header: map[string]string{"Retry-After": "30"}, body: `{"message": "You are being rate limited.", "retry_after": 30, "global": false}`})
			e := testEngine(t, clock, serviceDef("x", action(svc.URL), `policy = { retry = "safe", backoff = "1s" }`+"\n"))
			runOnce(t, e, "x", completed("s", "t", clock.Now()))
			r := runsOf(t, e)[0]
			if r.State != StateQueued || r.ErrorCode != CodeTransient || !r.NextAt.Equal(clock.Now().Add(30*time.Second)) {
				t.Fatalf("after the 429: %+v, want queued for 30s later (Retry-After), not 1s", r)
			}
			clock.Advance(29 * time.Second)
			drain(t, e)
			if n := len(svc.got()); n != 1 {
				t.Fatalf("%d calls before Retry-After passed, want 1", n)
			}
			clock.Advance(time.Second)
			drain(t, e)
			if r := runsOf(t, e)[0]; r.State != StateSucceeded || r.Attempts != 2 || len(svc.got()) != 2 {
				t.Errorf("after Retry-After: %+v, %d calls; want succeeded on the second", r, len(svc.got()))
			}
		})
		t.Run(kind+"/5xx retried", func(t *testing.T) {
			clock := newFakeClock()
			svc := newService(t, serviceAnswer{code: 500, body: "rollup_error"}, serviceAnswer{code: 503})
			e := testEngine(t, clock, serviceDef("x", action(svc.URL), `policy = { retry = "safe", backoff = "1s" }`+"\n"))
			runOnce(t, e, "x", completed("s", "t", clock.Now()))
			clock.Advance(time.Second)
			drain(t, e)
			clock.Advance(2 * time.Second)
			drain(t, e)
			if r := runsOf(t, e)[0]; r.State != StateSucceeded || r.Attempts != 3 || len(svc.got()) != 3 {
				t.Errorf("%+v, %d calls; want succeeded on the third", r, len(svc.got()))
			}
		})
		t.Run(kind+"/4xx final", func(t *testing.T) {
			clock := newFakeClock()
			svc := newService(t, serviceAnswer{code: 404, body: "channel_not_found"})
			e := testEngine(t, clock, serviceDef("x", action(svc.URL), `policy = { retry = "safe" }`+"\n"))
			runOnce(t, e, "x", completed("s", "t", clock.Now()))
			clock.Advance(time.Hour)
			drain(t, e)
			r := runsOf(t, e)[0]
			if r.State != StateFailed || r.ErrorCode != CodeActionFailed || len(svc.got()) != 1 ||
				r.ErrorMessage != kind+" answered 404" || r.OutputSummary != "HTTP 404: channel_not_found" {
				t.Errorf("%+v, %d calls; want failed for good after one, naming %s and its answer", r, len(svc.got()), kind)
			}
		})
		t.Run(kind+"/unsafe", func(t *testing.T) {
			clock := newFakeClock()
			svc := newService(t, serviceAnswer{code: 429, header: map[string]string{"Retry-After": "1"}})
			e := testEngine(t, clock, serviceDef("x", action(svc.URL), ""))
			runOnce(t, e, "x", completed("s", "t", clock.Now()))
			clock.Advance(time.Hour)
			drain(t, e)
			if r := runsOf(t, e)[0]; r.State != StateFailed || r.ErrorCode != CodeTransient || len(svc.got()) != 1 {
				t.Errorf("%+v, %d calls; want failed after one call", r, len(svc.got()))
			}
		})
	}
}

// TestRetryAfter: the header's two forms (RFC 9110 section 10.2.3:
// seconds, or an HTTP date) and Discord's fractions, bounded by
// MaxBackoff; nonsense waits nothing.
func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for h, want := range map[string]time.Duration{
		"":                              0,
		"30":                            30 * time.Second,
		" 2 ":                           2 * time.Second,
		"0.25":                          250 * time.Millisecond,
		"Tue, 01 Dec 2026 09:01:00 GMT": time.Minute,
		"Tue, 01 Dec 2026 08:59:00 GMT": 0,
		"999999999999":                  MaxBackoff,
		"-5":                            0,
		"NaN":                           0,
		"soon":                          0,
	} {
		if got := retryAfter(h, now); got != want {
			t.Errorf("retryAfter(%q) = %v, want %v", h, got, want)
		}
	}
}

// TestServicesNeverFollowRedirects: a Slack, Discord or ntfy URL that
// redirects fails the run for good, as a webhook's does; the host it
// points to sees nothing.
func TestServicesNeverFollowRedirects(t *testing.T) {
	other := newService(t)
	for _, kind := range []string{"slack", "discord", "ntfy"} {
		t.Run(kind, func(t *testing.T) {
			redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+"/collect", http.StatusTemporaryRedirect)
			}))
			defer redirecting.Close()
			action := `type = "` + kind + `", url = "` + redirecting.URL + `", text = "done"`
			if kind == "ntfy" {
				action += `, topic = "t", headers = { Authorization = "Bearer tk_secret" }`
			}
			clock := newFakeClock()
			e := testEngine(t, clock, serviceDef("x", action, `policy = { retry = "safe" }`+"\n"))
			e.o.HTTP = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }}
			runOnce(t, e, "x", completed("s", "t", clock.Now()))
			clock.Advance(time.Hour)
			drain(t, e)
			r := runsOf(t, e)[0]
			if r.State != StateFailed || r.ErrorCode != CodeActionFailed || r.Attempts != 1 || !strings.Contains(r.ErrorMessage, other.URL+"/collect") {
				t.Errorf("run = %+v, want failed for good naming the Location", r)
			}
		})
	}
	if n := len(other.got()); n != 0 {
		t.Errorf("the redirect's target got %d requests, want none", n)
	}
}

// TestServiceErrorsHideTheURL: a network error's run record names the
// host, not the URL, whose path is a Slack or Discord webhook's
// credential (net/http's own error quotes the whole URL).
func TestServiceErrorsHideTheURL(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now: connection refused
	for _, kind := range []string{"slack", "discord", "webhook"} {
		t.Run(kind, func(t *testing.T) {
			clock := newFakeClock()
			action := `type = "` + kind + `", url = "http://` + addr + `/services/T0/B0/SeCrEtToKeN", text = "done"`
			if kind == "webhook" {
				action = `type = "webhook", url = "http://` + addr + `/services/T0/B0/SeCrEtToKeN"`
			}
			e := testEngine(t, clock, serviceDef("x", action, `policy = { retry = "safe" }`+"\n"))
			runOnce(t, e, "x", completed("s", "t", clock.Now()))
			r := runsOf(t, e)[0]
			if r.ErrorCode != CodeTransient || !strings.Contains(r.ErrorMessage, kind+": Post http://"+addr+": ") || !strings.Contains(r.ErrorMessage, "refused") {
				t.Errorf("error %q (%s), want %q with the host and the cause, transient", r.ErrorMessage, r.ErrorCode, kind+": Post http://"+addr+": ...refused")
			}
			if strings.Contains(r.ErrorMessage, "SeCrEtToKeN") {
				t.Errorf("error %q shows the URL's token", r.ErrorMessage)
			}
		})
	}
}

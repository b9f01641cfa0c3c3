package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// startIngress serves in on a loopback port of its own, which is also the
// port the "remote" hooks send as Host (as for WSL).
func startIngress(t *testing.T, s *Server, in *Ingress) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if in.Port == 0 {
		in.Port = port
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeIngress(ctx, ln, in) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeIngress: %v", err)
		}
	})
	return port
}

// remoteEvent is an event as a remote hook sends it: with the remote's
// process id and transcript path, and maybe its WSL distro.
func remoteEvent(t *testing.T, sid, distro string) string {
	t.Helper()
	b, err := json.Marshal(agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: sid,
		Time: time.Now().UTC(), Cwd: "/home/me/proj", AgentPID: 4242, Transcript: "/home/me/.codex/x.jsonl",
		Host: "forged", Distro: distro})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func authHeaders(token string, gen int64) []string {
	return []string{"Content-Type: application/json", "Authorization: Bearer " + token, fmt.Sprintf("%s: %d", client.GenerationHeader, gen)}
}

// TestIngressAuth: the ingress takes its profile's token with the current
// generation and nothing else; a refusal records nothing.
func TestIngressAuth(t *testing.T) {
	s, _, _ := startServer(t)
	in := &Ingress{Label: "box"}
	in.SetCredentials("tok-1", 1)
	port := startIngress(t, s, in)
	host := fmt.Sprintf("127.0.0.1:%d", port)

	if code, _, body := rawRequest(t, port, post("/api/v1/events", host, authHeaders("tok-1", 1), remoteEvent(t, "s1", ""))); code != http.StatusNoContent {
		t.Fatalf("event with the profile's token and generation: %d %s, want 204", code, body)
	}
	in.SetCredentials("tok-2", 2)
	seq := s.sessions.Seq()
	for _, c := range []struct {
		name    string
		headers []string
	}{
		{"the previous generation and token", authHeaders("tok-1", 1)},
		{"the current token with the previous generation", authHeaders("tok-2", 1)},
		{"the previous token with the current generation", authHeaders("tok-1", 2)},
		{"no generation", []string{"Content-Type: application/json", "Authorization: Bearer tok-2"}},
		{"no token", []string{"Content-Type: application/json", client.GenerationHeader + ": 2"}},
		{"the runtime's own API token", authHeaders(s.Token(), 2)},
	} {
		code, _, body := rawRequest(t, port, post("/api/v1/events", host, c.headers, remoteEvent(t, "refused", "")))
		if code != http.StatusForbidden || body != "" {
			t.Errorf("event with %s: %d %q, want 403 and no body", c.name, code, body)
		}
		code, _, _ = rawRequest(t, port, post("/api/v1/permissions", host, c.headers, `{"event":`+remoteEvent(t, "refused", "")+`}`))
		if code != http.StatusForbidden {
			t.Errorf("permission request with %s: %d, want 403", c.name, code)
		}
	}
	if s.sessions.Seq() != seq {
		t.Errorf("refused requests were recorded: seq %d -> %d", seq, s.sessions.Seq())
	}
	for _, ss := range s.Snapshot().Sessions {
		if strings.Contains(ss.SessionID, "refused") {
			t.Errorf("a refused request made a session: %+v", ss)
		}
	}
	if code, _, body := rawRequest(t, port, post("/api/v1/events", host, authHeaders("tok-2", 2), remoteEvent(t, "s2", ""))); code != http.StatusNoContent {
		t.Errorf("event with the new token and generation: %d %s, want 204", code, body)
	}
	// The browser guard stands in front of it, with the remote's port
	// as the Host.
	if code, _, _ := rawRequest(t, port, post("/api/v1/events", host, append(authHeaders("tok-2", 2), "Origin: http://evil.example"), remoteEvent(t, "s3", ""))); code != http.StatusForbidden {
		t.Errorf("event with an Origin: %d, want 403", code)
	}
	if code, _, _ := rawRequest(t, port, post("/api/v1/events", "evil.example", authHeaders("tok-2", 2), remoteEvent(t, "s3", ""))); code != http.StatusForbidden {
		t.Errorf("event with a foreign Host: %d, want 403", code)
	}
	// The runtime's own routes are not there.
	if code, _, _ := rawRequest(t, port, "GET /api/v1/sessions HTTP/1.1\r\nHost: "+host+"\r\nAuthorization: Bearer tok-2\r\n\r\n"); code != http.StatusNotFound {
		t.Errorf("GET /api/v1/sessions on an ingress: %d, want 404", code)
	}
}

// TestIngressLocalizes: a remote's sessions are namespaced by the profile,
// shown under it, and carry none of the remote's process ids or paths to
// read; an event on the socket is local whatever it claims.
func TestIngressLocalizes(t *testing.T) {
	s, _, sock := startServer(t)
	in := &Ingress{Label: "box"}
	in.SetCredentials("tok", 7)
	port := startIngress(t, s, in)
	host := fmt.Sprintf("127.0.0.1:%d", port)
	if code, _, body := rawRequest(t, port, post("/api/v1/events", host, authHeaders("tok", 7), remoteEvent(t, "abc", ""))); code != http.StatusNoContent {
		t.Fatalf("event: %d %s", code, body)
	}
	if code, _, body := rawSocketRequest(t, sock, post("/api/v1/events", "clawd", []string{"Content-Type: application/json"}, remoteEvent(t, "abc", "Ubuntu"))); code != http.StatusNoContent {
		t.Fatalf("event on the socket: %d %s", code, body)
	}
	got := map[string]client.SessionView{}
	for _, ss := range s.Snapshot().Sessions {
		got[ss.SessionID] = ss
	}
	if r, ok := got["box:abc"]; !ok || r.Host != "box" || r.AgentPID != 0 || r.Cwd != "/home/me/proj" {
		t.Errorf("the remote session = %+v (found %v), want box:abc on host box with no agent pid", r, ok)
	}
	if l, ok := got["abc"]; !ok || l.Host != "" || l.AgentPID != 4242 {
		t.Errorf("the local session = %+v (found %v), want abc with no host and its pid", l, ok)
	}

	e := agents.Event{SessionID: "x", AgentPID: 9, Transcript: "/t", Host: "forged", Distro: "Ubuntu"}
	if err := in.localize(&e); err != nil || e.SessionID != "box:x" || e.Host != "box" || e.AgentPID != 0 || e.Transcript != "" || e.Distro != "" {
		t.Errorf("localize = %+v, %v", e, err)
	}
}

// TestIngressWSL: a WSL profile takes only events its distro's hooks
// marked, and shows them as wsl:<distro>.
func TestIngressWSL(t *testing.T) {
	s, _, _ := startServer(t)
	in := &Ingress{Label: "wsl:Ubuntu", Distro: "Ubuntu"}
	in.SetCredentials("tok", 1)
	port := startIngress(t, s, in)
	host := fmt.Sprintf("127.0.0.1:%d", port)
	if code, _, body := rawRequest(t, port, post("/api/v1/events", host, authHeaders("tok", 1), remoteEvent(t, "w1", "Ubuntu"))); code != http.StatusNoContent {
		t.Fatalf("event marked Ubuntu: %d %s, want 204", code, body)
	}
	for _, distro := range []string{"Debian", ""} {
		if code, _, _ := rawRequest(t, port, post("/api/v1/events", host, authHeaders("tok", 1), remoteEvent(t, "w2", distro))); code != http.StatusForbidden {
			t.Errorf("event marked %q on Ubuntu's ingress: %d, want 403", distro, code)
		}
	}
	snap := s.Snapshot()
	if len(snap.Sessions) != 1 || snap.Sessions[0].SessionID != "wsl:Ubuntu:w1" || snap.Sessions[0].Host != "wsl:Ubuntu" || snap.Sessions[0].AgentPID != 0 {
		t.Errorf("sessions = %+v, want wsl:Ubuntu:w1 alone, on wsl:Ubuntu, no pid", snap.Sessions)
	}
}

// TestIngressHello: a hook's nonce gets its proof for the current
// generation only; client.Remote then goes through, a permission request
// included, answered as a local one.
func TestIngressHello(t *testing.T) {
	s, _, _ := startServer(t)
	in := &Ingress{Label: "box"}
	in.SetCredentials("tok", 3)
	port := startIngress(t, s, in)
	host := fmt.Sprintf("127.0.0.1:%d", port)
	nonce := strings.Repeat("ab", 16)
	hello := func(gen int, nonce string) (int, http.Header) {
		code, h, _ := rawRequest(t, port, fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\n%s: %s\r\n%s: %d\r\n\r\n",
			client.RemoteHelloPath, host, client.NonceHeader, nonce, client.GenerationHeader, gen))
		return code, h
	}
	if code, h := hello(3, nonce); code != http.StatusNoContent || h.Get(client.ProofHeader) != client.Proof("tok", 3, nonce) {
		t.Errorf("hello: %d %q, want 204 and the proof", code, h.Get(client.ProofHeader))
	}
	if code, h := hello(2, nonce); code != http.StatusForbidden || h.Get(client.ProofHeader) != "" {
		t.Errorf("hello with an old generation: %d %q, want 403 and no proof", code, h.Get(client.ProofHeader))
	}
	if code, _ := hello(3, "short"); code != http.StatusForbidden {
		t.Errorf("hello with a short nonce: %d, want 403", code)
	}

	r := client.Remote{Profile: "box", Port: port, Token: "tok", Generation: 3}
	ev, _ := json.Marshal(agents.Event{Agent: "claude", Kind: agents.KindSessionStart, SessionID: "h1", Time: time.Now()})
	if err := r.PostEvent(context.Background(), ev); err != nil {
		t.Fatalf("Remote.PostEvent: %v", err)
	}
	if err := (client.Remote{Port: port, Token: "other", Generation: 3}).PostEvent(context.Background(), ev); !errors.Is(err, client.ErrBadProof) {
		t.Errorf("Remote.PostEvent with another token = %v, want ErrBadProof (the hook does not trust the answer)", err)
	}
	if err := (client.Remote{Port: port, Token: "tok", Generation: 2}).PostEvent(context.Background(), ev); !errors.Is(err, client.ErrBadProof) {
		t.Errorf("Remote.PostEvent with an old generation = %v, want ErrBadProof", err)
	}

	body, _ := json.Marshal(client.RequestBody{WaitSeconds: 60, Event: agents.Event{Agent: "claude", Kind: agents.KindPermissionRequest,
		SessionID: "h1", Time: time.Now(), ToolName: "Bash"}})
	type res struct {
		a   client.Answer
		err error
	}
	done := make(chan res, 1)
	go func() {
		a, err := r.AskPermission(context.Background(), body)
		done <- res{a, err}
	}()
	var id string
	eventually(t, "the remote's request pending", func() bool {
		for _, p := range s.Permissions() {
			if p.SessionID == "box:h1" {
				id = p.ID
				return true
			}
		}
		return false
	})
	if _, err := s.Decide(id, client.DecisionBody{Behavior: client.Allow}); err != nil {
		t.Fatal(err)
	}
	got := <-done
	if got.err != nil || got.a.Decision == nil || !got.a.Decision.Allow {
		t.Errorf("Remote.AskPermission = %+v, %v; want allow", got.a, got.err)
	}

	var tested []client.RemoteTest
	in.Tested = func(t client.RemoteTest) { tested = append(tested, t) }
	ans, err := r.Test(context.Background(), nonce, "v1")
	if err != nil || ans.Nonce != nonce || ans.Profile != "box" || len(tested) != 1 || tested[0].Nonce != nonce {
		t.Errorf("Remote.Test = %+v, %v (heard %+v); want the nonce back, heard once", ans, err, tested)
	}
	for _, ss := range s.Snapshot().Sessions {
		if ss.SessionID != "box:h1" {
			t.Errorf("a session besides box:h1: %+v (the connection test is none)", ss)
		}
	}
}

// TestRunRefusesARemoteHome: a clawd home whose runtime.json is in
// remote mode is how its machine's hooks reach a desktop; a runtime
// there would overwrite the file and then delete it.
func TestRunRefusesARemoteHome(t *testing.T) {
	home := t.TempDir()
	in := client.Info{Mode: client.ModeRemote, Profile: "box", Generation: 1, Port: 41000, Token: "tok"}
	if err := client.WriteInfo(home, in); err != nil {
		t.Fatal(err)
	}
	before, _ := client.ReadInfo(home)
	err := New(Config{Home: home}).Run(context.Background(), 0, func(client.Info) { t.Error("a runtime started in a remote's clawd home") })
	if !errors.Is(err, ErrRemoteHome) {
		t.Errorf("Run in a remote's clawd home = %v, want ErrRemoteHome", err)
	}
	if after, err := client.ReadInfo(home); err != nil || after != before {
		t.Errorf("runtime.json after the refusal = %+v, %v; want it untouched", after, err)
	}
}

// BenchmarkRemotePostEvent is one remote hook's delivery over loopback,
// without the tunnel: a connection, the hello, the event.
func BenchmarkRemotePostEvent(b *testing.B) {
	s := New(Config{Home: b.TempDir(), Version: "bench"})
	in := &Ingress{Label: "box"}
	in.SetCredentials("tok", 1)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	in.Port = ln.Addr().(*net.TCPAddr).Port
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeIngress(ctx, ln, in) }()
	defer func() {
		cancel()
		<-done
	}()
	r := client.Remote{Profile: "box", Port: in.Port, Token: "tok", Generation: 1}
	ev, _ := json.Marshal(agents.Event{Agent: "claude", Kind: agents.KindToolStart, SessionID: "s", ToolName: "Bash", Time: time.Now()})
	for b.Loop() {
		if err := r.PostEvent(context.Background(), ev); err != nil {
			b.Fatal(err)
		}
	}
}

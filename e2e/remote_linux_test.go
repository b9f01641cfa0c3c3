package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeanthropic"
	"github.com/clawdhq/clawd/runtime/client"
)

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// remoteInfo is the box's ~/.clawd/runtime.json.
type remoteInfo struct {
	Mode       string `json:"mode"`
	Profile    string `json:"profile"`
	Generation int64  `json:"generation"`
	Port       int    `json:"port"`
	Token      string `json:"token"`
	Version    string `json:"version"`
}

func (b *sshBox) runtimeInfo() remoteInfo {
	b.t.Helper()
	var in remoteInfo
	if err := jsonUnmarshal(b.readFile(".clawd/runtime.json"), &in); err != nil {
		b.t.Fatal(err)
	}
	return in
}

// checkAdded checks what `clawd remote add` left on the box: this
// clawd's very bytes as the user's ~/.clawd/bin/clawd, runtime.json in
// remote mode (the user's, 0600) and Claude Code's hooks calling that
// binary.
func checkAdded(t *testing.T, box *sshBox, gen int64) remoteInfo {
	t.Helper()
	want, err := os.ReadFile(clawdBin)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(box.home, ".clawd", "bin", "clawd")
	if got, err := os.ReadFile(bin); err != nil || !bytes.Equal(got, want) {
		t.Errorf("~/.clawd/bin/clawd on the box is not this clawd (%v)", err)
	}
	if uid, _ := ownedBy(t, bin); uid != box.uid {
		t.Errorf("~/.clawd/bin/clawd belongs to uid %d, want the box's user %d", uid, box.uid)
	}
	info := box.runtimeInfo()
	if info.Mode != "remote" || info.Profile != "box" || info.Generation != gen || info.Token == "" || info.Port == 0 {
		t.Errorf("the box's runtime.json = %+v, want remote mode of profile box, generation %d", info, gen)
	}
	if uid, mode := ownedBy(t, filepath.Join(box.home, ".clawd", "runtime.json")); uid != box.uid || mode != 0o600 {
		t.Errorf("the box's runtime.json: uid %d mode %v, want the user's and 0600", uid, mode)
	}
	settings := box.readFile(".claude/settings.json")
	if !strings.Contains(settings, `"`+bin+` hook claude"`) && !strings.Contains(settings, bin+" hook claude") {
		t.Errorf("the box's ~/.claude/settings.json does not call %s hook claude:\n%s", bin, settings)
	}
	return info
}

// TestRemoteAddRemoveLeavesHomeAsItWas: `clawd remote add` twice (the
// second run repairs, copies nothing and starts generation 2), hooks on
// the box with no desktop to reach (fail open, and one writes the hook
// log), then `clawd remote remove`: the box's HOME is what it was, entry
// for entry, agents' settings byte for byte.
func TestRemoteAddRemoveLeavesHomeAsItWas(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	box := newSSHBox(t)
	box.writeFile(".claude/settings.json", originalSettings, 0o644)
	box.writeFile(".codex/config.toml", "model = \"o3\"\n\n[tui]\nnotifications = true\n", 0o600)
	before := box.snapshot()
	w := newWorld(t)

	r := w.mustClawd(ctx, box.addArgs("box")...)
	t.Logf("clawd remote add:\n%s", r.stdout)
	for _, want := range []string{"ssh connects to " + box.user + "@127.0.0.1 port " + strconv.Itoa(box.port),
		"copying clawd", "claude: installed", "codex: installed", "box: ready"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("clawd remote add printed\n%s\nwant %q in it", r.stdout, want)
		}
	}
	first := checkAdded(t, box, 1)

	r = w.mustClawd(ctx, box.addArgs("box")...)
	for _, want := range []string{"is this clawd already", "claude: already installed", "generation 2"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("clawd remote add again printed\n%s\nwant %q in it", r.stdout, want)
		}
	}
	second := checkAdded(t, box, 2)
	if second.Token == first.Token || second.Port != first.Port {
		t.Errorf("add again: token %q -> %q, port %d -> %d; want a new token on the same port", first.Token, second.Token, first.Port, second.Port)
	}

	// No desktop answers: the hooks fail open at once and say so in the
	// hook log.
	id := newUUID(t)
	for _, c := range []struct{ event, want string }{
		{"SessionStart", ""},
		{"PermissionRequest", "{}\n"},
	} {
		payload := fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":%q,"tool_name":"Bash","tool_input":{"command":"ls"}}`,
			id, box.home, c.event)
		res := box.hook(ctx, payload)
		if res.code != 0 || res.stdout != c.want {
			t.Errorf("hook %s with no desktop: %s\nwant exit 0 and stdout %q", c.event, res, c.want)
		}
	}
	if log := box.readFile(".clawd/logs/hook.log"); !strings.Contains(log, "the tunnel is down") {
		t.Errorf("hook.log on the box does not say the tunnel is down:\n%s", log)
	}
	// Without runtime.json the hook fails open all the same.
	os.Rename(filepath.Join(box.home, ".clawd", "runtime.json"), filepath.Join(box.dir, "runtime.json"))
	if res := box.hook(ctx, fmt.Sprintf(`{"session_id":%q,"hook_event_name":"Stop"}`, id)); res.code != 0 || res.stdout != "" {
		t.Errorf("hook with no runtime.json: %s\nwant exit 0 and no output", res)
	}
	os.Rename(filepath.Join(box.dir, "runtime.json"), filepath.Join(box.home, ".clawd", "runtime.json"))

	r = w.mustClawd(ctx, "remote", "remove", "box")
	t.Logf("clawd remote remove:\n%s", r.stdout)
	if d := diffSnapshots(before, box.snapshot()); len(d) > 0 {
		t.Errorf("the box's HOME after clawd remote remove differs from before the add:\n%s", strings.Join(d, "\n"))
	}
	if got := box.readFile(".claude/settings.json"); got != originalSettings {
		t.Errorf("settings.json after remove =\n%s\nwant the original", got)
	}
	if r := w.mustClawd(ctx, "remote", "list"); !strings.Contains(r.stdout, "no remotes") {
		t.Errorf("clawd remote list after remove printed %q, want no remotes", r.stdout)
	}
}

// TestRemoteSSH is the remote path end to end over real SSH: clawd
// remote add, clawd serve keeping the tunnel, hooks and the real Claude
// Code on the box showing on the desktop as box:<id>, a permission
// request on the box answered on the desktop, the ingress refusing a
// wrong token and an old generation, the tunnel killed mid-session (the
// box's hooks fail open and tell a stranger on the port nothing) and
// back by itself, the connection test, and remove.
func TestRemoteSSH(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
	defer cancel()
	box := newSSHBox(t)
	box.writeFile(".claude/settings.json", originalSettings, 0o644)
	project := filepath.Join(box.home, "project")
	box.writeFile("project/.keep", "", 0o644)
	// Claude Code for the box's user, who cannot reach the test cache
	// under root's HOME: a hard link (or a copy) in the box's folder.
	claude := filepath.Join(box.base, "claude")
	src, err := filepath.EvalSymlinks(claudePath(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Link(src, claude); err != nil {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(claude, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w := newWorld(t)
	const marker = "E2E_REMOTE"
	w.startAPI(fakeanthropic.Script{Conversations: []fakeanthropic.Conversation{lifecycleScript(marker, project)}})

	w.mustClawd(ctx, box.addArgs("box")...)
	gen1 := checkAdded(t, box, 1)
	w.mustClawd(ctx, box.addArgs("box")...)
	info := checkAdded(t, box, 2)

	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	link := w.waitLink(ctx, "box", "up", 60*time.Second)
	if link.Label != "box" || link.RemotePort != info.Port || link.Generation != 2 || link.TunnelPID == 0 || link.Ingress == "" {
		t.Errorf("link = %+v, want box up on remote port %d, generation 2, with its tunnel's pid and ingress", link, info.Port)
	}
	if r := w.mustClawd(ctx, "status"); !strings.Contains(r.stdout, "remote box: up") {
		t.Errorf("clawd status does not show the link up:\n%s", r.stdout)
	}

	// 1. Hooks on the box, through ssh: the desktop shows box:<id>.
	id := newUUID(t)
	sid := "box:" + id
	payload := func(event, extra string) string {
		return fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":%q%s}`, id, project, event, extra)
	}
	tool := `,"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_remote1"`
	hookOK := func(event, extra string) {
		t.Helper()
		if r := box.hook(ctx, payload(event, extra)); r.code != 0 || r.stdout != "" {
			t.Fatalf("hook %s on the box: %s", event, r)
		}
	}
	hookOK("SessionStart", `,"source":"startup"`)
	hookOK("UserPromptSubmit", `,"prompt":"list the files"`)
	hookOK("PreToolUse", tool)
	evs := events.waitFor(30*time.Second, "the box's tool.start", func(evs []event) bool {
		return anyEvent(forSession(evs, sid), hasKind("tool.start"))
	})
	states := field(forSession(evs, sid), func(e event) string { return e.State })
	if !subsequence(states, []string{"thinking", "working"}) {
		t.Errorf("box session states %v, want thinking then working", states)
	}
	if anyEvent(evs, func(e event) bool { return e.SessionID == id }) {
		t.Errorf("an event of the box's session came through without its box: prefix")
	}
	st, _ := w.status(ctx)
	if s, ok := st.session(sid); !ok || s.State != "working" {
		t.Errorf("clawd status: box session %+v (found %v), want working", s, ok)
	}
	var raw struct {
		Sessions []map[string]any `json:"sessions"`
	}
	jsonUnmarshal(w.mustClawd(ctx, "status", "--json").stdout, &raw)
	for _, s := range raw.Sessions {
		if s["session_id"] == sid && (s["host"] != "box" || s["agent_pid"] != nil) {
			t.Errorf("status of the box session = %v, want host box and no agent pid", s)
		}
	}

	// 2. The ingress takes the profile's token and current generation,
	// and nothing else.
	post := func(token string, gen int64, session string) int {
		t.Helper()
		body := fmt.Sprintf(`{"agent":"claude","kind":"session.start","session_id":%q,"time":%q}`, session, time.Now().UTC().Format(time.RFC3339Nano))
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+link.Ingress+"/api/v1/events", strings.NewReader(body))
		req.Host = "127.0.0.1:" + strconv.Itoa(info.Port)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("X-Clawd-Generation", strconv.FormatInt(gen, 10))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("POST to the ingress: %v", err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(info.Token, info.Generation, "direct-ok"); code != http.StatusNoContent {
		t.Errorf("POST with the profile's token and generation: %d, want 204", code)
	}
	for _, c := range []struct {
		name  string
		token string
		gen   int64
	}{
		{"wrong token", strings.Repeat("0", len(info.Token)), info.Generation},
		{"old generation, old token", gen1.Token, gen1.Generation},
		{"old generation, current token", info.Token, gen1.Generation},
		{"no token", "", info.Generation},
	} {
		if code := post(c.token, c.gen, "refused-"+strconv.Itoa(len(c.name))); code != http.StatusForbidden {
			t.Errorf("POST with %s: %d, want 403", c.name, code)
		}
	}
	events.waitFor(15*time.Second, "the direct event", func(evs []event) bool {
		return anyEvent(forSession(evs, "box:direct-ok"), hasKind("session.start"))
	})

	// 3. A blocking permission request on the box, allowed on the desktop.
	permDone := make(chan result, 1)
	go func() {
		permDone <- box.run(ctx, payload("PermissionRequest", `,"permission_mode":"default","tool_name":"Bash","tool_input":{"command":"echo hi > x.txt"}`),
			box.envPrefix()+`exec "$HOME/.clawd/bin/clawd" hook claude`)
	}()
	list := w.waitPermissions(ctx, 30*time.Second, "the box's permission request", func(l []client.PermissionView) bool {
		for _, p := range l {
			if p.SessionID == sid {
				return true
			}
		}
		return false
	})
	var pid string
	for _, p := range list {
		if p.SessionID == sid {
			pid = p.ID
		}
	}
	w.mustPerm(ctx, "allow", pid)
	select {
	case r := <-permDone:
		want := string(readTestdata(t, "claude", "outputs", "PermissionRequest.allow.json"))
		if r.code != 0 || !jsonEqual(r.stdout, want) {
			t.Errorf("the box's PermissionRequest hook: %s\nwant exit 0 and %s", r, want)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("the box's PermissionRequest hook did not return within 60 s of the allow")
	}

	// 4. The tunnel dies mid-session and cannot come back for a while
	// (sshd refuses forwarding now): the box's hooks fail open at once,
	// and a stranger listening on the port meanwhile learns nothing.
	box.setForwarding(false)
	if err := syscall.Kill(link.TunnelPID, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the tunnel's ssh %d: %v", link.TunnelPID, err)
	}
	down := w.waitLink(ctx, "box", "down", 30*time.Second)
	t.Logf("link down: %s", down.Error)
	sq := newSquatter(t, info.Port)
	r := box.hook(ctx, payload("PostToolUse", tool))
	if r.code != 0 || r.stdout != "" {
		t.Errorf("hook on the box with the tunnel down and a stranger on its port: %s\nwant exit 0, no output", r)
	}
	got := string(sq.close())
	t.Logf("the stranger on the port got %d bytes: %q", len(got), got)
	if !strings.Contains(got, "/api/v1/remote/hello") {
		t.Errorf("the stranger got no hello: %q", got)
	}
	for _, secret := range []string{info.Token, id, "PostToolUse", "tool.end"} {
		if strings.Contains(got, secret) {
			t.Errorf("the stranger on the remote port got %q: %q", secret, got)
		}
	}
	r = box.hook(ctx, payload("PostToolUse", tool))
	if r.code != 0 || r.stdout != "" || r.dur > 10*time.Second {
		t.Errorf("hook on the box with the tunnel down: %s\nwant exit 0 at once, no output", r)
	}
	t.Logf("hook with the tunnel down: %v (ssh included)", r.dur.Round(time.Millisecond))

	// It comes back by itself, and later events arrive.
	box.setForwarding(true)
	w.waitLink(ctx, "box", "up", 90*time.Second)
	hookOK("Stop", `,"stop_hook_active":false,"last_assistant_message":"done"`)
	evs = events.waitFor(30*time.Second, "the box's turn.end after the tunnel came back", func(evs []event) bool {
		return anyEvent(forSession(evs, sid), hasKind("turn.end"))
	})
	for _, e := range forSession(evs, sid) {
		if e.Kind == "tool.end" {
			t.Errorf("an event sent while the tunnel was down reached the desktop: %s", e.raw)
		}
	}
	if e := forSession(evs, sid); e[len(e)-1].State != "attention" {
		t.Errorf("box session after Stop: %s, want attention (done)", e[len(e)-1].raw)
	}

	// 5. The real Claude Code on the box, against the fake API.
	cid := newUUID(t)
	csid := "box:" + cid
	env := []string{
		"ANTHROPIC_BASE_URL=" + w.api.URL(), "ANTHROPIC_API_KEY=" + fakeAPIKey, "TERM=xterm-256color", "LANG=C.UTF-8",
		"SHELL=/bin/bash", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY=1",
	}
	env = append(append(env, raceEnv()...), proxyEnv(w.api.URL())...)
	script := "cd " + shQuote(project) + " && exec env"
	for _, kv := range env {
		script += " " + shQuote(kv)
	}
	script += " " + shQuote(claude) + " -p " + shQuote("Please "+marker+" now") +
		" --permission-mode default --session-id " + cid + " --allowedTools Bash Write"
	cr := box.run(ctx, "", script)
	if cr.code != 0 || !strings.Contains(cr.stdout, finalText) {
		t.Fatalf("claude -p on the box: %s", cr)
	}
	evs = events.waitFor(60*time.Second, "session.end of claude on the box", func(evs []event) bool {
		return anyEvent(forSession(evs, csid), hasKind("session.end"))
	})
	sess := forSession(evs, csid)
	t.Logf("claude on the box: %v", sess)
	states = field(sess, func(e event) string { return e.State })
	if !subsequence(states, []string{"thinking", "working", "attention"}) {
		t.Errorf("claude on the box: states %v, want thinking, working, attention (done)", states)
	}
	for _, e := range sess {
		if e.Cwd != "" && e.Cwd != project {
			t.Errorf("claude on the box: cwd %q, want the box's %q", e.Cwd, project)
		}
		if strings.Contains(e.raw, "agent_pid") || strings.Contains(e.raw, "transcript") {
			t.Errorf("an event of the box carries a process id or a transcript path: %s", e.raw)
		}
	}
	checkPrivate(t, sess, writeContent, finalText)

	// It is in the history, on the box, and clawd resume resumes it
	// there: through the profile's ssh, in its folder on the box, with the
	// id Claude Code knows. A claude in the box user's ~/bin (the login
	// shell's ~/.profile puts it on PATH) records how it was run.
	he := w.awaitHistory(ctx, csid, func(e client.HistoryEntry) bool { return e.Ended })
	if he.Host != "box" || he.Cwd != project || strings.Join(he.Resume, " ") != "claude --resume "+cid {
		t.Errorf("history entry of claude on the box = %+v, want host box, its folder there, claude --resume %s", he, cid)
	}
	if r := w.mustClawd(ctx, "history"); !strings.Contains(r.stdout, "claude @box") || !strings.Contains(r.stdout, "box:"+project) {
		t.Errorf("clawd history does not show the session on the box:\n%s", r.stdout)
	}
	box.writeFile("bin/claude", "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$HOME/resume.argv\"\npwd > \"$HOME/resume.cwd\"\nexit 3\n", 0o755)
	rr := w.clawd(ctx, "", "resume", csid)
	argv, _ := os.ReadFile(filepath.Join(box.home, "resume.argv"))
	cwd, _ := os.ReadFile(filepath.Join(box.home, "resume.cwd"))
	if rr.code != 3 || string(argv) != "--resume\n"+cid+"\n" || strings.TrimSpace(string(cwd)) != project {
		t.Errorf("clawd resume %s: %s\nthe box's claude got %q in %q; want exit 3, --resume %s, in %s", csid, rr, argv, cwd, cid, project)
	}
	if r := w.mustClawd(ctx, "resume", "--print", csid[:12]); !strings.HasPrefix(r.stdout, "ssh ") ||
		!strings.Contains(r.stdout, " -t -- "+box.target()+" ") || !strings.Contains(r.stdout, cid) {
		t.Errorf("clawd resume --print of the box's session printed %q, want the ssh command", r.stdout)
	}

	// 6. The connection test.
	tr := w.mustClawd(ctx, "remote", "test", "box")
	if !strings.Contains(tr.stdout, "box: ok") {
		t.Errorf("clawd remote test box printed %q, want ok", tr.stdout)
	}
	// clawd doctor on the box tests the link, and its connection test
	// runs the installed hook, which reaches the desktop through the
	// tunnel.
	dr := box.run(ctx, "", box.envPrefix()+`exec "$HOME/.clawd/bin/clawd" doctor --agent claude`)
	if dr.code != 0 || !regexp.MustCompile(`(?m)^  ok +runtime\.reachable: the desktop's clawd answers for profile box through 127\.0\.0\.1:`+strconv.Itoa(info.Port)+`$`).MatchString(dr.stdout) ||
		!regexp.MustCompile(`(?m)^  ok +claude\.connection: the hook's test event arrived at the desktop \(profile box\) within \d+ ms$`).MatchString(dr.stdout) {
		t.Errorf("clawd doctor on the box: %s\nwant exit 0, the desktop answering, the connection test arrived", dr)
	}
	t.Logf("clawd doctor on the box:\n%s", dr.stdout)
	// clawd doctor on the desktop reports the link.
	if r := w.clawd(ctx, "", "doctor", "--agent", "claude"); !regexp.MustCompile(`(?m)^  ok +remote\.box\.link: the link to box \(ssh\) is up`).MatchString(r.stdout) {
		t.Errorf("clawd doctor on the desktop: %s\nwant the link to box up", r)
	}
	// Neither shows as a session: the box's sessions are those of its
	// hooks and the direct post only.
	st, _ = w.status(ctx)
	for _, s := range st.Sessions {
		if strings.HasPrefix(s.SessionID, "box:") && s.SessionID != sid && s.SessionID != "box:direct-ok" {
			t.Errorf("a session of the box after the connection test: %+v", s)
		}
	}
	for _, e := range events.snapshot() {
		if strings.HasPrefix(e.SessionID, "box:") && e.SessionID != sid && e.SessionID != csid && e.SessionID != "box:direct-ok" {
			t.Errorf("an event of another box session: %s", e.raw)
		}
	}

	// 7. Added again while clawd serve runs: it takes generation 3 at
	// once, on the same tunnel, and refuses generation 2 from then on.
	up := w.waitLink(ctx, "box", "up", 30*time.Second)
	w.mustClawd(ctx, box.addArgs("box")...)
	info3 := checkAdded(t, box, 3)
	if l, _ := w.linkOf(ctx, "box"); l.Generation != 3 || l.State != "up" || l.TunnelPID != up.TunnelPID {
		t.Errorf("link after adding again = %+v, want generation 3, up on the same tunnel (ssh %d)", l, up.TunnelPID)
	}
	if code := post(info.Token, info.Generation, "refused-gen2"); code != http.StatusForbidden {
		t.Errorf("POST with generation 2 after generation 3: %d, want 403", code)
	}
	if code := post(info3.Token, info3.Generation, "direct-gen3"); code != http.StatusNoContent {
		t.Errorf("POST with generation 3: %d, want 204", code)
	}
	hookOK("SessionEnd", `,"reason":"other"`)
	events.waitFor(30*time.Second, "the box's session.end with generation 3", func(evs []event) bool {
		return anyEvent(forSession(evs, sid), hasKind("session.end"))
	})

	// Disabled: no link (its hooks fail open); enabled: up again.
	w.mustClawd(ctx, "remote", "disable", "box")
	if l, ok := w.linkOf(ctx, "box"); ok {
		t.Errorf("a link of the disabled box: %+v", l)
	}
	if r := w.mustClawd(ctx, "remote", "list"); !strings.Contains(r.stdout, "disabled") {
		t.Errorf("clawd remote list does not show box disabled:\n%s", r.stdout)
	}
	if r := box.hook(ctx, payload("SessionStart", `,"source":"resume"`)); r.code != 0 || r.stdout != "" {
		t.Errorf("hook on the disabled box: %s, want exit 0 and no output", r)
	}
	w.mustClawd(ctx, "remote", "enable", "box")
	w.waitLink(ctx, "box", "up", 60*time.Second)

	// 8. Remove: the box's settings as they were, nothing of clawd left.
	w.mustClawd(ctx, "remote", "remove", "box")
	if got := box.readFile(".claude/settings.json"); got != originalSettings {
		t.Errorf("settings.json after remove =\n%s\nwant the original", got)
	}
	if _, err := os.Stat(filepath.Join(box.home, ".clawd")); !os.IsNotExist(err) {
		t.Errorf("~/.clawd still on the box after remove (%v)", err)
	}
	if l, ok := w.linkOf(ctx, "box"); ok {
		t.Errorf("clawd serve still keeps a link to box after remove: %+v", l)
	}
	// Its sessions stay in the history; resuming one says where and how.
	if r := w.clawd(ctx, "", "resume", csid); r.code != 1 || !strings.Contains(r.stderr, "which is no remote of this clawd any more") ||
		!strings.Contains(r.stderr, "cd "+project+" && claude --resume "+cid) {
		t.Errorf("clawd resume of a removed remote's session: %s\nwant exit 1, saying the command to run there", r)
	}
	serve.shutdown()
}

// fakeWSL writes a wsl.exe for the box: `wsl.exe -d DISTRO --exec
// /bin/sh -c SCRIPT` runs the script as the box's user, in its HOME,
// with WSL_DISTRO_NAME set, as WSL runs a command in a distro. Only
// wsl.exe itself and Windows are stood in for.
func (b *sshBox) fakeWSL() string {
	b.t.Helper()
	path := filepath.Join(b.dir, "wsl.exe")
	script := fmt.Sprintf(`#!/bin/sh
[ "$1" = -d ] && [ "$3" = --exec ] && [ "$4" = /bin/sh ] && [ "$5" = -c ] || { echo "fake wsl.exe: unexpected arguments: $*" >&2; exit 2; }
cd %[1]s
exec setpriv --reuid=%[2]d --regid=%[3]d --clear-groups env -i HOME=%[1]s PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 WSL_DISTRO_NAME="$2" %[4]s /bin/sh -c "$6"
`, shQuote(b.home), b.uid, b.gid, strings.Join(raceEnv(), " "))
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
		b.t.Fatal(err)
	}
	return path
}

// TestRemoteWSL: `clawd remote add NAME --wsl DISTRO` through wsl.exe
// (a stand-in that runs the distro's commands as the box's user): the
// distro set up as a box is, serve's WSL link with no tunnel, a hook in
// the distro showing as wsl:<distro>:<id> with no process id, its
// permission request answered here, and remove leaving its HOME as it was.
func TestRemoteWSL(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	box := newSSHBox(t)
	box.writeFile(".claude/settings.json", originalSettings, 0o644)
	before := box.snapshot()
	w := newWorld(t)
	// clawd finds wsl.exe on PATH, as on Windows.
	wsl := box.fakeWSL()
	w.pathPrefix = filepath.Dir(wsl)

	r := w.mustClawd(ctx, "remote", "add", "ubuntu", "--wsl", "Ubuntu")
	t.Logf("clawd remote add --wsl:\n%s", r.stdout)
	info := box.runtimeInfo()
	if info.Mode != "remote" || info.Profile != "ubuntu" || info.Port == 0 {
		t.Fatalf("the distro's runtime.json = %+v", info)
	}
	w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	link := w.waitLink(ctx, "ubuntu", "up", 30*time.Second)
	if link.Label != "wsl:Ubuntu" || link.Ingress != fmt.Sprintf("127.0.0.1:%d", info.Port) || link.TunnelPID != 0 {
		t.Errorf("WSL link = %+v, want wsl:Ubuntu listening on the distro's port %d, no tunnel", link, info.Port)
	}

	inDistro := func(stdin, script string) result {
		t.Helper()
		cmd := exec.CommandContext(ctx, wsl, "-d", "Ubuntu", "--exec", "/bin/sh", "-c", script)
		cmd.Stdin = strings.NewReader(stdin)
		return run(t, cmd)
	}
	id := newUUID(t)
	sid := "wsl:Ubuntu:" + id
	for _, ev := range []string{"SessionStart", "UserPromptSubmit"} {
		payload := fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":%q,"prompt":"hi"}`, id, box.home, ev)
		if r := inDistro(payload, `CLAUDE_PID=4242 exec "$HOME/.clawd/bin/clawd" hook claude`); r.code != 0 || r.stdout != "" {
			t.Fatalf("hook %s in the distro: %s", ev, r)
		}
	}
	evs := events.waitFor(20*time.Second, "the distro's prompt", func(evs []event) bool {
		return anyEvent(forSession(evs, sid), hasKind("prompt.submit"))
	})
	for _, e := range forSession(evs, sid) {
		if strings.Contains(e.raw, "agent_pid") || !strings.Contains(e.raw, `"host":"wsl:Ubuntu"`) {
			t.Errorf("event of the distro: %s, want host wsl:Ubuntu and no agent pid", e.raw)
		}
	}
	permDone := make(chan result, 1)
	go func() {
		payload := fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":"PermissionRequest","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls"}}`, id, box.home)
		permDone <- inDistro(payload, `exec "$HOME/.clawd/bin/clawd" hook claude`)
	}()
	var pid string
	w.waitPermissions(ctx, 30*time.Second, "the distro's permission request", func(l []client.PermissionView) bool {
		for _, p := range l {
			if p.SessionID == sid {
				pid = p.ID
			}
		}
		return pid != ""
	})
	w.mustPerm(ctx, "deny", pid)
	select {
	case r := <-permDone:
		if r.code != 0 || !strings.Contains(r.stdout, `"behavior":"deny"`) {
			t.Errorf("the distro's PermissionRequest hook: %s, want the deny", r)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the distro's PermissionRequest hook did not return")
	}

	// The session ends; clawd resume resumes it in the distro, through
	// wsl.exe, in its folder there: a claude in the distro user's ~/bin
	// (the login shell's ~/.profile puts it on PATH) records how it ran.
	end := fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":"SessionEnd","reason":"other"}`, id, box.home)
	if r := inDistro(end, `exec "$HOME/.clawd/bin/clawd" hook claude`); r.code != 0 {
		t.Fatalf("hook SessionEnd in the distro: %s", r)
	}
	if he := w.awaitHistory(ctx, sid, func(e client.HistoryEntry) bool { return e.Ended }); he.Host != "wsl:Ubuntu" || he.Cwd != box.home {
		t.Errorf("history entry of the distro's session = %+v, want host wsl:Ubuntu, its folder there", he)
	}
	box.writeFile("bin/claude", "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$HOME/resume.argv\"\npwd > \"$HOME/resume.cwd\"\nexit 3\n", 0o755)
	rr := w.clawd(ctx, "", "resume", sid)
	argv, _ := os.ReadFile(filepath.Join(box.home, "resume.argv"))
	cwd, _ := os.ReadFile(filepath.Join(box.home, "resume.cwd"))
	if rr.code != 3 || string(argv) != "--resume\n"+id+"\n" || strings.TrimSpace(string(cwd)) != box.home {
		t.Errorf("clawd resume %s: %s\nthe distro's claude got %q in %q; want exit 3, --resume %s, in %s", sid, rr, argv, cwd, id, box.home)
	}
	if r := w.mustClawd(ctx, "resume", "--print", sid); r.stdout != "wsl.exe -d Ubuntu --exec /bin/sh -c "+
		shQuote("cd "+box.home+` && exec "${SHELL:-/bin/sh}" -lc 'exec claude --resume `+id+"'")+"\n" {
		t.Errorf("clawd resume --print of the distro's session printed %q, want the wsl.exe command", r.stdout)
	}
	for _, f := range []string{"bin", "resume.argv", "resume.cwd"} {
		if err := os.RemoveAll(filepath.Join(box.home, f)); err != nil {
			t.Fatal(err)
		}
	}

	w.mustClawd(ctx, "remote", "remove", "ubuntu")
	if d := diffSnapshots(before, box.snapshot()); len(d) > 0 {
		t.Errorf("the distro's HOME after remove differs from before the add:\n%s", strings.Join(d, "\n"))
	}
}

package doctor

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/health"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/peercred"
	"github.com/clawdhq/clawd/runtime/client"
)

const isWindows = goruntime.GOOS == "windows"

// runtimeState is what the runtime checks found, for the agents' checks.
type runtimeState struct {
	checks []Check
	// client talks to the runtime; nil when none answers.
	client *client.Client
	// remote is the desktop this machine's hooks report to when its
	// runtime.json is in remote mode, and remoteUp whether it answered.
	remote       *client.Remote
	remoteUp     bool
	integrations []client.Integration
	// pid is this machine's clawd serve, once it answered.
	pid int
}

// adder returns a function that adds the runtime's check "runtime."+id.
func (rt *runtimeState) adder() func(id string, s Status, finding, fix i18n.Msg) {
	return func(id string, s Status, finding, fix i18n.Msg) {
		rt.checks = append(rt.checks, health.New("runtime."+id, "", s, finding, fix))
	}
}

// reached reports whether a runtime answered: this machine's, or in
// remote mode the desktop's.
func (rt *runtimeState) reached() bool { return rt.client != nil || rt.remoteUp }

// probe asks the runtime that answered whether probe id arrived.
func (rt *runtimeState) probe(ctx context.Context, id string) (client.Probe, error) {
	if rt.remote != nil {
		return rt.remote.Probe(ctx, id)
	}
	return rt.client.Probe(ctx, id)
}

// health is GET /api/v1/health.
type healthInfo struct {
	Version string `json:"version"`
	PID     int    `json:"pid"`
	Port    int    `json:"port"`
}

// checkRuntime checks that the runtime answers on the clawd home's socket,
// that runtime.json describes it and only its owner can read it, that
// its port answers as clawd, and that no other program holds clawd's
// ports.
func checkRuntime(ctx context.Context, o Options) *runtimeState {
	rt := &runtimeState{}
	add := rt.adder()
	var none i18n.Msg
	restart := i18n.M("doctor.fixes.restart")
	sock := client.SocketPath(o.Home)
	infoPath := filepath.Join(o.Home, client.InfoFile)
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c, err := client.Discover(dctx, o.Home, client.Options{DialTimeout: time.Second, ProbeTimeout: time.Second})
	var h healthInfo
	if err == nil {
		err = c.Call(dctx, http.MethodGet, "/api/v1/health", nil, &h)
	}
	if errors.Is(err, client.ErrNotRunning) {
		if r, rerr := client.ReadRemote(o.Home); !errors.Is(rerr, client.ErrNoInfo) && !errors.Is(rerr, client.ErrNoRemote) {
			checkRemote(dctx, o, rt, r, rerr)
			return rt
		}
	}
	switch {
	case errors.Is(err, client.ErrNotOurs):
		add("reachable", Fail, i18n.M("doctor.finding.socket_not_ours", sock, err),
			i18n.M("doctor.fixes.remove_socket", sock))
	case err != nil:
		// A failure: nothing reaches the person until it runs.
		add("reachable", Fail, i18n.M("doctor.finding.not_running", o.Home),
			i18n.M("doctor.fixes.start"))
	case h.Version != o.Version:
		rt.client, rt.pid = c, h.PID
		add("reachable", Warn, i18n.M("doctor.finding.other_version", h.Version, h.PID, sock, o.Version),
			i18n.M("doctor.fixes.restart_this"))
	default:
		rt.client, rt.pid = c, h.PID
		add("reachable", OK, i18n.M("doctor.finding.answers", h.Version, h.PID, sock), none)
	}
	var links []client.RemoteLink
	var problems []client.Problem
	if rt.client != nil {
		if snap, err := rt.client.Sessions(dctx); err == nil {
			rt.integrations = snap.Integrations
			links = snap.Remotes
			problems = snap.Problems
		}
	}

	info, infoErr := client.ReadInfo(o.Home)
	switch {
	case rt.client != nil && errors.Is(infoErr, client.ErrNoInfo):
		add("info", Fail, i18n.M("doctor.finding.info_missing", infoPath), restart)
	case rt.client != nil && infoErr != nil:
		add("info", Fail, i18n.M("doctor.finding.error", infoErr.Error()), restart)
	case rt.client != nil && info.PID != h.PID:
		add("info", Fail, i18n.M("doctor.finding.info_pid", infoPath, info.PID, h.PID), restart)
	case rt.client != nil && info.Socket != "" && info.Socket != sock:
		add("info", Fail, i18n.M("doctor.finding.info_socket", infoPath, info.Socket, sock), restart)
	case rt.client != nil:
		add("info", OK, i18n.M("doctor.finding.info_ok", infoPath, info.PID, info.Port), none)
	case infoErr == nil:
		add("info", Warn, i18n.M("doctor.finding.info_left", infoPath, info.PID), i18n.M("doctor.fixes.info_left"))
	}
	if infoErr == nil {
		checkToken(rt, infoPath)
	}

	port := 0
	if rt.client != nil && infoErr == nil {
		port = info.Port
		switch {
		case port == 0:
			add("port", Warn, i18n.M("doctor.finding.no_port", portRange(o.Ports)), i18n.M("doctor.fixes.ports_all"))
		case provesPort(ctx, port, info.Token):
			add("port", OK, i18n.M("doctor.finding.port_ok", port), none)
		case isClawd(ctx, port):
			add("port", Fail, i18n.M("doctor.finding.port_unproven", infoPath, port), restart)
		default:
			add("port", Fail, i18n.M("doctor.finding.port_dead", infoPath, port), restart)
		}
	}
	var foreign []string
	for _, p := range o.Ports {
		if p == port {
			continue
		}
		if held, ok := heldByOther(ctx, p); ok {
			foreign = append(foreign, held)
		}
	}
	// Every port held is a warning, not a failure: the runtime serves
	// hooks and the CLI on its socket alone then, only the dashboard and
	// token clients wait for a port.
	switch {
	case len(foreign) == len(o.Ports):
		add("ports", Warn, i18n.M("doctor.finding.ports_all", strings.Join(foreign, ", ")), i18n.M("doctor.fixes.ports_all"))
	case len(foreign) > 0:
		add("ports", Warn, i18n.M("doctor.finding.ports_some", strings.Join(foreign, ", ")), i18n.M("doctor.fixes.ports_some"))
	default:
		add("ports", OK, i18n.M("doctor.finding.ports_ok", portRange(o.Ports)), none)
	}
	rt.checks = append(rt.checks, linkChecks(links)...)
	// What the runtime says is wrong with itself (the history or the
	// automations that cannot be written, a store moved aside), in the
	// runtime's words; a missing port is runtime.port's already.
	for _, p := range problems {
		if p.ID == runtimeProblemDashboard {
			continue
		}
		fix := none
		if p.Remedy != "" {
			fix = i18n.M("doctor.fixes.runtime_problem", p.Remedy)
		}
		add(p.ID, Warn, i18n.M("doctor.finding.runtime_problem", p.Text), fix)
	}
	return rt
}

// runtimeProblemDashboard is runtime.ProblemDashboard (the runtime
// package is not linked here for one string).
const runtimeProblemDashboard = "dashboard"

// linkChecks reports the runtime's links to remote machines (clawd
// remote add): a link that is not up leaves that machine's agents
// unheard.
func linkChecks(links []client.RemoteLink) []Check {
	var out []Check
	for _, l := range links {
		id := "remote." + l.Profile + ".link"
		fix := i18n.Literal("clawd remote test " + l.Profile)
		switch {
		case l.State == client.LinkUp:
			out = append(out, health.New(id, "", OK, i18n.M("doctor.finding.link_up", l.Profile, l.Kind), i18n.Msg{}))
		case l.Error != "":
			out = append(out, health.New(id, "", Warn, i18n.M("doctor.finding.link_down_why", l.Profile, l.Kind, l.State, l.Error), fix))
		default:
			out = append(out, health.New(id, "", Warn, i18n.M("doctor.finding.link_down", l.Profile, l.Kind, l.State), fix))
		}
	}
	return out
}

// checkToken checks that only its owner can read runtime.json at path,
// which holds a token.
func checkToken(rt *runtimeState, path string) {
	if isWindows {
		return
	}
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	add := rt.adder()
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		add("token", Fail, i18n.M("doctor.finding.token_open", path, perm), i18n.Literal("chmod 600 "+path))
		return
	}
	add("token", OK, i18n.M("doctor.finding.token_ok", path), i18n.Msg{})
}

// checkRemote checks a machine whose runtime.json is in remote mode (r,
// or rerr when it is not what remote mode writes): no runtime runs here,
// the hooks report to a desktop's through the port it names, and a
// connection test through that port says whether the desktop answers.
func checkRemote(ctx context.Context, o Options, rt *runtimeState, r client.Remote, rerr error) {
	add := rt.adder()
	infoPath := filepath.Join(o.Home, client.InfoFile)
	if rerr != nil {
		add("info", Fail, i18n.M("doctor.finding.error", rerr.Error()), i18n.M("doctor.fixes.remote_add"))
		return
	}
	rt.remote = &r
	onDesktop := i18n.M("doctor.fixes.on_desktop", r.Profile)
	nonce := make([]byte, 16)
	rand.Read(nonce)
	ans, err := r.Test(ctx, hex.EncodeToString(nonce), o.Version)
	switch {
	case errors.Is(err, client.ErrBadProof) || errors.Is(err, client.ErrNotClawd):
		add("reachable", Fail, i18n.M("doctor.finding.remote_not_clawd", r.Profile, r.Port, err), onDesktop)
	case err != nil:
		add("reachable", Warn, i18n.M("doctor.finding.remote_down", r.Profile, r.Port, err), onDesktop)
	case ans.Version != "" && ans.Version != o.Version:
		rt.remoteUp = true
		add("reachable", Warn, i18n.M("doctor.finding.remote_version", ans.Version, r.Profile, r.Port, o.Version),
			i18n.M("doctor.fixes.remote_copy"))
	default:
		rt.remoteUp = true
		add("reachable", OK, i18n.M("doctor.finding.remote_up", r.Profile, r.Port), i18n.Msg{})
	}
	add("info", OK, i18n.M("doctor.finding.remote_mode", infoPath, r.Profile, r.Port), i18n.Msg{})
	checkToken(rt, infoPath)
}

// portRange says which ports ports are: "23333-23337".
func portRange(ports []int) string {
	if len(ports) == 0 {
		return "(none)"
	}
	lo, hi := slices.Min(ports), slices.Max(ports)
	if hi-lo+1 == len(ports) {
		return fmt.Sprintf("%d-%d", lo, hi)
	}
	var s []string
	for _, p := range ports {
		s = append(s, strconv.Itoa(p))
	}
	return strings.Join(s, ", ")
}

// open reports whether something listens on 127.0.0.1:port.
func open(ctx context.Context, port int) bool {
	d := net.Dialer{Timeout: 300 * time.Millisecond}
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// isClawd reports whether something answers the original app's GET
// /state on 127.0.0.1:port with clawd's identity header, which any
// program can send.
func isClawd(ctx context.Context, port int) bool {
	resp, ok := getState(ctx, port, "")
	return ok && resp.Get(client.IdentityHeader) == client.IdentityValue
}

// provesPort reports whether the program on 127.0.0.1:port proves it is
// the runtime that wrote runtime.json with token: it answers a fresh
// nonce with client.PortProof, which takes the token; the token itself is
// never sent.
func provesPort(ctx context.Context, port int, token string) bool {
	if token == "" {
		return false
	}
	b := make([]byte, 16)
	rand.Read(b)
	nonce := hex.EncodeToString(b)
	resp, ok := getState(ctx, port, nonce)
	return ok && hmac.Equal([]byte(resp.Get(client.ProofHeader)), []byte(client.PortProof(token, nonce)))
}

// getState sends GET /state to 127.0.0.1:port (with nonce, when set) and
// returns the answer's headers.
func getState(ctx context.Context, port int, nonce string) (http.Header, bool) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(port)+"/state", nil)
	if err != nil {
		return nil, false
	}
	if nonce != "" {
		req.Header.Set(client.NonceHeader, nonce)
	}
	hc := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, false
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	return resp.Header, true
}

// heldByOther reports a port of clawd's range held by another program,
// and how to name it: "23334", or "23334 (uid 65534, nobody)" when the
// kernel says another user's process listens there. What another user
// runs is never this person's clawd, whatever it answers; a program of
// this user's that answers as clawd is taken for another clawd home's
// runtime.
func heldByOther(ctx context.Context, port int) (string, bool) {
	if !open(ctx, port) {
		return "", false
	}
	name := strconv.Itoa(port)
	uid, err := peercred.TCPListener(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
	if err == nil && uid != os.Geteuid() {
		who := "uid " + strconv.Itoa(uid)
		if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
			who += ", " + u.Username
		}
		return name + " (" + who + ")", true
	}
	return name, !isClawd(ctx, port)
}

// binaryVersion asks the clawd at path for its version (`clawd version`
// prints "clawd <version> (...)").
func binaryVersion(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "version").Output()
	if err != nil {
		return "", err
	}
	f := strings.Fields(string(out))
	if len(f) < 2 || f[0] != "clawd" {
		return "", fmt.Errorf("`%s version` printed %q", path, firstLine(string(out)))
	}
	return f[1], nil
}

// selfRepairCheck reports the runtime's self-repair of agent a's hooks;
// none when the runtime does not run. right says the hooks are right now
// (a fix just now, which the runtime sees at its next check).
func selfRepairCheck(a *agents.Agent, rt *runtimeState, right bool) (Check, bool) {
	for _, in := range rt.integrations {
		if in.Agent != a.ID {
			continue
		}
		c := func(s Status, finding, fix i18n.Msg) (Check, bool) {
			return health.New(a.ID+".self_repair", a.ID, s, finding, fix), true
		}
		switch {
		case in.State == client.IntegrationNeedsManualFix && right:
			return c(OK, i18n.M("doctor.finding.repair_resumes"), i18n.Msg{})
		case in.State == client.IntegrationNeedsManualFix:
			return c(Fail, i18n.M("doctor.finding.repair_stopped", in.Detail), i18n.M("doctor.fixes.repair_stopped", in.ConfigPath, fixCommand(a)))
		case in.State == client.IntegrationRepaired:
			return c(OK, i18n.MN("doctor.finding.repaired", in.Repairs, in.Detail), i18n.Msg{})
		case in.State == client.IntegrationOK:
			return c(OK, i18n.M("doctor.finding.repair_ok", in.ConfigPath), i18n.Msg{})
		}
		return Check{}, false
	}
	return Check{}, false
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

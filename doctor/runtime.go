package doctor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clawdhq/clawd/agents"
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
	add := func(id string, s Status, finding, fix string) {
		rt.checks = append(rt.checks, Check{ID: "runtime." + id, Status: s, Finding: finding, Fix: fix})
	}
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
		add("reachable", Fail, fmt.Sprintf("the runtime's socket %s is not this user's: %v", sock, err),
			"remove "+sock+" and start clawd serve")
	case err != nil:
		add("reachable", Warn, fmt.Sprintf("clawd serve is not running for %s: the agents' hooks deliver nothing until it runs", o.Home),
			"clawd serve")
	case h.Version != o.Version:
		rt.client = c
		add("reachable", Warn, fmt.Sprintf("clawd serve %s (pid %d) answers on %s, and this clawd is %s", h.Version, h.PID, sock, o.Version),
			"restart clawd serve with this clawd")
	default:
		rt.client = c
		add("reachable", OK, fmt.Sprintf("clawd serve %s (pid %d) answers on %s", h.Version, h.PID, sock), "")
	}
	var links []client.RemoteLink
	if rt.client != nil {
		if snap, err := rt.client.Sessions(dctx); err == nil {
			rt.integrations = snap.Integrations
			links = snap.Remotes
		}
	}

	info, infoErr := client.ReadInfo(o.Home)
	switch {
	case rt.client != nil && errors.Is(infoErr, client.ErrNoInfo):
		add("info", Fail, infoPath+" is missing though the runtime runs: clients over TCP cannot find it", "restart clawd serve")
	case rt.client != nil && infoErr != nil:
		add("info", Fail, infoErr.Error(), "restart clawd serve")
	case rt.client != nil && info.PID != h.PID:
		add("info", Fail, fmt.Sprintf("%s names pid %d, but the runtime is pid %d", infoPath, info.PID, h.PID), "restart clawd serve")
	case rt.client != nil && info.Socket != "" && info.Socket != sock:
		add("info", Fail, fmt.Sprintf("%s names the socket %s, but the runtime answers on %s", infoPath, info.Socket, sock), "restart clawd serve")
	case rt.client != nil:
		add("info", OK, fmt.Sprintf("%s describes the runtime (pid %d, port %d)", infoPath, info.PID, info.Port), "")
	case infoErr == nil:
		add("info", Warn, fmt.Sprintf("%s is left from a runtime that is gone (pid %d)", infoPath, info.PID), "clawd serve (it rewrites the file), or remove it")
	}
	if infoErr == nil {
		checkToken(rt, infoPath)
	}

	port := 0
	if rt.client != nil && infoErr == nil {
		port = info.Port
		if isClawd(ctx, port) {
			add("port", OK, fmt.Sprintf("the runtime answers on 127.0.0.1:%d", port), "")
		} else {
			add("port", Fail, fmt.Sprintf("%s names port %d, but no clawd answers on 127.0.0.1:%d", infoPath, port, port), "restart clawd serve")
		}
	}
	var foreign []string
	for _, p := range o.Ports {
		if p == port {
			continue
		}
		if open(ctx, p) && !isClawd(ctx, p) {
			foreign = append(foreign, strconv.Itoa(p))
		}
	}
	switch {
	case len(foreign) == len(o.Ports):
		add("ports", Fail, "other programs hold every one of clawd's ports 127.0.0.1:"+strings.Join(foreign, ", "), "stop one of them, or run clawd serve --port N")
	case len(foreign) > 0:
		add("ports", Warn, "another program holds clawd's port 127.0.0.1:"+strings.Join(foreign, ", ")+": the original app's scripts posting there reach it, not clawd", "stop it if it is a stale clawd-on-desk")
	default:
		add("ports", OK, "no other program holds clawd's ports "+portRange(o.Ports), "")
	}
	rt.checks = append(rt.checks, linkChecks(links)...)
	return rt
}

// linkChecks reports the runtime's links to remote machines (clawd
// remote add): a link that is not up leaves that machine's agents
// unheard.
func linkChecks(links []client.RemoteLink) []Check {
	var out []Check
	for _, l := range links {
		c := Check{ID: "remote." + l.Profile + ".link", Status: OK}
		switch l.State {
		case client.LinkUp:
			c.Finding = fmt.Sprintf("the link to %s (%s) is up: its hooks reach this runtime", l.Profile, l.Kind)
		default:
			c.Status = Warn
			c.Finding = fmt.Sprintf("the link to %s (%s) is %s: its agents' hooks deliver nothing meanwhile", l.Profile, l.Kind, l.State)
			if l.Error != "" {
				c.Finding += " (" + l.Error + ")"
			}
			c.Fix = "clawd remote test " + l.Profile
		}
		out = append(out, c)
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
	c := Check{ID: "runtime.token", Status: OK, Finding: path + " (with its token) is readable by its owner only"}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		c.Status, c.Finding, c.Fix = Fail, fmt.Sprintf("%s has mode %04o: other users can read the token in it", path, perm), "chmod 600 "+path
	}
	rt.checks = append(rt.checks, c)
}

// checkRemote checks a machine whose runtime.json is in remote mode (r,
// or rerr when it is not what remote mode writes): no runtime runs here,
// the hooks report to a desktop's through the port it names, and a
// connection test through that port says whether the desktop answers.
func checkRemote(ctx context.Context, o Options, rt *runtimeState, r client.Remote, rerr error) {
	add := func(id string, s Status, finding, fix string) {
		rt.checks = append(rt.checks, Check{ID: "runtime." + id, Status: s, Finding: finding, Fix: fix})
	}
	infoPath := filepath.Join(o.Home, client.InfoFile)
	if rerr != nil {
		add("info", Fail, rerr.Error(), "on the desktop: clawd remote add again for this machine")
		return
	}
	rt.remote = &r
	onDesktop := "on the desktop: clawd serve running, then clawd remote test " + r.Profile
	nonce := make([]byte, 16)
	rand.Read(nonce)
	ans, err := r.Test(ctx, hex.EncodeToString(nonce), o.Version)
	switch {
	case errors.Is(err, client.ErrBadProof) || errors.Is(err, client.ErrNotClawd):
		add("reachable", Fail, fmt.Sprintf("something other than the desktop's clawd of profile %s answers on 127.0.0.1:%d: %v; the hooks send it nothing", r.Profile, r.Port, err), onDesktop)
	case err != nil:
		add("reachable", Warn, fmt.Sprintf("the desktop of profile %s does not answer through 127.0.0.1:%d (%v): the agents' hooks here deliver nothing until it does", r.Profile, r.Port, err), onDesktop)
	case ans.Version != "" && ans.Version != o.Version:
		rt.remoteUp = true
		add("reachable", Warn, fmt.Sprintf("the desktop's clawd %s answers for profile %s through 127.0.0.1:%d, and this clawd is %s", ans.Version, r.Profile, r.Port, o.Version),
			"on the desktop: clawd remote add again for this machine (it copies its clawd here)")
	default:
		rt.remoteUp = true
		add("reachable", OK, fmt.Sprintf("the desktop's clawd answers for profile %s through 127.0.0.1:%d", r.Profile, r.Port), "")
	}
	add("info", OK, fmt.Sprintf("%s is in remote mode: this machine's hooks report to the desktop of profile %s through 127.0.0.1:%d", infoPath, r.Profile, r.Port), "")
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

// isClawd reports whether a clawd answers the original app's GET /state
// on 127.0.0.1:port.
func isClawd(ctx context.Context, port int) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(port)+"/state", nil)
	if err != nil {
		return false
	}
	hc := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	return resp.Header.Get(client.IdentityHeader) == client.IdentityValue
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
		c := Check{ID: a.ID + ".self_repair", Agent: a.ID, Status: OK}
		switch {
		case in.State == client.IntegrationNeedsManualFix && right:
			c.Finding = "the runtime had stopped repairing clawd's hooks; they are right now, and it takes them up again at its next check"
		case in.State == client.IntegrationNeedsManualFix:
			c.Status, c.Finding = Fail, "the runtime stopped repairing clawd's hooks: "+in.Detail
			c.Fix = "see what rewrites " + in.ConfigPath + ", then clawd doctor --fix --agent " + a.ID + " (the runtime resumes once the hooks are right)"
		case in.State == client.IntegrationRepaired:
			c.Finding = fmt.Sprintf("the runtime repaired clawd's hooks %d %s since it started: %s", in.Repairs, plural(in.Repairs, "time", "times"), in.Detail)
		case in.State == client.IntegrationOK:
			c.Finding = "the runtime finds clawd's hooks in " + in.ConfigPath + " in place"
		default:
			return Check{}, false
		}
		return c, true
	}
	return Check{}, false
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

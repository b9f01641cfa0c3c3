// Package runtime is `clawd serve`: the HTTP API on a Unix socket that
// hooks post events and permission requests to and the CLI reads, the
// loopback TCP listener for the original app's POST /state and token-bearing
// clients, the session store fed into the state machine, and the feeds the
// tray follows.
package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/clawdhome"
	"github.com/clawdhq/clawd/internal/focus"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/runtime/automations"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/dashboard"
	"github.com/clawdhq/clawd/runtime/history"
	"github.com/clawdhq/clawd/runtime/sessions"
	"github.com/clawdhq/clawd/statemachine"
)

// Config configures a Server.
type Config struct {
	// Home is the clawd home, where runtime.json is written.
	Home    string
	Version string
	Logger  *slog.Logger
	// Now and Alive are the clock and the process liveness check; tests
	// replace them.
	Now   func() time.Time
	Alive func(pid int) bool
	// Getenv is the runtime's environment, where the agents' own files
	// are found from (default os.Getenv).
	Getenv agents.Env
	// Machine tunes the state machine.
	Machine statemachine.Options
	// LivenessEvery is how often agent processes are checked (default 10 s).
	LivenessEvery time.Duration
	// Token is the API token; New makes a random one when empty.
	Token string
	// PermissionTimeout is how long a permission request waits for the
	// person before the agent gets "no decision" (default
	// DefaultPermissionTimeout, 10 minutes; the hook's own wait caps it).
	PermissionTimeout time.Duration
	// HeadlessPolicy handles requests of headless sessions: HeadlessNone
	// ("none", the default) answers no decision at once, HeadlessAsk
	// ("ask") shows them like any other.
	HeadlessPolicy string
	// PermissionsDisabled turns permission handling off per agent id: its
	// requests get no decision at once.
	PermissionsDisabled map[string]bool
	// AgentsDisabled holds the agents, by id, whose events the runtime
	// ignores (config enabled = false): no session, no history, no
	// automations; their requests get no decision at once.
	AgentsDisabled map[string]bool
	// SubagentPermissionsOff holds the agents, by id, whose subagents'
	// requests get no decision at once (config subagent_permissions =
	// false): the agent asks in its own terminal, and the session shows
	// that it waits.
	SubagentPermissionsOff map[string]bool
	// Native, when set, says whether requests of the agent's sessions of
	// the given kind ("" unknown; see Source.SessionKind) are left to the
	// agent's own prompt: no decision at once, the session shown waiting
	// (config permission_mode "native").
	Native func(agent, kind string) bool
	// Sources are the agents' own logs the runtime follows besides their
	// hooks (see Source); RunSources runs them.
	Sources []Source
	// Automations hears what the runtime records and the requests it
	// shows, and is steered through /api/v1/automations; nil: the one
	// OpenAutomations opens, or none.
	Automations *automations.Engine
	// OpenAutomations opens the automations engine; Run calls it once it
	// holds the home's lock and before it listens, so a second serve never
	// touches the store (two engines on one store would each take the
	// other's running actions for crashed ones) and no client ever finds
	// the runtime without its engine. Run runs the engine while it serves
	// and closes it after. An error leaves automations off, logged.
	OpenAutomations func(context.Context) (*automations.Engine, error)
	// History is where the runtime keeps ended sessions, the titles
	// people give and the recap (see runtime/history); nil: the one
	// OpenHistory opens, or none.
	History *history.Store
	// OpenHistory opens the history; Run calls it once it holds the
	// home's lock and before it listens, and closes it after. An error
	// leaves the history, renaming and the recap off, logged.
	OpenHistory func(context.Context) (*history.Store, error)
	// RecapEvery is how often the recap's counts and the coverage are
	// written (default DefaultRecapEvery).
	RecapEvery time.Duration
	// After is the runtime's timer (the permission broker's waits, the
	// sources' grace); tests replace it.
	After func(time.Duration) <-chan time.Time
	// SourceGrace is how long a source's first events of a session the
	// runtime has not heard of are held back for the session's hooks to
	// speak (DefaultSourceGrace when 0; negative: not held).
	SourceGrace time.Duration
	// PermissionHeartbeat is how often a held permission request's
	// response carries a heartbeat (default DefaultPermissionHeartbeat);
	// see client.HeartbeatLoss.
	PermissionHeartbeat time.Duration
	// BodyReadTimeout bounds reading a request's body, from the end of its
	// headers (default DefaultBodyReadTimeout).
	BodyReadTimeout time.Duration
	// LockWait is how long Run waits for the clawd home's lock while the
	// runtime holding it stops (default DefaultLockWait).
	LockWait time.Duration
	// StreamWriteTimeout is how long a write to a stream subscriber may
	// wait before the subscriber is dropped (default
	// DefaultStreamWriteTimeout).
	StreamWriteTimeout time.Duration
	// Focus brings a session's terminal to the front for the dashboard
	// (default focus.Focus, the tray's).
	Focus func(ctx context.Context, t focus.Target) error
	// Agents lists what clawd knows of each agent here, for the
	// dashboard's Agents section; nil: the section is absent.
	Agents func(ctx context.Context) ([]client.AgentInfo, error)
	// Doctor checks and repairs the agents' setups, for the dashboard's
	// Agents section; nil: the dashboard shows no checks and no Fix.
	Doctor Doctor
	// Integrations reports the agents' hooks as the self-repair sees them
	// (client.Snapshot.Integrations); nil: none.
	Integrations func() []client.Integration
	// Remotes are the remote links `clawd serve` keeps (see Ingress); nil:
	// none.
	Remotes Remotes
	// Printer is the person's language, the dashboard's (its page text and
	// the sessions' state labels); the zero Printer is English.
	Printer i18n.Printer
}

// Server is the runtime. Create it with New.
type Server struct {
	cfg Config
	log *slog.Logger
	// port is the TCP port, set by Serve; the Host guards and the
	// dashboard's login (which the tray mints while Serve starts) read it.
	port atomic.Int32

	// sessions is the session store: the state machine, the records'
	// numbers, the history's journal, the streams' backlog and hubs.
	sessions *sessions.Store
	// streams counts the open event and permission streams.
	streams atomic.Int32

	done chan struct{} // closed when shutting down: ends streams

	// perms is the permission broker, beside the store.
	perms *sessions.Broker

	settingsMu  sync.Mutex
	pausedUntil time.Time

	sources *sources
	// titles reads the agents' own files that name sessions.
	titles *titleFiles
	// dash serves the dashboard's data routes, a client of the store's
	// API (dashStore).
	dash *dashAPI
	// logins are the dashboard's login codes and logins.
	logins *dashboard.Logins
	// undeclared counts the posts refused for naming a custom agent
	// config.toml does not declare (see refuseUndeclared).
	undeclared atomic.Int64
	// loginLog counts the refused login codes since the last log line
	// about them (see refusedLogin).
	loginLog struct {
		sync.Mutex
		refused int
		at      time.Time
	}
	probes probes
	// problems are what is wrong with the runtime itself (see setProblem).
	problems problems
	// auto is the automations engine (Config.Automations, or the one
	// Config.OpenAutomations opened once the runtime had its home).
	auto atomic.Pointer[automations.Engine]
	// autoOff is why Config.OpenAutomations failed, for the automations
	// API to say.
	autoOff atomic.Pointer[string]

	// table is the local API (routes), and built the listeners' handlers
	// made from it on first use (see buildListeners).
	table []route
	built builtRoutes
}

// New returns a runtime server.
func New(cfg Config) *Server {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Alive == nil {
		cfg.Alive = pidAlive
	}
	if cfg.LivenessEvery == 0 {
		cfg.LivenessEvery = 10 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Token == "" {
		cfg.Token = newToken()
	}
	if cfg.PermissionHeartbeat <= 0 {
		cfg.PermissionHeartbeat = DefaultPermissionHeartbeat
	}
	if cfg.BodyReadTimeout <= 0 {
		cfg.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if cfg.LockWait <= 0 {
		cfg.LockWait = DefaultLockWait
	}
	if cfg.StreamWriteTimeout <= 0 {
		cfg.StreamWriteTimeout = DefaultStreamWriteTimeout
	}
	if cfg.SourceGrace == 0 {
		cfg.SourceGrace = DefaultSourceGrace
	}
	if cfg.After == nil {
		cfg.After = time.After
	}
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	s := &Server{
		cfg:  cfg,
		log:  cfg.Logger,
		done: make(chan struct{}),

		sources: newSources(cfg.Sources),
		titles:  newTitleFiles(cfg.Getenv),
		logins:  dashboard.NewLogins(cfg.Now, nil),
	}
	s.sessions = sessions.New(sessions.Config{
		Machine: cfg.Machine, Now: cfg.Now, After: cfg.After, Log: cfg.Logger, RecapEvery: cfg.RecapEvery,
		Gone: s.titles.forget, Stale: s.titles.again,
		HistoryFailing: s.historyFailing, HistoryWritten: s.historyWritten, JournalFailing: s.journalFailing,
	})
	s.perms = s.newBroker()
	s.dash = s.newDashAPI()
	s.table = s.routes()
	if cfg.Automations != nil {
		s.auto.Store(cfg.Automations)
	}
	if cfg.History != nil {
		if err := s.useHistory(context.Background(), cfg.History); err != nil {
			s.log.Warn("history off", "err", err)
		}
	}
	return s
}

// openHistory opens Config.OpenHistory's store and keeps the history in
// it; the function it returns closes it (once Serve has written the last
// of it).
func (s *Server) openHistory(ctx context.Context) (closeStore func()) {
	if s.cfg.OpenHistory == nil {
		return nil
	}
	st, err := s.cfg.OpenHistory(ctx)
	if err == nil {
		err = s.useHistory(ctx, st)
		if err != nil {
			st.Close()
		}
	}
	if err != nil {
		s.log.Warn("history, renaming and the recap off", "err", err)
		return nil
	}
	return func() {
		if err := st.Close(); err != nil {
			s.log.Warn("close history", "err", err)
		}
	}
}

// openAutomations opens Config.OpenAutomations's engine and runs it;
// the function it returns stops it and closes its store.
func (s *Server) openAutomations(ctx context.Context) (stop func()) {
	if s.cfg.OpenAutomations == nil {
		return nil
	}
	e, err := s.cfg.OpenAutomations(ctx)
	if err != nil {
		s.log.Warn("automations off", "err", err)
		why := err.Error()
		s.autoOff.Store(&why)
		return nil
	}
	s.auto.Store(e)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
		if err := e.Close(); err != nil {
			s.log.Warn("close automations", "err", err)
		}
	}
}

func newToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}

// tcpPort is the TCP port Serve listens on, 0 before it started.
func (s *Server) tcpPort() int { return int(s.port.Load()) }

// Token returns the API token clients must present for guarded routes.
func (s *Server) Token() string { return s.cfg.Token }

// Connection limits. Past ReadHeaderTimeout for the headers and
// BodyReadTimeout for the body a request is cut off, and only so many
// connections are served at once on each listener: more wait in the
// kernel's backlog, costing the runtime nothing. The socket serves this
// user's hooks, CLI and streams (a held permission request is one
// connection); the TCP port serves POST /state and token-bearing clients,
// and anyone on the machine can fill it, which leaves the socket alone.
const (
	// DefaultBodyReadTimeout is Config.BodyReadTimeout's default. A hook
	// writes its whole request at once, so its body is there with its
	// headers.
	DefaultBodyReadTimeout = 5 * time.Second
	maxSocketConns         = 512
	maxTCPConns            = 128
	// maxForeignConns is what all other users' connections to the TCP
	// port share (see userListener); they are answered nothing but GET
	// /state anyway (see tcpDoor).
	maxForeignConns = 16
	// shutdownGrace is how long a stopping runtime waits for requests in
	// flight (the held permission requests are answered "no decision" at
	// once) before it closes what is left.
	shutdownGrace = time.Second
)

// ErrPortsBusy means every port of the range is taken.
var ErrPortsBusy = errors.New("ports 23333-23337 are all in use")

// ProblemDashboard is the id of the Problem a runtime without a TCP port
// reports.
const ProblemDashboard = "dashboard"

// Listen opens the runtime's TCP listener on 127.0.0.1: on port if it is
// not negative (0 = any free port), else on the first free port of the
// range.
func Listen(port int) (net.Listener, error) {
	if port >= 0 {
		return net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	}
	for _, p := range client.Ports {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err == nil {
			return ln, nil
		}
	}
	return nil, ErrPortsBusy
}

// ErrRemoteHome means the clawd home is a remote machine's: its
// runtime.json is in remote mode.
var ErrRemoteHome = errors.New("this clawd home is the remote side of a desktop's clawd")

// ErrAlreadyRunning means another runtime holds this clawd home's lock.
type ErrAlreadyRunning struct {
	// PID is the other runtime's process id, 0 if it could not be read.
	PID int
}

func (e *ErrAlreadyRunning) Error() string {
	if e.PID == 0 {
		return "clawd serve is already running for this clawd home"
	}
	return fmt.Sprintf("clawd serve is already running (pid %d)", e.PID)
}

// Run is `clawd serve` minus the tray: it makes the clawd home private,
// takes its lock (a second runtime of the same home gets
// *ErrAlreadyRunning; one started while another stops waits for it, up
// to Config.LockWait), listens on the home's socket and on loopback TCP,
// writes runtime.json, serves until ctx ends, then shuts down and removes
// runtime.json. ready, when not nil, gets the runtime info once clients
// can connect.
//
// Hooks and the CLI need only the socket: when the TCP port cannot be
// had (every port of the range held by other programs), the runtime
// serves on the socket alone, says that the dashboard is unavailable
// (Snapshot.Problems), and takes a port as soon as one is free.
func (s *Server) Run(ctx context.Context, port int, ready func(client.Info)) error {
	tightened, err := clawdhome.Ensure(s.cfg.Home)
	switch {
	case errors.Is(err, clawdhome.ErrNotPrivate):
		s.log.Warn("the clawd home is open to other users", "err", err)
	case err != nil:
		return fmt.Errorf("clawd home: %w", err)
	case tightened:
		s.log.Warn("the clawd home was open to other users; made it 0700", "home", s.cfg.Home)
	}
	lock, err := lockHome(s.cfg.Home, s.cfg.LockWait)
	if err != nil {
		return err
	}
	defer lock.release()
	if in, err := client.ReadInfo(s.cfg.Home); err == nil && in.Mode == client.ModeRemote {
		// Its runtime.json is how this machine's hooks reach a desktop:
		// a runtime here would overwrite it, then delete it.
		return fmt.Errorf("%w: its hooks report to the desktop of remote profile %q (clawd remote add); run clawd serve there, or `clawd remote remove %s` there first",
			ErrRemoteHome, in.Profile, in.Profile)
	}
	// Stopping: the lock says so at once, so that a runtime started now
	// waits for this one rather than failing.
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			lock.stopping()
		case <-stopped:
		}
	}()
	if stop := s.openAutomations(ctx); stop != nil {
		defer stop()
	}
	if closeStore := s.openHistory(ctx); closeStore != nil {
		defer closeStore()
	}
	// The sessions the last runtime left and the events its hooks spooled
	// meanwhile, before any hook is taken (continuity.go).
	keep := s.restoreSessions()
	defer keep.stop()
	sockPath := client.SocketPath(s.cfg.Home)
	sock, err := ListenSocket(sockPath, s.log)
	if err != nil {
		if abs, _ := filepath.Abs(s.cfg.Home); filepath.Dir(sockPath) != abs {
			// The home's path is too long for a socket address.
			err = fmt.Errorf("%w (with a shorter CLAWD_HOME the socket stays in the clawd home)", err)
		}
		return fmt.Errorf("listen on %s: %w", sockPath, err)
	}
	keep.listening(ctx)
	info := client.Info{
		Socket:    sockPath,
		PID:       os.Getpid(),
		Version:   s.cfg.Version,
		Token:     s.cfg.Token,
		StartedAt: s.cfg.Now().UTC(),
	}
	// runtime.json is written once the first try for a port is over; a
	// port taken after that is written again.
	var infoMu sync.Mutex
	written := false
	listen := func() (net.Listener, error) {
		ln, err := Listen(port)
		if err != nil {
			s.setProblem(s.dashboardProblem(port, err))
			return nil, err
		}
		s.clearProblem(ProblemDashboard)
		// Known before ready: the tray may mint a dashboard login at once.
		s.port.Store(int32(ln.Addr().(*net.TCPAddr).Port))
		infoMu.Lock()
		defer infoMu.Unlock()
		info.Port = ln.Addr().(*net.TCPAddr).Port
		if written {
			if err := client.WriteInfo(s.cfg.Home, info); err != nil {
				s.log.Warn("write runtime.json", "err", err)
			}
			s.log.Info("listening on TCP at last: the dashboard is available", "addr", ln.Addr().String())
		}
		return ln, nil
	}
	ln, lnErr := listen()
	if lnErr != nil {
		s.log.Warn("serving on the socket alone: the dashboard and token clients are unavailable until a port is free",
			"err", lnErr)
	}
	infoMu.Lock()
	err = client.WriteInfo(s.cfg.Home, info)
	written = true
	first := info
	infoMu.Unlock()
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		sock.Close()
		return fmt.Errorf("write runtime.json: %w", err)
	}
	defer func() {
		if err := client.RemoveInfo(s.cfg.Home, info.PID); err != nil {
			s.log.Warn("remove runtime.json", "err", err)
		}
	}()
	addr := "(none)"
	if ln != nil {
		addr = ln.Addr().String()
	}
	s.log.Info("listening", "socket", sockPath, "addr", addr, "home", s.cfg.Home, "version", s.cfg.Version)
	if ready != nil {
		ready(first)
	}
	var relisten func() (net.Listener, error)
	if ln == nil {
		relisten = listen
	}
	return s.serve(ctx, ln, sock, relisten)
}

// dashboardProblem says why the runtime has no TCP port, in the
// person's language.
func (s *Server) dashboardProblem(port int, err error) client.Problem {
	p := s.cfg.Printer
	what := p.T("problem.ports_held", portSpan())
	if port >= 0 {
		what = p.T("problem.port_failed", port, err)
	}
	return client.Problem{ID: ProblemDashboard, Text: p.T("problem.dashboard", what), Remedy: p.T("problem.dashboard_fix")}
}

// portSpan is client.Ports as "23333-23337".
func portSpan() string {
	return strconv.Itoa(client.Ports[0]) + "-" + strconv.Itoa(client.Ports[len(client.Ports)-1])
}

// relistenEvery is how often a runtime without a TCP port tries again.
const relistenEvery = 5 * time.Second

// Serve serves the TCP listener tcp and the socket listener sock (either
// may be nil) until ctx ends, then shuts down cleanly.
func (s *Server) Serve(ctx context.Context, tcp, sock net.Listener) error {
	return s.serve(ctx, tcp, sock, nil)
}

// serve is Serve; without tcp, relisten (when set) is tried every
// relistenEvery until it gives the TCP listener.
func (s *Server) serve(ctx context.Context, tcp, sock net.Listener, relisten func() (net.Listener, error)) error {
	if _, err := s.builtListeners(); err != nil {
		return err
	}
	if tcp != nil {
		s.port.Store(int32(tcp.Addr().(*net.TCPAddr).Port))
	}
	newServer := func(h http.Handler, idle time.Duration) *http.Server {
		return &http.Server{
			Handler:           h,
			ReadHeaderTimeout: 5 * time.Second,
			IdleTimeout:       idle,
			MaxHeaderBytes:    32 << 10,
			ConnContext:       connPeer,
			ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		}
	}
	g := newHTTPGroup()
	serveTCP := func(ln net.Listener) bool {
		return g.start(newServer(s.TCPHandler(), 30*time.Second), userListener(ln, maxTCPConns, maxForeignConns, s.log))
	}
	if tcp != nil {
		serveTCP(tcp)
	}
	if sock != nil {
		g.start(newServer(s.SocketHandler(), 2*time.Minute), limitListener(sock, maxSocketConns))
	}
	clockCtx, stopClock := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.sessions.RunClock(clockCtx, s.cfg.LivenessEvery, s.cfg.Alive)
	}()
	wg.Go(func() { s.titles.run(clockCtx, s.retitleFromFile, s.retireSession) })
	wg.Go(func() { s.sessions.RunJournal(clockCtx) })
	if tcp == nil && relisten != nil {
		wg.Go(func() {
			for {
				select {
				case <-clockCtx.Done():
					return
				case <-s.cfg.After(relistenEvery):
				}
				if ln, err := relisten(); err == nil {
					if !serveTCP(ln) {
						ln.Close()
					}
					return
				}
			}
		})
	}

	var err error
	select {
	case <-ctx.Done():
	case err = <-g.errc:
	}
	close(s.done)
	g.shutdown(shutdownGrace, s.log)
	stopClock()
	wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	s.log.Info("stopped")
	return err
}

// httpGroup is the runtime's HTTP servers: started as their listeners
// come (the TCP port may come late), shut down together.
type httpGroup struct {
	mu     sync.Mutex
	all    []*http.Server
	closed bool
	// errc gets the first error of any server's Serve.
	errc chan error
}

func newHTTPGroup() *httpGroup { return &httpGroup{errc: make(chan error, 1)} }

// start serves ln with srv, false when the group is shut down already.
func (g *httpGroup) start(srv *http.Server, ln net.Listener) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.all = append(g.all, srv)
	go func() {
		err := srv.Serve(ln)
		select {
		case g.errc <- err:
		default:
		}
	}()
	return true
}

// shutdown stops every server, waiting up to grace for the requests in
// flight.
func (g *httpGroup) shutdown(grace time.Duration, log *slog.Logger) {
	g.mu.Lock()
	g.closed = true
	all := g.all
	g.mu.Unlock()
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	var wg sync.WaitGroup
	for _, srv := range all {
		wg.Go(func() {
			if srv.Shutdown(sctx) != nil {
				// Requests still in flight after the grace: connections
				// stuck mid-request. Nothing is lost closing them.
				log.Info("closing connections still open at shutdown")
				srv.Close()
			}
		})
	}
	wg.Wait()
}

// tick runs the state machine's clock now (see sessions.Store.Tick).
func (s *Server) tick(alive func(int) bool) { s.sessions.Tick(alive) }

// Ingest applies one validated event and publishes it to the stream.
func (s *Server) Ingest(e agents.Event) client.EventRecord {
	rec, _ := s.ingest(e, false)
	return rec
}

// ingest is Ingest. With stateOnly (the original app's POST /state, which
// anything on the machine may send) a session that waits for the person
// is left alone, so nobody but the agent's own hooks and the person can
// close or withdraw its request: ok is then false and nothing changed.
func (s *Server) ingest(e agents.Event, stateOnly bool) (rec client.EventRecord, ok bool) {
	return s.ingestWith(e, "", stateOnly)
}

// ingestWith is ingest for a hook's event with the turn's final answer
// (taken off the event by accept), which only the automations hear.
func (s *Server) ingestWith(e agents.Event, response string, stateOnly bool) (rec client.EventRecord, ok bool) {
	if s.ignored(&e) {
		return client.EventRecord{Event: e, State: string(statemachine.Sleeping)}, true
	}
	if s.titles.gone(context.Background(), &e) {
		// A late word of a session the person archived or deleted in its
		// agent: it stays gone.
		return client.EventRecord{Event: e, State: string(statemachine.Sleeping)}, true
	}
	res, rec, ok := s.apply(e, stateOnly)
	if !ok {
		return rec, false
	}
	s.perms.Settle(statemachine.Key{Agent: e.Agent, ID: e.SessionID})
	s.titles.want(&e)
	if a := s.auto.Load(); a != nil {
		a.Record(context.Background(), automations.Fact{Event: e, Title: res.Session.Title, Cwd: res.Session.Cwd, Response: response})
	}
	return rec, true
}

// apply is the one way an event gets in (see sessions.Store.Apply). It
// does not settle the session's permission requests (ingest does; the
// broker, which holds its own lock, registers requests through the
// store's Apply directly).
func (s *Server) apply(e agents.Event, stateOnly bool) (res statemachine.Result, rec client.EventRecord, ok bool) {
	return s.sessions.Apply(e, stateOnly)
}

// Snapshot returns the display state and every session.
func (s *Server) Snapshot() client.Snapshot {
	snap := s.sessions.Snapshot(nil)
	snap.Integrations = s.integrations()
	snap.Remotes = s.links()
	snap.Problems = s.problemList()
	return snap
}

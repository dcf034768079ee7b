package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	grpcprom "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/recovery"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/apidocs"
	"github.com/damone-rules/damone/internal/connectweb"
	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/metrics"
	"github.com/damone-rules/damone/internal/search"
	"github.com/damone-rules/damone/internal/tracing"
	"github.com/damone-rules/damone/internal/web"
)

// Health service names for gRPC health checking (grpc.health.v1): the
// liveness service is SERVING while the process runs; the readiness
// service is SERVING while it accepts new work, and NOT_SERVING from the
// moment it starts to shut down.
const (
	LivenessService  = "liveness"
	ReadinessService = "readiness"
)

// Default ports and limits; the serve command's flags default to these.
const (
	DefaultGRPCAddr        = ":9090"
	DefaultHTTPAddr        = ":8080"
	DefaultMetricsAddr     = ":9102"
	DefaultDrainTimeout    = 20 * time.Second
	DefaultMaxCallDuration = 10 * time.Second
	DefaultMaxRequestBytes = 1 << 20
	// DefaultMaxHeaderBytes bounds a request's metadata: tokens and ids
	// are short, and without a bound one client's megabytes of headers
	// slow every other call.
	DefaultMaxHeaderBytes = 64 << 10
	DefaultMaxPerftDepth  = 8
	// DefaultMaxStreamsPerConnection bounds the calls one gRPC connection
	// has open at once (advertised in its settings: clients queue more).
	DefaultMaxStreamsPerConnection = 1000
)

// Config is what a Server needs; the serve command fills it from flags.
type Config struct {
	GRPCAddr, HTTPAddr, MetricsAddr string
	// AdminBackup serves the embedded store's hot backup on the metrics
	// address (BackupPath); off by default, as it hands out every game.
	AdminBackup bool
	// Tracing instruments the service for the tracer provider Start
	// installed (internal/tracing): RPC spans (gRPC and REST), store and
	// engine spans, trace ids in call logs and exemplars.
	Tracing bool
	// Pprof serves net/http/pprof under /debug/pprof/ on the metrics
	// address.
	Pprof bool
	// Web serves the board page (internal/web) on the HTTP address: /,
	// /games/{id} and /assets/; only with Games, which the page plays on.
	Web bool
	// CORSOrigins are the origins of other sites whose pages may make
	// Connect and gRPC-Web calls (internal/connectweb); none by default,
	// so only pages served from the HTTP address itself can.
	CORSOrigins             []string
	DrainTimeout            time.Duration // bound on finishing in-flight calls at shutdown
	MaxCallDuration         time.Duration // deadline on every unary call, and on any call's request arriving (idle.go); 0: the default
	MaxStreamsPerConnection int           // calls open at once on one gRPC connection (REST: no bound); 0: the default
	MaxRequestBytes         int
	MaxHeaderBytes          int // request metadata (gRPC) or header block (REST); 0: DefaultMaxHeaderBytes
	MaxPerftDepth           int
	MaxGamePlies            int // moves of one game: ValidateGame accepts, a stored game may have (unless Limits.MaxPlies)
	MaxPositionPlies        int // moves of a game whose every position ValidateGame returns
	// StreamHeartbeat is how long a REST server stream (WatchGame,
	// AnalyzePosition) may be silent before it gets a heartbeat line
	// (HeartbeatLine); 0: DefaultStreamHeartbeat. gRPC streams have
	// HTTP/2 keepalive pings instead.
	StreamHeartbeat time.Duration
	// Rules, Games and Analysis select the services to serve: a fleet
	// that only validates moves runs many stateless Rules-only replicas,
	// games need one store shared by every replica that serves them, and
	// analysis is CPU-bound and scales on its own.
	Rules, Games, Analysis bool
	// Tablebase gives the endgame tables TablebaseService answers from
	// (nil: none; the service then answers NOT_IN_TABLEBASE). It is served
	// with Rules.
	Tablebase Tables
	Limits    games.Limits
	// MaxConnectionAge, if set, makes clients reconnect after this long
	// (with DrainTimeout of grace), so client-side balancing over a
	// headless Service picks up pods added since; 0 keeps connections.
	MaxConnectionAge time.Duration
	// Engine settings: the search's table size per searcher (MiB), the cap
	// on one analysis's time and on analyses at once (also the number of
	// engine moves in games searched at once; more wait their turn, in
	// order, at most MaxEngineQueue of them), and the cap on the engine's
	// thinking time per move in games against it.
	SearchTableMB     int
	MaxAnalysisTime   time.Duration
	MaxAnalyses       int
	MaxEngineQueue    int // 0: no move waits (a caller's move is refused when every slot is taken)
	MaxEngineMoveTime time.Duration
	Store             games.Store
	Logger            *slog.Logger
	// Collectors are further metrics served on /metrics (the tablebase
	// build's progress).
	Collectors []prometheus.Collector
}

// Server is the running service: gRPC, the REST gateway with health
// endpoints, and the metrics endpoint.
type Server struct {
	cfg      Config
	log      *slog.Logger
	games    *games.Service
	metrics  *metrics.Metrics
	health   *health.Server
	grpc     *grpc.Server
	ready    atomic.Bool
	draining atomic.Bool
	stopping chan struct{} // closed at shutdown: ends analyses
	search   *search.Pool
	arrivals *arrivals // calls waiting for their request
	// restArrivals is arrivals for the gateway's server; its calls do not
	// wait for their request, as bodies bounds the arrival of every REST
	// call's body (validateGames: its first line) before the call opens.
	restArrivals *arrivals
	bodies       *bodies

	grpcLis, httpLis, metricsLis net.Listener
	httpSrv, metricsSrv          *http.Server
	gatewayConn                  *grpc.ClientConn
	// gatewayLis carries the gateway's own gRPC connection in memory:
	// the same HTTP/2 client connection, interceptors and streaming as
	// over TCP, without a round trip through the kernel's loopback.
	gatewayLis *bufconn.Listener
	// gatewayGRPC serves the gateway's connection: the same services and
	// interceptors as grpc, without the bound on streams per connection,
	// which on this one connection would cap every REST call and watcher
	// together (REST has the HTTP server's own bounds), and without the
	// maximum connection age, which would cut REST watches.
	gatewayGRPC *grpc.Server
}

// New listens on the configured addresses and builds the service; Serve
// starts it. Listening here lets a caller learn the real ports (":0") and
// makes a busy port an error at start.
func New(cfg Config) (*Server, error) {
	cfg.MaxCallDuration = cmp.Or(cfg.MaxCallDuration, DefaultMaxCallDuration)
	s := &Server{cfg: cfg, log: cfg.Logger, arrivals: newArrivals(cfg.MaxCallDuration)}
	s.metrics = metrics.New(cfg.Store.Count)
	for _, c := range cfg.Collectors {
		if err := s.metrics.Registry.Register(c); err != nil {
			return nil, fmt.Errorf("metrics: %w", err)
		}
	}
	s.arrivals.timedOut = func() { s.metrics.RequestTimedOut(metrics.TransportGRPC) }
	s.restArrivals = newArrivals(cfg.MaxCallDuration)
	s.restArrivals.timedOut = func() { s.metrics.RequestTimedOut(metrics.TransportREST) }
	s.bodies = newBodies(cfg.MaxCallDuration, cfg.MaxRequestBytes, s.restArrivals.timedOut)
	s.stopping = make(chan struct{})
	s.search = search.NewPool(cfg.SearchTableMB).WithTables(func() search.Tablebase {
		if cfg.Tablebase == nil {
			return nil
		}
		if set, _ := cfg.Tablebase(); set != nil {
			return search.Tables(set)
		}
		return nil
	})
	// One bound on a game's length: what ValidateGame accepts is what a
	// stored game may reach.
	lim := cfg.Limits
	lim.MaxPlies = cmp.Or(lim.MaxPlies, cfg.MaxGamePlies)
	lim.MinClockTime = cmp.Or(lim.MinClockTime, games.DefaultLimits.MinClockTime)
	lim.MaxClockTime = cmp.Or(lim.MaxClockTime, games.DefaultLimits.MaxClockTime)
	lim.FirstMoveTime = cmp.Or(lim.FirstMoveTime, games.DefaultLimits.FirstMoveTime)
	store, mover := cfg.Store, games.EngineMover(s.search)
	if cfg.Tracing {
		store, mover = tracing.Store(store), tracing.Mover(mover)
	}
	s.games = games.NewService(s.metrics.InstrumentStore(store), lim,
		games.WithObserver(s.metrics), games.WithLogger(cfg.Logger),
		games.WithEngine(mover, cfg.MaxEngineMoveTime, cfg.MaxAnalyses), games.WithEngineQueue(cfg.MaxEngineQueue))

	var err error
	if s.grpcLis, err = net.Listen("tcp", cfg.GRPCAddr); err != nil {
		return nil, fmt.Errorf("grpc-addr %s: %w", cfg.GRPCAddr, err)
	}
	if s.httpLis, err = net.Listen("tcp", cfg.HTTPAddr); err != nil {
		s.grpcLis.Close()
		return nil, fmt.Errorf("http-addr %s: %w", cfg.HTTPAddr, err)
	}
	if s.metricsLis, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
		s.grpcLis.Close()
		s.httpLis.Close()
		return nil, fmt.Errorf("metrics-addr %s: %w", cfg.MetricsAddr, err)
	}

	opts := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(transportMaxFactor * cfg.MaxRequestBytes),
		grpc.MaxHeaderListSize(uint32(cmp.Or(cfg.MaxHeaderBytes, DefaultMaxHeaderBytes))),
		grpc.ForceServerCodecV2(newCodec(cfg.MaxRequestBytes)),
		// Long-lived workers serve calls, instead of a new goroutine (and
		// stack growth) per call; grpc-go still starts a goroutine when
		// all workers are busy, e.g. with watch streams.
		grpc.NumStreamWorkers(uint32(runtime.NumCPU())),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}),
		grpc.ChainUnaryInterceptor(
			s.arrivals.unary,
			// An exemplar on the latency histogram names the call's trace.
			s.metrics.GRPC.UnaryServerInterceptor(grpcprom.WithExemplarFromContext(traceExemplar)),
			logging.UnaryServerInterceptor(slogAdapter(s.log), logOptions...),
			recovery.UnaryServerInterceptor(recovery.WithRecoveryHandlerContext(s.recovered)),
			rejectRefusedUnary,
			s.callDeadline,
		),
		grpc.ChainStreamInterceptor(
			s.arrivals.stream,
			s.metrics.GRPC.StreamServerInterceptor(grpcprom.WithExemplarFromContext(traceExemplar)),
			logging.StreamServerInterceptor(slogAdapter(s.log), logOptions...),
			recovery.StreamServerInterceptor(recovery.WithRecoveryHandlerContext(s.recovered)),
			rejectRefusedStream,
		),
	}
	if cfg.Tracing {
		// The handler starts each call's span before the interceptors run,
		// so they (the log line, the exemplar) see its trace.
		opts = append(opts, grpc.StatsHandler(otelgrpc.NewServerHandler()))
	}
	keep := keepalive.ServerParameters{Time: 30 * time.Second, Timeout: 10 * time.Second}
	s.grpc = grpc.NewServer(slices.Concat(opts, []grpc.ServerOption{
		// A call's request must arrive within MaxCallDuration (idle.go).
		grpc.InTapHandle(s.arrivals.tap),
		grpc.MaxConcurrentStreams(uint32(cmp.Or(cfg.MaxStreamsPerConnection, DefaultMaxStreamsPerConnection))),
		// The grace lets an analysis started just before the age is
		// reached run to the server's cap instead of being cut.
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: keep.Time, Timeout: keep.Timeout,
			MaxConnectionAge: cfg.MaxConnectionAge, MaxConnectionAgeGrace: max(cfg.DrainTimeout, addSaturating(cfg.MaxAnalysisTime, time.Second))}),
	})...)
	// No connection age for the gateway's one in-process connection: the
	// age is for balancing external clients, and here it would only cut
	// REST watches and analyses after its grace.
	s.gatewayGRPC = grpc.NewServer(slices.Concat(opts, []grpc.ServerOption{
		grpc.InTapHandle(s.restArrivals.tap), grpc.KeepaliveParams(keep)})...)
	// One instance of each service for both servers: the analysis cap is
	// the service's, for gRPC and REST together.
	rules := NewRulesServer(cfg.MaxPerftDepth, cfg.MaxGamePlies, s.metrics).
		WithMaxPositionPlies(cfg.MaxPositionPlies).StopStreamsOn(s.stopping)
	gameServer := NewGameServer(s.games)
	tablebase := NewTablebaseServer(cfg.Tablebase)
	analysis := NewAnalysisServer(s.search, cfg.MaxAnalysisTime, cfg.MaxAnalyses, s.metrics, s.stopping).WithTables(cfg.Tablebase)
	for _, g := range []*grpc.Server{s.grpc, s.gatewayGRPC} {
		if cfg.Rules {
			damonev1.RegisterRulesServiceServer(g, rules)
			damonev1.RegisterTablebaseServiceServer(g, tablebase)
		}
		if cfg.Games {
			damonev1.RegisterGameServiceServer(g, gameServer)
		}
		if cfg.Analysis {
			damonev1.RegisterAnalysisServiceServer(g, analysis)
		}
	}
	s.health = health.NewServer()
	healthpb.RegisterHealthServer(s.grpc, s.health)
	reflection.Register(s.grpc)
	s.metrics.GRPC.InitializeMetrics(s.grpc)

	s.gatewayLis = bufconn.Listen(gatewayBufferBytes)
	gw, conn, err := newGateway(s.gatewayLis, cfg.MaxRequestBytes, s.bodies, cfg.Tracing, cmp.Or(cfg.StreamHeartbeat, DefaultStreamHeartbeat))
	if err != nil {
		s.closeListeners()
		return nil, err
	}
	s.gatewayConn = conn
	// Connect and gRPC-Web on the gateway's server: the services without
	// health and reflection, the interceptors of every call, and no
	// connection age (it would cut browser watches). Its requests pass the
	// body guard too, which answers them in their own protocol.
	rpc, err := connectweb.New(s.gatewayGRPC, connectweb.Options{MaxMessageBytes: gatewayMaxResponseBytes,
		CORSOrigins: cfg.CORSOrigins, CORSHeaders: []string{"Authorization"},
		DecodeError: func(body []byte, err error) error {
			field := cmp.Or(jsonFieldAt(body, err.Error()), "body")
			return invalidStatus(field, "the request does not decode as this method's request message: "+err.Error())
		},
		MaxRequestBytes: cfg.MaxRequestBytes,
		TooLarge: limitExceeded("request_bytes", cfg.MaxRequestBytes,
			"the request is larger than the server's limit of %d bytes once decompressed (setting max-request-bytes)", cfg.MaxRequestBytes)})
	if err != nil {
		s.closeListeners()
		conn.Close()
		return nil, err
	}
	restAnswer := s.bodies.answer
	s.bodies.answer = func(w http.ResponseWriter, r *http.Request, err error) {
		if !rpc.Handles(r) {
			restAnswer(w, r, err)
			return
		}
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			err = limitExceeded("request_bytes", cfg.MaxRequestBytes,
				"the request body is larger than the server's limit of %d bytes (setting max-request-bytes)", cfg.MaxRequestBytes)
		}
		rpc.WriteError(w, r, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { writePlain(w, http.StatusOK, "ok") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if s.ready.Load() {
			writePlain(w, http.StatusOK, "ready")
		} else {
			writePlain(w, http.StatusServiceUnavailable, "not ready")
		}
	})
	// Every method, so that another than GET is the gateway's 405.
	mux.Handle(BoardImagePath, boardImageHandler(s.bodies))
	if cfg.Web && cfg.Games {
		site, err := web.New()
		if err != nil {
			s.closeListeners()
			return nil, err
		}
		site.Register(mux)
	}
	for _, p := range rpc.Prefixes() {
		mux.Handle(p, rpc)
	}
	docs, err := apidocs.New(cfg.Web)
	if err != nil {
		s.closeListeners()
		return nil, err
	}
	docs.Register(mux)
	// A Connect or gRPC-Web call of an unknown service of ours gets its
	// protocol's unimplemented, not the REST gateway's 404.
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rpc.Handles(r) {
			rpc.ServeHTTP(w, r)
			return
		}
		gw.ServeHTTP(w, r)
	}))
	// No WriteTimeout: it would cut long watch streams; slow clients are
	// bounded by the per-watcher buffer instead.
	// Every request's body must arrive within MaxCallDuration
	// (gateway_body.go).
	var handler http.Handler = s.bodies.guard(mux)
	if cfg.Tracing {
		// One span per REST request, the parent of the gateway's gRPC
		// call; named by method only (paths hold game ids).
		handler = otelhttp.NewHandler(handler, "rest", otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string {
			return "HTTP " + r.Method
		}))
	}
	s.httpSrv = &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ConnContext: readEndContext, MaxHeaderBytes: cmp.Or(cfg.MaxHeaderBytes, DefaultMaxHeaderBytes)}
	metricsMux := http.NewServeMux()
	metricsMux.Handle("GET /metrics", s.metrics.Handler())
	// Only here: the metrics port is the operators', never the public one;
	// and only when asked for, since whoever reaches the port can read
	// every game.
	if cfg.AdminBackup {
		metricsMux.Handle("GET "+BackupPath, backupHandler(cfg.Store, s.log))
	} else {
		metricsMux.HandleFunc("GET "+BackupPath, func(w http.ResponseWriter, _ *http.Request) {
			writePlain(w, http.StatusNotFound, "the hot backup is off: start damone serve with --admin-backup (docs/deploy.md, Backup and restore)")
		})
	}
	if cfg.Pprof {
		// Only here, and only when asked for: profiles show the service's
		// internals and cost CPU while taken.
		metricsMux.HandleFunc("GET /debug/pprof/", pprof.Index)
		// The command line can hold secrets (a --postgres-dsn with its
		// password); go tool pprof does not need it.
		metricsMux.HandleFunc("GET /debug/pprof/cmdline", func(w http.ResponseWriter, _ *http.Request) {
			writePlain(w, http.StatusNotFound, "the command line is not served: it can hold secrets such as --postgres-dsn (docs/deploy.md, Tracing and profiling)")
		})
		metricsMux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		metricsMux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
		metricsMux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	}
	s.metricsSrv = &http.Server{Handler: metricsMux, ReadHeaderTimeout: 10 * time.Second}
	return s, nil
}

func writePlain(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintln(w, body)
}

// Addrs returns the bound gRPC, HTTP and metrics addresses.
func (s *Server) Addrs() (grpcAddr, httpAddr, metricsAddr string) {
	return s.grpcLis.Addr().String(), s.httpLis.Addr().String(), s.metricsLis.Addr().String()
}

// Serve runs until ctx is cancelled, then shuts down gracefully: readiness
// turns NOT_SERVING at once, watch streams end with UNAVAILABLE (clients
// resume from their last sequence), in-flight calls get DrainTimeout to
// finish, and Serve returns nil.
func (s *Server) Serve(ctx context.Context) error {
	errc := make(chan error, 4)
	go func() { errc <- s.grpc.Serve(s.grpcLis) }()
	go func() { errc <- s.gatewayGRPC.Serve(s.gatewayLis) }()
	// readEndListener: a client that half-closes is still answered
	// (gateway_halfclose.go).
	go func() { errc <- s.httpSrv.Serve(readEndListener{s.httpLis}) }()
	go func() { errc <- s.metricsSrv.Serve(s.metricsLis) }()
	s.health.SetServingStatus(LivenessService, healthpb.HealthCheckResponse_SERVING)
	s.setReady(true)
	bg, stopBackground := context.WithCancel(context.Background())
	defer stopBackground()
	go s.games.Run(bg)
	if p, ok := s.cfg.Store.(games.Pinger); ok {
		go s.watchStore(bg, p)
	}
	g, h, m := s.Addrs()
	s.log.Info("serving", "grpc", g, "http", h, "metrics", m)

	var runErr error
	select {
	case <-ctx.Done():
	case err := <-errc:
		runErr = fmt.Errorf("server stopped: %w", err)
	}
	s.shutdown()
	return runErr
}

// watchStore keeps readiness NOT_SERVING while the store does not answer,
// so load balancers send no calls that could only fail.
func (s *Server) watchStore(ctx context.Context, p games.Pinger) {
	t := time.NewTicker(storePingInterval)
	defer t.Stop()
	healthy := true
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, storePingInterval)
		err := p.Ping(pctx)
		cancel()
		if ctx.Err() != nil || s.draining.Load() {
			return
		}
		switch {
		case err != nil && healthy:
			s.log.Error("store unreachable: readiness NOT_SERVING", "err", err)
			s.setReady(false)
		case err == nil && !healthy:
			s.log.Info("store reachable again: readiness SERVING")
			s.setReady(true)
		}
		healthy = err == nil
	}
}

// storePingInterval is how often readiness checks the store.
const storePingInterval = 2 * time.Second

func (s *Server) setReady(ok bool) {
	st := healthpb.HealthCheckResponse_NOT_SERVING
	if ok {
		st = healthpb.HealthCheckResponse_SERVING
	}
	s.ready.Store(ok)
	s.health.SetServingStatus(ReadinessService, st)
	s.health.SetServingStatus("", st)
}

func (s *Server) shutdown() {
	start := time.Now()
	s.log.Info("shutting down", "drain_timeout", s.cfg.DrainTimeout.String())
	s.draining.Store(true)
	s.setReady(false)
	s.games.Drain()
	close(s.stopping)
	s.arrivals.stop()
	s.restArrivals.stop()
	s.bodies.stop()

	drainCtx, cancel := context.WithTimeout(context.Background(), s.cfg.DrainTimeout)
	defer cancel()
	// The gateway first: its in-flight requests are gRPC calls that still
	// need the gRPC server.
	if err := s.httpSrv.Shutdown(drainCtx); err != nil {
		s.log.Warn("http drain cut short", "err", err)
		s.httpSrv.Close()
	}
	stopped := make(chan struct{})
	go func() {
		var wg sync.WaitGroup
		wg.Go(s.gatewayGRPC.GracefulStop)
		s.grpc.GracefulStop()
		wg.Wait()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-drainCtx.Done():
		s.log.Warn("grpc drain cut short: stopping in-flight calls")
		s.grpc.Stop()
		s.gatewayGRPC.Stop()
		<-stopped
	}
	s.gatewayConn.Close()
	s.metricsSrv.Close()
	s.log.Info("stopped", "took", time.Since(start).Round(time.Millisecond).String())
}

func (s *Server) closeListeners() {
	s.grpcLis.Close()
	s.gatewayLis.Close()
	s.httpLis.Close()
	s.metricsLis.Close()
}

// rejectRefusedUnary answers a request that could not be read (see
// codec.Unmarshal and readingLimits) with its refusal.
func rejectRefusedUnary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
	if err := takeRefused(req); err != nil {
		return nil, err
	}
	return next(ctx, req)
}

// rejectRefusedStream ends a stream whose client sent a message that could
// not be read with the error model's refusal.
func rejectRefusedStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, next grpc.StreamHandler) error {
	return next(srv, refusingStream{ss})
}

type refusingStream struct{ grpc.ServerStream }

func (s refusingStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	return takeRefused(m)
}

// callDeadline bounds every unary call by MaxCallDuration (a shorter
// deadline from the client stays).
func (s *Server) callDeadline(ctx context.Context, req any, _ *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.MaxCallDuration)
	defer cancel()
	return next(ctx, req)
}

func (s *Server) recovered(ctx context.Context, p any) error {
	s.log.ErrorContext(ctx, "panic in handler", "panic", fmt.Sprint(p))
	return status.Error(codes.Internal, "internal error")
}

// logOptions log one line per finished call: method, code and duration
// (never payloads or metadata, so tokens cannot reach the log).
var logOptions = []logging.Option{
	logging.WithLogOnEvents(logging.FinishCall),
	logging.WithDurationField(logging.DurationToDurationField),
	// The call's trace, when tracing is on: a log line leads to its trace.
	logging.WithFieldsFromContext(func(ctx context.Context) logging.Fields {
		if id := tracing.TraceID(ctx); id != "" {
			return logging.Fields{"trace_id", id}
		}
		return nil
	}),
}

// traceExemplar labels a latency observation with its call's trace id.
func traceExemplar(ctx context.Context) prometheus.Labels {
	if id := tracing.TraceID(ctx); id != "" {
		return prometheus.Labels{"trace_id": id}
	}
	return nil
}

func slogAdapter(l *slog.Logger) logging.Logger {
	return logging.LoggerFunc(func(ctx context.Context, lvl logging.Level, msg string, fields ...any) {
		l.Log(ctx, slog.Level(lvl), msg, fields...)
	})
}

// gatewayBufferBytes is the in-memory connection's buffer each way; a
// writer waits while it is full, as it would on a socket.
const gatewayBufferBytes = 1 << 20

// gatewayMaxResponseBytes bounds one response message the HTTP port's
// protocols hold in memory on its way to the client.
const gatewayMaxResponseBytes = 64 << 20

// gatewayClient connects the gateway to the gRPC server over lis.
func gatewayClient(lis *bufconn.Listener, traced bool) (*grpc.ClientConn, error) {
	opts := []grpc.DialOption{
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(gatewayMaxResponseBytes)),
	}
	if traced {
		// Carries the REST request's trace to the gRPC call it makes.
		opts = append(opts, grpc.WithStatsHandler(otelgrpc.NewClientHandler()))
	}
	return grpc.NewClient("passthrough:///gateway", opts...)
}

// addSaturating returns a+b for durations of 0 or more, or the largest
// duration if the sum would overflow.
func addSaturating(a, b time.Duration) time.Duration {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

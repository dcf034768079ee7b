package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/peterbourgon/ff/v3"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/damone-rules/damone/internal/cli"
	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/server"
	"github.com/damone-rules/damone/internal/store/bolt"
	"github.com/damone-rules/damone/internal/store/postgres"
	"github.com/damone-rules/damone/internal/tracing"
)

// maxConnectionAge is the largest --max-connection-age: a year.
const maxConnectionAge = 8760 * time.Hour

// envPrefix prefixes the environment variable of every serve flag:
// --grpc-addr is DAMONE_GRPC_ADDR.
const envPrefix = "DAMONE"

func runServe(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := cli.NewFlags("serve", stdout, fmt.Sprintf(`Usage: damone serve [flags]

Runs the damone gRPC service, its REST/JSON gateway and its metrics endpoint.
Every flag can also be set by an environment variable: %s_ and the flag's
name in upper case with '-' as '_' (a flag on the command line wins).`, envPrefix))
	fs.Note = func(f *flag.Flag) string {
		return "env " + envPrefix + "_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
	}
	grpcAddr := fs.String("grpc-addr", server.DefaultGRPCAddr, "gRPC listen address")
	httpAddr := fs.String("http-addr", server.DefaultHTTPAddr, "REST/JSON gateway, Connect and gRPC-Web, /healthz and /readyz listen address")
	metricsAddr := fs.String("metrics-addr", server.DefaultMetricsAddr, "Prometheus /metrics listen address")
	adminBackup := fs.Bool("admin-backup", false, "serve GET /admin/backup, a copy of the embedded store, on the metrics address")
	otlpEndpoint := fs.String("otlp-endpoint", "", "send traces over OTLP/gRPC to this URL, e.g. http://otel-collector:4317 (https:// for TLS); empty: off, unless the standard OTEL_EXPORTER_OTLP_ENDPOINT is set")
	pprofOn := fs.Bool("pprof", false, "serve net/http/pprof under /debug/pprof/ on the metrics address, all but cmdline (it can hold secrets)")
	webPage := fs.Bool("web", true, "serve the board page (/, /games/{id}) on the HTTP address, when the games service is served")
	corsOrigins := fs.String("cors-origins", "", "origins (scheme://host[:port], comma-separated, or *) of other sites whose pages may make Connect and gRPC-Web calls on the HTTP address; empty: none, only pages of the same origin")
	logFormat := fs.String("log-format", "json", "log format: json or text")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	services := fs.String("services", "rules,games,analysis", "services to serve, comma-separated: rules (stateless RulesService), games (GameService), analysis (AnalysisService)")
	gcPercent := fs.Int("gc-percent", 400, "Go GC target: heap growth in % before a collection (the runtime's default is 100); more trades memory for less GC time. GOGC, if set, wins")
	egtbDir := fs.String("egtb-dir", "", "serve TablebaseService from the prebuilt endgame tables (up to 5 pieces) in this directory (damone egtb build, read-only), loaded in the background; empty: the default set (--egtb-pieces)")
	egtbPieces := fs.Int("egtb-pieces", 4, "without --egtb-dir: serve the endgame tables of up to this many pieces (2..4), built in the background on first start (one low-priority thread) into --data-dir/egtb-N (embedded store) or the user cache directory's damone/egtb-N (memory, postgres), then loaded from there; 0: no tables")
	tableMB := fs.Int("search-table-mb", 16, "transposition table per search, in MiB")
	maxAnalysisTime := fs.Duration("max-analysis-time", 60*time.Second, "longest one AnalyzePosition call may search")
	maxAnalyses := fs.Int("max-analyses", runtime.NumCPU(), "AnalyzePosition calls searching at once; also engine moves in games searched at once (more wait)")
	maxEngineTime := fs.Duration("max-engine-move-time", 10*time.Second, "longest the engine thinks per move in games against it")
	minClock := fs.Duration("min-clock-time", games.DefaultLimits.MinClockTime, "shortest initial or per-move time a game's time control may have")
	maxClock := fs.Duration("max-clock-time", games.DefaultLimits.MaxClockTime, "longest initial, per-move or increment time a game's time control may have")
	firstMove := fs.Duration("first-move-time", games.DefaultLimits.FirstMoveTime, "time each side has for its first move in a game with a Fischer time control, before the game is aborted")
	maxEngineQueue := fs.Int("max-engine-queue", games.DefaultEngineQueue, "engine moves in games that may wait for a search slot, served in order; beyond it a call that would make the engine move is refused")
	storeKind := fs.String("store", "embedded", "game store: embedded (a file under --data-dir), memory (lost at exit) or postgres (--postgres-dsn; for several replicas)")
	dataDir := fs.String("data-dir", "./damone-data", "directory of the embedded store's file")
	postgresDSN := fs.String("postgres-dsn", "", "PostgreSQL connection string (URL or key=value) for --store postgres")
	drain := fs.Duration("drain-timeout", server.DefaultDrainTimeout, "at shutdown, how long in-flight calls get to finish")
	maxConnAge := fs.Duration("max-connection-age", 0, "make clients reconnect after this long, so client-side balancing sees new pods (0 = never)")
	maxCall := fs.Duration("max-call-duration", server.DefaultMaxCallDuration, "deadline on every unary call; also the time any call's request (a stream's first message) has to arrive")
	maxStreams := fs.Int("max-streams-per-connection", server.DefaultMaxStreamsPerConnection, "calls open at once on one gRPC connection (clients queue more; REST has no such bound)")
	maxReq := fs.Int("max-request-bytes", server.DefaultMaxRequestBytes, "largest request accepted, in bytes")
	maxHeader := fs.Int("max-header-bytes", server.DefaultMaxHeaderBytes, "largest request metadata (gRPC) or header block (REST) accepted")
	maxPerft := fs.Int("max-perft-depth", server.DefaultMaxPerftDepth, "deepest perft a call may ask for")
	maxPlies := fs.Int("max-game-plies", server.DefaultMaxGamePlies, "most moves in one game: given to ValidateGame / ValidateGames, or played in a stored game")
	maxPositionPlies := fs.Int("max-position-plies", server.DefaultMaxPositionPlies, "most moves in one game whose every position ValidateGame returns (include_positions)")
	maxGames := fs.Int("max-games", games.DefaultLimits.MaxGames, "games the store may hold (0 = no limit)")
	maxWatchers := fs.Int("max-watchers", games.DefaultLimits.MaxWatchers, "open watch streams in total (0 = no limit)")
	maxPerGame := fs.Int("max-watchers-per-game", games.DefaultLimits.MaxWatchersPerGame, "open watch streams per game (0 = no limit)")
	heartbeat := fs.Duration("stream-heartbeat", server.DefaultStreamHeartbeat, `how long a REST stream (WatchGame, AnalyzePosition) may be silent before the server sends a {"heartbeat":{}} line`)
	watchBuffer := fs.Int("watch-buffer", games.DefaultLimits.WatchBuffer, "events buffered per watcher before a slow watcher is cut off")
	if err := ff.Parse(fs.FlagSet, args, ff.WithEnvVarPrefix(envPrefix)); err != nil {
		err = fs.ParseError(err)
		if !errors.Is(err, flag.ErrHelp) && strings.Contains(err.Error(), "parse error") {
			err = cli.Usagef("%v (durations need a unit, e.g. 20s or 500ms; sizes and counts are whole numbers)", err)
		}
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected argument %q", fs.Arg(0))
	}

	logger, err := newLogger(*logFormat, *logLevel, stderr)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	// The service's heap is small and short-lived garbage dominates it:
	// collecting less often cuts CPU per call (docs/BENCHMARKS.md).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(*gcPercent)
	}
	// A misspelt variable would be ignored silently: say so.
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix+"_") || strings.HasPrefix(name, envPrefix+"_TEST_") {
			continue
		}
		if fs.Lookup(strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(name, envPrefix+"_"), "_", "-"))) == nil {
			logger.Warn("ignoring an environment variable that is no setting of damone serve (misspelt?)", "variable", name)
		}
	}
	for name, addr := range map[string]string{"grpc-addr": *grpcAddr, "http-addr": *httpAddr, "metrics-addr": *metricsAddr} {
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			return cli.Usagef("--%s %q: want host:port or :port (%v)", name, addr, err)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
			return cli.Usagef("--%s %q: the port must be a number 0..65535", name, addr)
		}
	}
	checks := []struct {
		ok   bool
		name string
		val  any
		want string
	}{
		{*drain > 0, "drain-timeout", *drain, "above 0"},
		{*maxCall > 0, "max-call-duration", *maxCall, "above 0"},
		{*maxStreams >= 1 && *maxStreams <= 100000, "max-streams-per-connection", *maxStreams, "1..100000"},
		// gRPC adds ±10% of jitter to the age (so below 10ns it panics at
		// the first connection, and near the largest duration it overflows
		// and closes every connection at once).
		{*maxConnAge == 0 || *maxConnAge >= time.Second && *maxConnAge <= maxConnectionAge, "max-connection-age", *maxConnAge, "0 (never) or 1s..8760h"},
		// The transport's own cap is four times the limit, and a protobuf
		// message is at most 2 GiB.
		{*maxReq >= 1024 && *maxReq <= 1<<30, "max-request-bytes", *maxReq, "1024..1073741824"},
		{*maxHeader >= 4096 && *maxHeader <= 16<<20, "max-header-bytes", *maxHeader, "4096..16777216"},
		{*maxPerft >= 1 && *maxPerft <= 12, "max-perft-depth", *maxPerft, "1..12"},
		{*maxPlies >= 1 && *maxPlies <= 1000000, "max-game-plies", *maxPlies, "1..1000000"},
		{*maxPositionPlies >= 0 && *maxPositionPlies <= 100000, "max-position-plies", *maxPositionPlies, "0..100000"},
		{*maxGames >= 0, "max-games", *maxGames, "0 or more"},
		{*maxWatchers >= 0, "max-watchers", *maxWatchers, "0 or more"},
		{*maxPerGame >= 0, "max-watchers-per-game", *maxPerGame, "0 or more"},
		// Each watcher's buffer is allocated when it starts watching.
		{*heartbeat >= 10*time.Millisecond && *heartbeat <= time.Hour, "stream-heartbeat", *heartbeat, "10ms..1h"},
		{*watchBuffer >= 1 && *watchBuffer <= 65536, "watch-buffer", *watchBuffer, "1..65536"},
		{*tableMB >= 1 && *tableMB <= 4096, "search-table-mb", *tableMB, "1..4096"},
		{*gcPercent >= 25 && *gcPercent <= 2000, "gc-percent", *gcPercent, "25..2000"},
		{*egtbPieces == 0 || *egtbPieces >= 2 && *egtbPieces <= 4, "egtb-pieces", *egtbPieces, "0 (no tables) or 2..4 (a larger set: damone egtb build, then --egtb-dir)"},
		{*maxAnalysisTime > 0, "max-analysis-time", *maxAnalysisTime, "above 0"},
		{*maxAnalyses >= 1, "max-analyses", *maxAnalyses, "at least 1"},
		{*maxEngineTime > 0, "max-engine-move-time", *maxEngineTime, "above 0"},
		{*maxEngineQueue >= 0 && *maxEngineQueue <= 100000, "max-engine-queue", *maxEngineQueue, "0..100000"},
		{*minClock > 0, "min-clock-time", *minClock, "above 0"},
		// Deadlines must stay within what every store can keep (the
		// embedded store's nanosecond keys end in 2262).
		{*maxClock >= *minClock && *maxClock <= 87600*time.Hour, "max-clock-time", *maxClock, "at least --min-clock-time and at most 87600h"},
		{*firstMove >= time.Second && *firstMove <= 87600*time.Hour, "first-move-time", *firstMove, "1s..87600h"},
	}
	for _, c := range checks {
		if !c.ok {
			return cli.Usagef("--%s %v: must be %s", c.name, c.val, c.want)
		}
	}
	var rules, gamesOn, analysis bool
	origins, err := parseOrigins(*corsOrigins)
	if err != nil {
		return cli.Usagef("--cors-origins %q: %v", *corsOrigins, err)
	}
	for _, name := range strings.Split(*services, ",") {
		switch strings.TrimSpace(name) {
		case "rules":
			rules = true
		case "games":
			gamesOn = true
		case "analysis":
			analysis = true
		default:
			return cli.Usagef("--services %q: unknown service %q (want rules, games and/or analysis)", *services, name)
		}
	}
	if *storeKind == "postgres" && *postgresDSN == "" {
		return cli.Usagef("--store postgres needs --postgres-dsn (or DAMONE_POSTGRES_DSN)")
	}
	var store games.Store
	switch *storeKind {
	case "memory":
		store = games.NewMemoryStore()
	case "embedded":
		bs, err := bolt.Open(*dataDir)
		if err != nil {
			return err
		}
		defer bs.Close()
		store = bs
	case "postgres":
		ps, err := postgres.Open(context.Background(), *postgresDSN)
		if err != nil {
			return err
		}
		defer ps.Close()
		store = ps
	default:
		return cli.Usagef("--store %q: unknown store (want embedded, memory or postgres)", *storeKind)
	}
	logger.Info("store", "kind", *storeKind)

	if *otlpEndpoint != "" {
		if err := tracing.CheckEndpoint(*otlpEndpoint); err != nil {
			return cli.Usagef("--otlp-endpoint: %v", err)
		}
	}
	traced := tracing.Enabled(*otlpEndpoint)
	if traced {
		shutdown, err := tracing.Start(context.Background(), *otlpEndpoint, version, logger)
		if err != nil {
			return cli.Usagef("--otlp-endpoint %q: %v", tracing.Redacted(*otlpEndpoint), err)
		}
		defer func() {
			// Spans still buffered are sent, for a few seconds at most.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := shutdown(ctx); err != nil {
				logger.Warn("flushing traces", "err", err)
			}
		}()
		logger.Info("tracing", "otlp_endpoint", tracing.Redacted(*otlpEndpoint))
	}

	// A failure found once serving (a --egtb-dir file failing its checks)
	// stops the server as a signal would, and is the command's error.
	failCtx, fail := context.WithCancelCause(context.Background())
	defer fail(nil)
	ctx, stop := signal.NotifyContext(failCtx, syscall.SIGTERM, os.Interrupt)
	defer stop()
	var tables server.Tables
	var collectors []prometheus.Collector
	switch {
	case *egtbDir != "":
		ts, err := loadTables(*egtbDir, logger, fail)
		if err != nil {
			return err
		}
		tables, collectors = ts.tables(), ts.metrics
	case *egtbPieces > 0:
		dir, err := egtbDefaultDir(*storeKind, *dataDir, *egtbPieces)
		if err != nil {
			logger.Warn("no endgame tables: no directory to build them in (set --egtb-dir, or HOME / XDG_CACHE_HOME for the cache)", "err", err)
			break
		}
		ts := defaultTables(ctx, dir, *egtbPieces, logger)
		// The build stops with the server (its process is interrupted);
		// a half-built set resumes at the next start.
		defer func() { stop(); ts.wait() }()
		tables, collectors = ts.tables(), ts.metrics
	}
	if collectors == nil {
		collectors = noTables().metrics
	}
	srv, err := server.New(server.Config{
		GRPCAddr: *grpcAddr, HTTPAddr: *httpAddr, MetricsAddr: *metricsAddr, AdminBackup: *adminBackup, Web: *webPage, CORSOrigins: origins,
		Tracing: traced, Pprof: *pprofOn,
		DrainTimeout: *drain, MaxConnectionAge: *maxConnAge, MaxCallDuration: *maxCall, MaxStreamsPerConnection: *maxStreams, MaxRequestBytes: *maxReq, MaxHeaderBytes: *maxHeader, MaxPerftDepth: *maxPerft, MaxGamePlies: *maxPlies, MaxPositionPlies: *maxPositionPlies,
		StreamHeartbeat: *heartbeat,
		Limits: games.Limits{MaxGames: *maxGames, MaxWatchers: *maxWatchers, MaxWatchersPerGame: *maxPerGame, WatchBuffer: *watchBuffer,
			MinClockTime: *minClock, MaxClockTime: *maxClock, FirstMoveTime: *firstMove},
		Rules: rules, Games: gamesOn, Analysis: analysis, Tablebase: tables,
		SearchTableMB: *tableMB, MaxAnalysisTime: *maxAnalysisTime, MaxAnalyses: *maxAnalyses, MaxEngineQueue: *maxEngineQueue, MaxEngineMoveTime: *maxEngineTime,
		Store: store, Logger: logger, Collectors: collectors,
	})
	if err != nil {
		return err
	}
	if err := srv.Serve(ctx); err != nil {
		return err
	}
	if err := context.Cause(failCtx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

func newLogger(format, level string, w io.Writer) (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lvl}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want json or text", format)
}

// parseOrigins reads --cors-origins: "" (none), "*", or comma-separated
// origins, each scheme://host[:port] with scheme http or https and nothing
// after the host (browsers send the Origin header in exactly this form).
func parseOrigins(list string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	var out []string
	for o := range strings.SplitSeq(list, ",") {
		o = strings.TrimSpace(o)
		if o == "*" {
			out = append(out, o)
			continue
		}
		u, err := url.Parse(o)
		// A "*" in a host would be the CORS library's subdomain wildcard,
		// which the flag does not offer; a port is 1..65535, as written.
		badPort := false
		if err == nil && (u.Port() != "" || strings.HasSuffix(u.Host, ":")) {
			n, perr := strconv.Atoi(u.Port())
			badPort = perr != nil || n < 1 || n > 65535 || strconv.Itoa(n) != u.Port()
		}
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || strings.Contains(u.Host, "*") || badPort ||
			u.Path != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.User != nil {
			return nil, fmt.Errorf("origin %q: want scheme://host[:port] with scheme http or https, e.g. https://board.example.org, or *", o)
		}
		out = append(out, o)
	}
	return out, nil
}

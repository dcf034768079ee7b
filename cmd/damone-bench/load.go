package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/valyala/fasthttp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/cli"
	"github.com/damone-rules/damone/internal/engine"
)

// The scenarios of damone-bench load, in the order they run.
const (
	scenarioEmptyGRPC = "empty-grpc"
	scenarioListGRPC  = "list-grpc"
	scenarioListREST  = "list-rest"
	scenarioWatch     = "watch"
)

// allScenarios are in the order they run: the unary and validate
// scenarios in interleaved rounds, then watch.
var allScenarios = []string{scenarioEmptyGRPC, scenarioListGRPC, scenarioListREST,
	scenarioValidateStream, scenarioValidateUnary, scenarioValidateREST, scenarioValidateRESTStream, scenarioWatch}

// validateScenarios are the scenarios that judge whole games.
var validateScenarios = []string{scenarioValidateStream, scenarioValidateUnary, scenarioValidateREST, scenarioValidateRESTStream}

// benchPositions are the positions list-legal-moves is asked about, in
// turn, when --position is not given: the standard start, a midgame
// position, and a position where a capture is compulsory.
var benchPositions = []string{
	"R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0",
	"R:RMh1,Dd3,Dh3,Pd1,Pg4:BMb7,Da6,Dc8,Pa4:0",
	"R:RPc4:BPb5,Pb7:0",
}

// The targets of issue 4 that damone-bench load checks.
const (
	targetListGRPCCallsPerSec = 10_000
	targetListOverEmpty       = 0.80
	targetRESTOverGRPCP50     = 3.0
	targetWatchEventsPerSec   = 100_000
)

// defaultWatchersPerGame spreads watchers over games: 250 keeps well under
// the server's default per-game limit (1000).
const defaultWatchersPerGame = 250

// defaultWatchersPerConn keeps a connection's watch streams at half the
// server's default --max-streams-per-connection (1000): at the limit, any
// other call on the connection would queue behind streams that never end.
const defaultWatchersPerConn = 500

type benchConfig struct {
	grpcAddr, httpAddr string   // as given: one address or several, comma-separated
	grpcAddrs          []string // the servers (replicas), in order
	httpAddrs          []string // their REST gateways, in the same order
	metricsAddrs       []string // their metrics endpoints, for their CPU time
	serverPIDs         []int    // or their process ids
	duration, warmup   time.Duration
	rounds             int
	restClient         string
	concurrency        int
	conns              int
	watchers           int
	watchGames         int
	watchersPerConn    int           // watch streams per gRPC connection, kept under the server's stream limit
	watchSetup         time.Duration // how long the watchers may take to subscribe
	watchMovers        int           // the first this many servers create and move, the others serve the watchers (0: all do both)
	watchDrain         time.Duration // how long after the last move every watcher may take to receive every event before the rest count as lost
	scenarios          []string
	positions          []string
	json               bool
	// The validate scenarios: streams open at once, games in flight per
	// stream, and the games sent (games distinct games of plies plies,
	// from seed).
	streams, inFlight int
	games, plies      int
	seed              uint64
	// watchWindow, if set, is called when the watch scenario's measured
	// window starts, with its length; the scenario calls the function it
	// returns once the window is over and fails with its error.
	watchWindow func(window time.Duration) (wait func() error)
}

func runLoadCommand(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	// The load generator shares the machine with the server: collecting its
	// garbage less often leaves more CPU to what is measured.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	fs := cli.NewFlags("load", stdout, "Usage: damone-bench load [flags]\n\nLoads a running damone server and reports throughput and latency of\nlist-legal-moves over gRPC and REST (against an empty gRPC handler, the\nhealth check), of whole-game validation (a gRPC stream, unary gRPC, REST\nJSON and a REST NDJSON stream, with the server's CPU per validated ply\ngiven --metrics-addr or --server-pid), and the rate of events delivered\nto concurrent watchers.")
	var cfg benchConfig
	fs.StringVar(&cfg.grpcAddr, "grpc-addr", "localhost:9090", "gRPC address of the running server; several, comma-separated, spread the load over replicas\n(worker or stream w goes to address w modulo their number; the watch scenario needs replicas that share a store)")
	fs.StringVar(&cfg.httpAddr, "http-addr", "localhost:8080", "REST gateway address of the running server; several, comma-separated, in the order of --grpc-addr")
	metricsAddr := fs.String("metrics-addr", "", "metrics address of the server (comma-separated, in the order of --grpc-addr): the validate scenarios\nread its process_cpu_seconds_total before and after each window and report the server's CPU per ply")
	pids := fs.String("server-pid", "", "process id of the server (comma-separated, in the order of --grpc-addr), read from /proc instead of --metrics-addr")
	fs.IntVar(&cfg.streams, "streams", 6, "concurrent streams in validate-stream and validate-rest-stream")
	fs.IntVar(&cfg.inFlight, "in-flight", 8, "games sent and not yet answered per stream (validate-stream, validate-rest-stream)")
	fs.IntVar(&cfg.games, "games", 64, "distinct games the validate scenarios send, in turn")
	fs.IntVar(&cfg.plies, "plies", 100, "plies of each game the validate scenarios send")
	fs.Uint64Var(&cfg.seed, "seed", 1, "seed of the validate scenarios' games (random legal plies from the standard start)")
	fs.DurationVar(&cfg.duration, "duration", 10*time.Second, "measured time per scenario")
	fs.DurationVar(&cfg.warmup, "warmup", time.Second, "unmeasured warm-up per scenario, spread over its rounds")
	fs.IntVar(&cfg.rounds, "rounds", 5, "interleaved rounds of the unary scenarios: each round runs each one for duration/rounds,\nso a slower or faster spell of a shared machine weighs on every scenario alike")
	fs.StringVar(&cfg.restClient, "rest-client", restClientFast, "HTTP/1.1 client of the list-rest scenario: "+restClientFast+" (lean, as HTTP load generators use) or "+restClientStd)
	fs.IntVar(&cfg.concurrency, "concurrency", 64, "concurrent calls in the unary scenarios")
	fs.IntVar(&cfg.conns, "conns", 1, "gRPC client connections the calls and watchers are spread over")
	fs.IntVar(&cfg.watchers, "watchers", 1000, "concurrent watch streams in the watch scenario")
	fs.IntVar(&cfg.watchersPerConn, "watchers-per-conn", defaultWatchersPerConn, "watch streams per gRPC connection: the watchers get connections of their own, enough of them\nto keep each under the server's --max-streams-per-connection (default 1000), and the movers one more per server")
	fs.DurationVar(&cfg.watchSetup, "watch-setup", time.Minute, "how long the watchers may take to open their streams and receive game_created before the watch scenario fails")
	fs.DurationVar(&cfg.watchDrain, "watch-drain", 10*time.Second, "after the watch scenario's last move, how long the watchers may take to receive every event committed before the rest count as lost")
	fs.IntVar(&cfg.watchMovers, "watch-movers", 0, "in the watch scenario, the first this many --grpc-addr servers create the games and take the moves, and the watchers watch on the others\n(replicas on one PostgreSQL: every event reaches them through LISTEN/NOTIFY); 0: every server does both")
	fs.IntVar(&cfg.watchGames, "watch-games", 0, fmt.Sprintf("games the watchers are spread over (0: one per %d watchers)", defaultWatchersPerGame))
	scen := fs.String("scenarios", strings.Join(allScenarios, ","), "comma-separated scenarios to run: "+strings.Join(allScenarios, ", "))
	pos := fs.String("position", "", "position text for list-legal-moves (default: a few fixed positions in turn)")
	fs.BoolVar(&cfg.json, "json", false, "print the results as JSON")
	if pos, err := fs.ParseArgs(args); err != nil {
		return err
	} else if len(pos) != 0 {
		return cli.Usagef("unexpected argument %q", pos[0])
	}
	var err error
	if cfg.scenarios, err = parseScenarios(*scen); err != nil {
		return cli.Usagef("--scenarios: %v", err)
	}
	switch {
	case cfg.duration <= 0:
		return cli.Usagef("--duration %v: must be above 0", cfg.duration)
	case cfg.warmup < 0:
		return cli.Usagef("--warmup %v: must be 0 or more", cfg.warmup)
	case cfg.restClient != restClientFast && cfg.restClient != restClientStd:
		return cli.Usagef("--rest-client %q: want %s or %s", cfg.restClient, restClientFast, restClientStd)
	case cfg.rounds < 1:
		return cli.Usagef("--rounds %d: must be 1 or more", cfg.rounds)
	case cfg.concurrency < 1:
		return cli.Usagef("--concurrency %d: must be 1 or more", cfg.concurrency)
	case cfg.conns < 1:
		return cli.Usagef("--conns %d: must be 1 or more", cfg.conns)
	case cfg.watchers < 1:
		return cli.Usagef("--watchers %d: must be 1 or more", cfg.watchers)
	case cfg.watchersPerConn < 1:
		return cli.Usagef("--watchers-per-conn %d: must be 1 or more", cfg.watchersPerConn)
	case cfg.watchSetup <= 0:
		return cli.Usagef("--watch-setup %v: must be above 0", cfg.watchSetup)
	case cfg.watchDrain <= 0:
		return cli.Usagef("--watch-drain %v: must be above 0", cfg.watchDrain)
	case cfg.watchGames < 0:
		return cli.Usagef("--watch-games %d: must be 0 or more", cfg.watchGames)
	case cfg.streams < 1:
		return cli.Usagef("--streams %d: must be 1 or more", cfg.streams)
	case cfg.inFlight < 1:
		return cli.Usagef("--in-flight %d: must be 1 or more", cfg.inFlight)
	case cfg.games < 1:
		return cli.Usagef("--games %d: must be 1 or more", cfg.games)
	case cfg.plies < 1 || cfg.plies > 300:
		return cli.Usagef("--plies %d: must be 1..300", cfg.plies)
	}
	for _, f := range []struct {
		name, value string
		list        *[]string
	}{{"grpc-addr", cfg.grpcAddr, &cfg.grpcAddrs}, {"http-addr", cfg.httpAddr, &cfg.httpAddrs}, {"metrics-addr", *metricsAddr, &cfg.metricsAddrs}} {
		if *f.list, err = parseAddrs(f.value); err != nil {
			return cli.Usagef("--%s: %v", f.name, err)
		}
	}
	switch {
	case len(cfg.grpcAddrs) == 0:
		return cli.Usagef("--grpc-addr: no address given")
	case len(cfg.httpAddrs) != len(cfg.grpcAddrs):
		return cli.Usagef("--http-addr: %d address(es) for %d gRPC address(es)", len(cfg.httpAddrs), len(cfg.grpcAddrs))
	case len(cfg.metricsAddrs) > 0 && len(cfg.metricsAddrs) != len(cfg.grpcAddrs):
		return cli.Usagef("--metrics-addr: %d address(es) for %d gRPC address(es)", len(cfg.metricsAddrs), len(cfg.grpcAddrs))
	case cfg.watchMovers < 0 || (cfg.watchMovers > 0 && cfg.watchMovers >= len(cfg.grpcAddrs)):
		return cli.Usagef("--watch-movers %d: must be 0 (every server) or fewer than the %d --grpc-addr servers, so some serve the watchers", cfg.watchMovers, len(cfg.grpcAddrs))
	}
	for _, p := range strings.Split(*pids, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		pid, err := strconv.Atoi(p)
		if err != nil || pid < 1 {
			return cli.Usagef("--server-pid %q: want process ids", *pids)
		}
		cfg.serverPIDs = append(cfg.serverPIDs, pid)
	}
	switch {
	case len(cfg.serverPIDs) > 0 && len(cfg.metricsAddrs) > 0:
		return cli.Usagef("--server-pid and --metrics-addr: give one of them")
	case len(cfg.serverPIDs) > 0 && len(cfg.serverPIDs) != len(cfg.grpcAddrs):
		return cli.Usagef("--server-pid: %d process id(s) for %d gRPC address(es)", len(cfg.serverPIDs), len(cfg.grpcAddrs))
	}
	cfg.positions = benchPositions
	if *pos != "" {
		p, err := engine.ParsePosition(*pos)
		if err != nil {
			return cli.Usagef("--position: %v", err)
		}
		cfg.positions = []string{p.String()}
	}
	if cfg.watchGames == 0 {
		cfg.watchGames = (cfg.watchers + defaultWatchersPerGame - 1) / defaultWatchersPerGame
	}
	cfg.watchGames = min(cfg.watchGames, cfg.watchers)

	rep, err := bench(context.Background(), cfg, stderr)
	if err != nil {
		return err
	}
	if err := writeReport(stdout, rep, cfg.json); err != nil {
		return err
	}
	return noProgressError(rep.noProgress())
}

// noProgressError is the error of a run whose scenarios measured nothing
// (nil if none did): a figure of 0 is a broken setup, not a result.
func noProgressError(causes []string) error {
	if len(causes) == 0 {
		return nil
	}
	return fmt.Errorf("no progress, so nothing measured: %s", strings.Join(causes, "; "))
}

// noProgress names each scenario that made no progress in its measured
// time, with its first error.
func (rep *benchReport) noProgress() []string {
	var out []string
	withErr := func(msg string, errs int64, first string) string {
		if errs > 0 {
			msg += fmt.Sprintf(" (%d errors, first: %s)", errs, first)
		}
		return msg
	}
	for _, r := range rep.Unary {
		if r.Calls == 0 {
			out = append(out, withErr(fmt.Sprintf("%s: 0 successful calls", r.Scenario), int64(r.Errors), r.FirstError))
		}
	}
	for _, r := range rep.Validate {
		if r.Games == 0 {
			out = append(out, withErr(fmt.Sprintf("%s: 0 games validated", r.Scenario), int64(r.Errors), r.FirstError))
		}
	}
	if w := rep.Watch; w != nil && (w.Events == 0 || w.Moves == 0) {
		out = append(out, withErr(fmt.Sprintf("watch: %d events delivered, %d moves made in %.2fs", w.Events, w.Moves, w.Seconds), w.Errors, w.FirstError))
	}
	return out
}

// writeReport prints a command's report: as indented JSON, or as its text.
func writeReport(w io.Writer, rep interface{ writeText(io.Writer) error }, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.writeText(w)
}

// parseAddrs reads a comma-separated list of host:port addresses.
func parseAddrs(s string) ([]string, error) {
	var out []string
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(a); err != nil {
			return nil, fmt.Errorf("%q: want host:port (%v)", a, err)
		}
		out = append(out, a)
	}
	return out, nil
}

// parseScenarios reads --scenarios: names out of allScenarios, run in its
// order, so the baseline comes before the ratios.
func parseScenarios(s string) ([]string, error) {
	out, err := parseList(s, allScenarios)
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	return out, nil
}

// benchReport is what damone-bench load prints (as JSON with --json).
type benchReport struct {
	GRPCAddr    string        `json:"grpc_addr"`
	HTTPAddr    string        `json:"http_addr"`
	Concurrency int           `json:"concurrency"`
	Conns       int           `json:"grpc_connections"`
	Duration    string        `json:"duration_per_scenario"`
	Rounds      int           `json:"rounds"`
	RESTClient  string        `json:"rest_client"`
	Warmup      string        `json:"warmup"`
	Client      string        `json:"client"`
	Unary       []*loadResult `json:"unary,omitempty"`
	// ValidateLoad describes the validate scenarios' load; Validate holds
	// their figures.
	ValidateLoad *validateLoad     `json:"validate_load,omitempty"`
	Validate     []*validateResult `json:"validate,omitempty"`
	Watch        *watchResult      `json:"watch,omitempty"`
	Targets      []targetCheck     `json:"targets"`
}

// validateLoad is what the validate scenarios send, and how.
type validateLoad struct {
	Games       int    `json:"games"`
	Plies       int    `json:"plies"`
	Seed        uint64 `json:"seed"`
	Streams     int    `json:"streams"`
	InFlight    int    `json:"in_flight_per_stream"`
	Concurrency int    `json:"unary_concurrency"`
	CPUFrom     string `json:"server_cpu_from,omitempty"`
}

// loadResult is one unary scenario's figures. Latencies are in
// microseconds in JSON.
type loadResult struct {
	Scenario     string  `json:"scenario"`
	Calls        int     `json:"calls"`
	Errors       int     `json:"errors"`
	FirstError   string  `json:"first_error,omitempty"`
	CallsPerSec  float64 `json:"calls_per_sec"`
	P50us        float64 `json:"p50_us"`
	P90us        float64 `json:"p90_us"`
	P99us        float64 `json:"p99_us"`
	MaxUs        float64 `json:"max_us"`
	MeanUs       float64 `json:"mean_us"`
	RatioToEmpty float64 `json:"throughput_ratio_to_empty_grpc,omitempty"`
	P50OverGRPC  float64 `json:"p50_ratio_to_list_grpc,omitempty"`
}

type watchResult struct {
	Watchers        int     `json:"watchers"`
	Games           int     `json:"games"`
	WatchersPerGame string  `json:"watchers_per_game"`
	WatchConns      int     `json:"watcher_connections"` // the movers have one more per server
	Seconds         float64 `json:"seconds"`
	Events          int64   `json:"events"`
	EventsPerSec    float64 `json:"events_per_sec"`
	Moves           int64   `json:"moves"`
	MovesPerSec     float64 `json:"moves_per_sec"`
	GamesFinished   int64   `json:"games_finished"`
	CutOff          int64   `json:"cut_off"`
	RefusedWatch    int64   `json:"refused_watch"`
	Errors          int64   `json:"errors"`
	// With --watch-movers: the servers that took the moves and those
	// the watchers watched on.
	MoverServers   []string `json:"mover_servers,omitempty"`
	WatcherServers []string `json:"watcher_servers,omitempty"`
	// Lost: events a watcher never received, a gap in its stream or, once
	// the moves stopped, events committed to its game that had not reached
	// it within the drain time; Duplicated: ones it received twice. Both
	// must be 0.
	Lost       int64 `json:"lost"`
	Duplicated int64 `json:"duplicated"`
	// Delivery: from the mover sending a MakeMove to a watcher receiving
	// its move_played event, over every event of the measured window (the
	// commit and the move's answer included); microseconds in JSON.
	DeliveryP50us float64 `json:"delivery_p50_us"`
	DeliveryP99us float64 `json:"delivery_p99_us"`
	Deliveries    int     `json:"deliveries_timed"`
	// Commit to delivery: from the mover receiving the MakeMove answer
	// (sent only once the move is committed, so just after the commit) to
	// a watcher receiving the move_played event; negative when the watcher
	// had it first. CommitBound is from the event's event_time, which the
	// server stamps before it writes the move: an upper bound.
	CommitP50us      float64 `json:"commit_to_delivery_p50_us"`
	CommitP99us      float64 `json:"commit_to_delivery_p99_us"`
	CommitBoundP50us float64 `json:"event_time_to_delivery_p50_us"`
	CommitBoundP99us float64 `json:"event_time_to_delivery_p99_us"`
	// MakeMove: the movers' calls alone, sent to answered (the commit
	// included), so what delivery adds is the difference.
	MoveP50us    float64 `json:"move_p50_us"`
	MoveP99us    float64 `json:"move_p99_us"`
	FirstError   string  `json:"first_error,omitempty"`
	SetupSeconds float64 `json:"setup_seconds"`
	// Servers: each --grpc-addr server's CPU over the measured window,
	// given --server-pid or --metrics-addr.
	Servers  []*watchServer `json:"servers,omitempty"`
	CPUError string         `json:"cpu_error,omitempty"`

	// The samples the figures above summarize, kept to merge rounds.
	deliveredLat, commitLat, boundLat, moveLat []time.Duration
}

// watchServer is one server's part in the watch scenario.
type watchServer struct {
	Addr          string  `json:"addr"`
	Role          string  `json:"role"` // moves, watchers, or both
	CPUCores      float64 `json:"cpu_cores"`
	CPUUsPerEvent float64 `json:"cpu_us_per_event_delivered"` // its CPU over every event delivered, on any server
	cpu           time.Duration
}

// merge adds another run's counts and samples to r (the same setup, so
// its description is kept); summarize then recomputes the figures.
func (r *watchResult) merge(o *watchResult) {
	r.Seconds += o.Seconds
	r.Events += o.Events
	r.Moves += o.Moves
	r.GamesFinished += o.GamesFinished
	r.CutOff += o.CutOff
	r.RefusedWatch += o.RefusedWatch
	r.Errors += o.Errors
	r.Lost += o.Lost
	r.Duplicated += o.Duplicated
	r.SetupSeconds = max(r.SetupSeconds, o.SetupSeconds)
	if r.FirstError == "" {
		r.FirstError = o.FirstError
	}
	if r.CPUError == "" {
		r.CPUError = o.CPUError
	}
	r.deliveredLat = append(r.deliveredLat, o.deliveredLat...)
	r.commitLat = append(r.commitLat, o.commitLat...)
	r.boundLat = append(r.boundLat, o.boundLat...)
	r.moveLat = append(r.moveLat, o.moveLat...)
	for i, s := range o.Servers {
		if i < len(r.Servers) {
			r.Servers[i].cpu += s.cpu
		}
	}
}

// summarize computes the rates, percentiles and CPU per event from the
// counts and samples.
func (r *watchResult) summarize() {
	if r.Seconds > 0 {
		r.EventsPerSec = float64(r.Events) / r.Seconds
		r.MovesPerSec = float64(r.Moves) / r.Seconds
	}
	p := func(lat []time.Duration) (p50, p99 float64) {
		sum := summarize(lat)
		return us(sum.p50), us(sum.p99)
	}
	r.Deliveries = len(r.deliveredLat)
	r.DeliveryP50us, r.DeliveryP99us = p(r.deliveredLat)
	r.CommitP50us, r.CommitP99us = p(r.commitLat)
	r.CommitBoundP50us, r.CommitBoundP99us = p(r.boundLat)
	r.MoveP50us, r.MoveP99us = p(r.moveLat)
	for _, s := range r.Servers {
		if r.Seconds > 0 {
			s.CPUCores = s.cpu.Seconds() / r.Seconds
		}
		if r.Events > 0 {
			s.CPUUsPerEvent = us(s.cpu) / float64(r.Events)
		}
	}
}

type targetCheck struct {
	Issue    int    `json:"issue"`
	Target   string `json:"target"`
	Measured string `json:"measured"`
	Met      bool   `json:"met"`
}

func bench(ctx context.Context, cfg benchConfig, progress io.Writer) (*benchReport, error) {
	rep := &benchReport{
		GRPCAddr: cfg.grpcAddr, HTTPAddr: cfg.httpAddr, Concurrency: cfg.concurrency, Conns: cfg.conns,
		Duration: cfg.duration.String(), Rounds: cfg.rounds, RESTClient: cfg.restClient, Warmup: cfg.warmup.String(),
		Client: fmt.Sprintf("%s %s/%s, GOMAXPROCS %d", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0)),
	}
	// cfg.conns connections per server, interleaved: conns[i] goes to
	// server i % len(cfg.grpcAddrs), so worker w's conns[w % len(conns)]
	// is on server w % len(cfg.grpcAddrs).
	conns := make([]*grpc.ClientConn, cfg.conns*len(cfg.grpcAddrs))
	for i := range conns {
		c, err := grpc.NewClient("passthrough:///"+cfg.grpcAddrs[i%len(cfg.grpcAddrs)],
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
		if err != nil {
			return nil, err
		}
		defer c.Close()
		conns[i] = c
	}
	// Fail fast, with a clear message, if nothing listens.
	for i, addr := range cfg.grpcAddrs {
		pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := healthpb.NewHealthClient(conns[i]).Check(pingCtx, &healthpb.HealthCheckRequest{Service: "readiness"}, grpc.WaitForReady(true))
		cancel()
		if err != nil {
			return nil, fmt.Errorf("gRPC server at %s: %w", addr, err)
		}
	}

	// The unary scenarios' calls, run below in interleaved rounds.
	calls := map[string]func(ctx context.Context, w, i int) error{}
	var unary []string
	for _, sc := range cfg.scenarios {
		switch sc {
		case scenarioEmptyGRPC:
			clients := make([]healthpb.HealthClient, len(conns))
			for i, c := range conns {
				clients[i] = healthpb.NewHealthClient(c)
			}
			req := &healthpb.HealthCheckRequest{Service: "readiness"}
			calls[sc] = func(ctx context.Context, w, _ int) error {
				resp, err := clients[w%len(clients)].Check(ctx, req)
				if err == nil && resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
					err = fmt.Errorf("health status %v", resp.GetStatus())
				}
				return err
			}
		case scenarioListGRPC:
			clients := make([]damonev1.RulesServiceClient, len(conns))
			for i, c := range conns {
				clients[i] = damonev1.NewRulesServiceClient(c)
			}
			reqs := make([]*damonev1.ListLegalMovesRequest, len(cfg.positions))
			for i, p := range cfg.positions {
				reqs[i] = &damonev1.ListLegalMovesRequest{Position: &damonev1.Position{Text: p}}
			}
			calls[sc] = func(ctx context.Context, w, i int) error {
				resp, err := clients[w%len(clients)].ListLegalMoves(ctx, reqs[i%len(reqs)])
				if err == nil && len(resp.GetMoves()) == 0 && resp.GetOutcome() == nil {
					err = errors.New("no moves and no outcome")
				}
				return err
			}
		case scenarioListREST:
			newCaller := restCaller
			if cfg.restClient == restClientFast {
				newCaller = fastRESTCaller
			}
			call, closeIdle := newCaller(cfg)
			defer closeIdle()
			calls[sc] = call
		default:
			continue
		}
		unary = append(unary, sc)
	}
	// The validate scenarios, run in the same rounds.
	var validate []string
	validateRuns := map[string]func(ctx context.Context, w *validateWindow){}
	var vg *validateGames
	for _, sc := range cfg.scenarios {
		if !slices.Contains(validateScenarios, sc) {
			continue
		}
		if vg == nil {
			t0 := time.Now()
			var err error
			if vg, err = newValidateGames(cfg.seed, cfg.games, cfg.plies); err != nil {
				return nil, fmt.Errorf("games to validate: %w", err)
			}
			fmt.Fprintf(progress, "damone-bench load: %d games of %d plies (seed %d) made in %.2fs\n", cfg.games, cfg.plies, cfg.seed, time.Since(t0).Seconds())
		}
		run, release := validateRunner(sc, cfg, vg, conns)
		defer release()
		validateRuns[sc] = run
		validate = append(validate, sc)
	}
	cpu := &cpuReader{metrics: cfg.metricsAddrs, pids: cfg.serverPIDs, client: &http.Client{Timeout: 5 * time.Second}}
	if cpu.sources() > 0 {
		if _, err := cpu.read(ctx); err != nil {
			return nil, fmt.Errorf("server CPU: %w", err)
		}
	}

	samples := map[string]*loadSamples{}
	for _, sc := range unary {
		samples[sc] = &loadSamples{}
	}
	vsamples := map[string]*validateSamples{}
	for _, sc := range validate {
		vsamples[sc] = &validateSamples{}
	}
	both := append(slices.Clone(unary), validate...)
	warmup, window := cfg.warmup/time.Duration(cfg.rounds), cfg.duration/time.Duration(cfg.rounds)
	for round := 1; round <= cfg.rounds && len(both) > 0; round++ {
		fmt.Fprintf(progress, "damone-bench load: round %d/%d: %s ...\n", round, cfg.rounds, strings.Join(both, ", "))
		for _, sc := range unary {
			samples[sc].add(runLoad(ctx, cfg.concurrency, warmup, window, calls[sc]))
		}
		for _, sc := range validate {
			vsamples[sc].add(runValidate(ctx, cpu, len(cfg.grpcAddrs), warmup, window, validateRuns[sc]))
		}
	}
	results := map[string]*loadResult{}
	for _, sc := range unary {
		results[sc] = samples[sc].result(sc)
		rep.Unary = append(rep.Unary, results[sc])
	}
	vresults := map[string]*validateResult{}
	if len(validate) > 0 {
		rep.ValidateLoad = &validateLoad{Games: cfg.games, Plies: cfg.plies, Seed: cfg.seed, Streams: cfg.streams,
			InFlight: cfg.inFlight, Concurrency: cfg.concurrency, CPUFrom: cpuSourceText(cfg)}
	}
	for _, sc := range validate {
		vresults[sc] = vsamples[sc].result(sc, cfg.plies, cfg.grpcAddrs)
		rep.Validate = append(rep.Validate, vresults[sc])
	}
	if slices.Contains(cfg.scenarios, scenarioWatch) {
		fmt.Fprintf(progress, "damone-bench load: %s ...\n", scenarioWatch)
		wr, err := benchWatch(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("watch: %w", err)
		}
		rep.Watch = wr
	}
	empty, list, rest := results[scenarioEmptyGRPC], results[scenarioListGRPC], results[scenarioListREST]
	if list != nil && empty != nil && empty.CallsPerSec > 0 {
		list.RatioToEmpty = list.CallsPerSec / empty.CallsPerSec
	}
	if rest != nil && list != nil && list.P50us > 0 {
		rest.P50OverGRPC = rest.P50us / list.P50us
	}
	rep.Targets = checkTargets(cfg.concurrency, empty, list, rest, rep.Watch)
	rep.Targets = append(rep.Targets, checkValidateTargets(vresults[scenarioValidateStream])...)
	return rep, nil
}

// cpuSourceText says where the servers' CPU time is read from.
func cpuSourceText(cfg benchConfig) string {
	switch {
	case len(cfg.metricsAddrs) > 0:
		return cpuMetric + " at " + strings.Join(cfg.metricsAddrs, ", ")
	case len(cfg.serverPIDs) > 0:
		ids := make([]string, len(cfg.serverPIDs))
		for i, p := range cfg.serverPIDs {
			ids[i] = strconv.Itoa(p)
		}
		return "/proc/PID/stat of " + strings.Join(ids, ", ")
	}
	return ""
}

func checkTargets(concurrency int, empty, list, rest *loadResult, watch *watchResult) []targetCheck {
	var out []targetCheck
	if list != nil {
		out = append(out, targetCheck{
			Issue:    4,
			Target:   fmt.Sprintf("list-grpc >= %d calls/s at %d concurrent calls", targetListGRPCCallsPerSec, concurrency),
			Measured: fmt.Sprintf("%.0f calls/s", list.CallsPerSec),
			Met:      list.Errors == 0 && list.CallsPerSec >= targetListGRPCCallsPerSec,
		})
		if empty != nil {
			out = append(out, targetCheck{
				Issue:    4,
				Target:   fmt.Sprintf("list-grpc >= %.0f%% of empty-grpc throughput", targetListOverEmpty*100),
				Measured: fmt.Sprintf("%.1f%%", list.RatioToEmpty*100),
				Met:      list.RatioToEmpty >= targetListOverEmpty,
			})
		}
	}
	if rest != nil && list != nil {
		out = append(out, targetCheck{
			Issue:    4,
			Target:   fmt.Sprintf("list-rest p50 <= %.0fx list-grpc p50", targetRESTOverGRPCP50),
			Measured: fmt.Sprintf("%.2fx", rest.P50OverGRPC),
			Met:      rest.Errors == 0 && rest.P50OverGRPC <= targetRESTOverGRPCP50,
		})
	}
	if watch != nil {
		out = append(out, targetCheck{
			Issue:    4,
			Target:   fmt.Sprintf("watch >= %d events/s delivered to %d watchers", targetWatchEventsPerSec, watch.Watchers),
			Measured: fmt.Sprintf("%.0f events/s, %d cut off", watch.EventsPerSec, watch.CutOff),
			Met:      watch.EventsPerSec >= targetWatchEventsPerSec && watch.CutOff == 0 && watch.Errors == 0,
		})
		out = append(out, targetCheck{
			Issue:    29,
			Target:   "watch: every event delivered once, in sequence (0 lost, 0 duplicated)",
			Measured: fmt.Sprintf("%d lost, %d duplicated of %d events", watch.Lost, watch.Duplicated, watch.Events),
			Met:      watch.Lost == 0 && watch.Duplicated == 0 && watch.Events > 0,
		})
	}
	return out
}

// loadSamples are the successful calls' latencies and the errors of one
// scenario, over one or more measured windows.
type loadSamples struct {
	lat      []time.Duration
	errs     int
	firstErr string
	measured time.Duration
}

func (s *loadSamples) add(o *loadSamples) {
	s.lat = append(s.lat, o.lat...)
	if s.firstErr == "" {
		s.firstErr = o.firstErr
	}
	s.errs += o.errs
	s.measured += o.measured
}

func (s *loadSamples) result(name string) *loadResult {
	r := &loadResult{Scenario: name, Errors: s.errs, FirstError: s.firstErr}
	sum := summarize(s.lat)
	r.Calls = sum.n
	if s.measured > 0 {
		r.CallsPerSec = float64(sum.n) / s.measured.Seconds()
	}
	r.P50us, r.P90us, r.P99us, r.MaxUs, r.MeanUs = us(sum.p50), us(sum.p90), us(sum.p99), us(sum.max), us(sum.mean)
	return r
}

// runLoad keeps concurrency workers calling call for warmup plus duration
// and records every call that starts and ends inside the measured window
// (after the warm-up). w is the worker's index, i counts the worker's
// calls.
func runLoad(ctx context.Context, concurrency int, warmup, duration time.Duration,
	call func(ctx context.Context, w, i int) error) *loadSamples {
	start := time.Now().Add(warmup)
	end := start.Add(duration)
	type workerStats struct {
		lat      []time.Duration
		errs     int
		firstErr error
	}
	stats := make([]workerStats, concurrency)
	var wg sync.WaitGroup
	for w := range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := &stats[w]
			st.lat = make([]time.Duration, 0, 1<<12)
			for i := 0; ; i++ {
				t0 := time.Now()
				if !t0.Before(end) || ctx.Err() != nil {
					return
				}
				err := call(ctx, w, i)
				t1 := time.Now()
				if t0.Before(start) || t1.After(end) {
					continue
				}
				if err != nil {
					if st.errs == 0 {
						st.firstErr = err
					}
					st.errs++
					continue
				}
				st.lat = append(st.lat, t1.Sub(t0))
			}
		}()
	}
	wg.Wait()
	out := &loadSamples{measured: duration}
	for _, st := range stats {
		out.lat = append(out.lat, st.lat...)
		if st.errs > 0 && out.firstErr == "" {
			out.firstErr = st.firstErr.Error()
		}
		out.errs += st.errs
	}
	return out
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// latencySummary is the distribution of a set of latencies.
type latencySummary struct {
	n                        int
	p50, p90, p99, max, mean time.Duration
}

// summarize sorts lat in place and returns its percentiles.
func summarize(lat []time.Duration) latencySummary {
	slices.Sort(lat)
	s := latencySummary{n: len(lat)}
	if len(lat) == 0 {
		return s
	}
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	s.mean = sum / time.Duration(len(lat))
	s.p50, s.p90, s.p99 = percentile(lat, 500), percentile(lat, 900), percentile(lat, 990)
	s.max = lat[len(lat)-1]
	return s
}

// percentile returns the nearest-rank percentile of sorted: the smallest
// value that at least perMille/1000 of the values are at or below, i.e.
// sorted[ceil(perMille*n/1000)-1]. perMille is in thousandths (990 is the
// 99th percentile) so the rank is computed exactly in integers. It returns
// 0 for no values.
func percentile(sorted []time.Duration, perMille int) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := (perMille*n + 999) / 1000
	rank = max(1, min(rank, n))
	return sorted[rank-1]
}

// The list-rest scenario's HTTP clients. Go's net/http client hands every
// request and response between goroutines (a read and a write loop per
// connection), which on two shared cores costs the REST figures more than
// grpc-go's client costs the gRPC ones; fasthttp's client does the round
// trip on the calling goroutine, as the Go HTTP load generators built on
// it do.
const (
	restClientFast = "fasthttp"
	restClientStd  = "net/http"
)

// restBodies returns the list-legal-moves request bodies, one per position.
func restBodies(cfg benchConfig) [][]byte {
	bodies := make([][]byte, len(cfg.positions))
	for i, p := range cfg.positions {
		b, _ := json.Marshal(map[string]any{"position": map[string]string{"text": p}})
		bodies[i] = b
	}
	return bodies
}

// checkRESTAnswer returns an error for anything but a 200 with moves or an
// outcome.
func checkRESTAnswer(code int, body []byte) error {
	if code != http.StatusOK {
		return fmt.Errorf("HTTP %d: %.200s", code, body)
	}
	if !bytes.Contains(body, []byte(`"moves"`)) && !bytes.Contains(body, []byte(`"outcome"`)) {
		return fmt.Errorf("response has no moves and no outcome: %.200s", body)
	}
	return nil
}

// fastRESTCaller is restCaller on fasthttp's client: one keep-alive
// connection per concurrent call, a request and response kept per worker.
func fastRESTCaller(cfg benchConfig) (func(ctx context.Context, w, i int) error, func()) {
	// One client per server; worker w calls server w % len(cfg.httpAddrs).
	clients := make([]*fasthttp.HostClient, len(cfg.httpAddrs))
	for i, a := range cfg.httpAddrs {
		clients[i] = &fasthttp.HostClient{Addr: a, MaxConns: cfg.concurrency, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	}
	bodies := restBodies(cfg)
	reqs := make([]*fasthttp.Request, cfg.concurrency)
	resps := make([]*fasthttp.Response, cfg.concurrency)
	for w := range reqs {
		reqs[w], resps[w] = new(fasthttp.Request), new(fasthttp.Response)
		reqs[w].SetRequestURI("http://" + cfg.httpAddrs[w%len(cfg.httpAddrs)] + "/v1/rules:listLegalMoves")
		reqs[w].Header.SetMethod(http.MethodPost)
		reqs[w].Header.SetContentType("application/json")
	}
	return func(_ context.Context, w, i int) error {
			req, resp := reqs[w], resps[w]
			req.SetBodyRaw(bodies[i%len(bodies)])
			if err := clients[w%len(clients)].Do(req, resp); err != nil {
				return err
			}
			return checkRESTAnswer(resp.StatusCode(), resp.Body())
		}, func() {
			for _, c := range clients {
				c.CloseIdleConnections()
			}
		}
}

// restCaller returns a call that posts list-legal-moves requests to the
// REST gateway over keep-alive connections, one per concurrent call, and a
// function that closes those connections.
func restCaller(cfg benchConfig) (func(ctx context.Context, w, i int) error, func()) {
	tr := &http.Transport{
		MaxIdleConns:        cfg.concurrency * 2,
		MaxIdleConnsPerHost: cfg.concurrency * 2,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	bodies := restBodies(cfg)
	bufs := make([]bytes.Buffer, cfg.concurrency)
	return func(ctx context.Context, w, i int) error {
		url := "http://" + cfg.httpAddrs[w%len(cfg.httpAddrs)] + "/v1/rules:listLegalMoves"
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(bodies[i%len(bodies)]))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		buf := &bufs[w]
		buf.Reset()
		_, err = buf.ReadFrom(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		return checkRESTAnswer(resp.StatusCode, buf.Bytes())
	}, tr.CloseIdleConnections
}

// A watchRound is one game of a watch slot: its watchers watch it from
// its first event, and when it ends they move on to the next round's game.
type watchRound struct {
	name       string
	subscribed sync.WaitGroup // one per watcher of the slot, done at game_created
	next       *watchRound
	nextReady  chan struct{} // closed once next is set
	first      bool          // the slot's first game, which the setup waits for
}

// watchCounters are updated by every watcher and mover.
type watchCounters struct {
	events, moves, finished, cutOff, refused, errs atomic.Int64
	lost, duplicated                               atomic.Int64
	// sent and answered hold when each move was sent and when its answer
	// came, by game name and ply, for the watchers to time its delivery.
	sent, answered sync.Map // string -> time.Time
	deliveredMu    sync.Mutex
	received       []receipt     // every move_played a watcher received
	moveLat        []delivery    // the movers' MakeMove calls, under deliveredMu
	subscribed     atomic.Int64  // watchers that had their first game's game_created
	stop           chan struct{} // closed when the movers are to stop, after their current call
	errMu          sync.Mutex
	firstErr       error
}

type delivery struct {
	at      time.Time // received
	latency time.Duration
}

// receipt is a move_played event as a watcher received it.
type receipt struct {
	at        time.Time // received
	key       string    // sentKey of its move
	fromSent  time.Duration
	fromEvent time.Duration // from its event_time
	sent      bool          // fromSent is known
}

// watcherPos is where a watcher is: its game and the last sequence it
// received there.
type watcherPos struct {
	mu    sync.Mutex
	r     *watchRound
	since int64
}

func (p *watcherPos) set(r *watchRound, since int64) {
	p.mu.Lock()
	p.r, p.since = r, since
	p.mu.Unlock()
}

func (p *watcherPos) get() (*watchRound, int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.r, p.since
}

func sentKey(name string, ply int32) string { return name + "#" + strconv.Itoa(int(ply)) }

func (c *watchCounters) fail(err error) {
	c.errs.Add(1)
	c.errMu.Lock()
	if c.firstErr == nil {
		c.firstErr = err
	}
	c.errMu.Unlock()
}

func (c *watchCounters) stopping() bool {
	select {
	case <-c.stop:
		return true
	default:
		return false
	}
}

// benchWatch opens cfg.watchers WatchGame streams spread over
// cfg.watchGames games ("slots"), waits until every watcher has received
// its game's game_created event, then plays random legal moves on every
// game as fast as the server answers and counts the events the watchers
// receive. When a game ends its watchers (whose streams end after
// game_ended) move to a fresh game of the slot, and moves resume once all
// of them are subscribed; that gap is inside the measured window. A
// watcher cut off (RESOURCE_EXHAUSTED) is counted and resumes from its
// last sequence. After the window the movers finish their current move
// and stop, and every watcher has cfg.watchDrain to receive every event
// of its game's log; any it has not are lost.
func benchWatch(ctx context.Context, cfg benchConfig) (*watchResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Watch streams last the whole run, and a connection at the server's
	// stream limit queues every further call: the watchers get enough
	// connections of their own (at least --conns per server), and the
	// movers one per server, so no move waits behind a watcher.
	moverAddrs, watcherAddrs := cfg.grpcAddrs, cfg.grpcAddrs
	if cfg.watchMovers > 0 {
		moverAddrs, watcherAddrs = cfg.grpcAddrs[:cfg.watchMovers], cfg.grpcAddrs[cfg.watchMovers:]
	}
	nAddrs := len(watcherAddrs)
	perAddr := (cfg.watchers + nAddrs - 1) / nAddrs
	perServer := max(cfg.conns, (perAddr+cfg.watchersPerConn-1)/cfg.watchersPerConn)
	dial := func(addrs []string, n int) ([]*grpc.ClientConn, error) {
		out := make([]*grpc.ClientConn, n)
		for i := range out {
			c, err := grpc.NewClient("passthrough:///"+addrs[i%len(addrs)],
				grpc.WithTransportCredentials(insecure.NewCredentials()),
				grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	conns, err := dial(watcherAddrs, perServer*nAddrs)
	if err != nil {
		return nil, err
	}
	moverConns, err := dial(moverAddrs, len(moverAddrs))
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, c := range append(conns, moverConns...) {
			c.Close()
		}
	}()
	c := watchCounters{stop: make(chan struct{})}
	slots := cfg.watchGames
	perSlot := make([]int, slots)
	for i := range cfg.watchers {
		perSlot[i%slots]++
	}
	res := &watchResult{Watchers: cfg.watchers, Games: slots, WatchConns: len(conns)}
	if cfg.watchMovers > 0 {
		res.MoverServers, res.WatcherServers = moverAddrs, watcherAddrs
	}
	if lo, hi := slices.Min(perSlot), slices.Max(perSlot); lo == hi {
		res.WatchersPerGame = fmt.Sprint(lo)
	} else {
		res.WatchersPerGame = fmt.Sprintf("%d-%d", lo, hi)
	}
	cpu := &cpuReader{metrics: cfg.metricsAddrs, pids: cfg.serverPIDs, client: &http.Client{Timeout: 5 * time.Second}}
	if cpu.sources() > 0 {
		for i, a := range cfg.grpcAddrs {
			role := "moves and watchers"
			if cfg.watchMovers > 0 && i < cfg.watchMovers {
				role = "moves"
			} else if cfg.watchMovers > 0 {
				role = "watchers"
			}
			res.Servers = append(res.Servers, &watchServer{Addr: a, Role: role})
		}
	}

	watchClient := func(i int) damonev1.GameServiceClient { return damonev1.NewGameServiceClient(conns[i%len(conns)]) }
	gameClient := func(i int) damonev1.GameServiceClient {
		return damonev1.NewGameServiceClient(moverConns[i%len(moverConns)])
	}
	newRound := func(i, watchers int) (*watchRound, *damonev1.CreateGameResponse, error) {
		cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
		defer ccancel()
		resp, err := gameClient(i).CreateGame(cctx, &damonev1.CreateGameRequest{})
		if err != nil {
			return nil, nil, err
		}
		r := &watchRound{name: resp.GetGame().GetName(), nextReady: make(chan struct{})}
		r.subscribed.Add(watchers)
		return r, resp, nil
	}

	var wg, movers sync.WaitGroup
	setupStart := time.Now()
	firstRounds := make([]*watchRound, slots)
	firstResps := make([]*damonev1.CreateGameResponse, slots)
	for s := range slots {
		r, resp, err := newRound(s, perSlot[s])
		if err != nil {
			return nil, fmt.Errorf("create game: %w", err)
		}
		r.first = true
		firstRounds[s], firstResps[s] = r, resp
	}
	// Watchers: watcher k of slot s uses connection (s + k*slots) % conns.
	type watcherAt struct {
		slot int
		pos  *watcherPos
	}
	var positions []watcherAt
	for s := range slots {
		for k := range perSlot[s] {
			pos := &watcherPos{r: firstRounds[s]}
			positions = append(positions, watcherAt{s, pos})
			wg.Add(1)
			go func() {
				defer wg.Done()
				runWatcher(ctx, watchClient(s+k*slots), firstRounds[s], pos, &c)
			}()
		}
	}
	allSubscribed := make(chan struct{})
	go func() {
		for _, r := range firstRounds {
			r.subscribed.Wait()
		}
		close(allSubscribed)
	}()
	select {
	case <-allSubscribed:
	case <-time.After(cfg.watchSetup):
		subscribed := c.subscribed.Load()
		cancel()
		wg.Wait()
		return nil, fmt.Errorf("no progress: %d of %d watchers subscribed after %v over %d connection(s) of up to %d streams (%d refused, first error: %v); "+
			"a server whose --max-streams-per-connection is below --watchers-per-conn queues the rest", subscribed, cfg.watchers, cfg.watchSetup,
			len(conns), (cfg.watchers+len(conns)-1)/len(conns), c.refused.Load(), c.firstErr)
	}
	res.SetupSeconds = time.Since(setupStart).Seconds()

	// Movers: one per slot, playing both sides of its games; current is
	// each slot's game when its mover stops.
	current := make([]*watchRound, slots)
	for s := range slots {
		movers.Add(1)
		go func() {
			defer movers.Done()
			current[s] = runMover(ctx, gameClient(s), firstRounds[s], firstResps[s], perSlot[s], func(w int) (*watchRound, *damonev1.CreateGameResponse, error) {
				return newRound(s, w)
			}, &c, uint64(s))
		}()
	}
	if cfg.warmup > 0 {
		select {
		case <-time.After(cfg.warmup):
		case <-ctx.Done():
		}
	}
	var cpu0 []time.Duration
	if len(res.Servers) > 0 {
		if cpu0, err = cpu.read(ctx); err != nil {
			res.CPUError = err.Error()
		}
	}
	e0, m0, f0 := c.events.Load(), c.moves.Load(), c.finished.Load()
	t0 := time.Now()
	var windowDone func() error
	if cfg.watchWindow != nil {
		windowDone = cfg.watchWindow(cfg.duration)
	}
	select {
	case <-time.After(cfg.duration):
	case <-ctx.Done():
	}
	e1, m1, f1 := c.events.Load(), c.moves.Load(), c.finished.Load()
	el := time.Since(t0).Seconds()
	if cpu0 != nil {
		cpu1, err := cpu.read(ctx)
		if err != nil {
			res.CPUError = err.Error()
		}
		for i := range cpu1 {
			res.Servers[i].cpu = cpu1[i] - cpu0[i]
		}
	}
	var windowErr error
	if windowDone != nil {
		windowErr = windowDone()
	}

	// Drain: every event committed must reach every watcher of its game.
	close(c.stop)
	movers.Wait()
	final := make([]int64, slots)
	for s, r := range current {
		if r == nil {
			continue // the mover failed; its error is counted
		}
		gctx, gcancel := context.WithTimeout(ctx, 10*time.Second)
		g, err := gameClient(s).GetGame(gctx, &damonev1.GetGameRequest{Name: r.name})
		gcancel()
		if err != nil {
			c.fail(fmt.Errorf("get game %s after the moves: %w", r.name, err))
			current[s] = nil
			continue
		}
		final[s] = g.GetLastEventSequence()
	}
	behind := func() (watchers int, events int64) {
		for _, w := range positions {
			if current[w.slot] == nil {
				continue
			}
			r, since := w.pos.get()
			switch {
			case r != current[w.slot]:
				// Still on an earlier game of the slot (its mover was
				// waiting for it): all of the current game is missing.
				watchers++
				events += final[w.slot]
			case since < final[w.slot]:
				watchers++
				events += final[w.slot] - since
			}
		}
		return
	}
	drainEnd := time.Now().Add(cfg.watchDrain)
	for {
		n, missing := behind()
		if n == 0 {
			break
		}
		if time.Now().After(drainEnd) {
			c.lost.Add(missing)
			c.fail(fmt.Errorf("%d watcher(s) had not received %d committed event(s) %v after the last move", n, missing, cfg.watchDrain))
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	wg.Wait()

	res.Seconds = el
	res.Events, res.Moves, res.GamesFinished = e1-e0, m1-m0, f1-f0
	// Cut-offs, refusals and errors over the whole run, warm-up included:
	// none may be hidden.
	res.CutOff, res.RefusedWatch, res.Errors = c.cutOff.Load(), c.refused.Load(), c.errs.Load()
	res.Lost, res.Duplicated = c.lost.Load(), c.duplicated.Load()
	inWindow := func(at time.Time) bool { return !at.Before(t0) && at.Sub(t0).Seconds() <= el }
	for _, rc := range c.received {
		if !inWindow(rc.at) {
			continue
		}
		if rc.sent {
			res.deliveredLat = append(res.deliveredLat, rc.fromSent)
		}
		res.boundLat = append(res.boundLat, rc.fromEvent)
		if at, ok := c.answered.Load(rc.key); ok {
			res.commitLat = append(res.commitLat, rc.at.Sub(at.(time.Time)))
		}
	}
	for _, d := range c.moveLat {
		if inWindow(d.at) {
			res.moveLat = append(res.moveLat, d.latency)
		}
	}
	res.summarize()
	if c.firstErr != nil {
		res.FirstError = c.firstErr.Error()
	}
	if windowErr != nil {
		return nil, windowErr
	}
	return res, nil
}

// runWatcher watches round after round until ctx ends, keeping pos at
// the last event it received.
func runWatcher(ctx context.Context, client damonev1.GameServiceClient, r *watchRound, pos *watcherPos, c *watchCounters) {
	var since int64
	signalled := false
	var got []receipt
	defer func() {
		c.deliveredMu.Lock()
		c.received = append(c.received, got...)
		c.deliveredMu.Unlock()
	}()
	for ctx.Err() == nil {
		stream, err := client.WatchGame(ctx, &damonev1.WatchGameRequest{Name: r.name, SinceSequence: since})
		if err != nil {
			if ctx.Err() == nil {
				c.fail(err)
			}
			return
		}
		ended := false
		for {
			ev, err := stream.Recv()
			if err == io.EOF {
				break
			}
			if err != nil {
				switch {
				case ctx.Err() != nil:
					return
				case isCutOff(err):
					c.cutOff.Add(1)
				case status.Code(err) == codes.ResourceExhausted:
					c.refused.Add(1)
					time.Sleep(10 * time.Millisecond)
				default:
					c.fail(err)
					return
				}
				break
			}
			now := time.Now()
			c.events.Add(1)
			switch seq := ev.GetSequence(); {
			case seq <= since:
				c.duplicated.Add(1)
			case seq > since+1:
				c.lost.Add(seq - since - 1)
			}
			if ev.GetMovePlayed() != nil {
				rc := receipt{at: now, key: sentKey(r.name, ev.GetPly()), fromEvent: now.Sub(ev.GetEventTime().AsTime())}
				if at, ok := c.sent.Load(rc.key); ok {
					rc.fromSent, rc.sent = now.Sub(at.(time.Time)), true
				}
				got = append(got, rc)
			}
			since = max(since, ev.GetSequence())
			pos.set(r, since)
			if ev.GetGameCreated() != nil && !signalled {
				signalled = true
				if r.first {
					c.subscribed.Add(1)
				}
				r.subscribed.Done()
			}
			if ev.GetGameEnded() != nil {
				ended = true
			}
		}
		if !ended {
			continue // resume this game from since
		}
		select {
		case <-r.nextReady:
		case <-ctx.Done():
			return
		}
		r, since, signalled = r.next, 0, false
		pos.set(r, 0)
	}
}

// isCutOff tells a watcher cut off for falling behind (RESOURCE_EXHAUSTED
// with ErrorInfo metadata limit=watch_buffer) from a refused watch call.
func isCutOff(err error) bool {
	st, _ := status.FromError(err)
	if st.Code() != codes.ResourceExhausted {
		return false
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetMetadata()["limit"] == "watch_buffer" {
			return true
		}
	}
	return strings.Contains(st.Message(), "cut off")
}

// runMover plays random legal moves on its slot's games, both sides, as
// fast as the server answers, and starts a new round when a game ends,
// until c.stop (after its current call) or ctx ends. It returns the
// slot's last game, or nil if it failed.
func runMover(ctx context.Context, client damonev1.GameServiceClient, r *watchRound, resp *damonev1.CreateGameResponse,
	watchers int, newRound func(watchers int) (*watchRound, *damonev1.CreateGameResponse, error), c *watchCounters, seed uint64) *watchRound {
	rng := rand.New(rand.NewPCG(seed, 0xda3011e))
	for {
		// Wait until every watcher of the round has its game_created.
		done := make(chan struct{})
		go func() { r.subscribed.Wait(); close(done) }()
		select {
		case <-done:
		case <-c.stop:
			return r
		case <-ctx.Done():
			return r
		}
		if !playGame(ctx, client, r.name, resp, rng, c) {
			return nil
		}
		if ctx.Err() != nil || c.stopping() {
			return r
		}
		next, nresp, err := newRound(watchers)
		if err != nil {
			if ctx.Err() == nil {
				c.fail(fmt.Errorf("create game: %w", err))
			}
			return r
		}
		r.next = next
		close(r.nextReady)
		r, resp = next, nresp
	}
}

// playGame plays the game to its end (or until c.stop), mirroring it
// with the engine to pick each move; false if a move failed.
func playGame(ctx context.Context, client damonev1.GameServiceClient, name string, resp *damonev1.CreateGameResponse, rng *rand.Rand, c *watchCounters) bool {
	g, err := engine.NewGame(engine.DefaultVariant())
	if err != nil {
		c.fail(err)
		return false
	}
	auth := [2]context.Context{
		metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+resp.GetRedToken()),
		metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+resp.GetBlackToken()),
	}
	for !g.Outcome().Over() && ctx.Err() == nil && !c.stopping() {
		pos := g.Position()
		legal := pos.LegalMoves()
		m := legal[rng.IntN(len(legal))]
		side := 0
		if pos.SideToMove() == engine.Black {
			side = 1
		}
		key := sentKey(name, int32(g.Ply()+1))
		sent := time.Now()
		c.sent.Store(key, sent)
		_, err := client.MakeMove(auth[side], &damonev1.MakeMoveRequest{Name: name, Move: m.String()})
		now := time.Now()
		if err != nil {
			if ctx.Err() == nil {
				c.fail(fmt.Errorf("move %s in %s: %w", m.String(), name, err))
			}
			return false
		}
		c.answered.Store(key, now)
		c.deliveredMu.Lock()
		c.moveLat = append(c.moveLat, delivery{now, now.Sub(sent)})
		c.deliveredMu.Unlock()
		if err := g.Play(m); err != nil {
			c.fail(err)
			return false
		}
		c.moves.Add(1)
	}
	if g.Outcome().Over() {
		c.finished.Add(1)
	}
	return true
}

func (rep *benchReport) writeText(w io.Writer) error {
	fmt.Fprintf(w, "damone-bench load: gRPC %s, REST %s; %d concurrent calls over %d gRPC connection(s); %s per scenario in %d interleaved round(s), after %s warm-up; client %s\n\n",
		rep.GRPCAddr, rep.HTTPAddr, rep.Concurrency, rep.Conns, rep.Duration, rep.Rounds, rep.Warmup, rep.Client)
	if len(rep.Unary) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "scenario\tcalls\terrors\tcalls/s\tp50\tp90\tp99\tmax\t\t")
		for _, r := range rep.Unary {
			note := ""
			switch {
			case r.RatioToEmpty > 0:
				note = fmt.Sprintf("%.1f%% of empty-grpc calls/s", r.RatioToEmpty*100)
			case r.P50OverGRPC > 0:
				note = fmt.Sprintf("p50 %.2fx list-grpc p50", r.P50OverGRPC)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%s\t%s\t%s\t%s\t\t%s\n", r.Scenario, r.Calls, r.Errors, r.CallsPerSec,
				fmtUs(r.P50us), fmtUs(r.P90us), fmtUs(r.P99us), fmtUs(r.MaxUs), note)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, r := range rep.Unary {
			if r.FirstError != "" {
				fmt.Fprintf(w, "  %s first error: %s\n", r.Scenario, r.FirstError)
			}
		}
	}
	if err := rep.writeValidate(w); err != nil {
		return err
	}
	if wr := rep.Watch; wr != nil {
		fmt.Fprintf(w, "\nwatch: %d watchers on %d games (%s each) over %d gRPC connection(s), the movers on their own; subscribed in %.2fs\n",
			wr.Watchers, wr.Games, wr.WatchersPerGame, wr.WatchConns, wr.SetupSeconds)
		fmt.Fprintf(w, "  %d events delivered in %.2fs = %.0f events/s; %d moves (%.0f moves/s), %d games finished and replaced\n",
			wr.Events, wr.Seconds, wr.EventsPerSec, wr.Moves, wr.MovesPerSec, wr.GamesFinished)
		if len(wr.MoverServers) > 0 {
			fmt.Fprintf(w, "  moves on %s, watchers on %s\n", strings.Join(wr.MoverServers, ", "), strings.Join(wr.WatcherServers, ", "))
		}
		fmt.Fprintf(w, "  move sent to move_played received: p50 %s, p99 %s over %d deliveries (MakeMove alone: p50 %s, p99 %s); lost %d, duplicated %d\n",
			fmtUs(wr.DeliveryP50us), fmtUs(wr.DeliveryP99us), wr.Deliveries, fmtUs(wr.MoveP50us), fmtUs(wr.MoveP99us), wr.Lost, wr.Duplicated)
		fmt.Fprintf(w, "  commit (MakeMove answered) to move_played received: p50 %s, p99 %s (from event_time, stamped before the commit: p50 %s, p99 %s)\n",
			fmtUs(wr.CommitP50us), fmtUs(wr.CommitP99us), fmtUs(wr.CommitBoundP50us), fmtUs(wr.CommitBoundP99us))
		for _, s := range wr.Servers {
			fmt.Fprintf(w, "  server %s (%s): %.2f cores, %s per event delivered\n", s.Addr, s.Role, s.CPUCores, fmtUs(s.CPUUsPerEvent))
		}
		if wr.CPUError != "" {
			fmt.Fprintf(w, "  server CPU not read: %s\n", wr.CPUError)
		}
		fmt.Fprintf(w, "  watchers cut off (RESOURCE_EXHAUSTED, fell behind): %d; watch calls refused (limits): %d; other errors: %d\n",
			wr.CutOff, wr.RefusedWatch, wr.Errors)
		if wr.FirstError != "" {
			fmt.Fprintf(w, "  first error: %s\n", wr.FirstError)
		}
	}
	issue := 0
	for _, t := range rep.Targets {
		if t.Issue != issue {
			issue = t.Issue
			fmt.Fprintf(w, "\ntargets (issue %d):\n", issue)
		}
		mark := "NOT MET"
		if t.Met {
			mark = "met"
		}
		fmt.Fprintf(w, "  %-7s %s: %s\n", mark, t.Target, t.Measured)
	}
	return nil
}

// writeValidate prints the validate scenarios' table: throughput,
// latency per game, and the CPU the servers and the load generator spent
// per validated ply; then, with several servers, each one's share.
func (rep *benchReport) writeValidate(w io.Writer) error {
	l := rep.ValidateLoad
	if l == nil {
		return nil
	}
	fmt.Fprintf(w, "\nvalidate: %d games of %d plies (seed %d), every answer checked (valid, %d plies, id); streams: %d x %d games in flight; unary: %d concurrent calls\n",
		l.Games, l.Plies, l.Seed, l.Plies, l.Streams, l.InFlight, l.Concurrency)
	if l.CPUFrom != "" {
		fmt.Fprintf(w, "server CPU: %s, read at the start and end of each measured window\n", l.CPUFrom)
		fmt.Fprintln(w, "machine busy: CPU time of every process on the machine (/proc/stat) in the same windows")
	} else {
		fmt.Fprintln(w, "server CPU: not measured (give --metrics-addr or --server-pid)")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tgames\terrors\tgames/s\tplies/s\tp50/game\tp99/game\tmax\tserver CPU\tserver CPU/ply\tclient CPU\tclient CPU/ply\tmachine busy\t")
	for _, r := range rep.Validate {
		srv, srvPly := "-", "-"
		if r.ServerNsPly > 0 {
			srv, srvPly = fmt.Sprintf("%.2f cores", r.ServerCores), fmtNs(r.ServerNsPly)
		}
		machine := "-"
		if r.MachineCores > 0 {
			machine = fmt.Sprintf("%.2f cores", r.MachineCores)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.0f\t%s\t%s\t%s\t%s\t%s\t%.2f cores\t%s\t%s\t\n", r.Scenario, r.Games, r.Errors,
			r.GamesPerSec, r.PliesPerSec, fmtUs(r.P50us), fmtUs(r.P99us), fmtUs(r.MaxUs), srv, srvPly, r.ClientCores, fmtNs(r.ClientNsPly), machine)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rep.Validate {
		if r.FirstError != "" {
			fmt.Fprintf(w, "  %s first error: %s\n", r.Scenario, r.FirstError)
		}
		if r.CPUError != "" {
			fmt.Fprintf(w, "  %s server CPU not read: %s\n", r.Scenario, r.CPUError)
		}
		for _, rr := range r.PerReplica {
			cpu := ""
			if rr.ServerNsPly > 0 {
				cpu = fmt.Sprintf(", server %.2f cores, %s/ply", rr.ServerCores, fmtNs(rr.ServerNsPly))
			}
			fmt.Fprintf(w, "  %s on %s: %.0f plies/s%s\n", r.Scenario, rr.Addr, rr.PliesPerSec, cpu)
		}
	}
	return nil
}

// fmtNs formats nanoseconds per ply: "1.23µs", "850ns".
func fmtNs(v float64) string {
	if v < 1000 {
		return fmt.Sprintf("%.0fns", v)
	}
	return fmt.Sprintf("%.2fµs", v/1000)
}

// fmtUs formats microseconds for the table: "412µs", "1.25ms".
func fmtUs(v float64) string {
	if v < 0 {
		return "-" + fmtUs(-v)
	}
	if v < 1000 {
		return fmt.Sprintf("%.0fµs", v)
	}
	return fmt.Sprintf("%.2fms", v/1000)
}

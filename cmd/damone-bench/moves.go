package main

// damone-bench moves: games played over gRPC as fast as the server
// answers, against a server the tool starts for each store, to compare
// the stores (issue 14, section 4), and the cost of a move deep into a
// long game.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/cli"
)

// The scenarios of damone-bench moves, in the order they run.
const (
	movesConcurrent = "concurrent"
	movesAlone      = "alone"
	movesLongGame   = "long-game"
)

var movesScenarios = []string{movesConcurrent, movesAlone, movesLongGame}

// The stores damone serve offers, in the order they are measured.
var allStores = []string{"memory", "embedded", "postgres"}

// The targets of issue 29, section 2 (the embedded store at least 75 %
// of the memory store's moves per second at 64 concurrent games, and 50 %
// with one game alone), and section 1 (the postgres store's server CPU
// per move at most 200 µs at 64 games). They supersede issue 14's 60 %.
const (
	targetEmbeddedOverMemory      = 0.75
	targetEmbeddedAloneOverMemory = 0.50
	targetPostgresServerUsMove    = 200
	targetConcurrentGames         = 64
)

type movesConfig struct {
	view             damonev1.GameView
	serverBin        string
	stores           []string
	postgresDSN      string
	scenarios        []string
	games            int
	duration, warmup time.Duration
	rounds           int
	longPlies        []int
	longMoves        int
	seed             uint64
	profileDir       string
	pgbench          string
	pgbenchScale     int
	json             bool
	keep             bool
}

func runMovesCommand(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400) // as load: leave the CPU to the server
	}
	fs := cli.NewFlags("moves", stdout, `Usage: damone-bench moves [flags]

Starts a damone server for each store (memory; embedded, in a temporary
--data-dir; postgres, given --postgres-dsn) and plays games on it over
gRPC, each game as fast as its replies come, choosing random legal moves
with the engine and starting a new game when one ends. Scenarios:
concurrent (--games games at once) and alone (one game), measured in
interleaved rounds of every store, report moves/s, latency per move and
the server's CPU per move (/proc/PID/stat; client and server share the
machine, so CPU per move is the figure to compare across machines), and
each store's throughput as a share of the memory store's; long-game
times moves at given plies of a game that never ends (draw rules off).`)
	var cfg movesConfig
	fs.StringVar(&cfg.serverBin, "server-bin", "", "the damone binary to run (default: damone next to damone-bench, else on PATH)")
	stores := fs.String("stores", "memory,embedded", "comma-separated stores to measure: memory, embedded, postgres (postgres is added when --postgres-dsn is given)")
	fs.StringVar(&cfg.postgresDSN, "postgres-dsn", "", "PostgreSQL connection string for the postgres store")
	scen := fs.String("scenarios", strings.Join(movesScenarios, ","), "comma-separated scenarios: "+strings.Join(movesScenarios, ", "))
	fs.IntVar(&cfg.games, "games", targetConcurrentGames, "concurrent games in the concurrent scenario")
	fs.DurationVar(&cfg.duration, "duration", 10*time.Second, "measured time per scenario and store, split over the rounds")
	fs.DurationVar(&cfg.warmup, "warmup", time.Second, "unmeasured warm-up per scenario and store, split over the rounds")
	fs.IntVar(&cfg.rounds, "rounds", 5, "interleaved rounds: each runs every scenario on every store for duration/rounds")
	longPlies := fs.String("long-plies", "100,5000", "comma-separated plies of the long game at which moves are timed, ascending")
	view := fs.String("view", "full", "the game view MakeMove answers with: full (every move, the default of the API) or basic (no move list)")
	fs.IntVar(&cfg.longMoves, "long-moves", 200, "moves timed at each of --long-plies")
	fs.Uint64Var(&cfg.seed, "seed", 1, "seed of the random moves")
	fs.BoolVar(&cfg.json, "json", false, "print the results as JSON")
	fs.StringVar(&cfg.profileDir, "profile-dir", "", "start the servers with --pprof and write a CPU profile of each store's server over each timed window into this directory (STORE-SCENARIO-rROUND.pprof; read with go tool pprof)")
	fs.StringVar(&cfg.pgbench, "pgbench", "", "run this pgbench binary (e.g. pgbench) against --postgres-dsn in every round before the moves: its TPC-B-like and simple-update (-N) scripts, --games clients, prepared statements, each for the round's window (at least 10 s); prints the postgres store's moves/s over their tps")
	fs.IntVar(&cfg.pgbenchScale, "pgbench-scale", 10, "pgbench's scale factor (pgbench -i -s): 100,000 accounts and one branch per unit")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the temporary directory (servers' logs, embedded store) after the run")
	if rest, err := fs.ParseArgs(args); err != nil {
		return err
	} else if len(rest) != 0 {
		return cli.Usagef("unexpected argument %q", rest[0])
	}
	explicitStores := false
	fs.Visit(func(f *flag.Flag) { explicitStores = explicitStores || f.Name == "stores" })
	var err error
	if cfg.stores, err = parseList(*stores, allStores); err != nil {
		return cli.Usagef("--stores: %v", err)
	}
	if cfg.postgresDSN != "" && !explicitStores && !slices.Contains(cfg.stores, "postgres") {
		cfg.stores = append(cfg.stores, "postgres")
	}
	if cfg.scenarios, err = parseList(*scen, movesScenarios); err != nil {
		return cli.Usagef("--scenarios: %v", err)
	}
	switch *view {
	case "full":
		cfg.view = damonev1.GameView_GAME_VIEW_FULL
	case "basic":
		cfg.view = damonev1.GameView_GAME_VIEW_BASIC
	default:
		return cli.Usagef("--view %q: must be full or basic", *view)
	}
	if cfg.longPlies, err = parsePlies(*longPlies); err != nil {
		return cli.Usagef("--long-plies: %v", err)
	}
	switch {
	case slices.Contains(cfg.stores, "postgres") && cfg.postgresDSN == "":
		return cli.Usagef("--stores postgres needs --postgres-dsn")
	case cfg.games < 1:
		return cli.Usagef("--games %d: must be 1 or more", cfg.games)
	case cfg.duration <= 0:
		return cli.Usagef("--duration %v: must be above 0", cfg.duration)
	case cfg.warmup < 0:
		return cli.Usagef("--warmup %v: must be 0 or more", cfg.warmup)
	case cfg.rounds < 1:
		return cli.Usagef("--rounds %d: must be 1 or more", cfg.rounds)
	case cfg.longMoves < 1:
		return cli.Usagef("--long-moves %d: must be 1 or more", cfg.longMoves)
	case cfg.pgbench != "" && !slices.Contains(cfg.stores, "postgres"):
		return cli.Usagef("--pgbench compares with the postgres store: give --postgres-dsn (and postgres in --stores)")
	case cfg.pgbench != "" && !slices.Contains(cfg.scenarios, movesConcurrent):
		return cli.Usagef("--pgbench compares with the %s scenario: add it to --scenarios", movesConcurrent)
	case cfg.pgbenchScale < 1:
		return cli.Usagef("--pgbench-scale %d: must be 1 or more", cfg.pgbenchScale)
	}
	if cfg.serverBin, err = findServerBin(cfg.serverBin); err != nil {
		return err
	}
	rep, err := benchMoves(context.Background(), cfg, stderr)
	if err != nil {
		return err
	}
	if err := writeReport(stdout, rep, cfg.json); err != nil {
		return err
	}
	return noProgressError(rep.noProgress())
}

// noProgress names each scenario and store that made no move in its
// measured time, with its first error.
func (rep *movesReport) noProgress() []string {
	var out []string
	for _, r := range rep.Results {
		if r.Moves == 0 {
			msg := fmt.Sprintf("%s on %s: 0 moves", r.Scenario, r.Store)
			if r.Errors > 0 {
				msg += fmt.Sprintf(" (%d errors, first: %s)", r.Errors, r.FirstError)
			}
			out = append(out, msg)
		}
	}
	for _, r := range rep.LongGame {
		if r.Moves == 0 {
			out = append(out, fmt.Sprintf("%s on %s at ply %d: 0 moves timed", movesLongGame, r.Store, r.Ply))
		}
	}
	return out
}

// parseList reads a comma-separated list of names out of known, without
// duplicates, in known's order.
func parseList(s string, known []string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !slices.Contains(known, name) {
			return nil, fmt.Errorf("unknown name %q (want %s)", name, strings.Join(known, ", "))
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("none given")
	}
	slices.SortFunc(out, func(a, b string) int { return slices.Index(known, a) - slices.Index(known, b) })
	return out, nil
}

// parsePlies reads ascending plies, each at least 0.
func parsePlies(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q: want a ply, 0 or more", f)
		}
		if len(out) > 0 && n <= out[len(out)-1] {
			return nil, fmt.Errorf("%d after %d: want ascending plies", n, out[len(out)-1])
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, errors.New("none given")
	}
	return out, nil
}

// movesReport is what damone-bench moves prints (as JSON with --json).
type movesReport struct {
	Server    string            `json:"server"`
	Stores    []string          `json:"stores"`
	Games     int               `json:"concurrent_games"`
	Duration  string            `json:"duration_per_scenario_and_store"`
	Rounds    int               `json:"rounds"`
	Warmup    string            `json:"warmup"`
	Client    string            `json:"client"`
	View      string            `json:"view"`
	Results   []*movesResult    `json:"results,omitempty"`
	LongGame  []*longGameResult `json:"long_game,omitempty"`
	LongMoves int               `json:"long_game_moves_timed,omitempty"`
	PgBench   []*pgbenchResult  `json:"pgbench,omitempty"`
	Targets   []targetCheck     `json:"targets"`
}

// movesResult is one scenario's figures on one store. Latencies are in
// microseconds in JSON.
type movesResult struct {
	Scenario      string  `json:"scenario"`
	Store         string  `json:"store"`
	Games         int     `json:"games"`
	Moves         int     `json:"moves"`
	Errors        int     `json:"errors"`
	FirstError    string  `json:"first_error,omitempty"`
	MovesPerSec   float64 `json:"moves_per_sec"`
	P50us         float64 `json:"p50_us"`
	P90us         float64 `json:"p90_us"`
	P99us         float64 `json:"p99_us"`
	MaxUs         float64 `json:"max_us"`
	ServerCores   float64 `json:"server_cpu_cores"`
	ServerUsMove  float64 `json:"server_cpu_us_per_move"`
	ClientCores   float64 `json:"client_cpu_cores"`
	MachineCores  float64 `json:"machine_busy_cores"`
	RatioToMemory float64 `json:"moves_per_sec_ratio_to_memory,omitempty"`
	CPUError      string  `json:"cpu_error,omitempty"`
}

// longGameResult is the long game's moves timed at one ply on one store.
type longGameResult struct {
	Store        string  `json:"store"`
	Ply          int     `json:"ply"`
	Moves        int     `json:"moves"`
	P50us        float64 `json:"p50_us"`
	P99us        float64 `json:"p99_us"`
	ServerUsMove float64 `json:"server_cpu_us_per_move"`
	ReachSeconds float64 `json:"seconds_to_reach_ply"`
	CPUError     string  `json:"cpu_error,omitempty"`
}

// movesStore is one store's running server and its players.
type movesStore struct {
	name    string
	srv     *serverProc
	conn    *grpc.ClientConn
	players map[string][]*player // by scenario
}

func benchMoves(ctx context.Context, cfg movesConfig, progress io.Writer) (rep *movesReport, err error) {
	dir, err := os.MkdirTemp("", "damone-bench-moves-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if cfg.keep || err != nil {
			fmt.Fprintf(progress, "damone-bench moves: servers' logs and data kept in %s\n", dir)
			return
		}
		os.RemoveAll(dir)
	}()
	rep = &movesReport{
		Server: cfg.serverBin, Stores: cfg.stores, Games: cfg.games, Duration: cfg.duration.String(), Rounds: cfg.rounds, Warmup: cfg.warmup.String(),
		Client: fmt.Sprintf("%s %s/%s, GOMAXPROCS %d", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0)),
		View:   cfg.view.String(),
	}
	var stores []*movesStore
	defer func() {
		for _, st := range stores {
			if st.conn != nil {
				st.conn.Close()
			}
			st.srv.stop()
		}
	}()
	for _, name := range cfg.stores {
		args := []string{"--store", name}
		if cfg.profileDir != "" {
			args = append(args, "--pprof")
		}
		switch name {
		case "embedded":
			args = append(args, "--data-dir", filepath.Join(dir, "data-embedded"))
		case "postgres":
			args = append(args, "--postgres-dsn", cfg.postgresDSN)
		}
		srv, err := newServerProc(cfg.serverBin, filepath.Join(dir, "serve-"+name+".log"), args...)
		if err != nil {
			return nil, err
		}
		st := &movesStore{name: name, srv: srv, players: map[string][]*player{}}
		stores = append(stores, st)
		if err := srv.start(ctx); err != nil {
			return nil, fmt.Errorf("store %s: %w", name, err)
		}
		st.conn, err = grpc.NewClient("passthrough:///"+srv.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
		if err != nil {
			return nil, err
		}
		client := damonev1.NewGameServiceClient(st.conn)
		for i := range cfg.games {
			p := newPlayer(client, cfg.seed*1_000_003+uint64(i))
			p.view = cfg.view
			st.players[movesConcurrent] = append(st.players[movesConcurrent], p)
		}
		alone := newPlayer(client, cfg.seed*1_000_003+uint64(cfg.games))
		alone.view = cfg.view
		st.players[movesAlone] = []*player{alone}
		fmt.Fprintf(progress, "damone-bench moves: store %s served by pid %d at %s\n", name, srv.pid(), srv.grpcAddr)
	}

	var timed []string
	for _, sc := range cfg.scenarios {
		if sc != movesLongGame {
			timed = append(timed, sc)
		}
	}
	samples := map[string]*moveSamples{}
	key := func(sc, store string) string { return sc + "/" + store }
	warmup, window := cfg.warmup/time.Duration(cfg.rounds), cfg.duration/time.Duration(cfg.rounds)
	var pgb *pgbencher
	pgbenchTPS := map[string][]float64{}
	if cfg.pgbench != "" {
		pgb = &pgbencher{bin: cfg.pgbench, dsn: cfg.postgresDSN, clients: cfg.games, scale: cfg.pgbenchScale}
		fmt.Fprintf(progress, "damone-bench moves: pgbench -i -s %d ...\n", cfg.pgbenchScale)
		if err := pgb.init(ctx); err != nil {
			return nil, err
		}
	}
	for round := 1; round <= cfg.rounds && len(timed) > 0; round++ {
		fmt.Fprintf(progress, "damone-bench moves: round %d/%d: %s on %s ...\n", round, cfg.rounds, strings.Join(timed, ", "), strings.Join(cfg.stores, ", "))
		if pgb != nil {
			for _, script := range []string{pgbenchTPCB, pgbenchSimple} {
				tps, err := pgb.round(ctx, script, window)
				if err != nil {
					return nil, err
				}
				pgbenchTPS[script] = append(pgbenchTPS[script], tps)
			}
		}
		for _, sc := range timed {
			for _, st := range stores {
				var profiled chan error
				if cfg.profileDir != "" {
					profiled = make(chan error, 1)
					path := filepath.Join(cfg.profileDir, fmt.Sprintf("%s-%s-r%d.pprof", st.name, sc, round))
					go func() { profiled <- saveProfile(ctx, st.srv.metricsAddr, warmup, window, path) }()
				}
				s := runMoveWindow(ctx, st.players[sc], st.srv.pid(), warmup, window)
				if profiled != nil {
					if err := <-profiled; err != nil {
						return nil, fmt.Errorf("profile of %s on %s: %w", sc, st.name, err)
					}
				}
				if samples[key(sc, st.name)] == nil {
					samples[key(sc, st.name)] = &moveSamples{}
				}
				samples[key(sc, st.name)].add(s)
			}
		}
	}
	for _, sc := range timed {
		var memory *movesResult
		for _, st := range stores {
			r := samples[key(sc, st.name)].result(sc, st.name, len(st.players[sc]))
			if st.name == "memory" {
				memory = r
			} else if memory != nil && memory.MovesPerSec > 0 {
				r.RatioToMemory = r.MovesPerSec / memory.MovesPerSec
			}
			rep.Results = append(rep.Results, r)
		}
	}
	if pgb != nil {
		var pgMoves float64
		for _, r := range rep.Results {
			if r.Scenario == movesConcurrent && r.Store == "postgres" {
				pgMoves = r.MovesPerSec
			}
		}
		for _, script := range []string{pgbenchTPCB, pgbenchSimple} {
			r := &pgbenchResult{Script: script, Clients: cfg.games, Scale: cfg.pgbenchScale, RoundTPS: pgbenchTPS[script]}
			for _, t := range r.RoundTPS {
				r.TPS += t / float64(len(r.RoundTPS))
			}
			r.MovesOverIt = pgMoves / r.TPS
			rep.PgBench = append(rep.PgBench, r)
		}
	}
	if slices.Contains(cfg.scenarios, movesLongGame) {
		rep.LongMoves = cfg.longMoves
		for _, st := range stores {
			fmt.Fprintf(progress, "damone-bench moves: long game on %s to ply %d ...\n", st.name, cfg.longPlies[len(cfg.longPlies)-1])
			rs, err := benchLongGame(ctx, damonev1.NewGameServiceClient(st.conn), st.srv.pid(), cfg.longPlies, cfg.longMoves, cfg.view)
			if err != nil {
				return nil, fmt.Errorf("long game on %s: %w", st.name, err)
			}
			for _, r := range rs {
				r.Store = st.name
			}
			rep.LongGame = append(rep.LongGame, rs...)
		}
	}
	for _, st := range stores {
		if !st.srv.running() {
			return nil, fmt.Errorf("the %s server exited during the run (%v); its log ends:\n%s", st.name, st.srv.waitErr, st.srv.logTail(20))
		}
	}
	rep.Targets = checkMovesTargets(cfg.games, rep.Results, rep.PgBench)
	return rep, nil
}

// moveSamples are one scenario's figures on one store over its windows.
type moveSamples struct {
	lat        []time.Duration // moves sent and answered inside a window
	moves      int             // moves answered inside a window
	errs       int
	firstErr   string
	measured   time.Duration
	serverCPU  time.Duration
	clientCPU  time.Duration
	machineCPU time.Duration
	cpuErr     string
}

func (s *moveSamples) add(o *moveSamples) {
	s.lat = append(s.lat, o.lat...)
	s.moves += o.moves
	if s.firstErr == "" {
		s.firstErr = o.firstErr
	}
	if s.cpuErr == "" {
		s.cpuErr = o.cpuErr
	}
	s.errs += o.errs
	s.measured += o.measured
	s.serverCPU += o.serverCPU
	s.clientCPU += o.clientCPU
	s.machineCPU += o.machineCPU
}

func (s *moveSamples) result(sc, store string, games int) *movesResult {
	r := &movesResult{Scenario: sc, Store: store, Games: games, Moves: s.moves, Errors: s.errs, FirstError: s.firstErr, CPUError: s.cpuErr}
	sum := summarize(s.lat)
	r.P50us, r.P90us, r.P99us, r.MaxUs = us(sum.p50), us(sum.p90), us(sum.p99), us(sum.max)
	if sec := s.measured.Seconds(); sec > 0 {
		r.MovesPerSec = float64(s.moves) / sec
		r.ServerCores, r.ClientCores, r.MachineCores = s.serverCPU.Seconds()/sec, s.clientCPU.Seconds()/sec, s.machineCPU.Seconds()/sec
	}
	if s.moves > 0 {
		r.ServerUsMove = us(s.serverCPU) / float64(s.moves)
	}
	return r
}

// runMoveWindow keeps every player moving for warmup plus duration. A
// move answered inside the measured window counts; its latency is kept if
// it was also sent inside it. Creating a game (at the start, or when one
// ends) is not a move and is not timed. A failed move is an error
// whenever it happens, and its game is given up (the server and the
// mirror may disagree on it). The server's CPU time (/proc/PID/stat), the
// tool's and the machine's are read at the window's start and end.
func runMoveWindow(ctx context.Context, players []*player, pid int, warmup, duration time.Duration) *moveSamples {
	s := &moveSamples{measured: duration}
	start := time.Now().Add(warmup)
	end := start.Add(duration)
	var cpuWG sync.WaitGroup
	cpuWG.Add(1)
	go func() {
		defer cpuWG.Done()
		sleepUntil(ctx, start)
		c0, err0 := procCPU(pid)
		s0, m0 := selfCPU(), machineBusy()
		sleepUntil(ctx, end)
		c1, err1 := procCPU(pid)
		s.clientCPU, s.machineCPU = selfCPU()-s0, machineBusy()-m0
		if err := errors.Join(err0, err1); err != nil {
			s.cpuErr = err.Error()
			return
		}
		s.serverCPU = c1 - c0
	}()
	type workerStats struct {
		lat      []time.Duration
		moves    int
		errs     int
		firstErr error
	}
	stats := make([]workerStats, len(players))
	var wg sync.WaitGroup
	for w, p := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := &stats[w]
			fail := func(err error) {
				if st.errs == 0 {
					st.firstErr = err
				}
				st.errs++
				p.game = nil
			}
			for ctx.Err() == nil && time.Now().Before(end) {
				if err := p.ready(ctx); err != nil {
					fail(err)
					continue
				}
				m, err := p.choose()
				if err != nil {
					fail(err)
					continue
				}
				t0 := time.Now()
				_, err = p.send(ctx, m, "")
				t1 := time.Now()
				if err == nil {
					err = p.played(m)
				}
				if err != nil {
					fail(err)
					continue
				}
				if t1.Before(start) || t1.After(end) {
					continue
				}
				st.moves++
				if !t0.Before(start) {
					st.lat = append(st.lat, t1.Sub(t0))
				}
			}
		}()
	}
	wg.Wait()
	cpuWG.Wait()
	for _, st := range stats {
		s.lat = append(s.lat, st.lat...)
		s.moves += st.moves
		if st.errs > 0 && s.firstErr == "" {
			s.firstErr = st.firstErr.Error()
		}
		s.errs += st.errs
	}
	return s
}

// benchLongGame plays one long game alone, untimed up to each of plies,
// then times moves moves there: the latency of each, and the server's CPU
// over them.
func benchLongGame(ctx context.Context, client damonev1.GameServiceClient, pid int, plies []int, moves int, view damonev1.GameView) ([]*longGameResult, error) {
	p, err := newLongGamePlayer(client)
	if err != nil {
		return nil, err
	}
	p.view = view
	if err := p.newGame(ctx); err != nil {
		return nil, err
	}
	step := func() (time.Duration, error) {
		m, err := p.choose()
		if err != nil {
			return 0, err
		}
		t0 := time.Now()
		if _, err := p.send(ctx, m, ""); err != nil {
			return 0, err
		}
		d := time.Since(t0)
		return d, p.played(m)
	}
	var out []*longGameResult
	for _, ply := range plies {
		t0 := time.Now()
		for p.game.Ply() < ply {
			if _, err := step(); err != nil {
				return nil, err
			}
		}
		r := &longGameResult{Ply: p.game.Ply(), Moves: moves, ReachSeconds: time.Since(t0).Seconds()}
		lat := make([]time.Duration, 0, moves)
		c0, err0 := procCPU(pid)
		for range moves {
			d, err := step()
			if err != nil {
				return nil, err
			}
			lat = append(lat, d)
		}
		c1, err1 := procCPU(pid)
		if err := errors.Join(err0, err1); err != nil {
			r.CPUError = err.Error()
		} else {
			r.ServerUsMove = us(c1-c0) / float64(moves)
		}
		sum := summarize(lat)
		r.P50us, r.P99us = us(sum.p50), us(sum.p99)
		out = append(out, r)
	}
	return out, nil
}

func checkMovesTargets(games int, results []*movesResult, pgbench []*pgbenchResult) []targetCheck {
	var out []targetCheck
	for _, p := range pgbench {
		if p.Script != pgbenchTPCB {
			continue
		}
		out = append(out, targetCheck{
			Issue:    29,
			Target:   "postgres moves/s >= pgbench TPC-B-like tps on the same database",
			Measured: fmt.Sprintf("%.2fx (%.0f tps, %d clients, scale %d)", p.MovesOverIt, p.TPS, p.Clients, p.Scale),
			Met:      p.MovesOverIt >= 1,
		})
	}
	for _, r := range results {
		switch {
		case r.Scenario == movesConcurrent && r.Store == "embedded" && r.RatioToMemory > 0:
			out = append(out, targetCheck{
				Issue:    29,
				Target:   fmt.Sprintf("embedded >= %.0f%% of memory moves/s at %d concurrent games", targetEmbeddedOverMemory*100, targetConcurrentGames),
				Measured: fmt.Sprintf("%.1f%% at %d concurrent games", r.RatioToMemory*100, games),
				Met:      games == targetConcurrentGames && r.Errors == 0 && r.RatioToMemory >= targetEmbeddedOverMemory,
			})
		case r.Scenario == movesAlone && r.Store == "embedded" && r.RatioToMemory > 0:
			out = append(out, targetCheck{
				Issue:    29,
				Target:   fmt.Sprintf("embedded >= %.0f%% of memory moves/s with one game alone", targetEmbeddedAloneOverMemory*100),
				Measured: fmt.Sprintf("%.1f%%", r.RatioToMemory*100),
				Met:      r.Errors == 0 && r.RatioToMemory >= targetEmbeddedAloneOverMemory,
			})
		case r.Scenario == movesConcurrent && r.Store == "postgres" && r.CPUError == "" && r.Moves > 0:
			out = append(out, targetCheck{
				Issue:    29,
				Target:   fmt.Sprintf("postgres server CPU per move <= %d µs at %d concurrent games", targetPostgresServerUsMove, targetConcurrentGames),
				Measured: fmt.Sprintf("%.0f µs at %d concurrent games", r.ServerUsMove, games),
				Met:      games == targetConcurrentGames && r.Errors == 0 && r.ServerUsMove <= targetPostgresServerUsMove,
			})
		}
	}
	return out
}

func (rep *movesReport) writeText(w io.Writer) error {
	fmt.Fprintf(w, "damone-bench moves: server %s; stores %s; %d concurrent games, and one alone; %s per scenario and store in %d interleaved round(s), after %s warm-up; MakeMove answers in %s; client %s\n",
		rep.Server, strings.Join(rep.Stores, ", "), rep.Games, rep.Duration, rep.Rounds, rep.Warmup, rep.View, rep.Client)
	if len(rep.Results) > 0 {
		fmt.Fprintln(w, "server CPU: /proc/PID/stat of each store's server at the start and end of each window; machine busy: /proc/stat (every process)")
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "scenario\tstore\tgames\tmoves\terrors\tmoves/s\tp50\tp90\tp99\tmax\tserver CPU\tserver CPU/move\tclient CPU\tmachine busy\t\t")
		for _, r := range rep.Results {
			note := ""
			if r.RatioToMemory > 0 {
				note = fmt.Sprintf("%.1f%% of memory moves/s", r.RatioToMemory*100)
			}
			srv, perMove := "-", "-"
			if r.CPUError == "" {
				srv, perMove = fmt.Sprintf("%.2f cores", r.ServerCores), fmtUs(r.ServerUsMove)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f cores\t%.2f cores\t\t%s\n", r.Scenario, r.Store, r.Games, r.Moves, r.Errors,
				r.MovesPerSec, fmtUs(r.P50us), fmtUs(r.P90us), fmtUs(r.P99us), fmtUs(r.MaxUs), srv, perMove, r.ClientCores, r.MachineCores, note)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, r := range rep.Results {
			if r.FirstError != "" {
				fmt.Fprintf(w, "  %s on %s, first error: %s\n", r.Scenario, r.Store, r.FirstError)
			}
			if r.CPUError != "" {
				fmt.Fprintf(w, "  %s on %s, server CPU not read: %s\n", r.Scenario, r.Store, r.CPUError)
			}
		}
	}
	if len(rep.LongGame) > 0 {
		fmt.Fprintf(w, "\nlong game: from %s, repetition draw and no-progress rule off, both sides stepping out of their corner and back (%s); %d moves timed at each ply, one game alone\n\n",
			longGamePosition, strings.Join(longGameCycle, " "), rep.LongMoves)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "store\tfrom ply\tmoves\tp50\tp99\tserver CPU/move\treached in\t\t")
		first := map[string]*longGameResult{}
		for _, r := range rep.LongGame {
			perMove, note := "-", ""
			if r.CPUError == "" {
				perMove = fmtUs(r.ServerUsMove)
			}
			if f := first[r.Store]; f == nil {
				first[r.Store] = r
			} else if f.ServerUsMove > 0 && f.P50us > 0 {
				note = fmt.Sprintf("%.2fx the server CPU, %.2fx the p50 of ply %d", r.ServerUsMove/f.ServerUsMove, r.P50us/f.P50us, f.Ply)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%.1fs\t\t%s\n", r.Store, r.Ply, r.Moves, fmtUs(r.P50us), fmtUs(r.P99us), perMove, r.ReachSeconds, note)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(rep.PgBench) > 0 {
		fmt.Fprintf(w, "\npgbench on the postgres store's database (prepared statements, run before the moves in each round):\n\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "script	clients	scale	tps	tps per round	postgres moves/s over tps	")
		for _, p := range rep.PgBench {
			rounds := make([]string, len(p.RoundTPS))
			for i, t := range p.RoundTPS {
				rounds[i] = fmt.Sprintf("%.0f", t)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%s\t%.2fx\t\n", p.Script, p.Clients, p.Scale, p.TPS, strings.Join(rounds, " "), p.MovesOverIt)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for i, t := range rep.Targets {
		if i == 0 || t.Issue != rep.Targets[i-1].Issue {
			fmt.Fprintf(w, "\ntargets (issue %d):\n", t.Issue)
		}
		mark := "NOT MET"
		if t.Met {
			mark = "met"
		}
		fmt.Fprintf(w, "  %-7s %s: %s\n", mark, t.Target, t.Measured)
	}
	return nil
}

// saveProfile writes to path a CPU profile of the server whose metrics
// address is addr (started with --pprof), taken over the window that
// follows warmup (whole seconds, at least one).
func saveProfile(ctx context.Context, addr string, warmup, window time.Duration, path string) error {
	select {
	case <-time.After(warmup):
	case <-ctx.Done():
		return ctx.Err()
	}
	secs := max(1, int(window.Seconds()))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, secs), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /debug/pprof/profile: %s", resp.Status)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if len(data) == 0 {
		return errors.New("GET /debug/pprof/profile: an empty profile")
	}
	return os.WriteFile(path, data, 0o644)
}

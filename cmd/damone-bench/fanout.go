package main

// damone-bench fanout: watchers on several replicas of one PostgreSQL
// database, every event reaching them through LISTEN/NOTIFY, beside the
// same load on one replica (issue 29, point 3).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/damone-rules/damone/internal/cli"
)

type fanoutConfig struct {
	serverBin        string
	postgresDSN      string
	replicas         int
	watchers, games  int
	watchersPerConn  int
	duration, warmup time.Duration
	rounds           int
	setup, drain     time.Duration
	profileDir       string
	json, keep       bool
}

// The two setups of damone-bench fanout, in the order each round runs
// them.
const (
	fanoutReplicas = "replicas"
	fanoutSingle   = "single"
)

func runFanoutCommand(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400) // as load: leave the CPU to the servers
	}
	fs := cli.NewFlags("fanout", stdout, `Usage: damone-bench fanout --postgres-dsn DSN [flags]

Starts --replicas damone servers on one PostgreSQL database (free
loopback ports, the postgres store), then in interleaved rounds runs the
watch scenario of damone-bench load twice: the moves on the first replica
and the watchers spread over the others, so every event reaches them
through LISTEN/NOTIFY; then moves and watchers on the first replica
alone (the others idle). Side by side it prints events delivered per
second, commit to delivery latency (from the mover receiving the MakeMove
answer, which the server sends once the move is committed, to a watcher
receiving its move_played event; both instants on this machine's clock),
MakeMove latency, events lost and duplicated (after the last move every
watcher must receive its game's whole log within --drain), and each
replica's CPU per event delivered (/proc/PID/stat). It exits 1 naming the
cause when --postgres-dsn reaches no database (tried before any replica
starts), a setup delivers no event, loses or duplicates one, has an
error, or a replica exits.`)
	var cfg fanoutConfig
	fs.StringVar(&cfg.serverBin, "server-bin", "", "the damone binary to run (default: damone next to damone-bench, else on PATH)")
	fs.StringVar(&cfg.postgresDSN, "postgres-dsn", "", "PostgreSQL connection string of the database the replicas share (required; games accumulate there)")
	fs.IntVar(&cfg.replicas, "replicas", 3, "replicas to start: the first takes the moves, the others serve the watchers")
	fs.IntVar(&cfg.watchers, "watchers", 1000, "concurrent watch streams, spread evenly over the watchers' replicas")
	fs.IntVar(&cfg.games, "games", 40, "games played at once, one mover each, the watchers spread evenly over them")
	fs.IntVar(&cfg.watchersPerConn, "watchers-per-conn", defaultWatchersPerConn, "watch streams per gRPC connection (kept under the servers' --max-streams-per-connection)")
	fs.DurationVar(&cfg.duration, "duration", 15*time.Second, "measured time per setup, split over the rounds")
	fs.DurationVar(&cfg.warmup, "warmup", 3*time.Second, "unmeasured moves before each measured window, in total per setup, split over the rounds")
	fs.IntVar(&cfg.rounds, "rounds", 3, "interleaved rounds: each runs both setups for duration/rounds, with fresh games and watchers")
	fs.DurationVar(&cfg.setup, "watch-setup", time.Minute, "how long the watchers may take to open their streams and receive game_created")
	fs.DurationVar(&cfg.drain, "drain", 10*time.Second, "after the last move of a window, how long every watcher may take to receive its game's every event before the rest count as lost")
	fs.StringVar(&cfg.profileDir, "profile-dir", "", "start the replicas with --pprof and write a CPU profile of each replica serving watchers over each window into this directory\n(SETUP-replicaN-rROUND.pprof; read with go tool pprof)")
	fs.BoolVar(&cfg.json, "json", false, "print the results as JSON")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the temporary directory of the replicas' logs after the run")
	if rest, err := fs.ParseArgs(args); err != nil {
		return err
	} else if len(rest) != 0 {
		return cli.Usagef("unexpected argument %q", rest[0])
	}
	switch {
	case cfg.postgresDSN == "":
		return cli.Usagef("--postgres-dsn: required (the database the replicas share)")
	case cfg.replicas < 2:
		return cli.Usagef("--replicas %d: must be 2 or more (one takes the moves, the others serve the watchers)", cfg.replicas)
	case cfg.watchers < cfg.replicas-1:
		return cli.Usagef("--watchers %d: must be at least one per watchers' replica (%d)", cfg.watchers, cfg.replicas-1)
	case cfg.games < 1 || cfg.games > cfg.watchers:
		return cli.Usagef("--games %d: must be 1 to --watchers (%d)", cfg.games, cfg.watchers)
	case cfg.watchersPerConn < 1:
		return cli.Usagef("--watchers-per-conn %d: must be 1 or more", cfg.watchersPerConn)
	case cfg.rounds < 1:
		return cli.Usagef("--rounds %d: must be 1 or more", cfg.rounds)
	case cfg.duration/time.Duration(cfg.rounds) <= 0:
		return cli.Usagef("--duration %v: must be above 0 for each of the %d rounds", cfg.duration, cfg.rounds)
	case cfg.warmup < 0:
		return cli.Usagef("--warmup %v: must be 0 or more", cfg.warmup)
	case cfg.setup <= 0:
		return cli.Usagef("--watch-setup %v: must be above 0", cfg.setup)
	case cfg.drain <= 0:
		return cli.Usagef("--drain %v: must be above 0", cfg.drain)
	}
	if err := checkDSN(cfg.postgresDSN); err != nil {
		return err
	}
	var err error
	if cfg.serverBin, err = findServerBin(cfg.serverBin); err != nil {
		return err
	}
	if cfg.profileDir != "" {
		if err := os.MkdirAll(cfg.profileDir, 0o755); err != nil {
			return cli.Usagef("--profile-dir: %v", err)
		}
	}
	rep, err := benchFanout(context.Background(), cfg, stderr)
	if err != nil {
		return err
	}
	if err := writeReport(stdout, rep, cfg.json); err != nil {
		return err
	}
	if causes := rep.failures(); len(causes) > 0 {
		return fmt.Errorf("fan-out not measured as it must be: %s", strings.Join(causes, "; "))
	}
	return nil
}

// checkDSN connects to the database at dsn once, so that a DSN that does
// not parse (a usage error) or reaches no database fails the run naming
// the flag, before any replica starts. Neither error shows the DSN: it
// can hold the password, which pgx masks only where it can tell which
// part is one.
func checkDSN(dsn string) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		why := "unreadable"
		// pgx's text is "cannot parse `DSN`: why"; keep the why.
		if msg := err.Error(); strings.Contains(msg, "`: ") {
			why = msg[strings.LastIndex(msg, "`: ")+len("`: "):]
		}
		return cli.Usagef("--postgres-dsn: not a PostgreSQL URL or keyword/value string (not shown: it can hold the password): %s", why)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		err = conn.Ping(ctx)
		conn.Close(context.Background())
	}
	if err != nil {
		return fmt.Errorf("--postgres-dsn: cannot reach the database: %w", err)
	}
	return nil
}

// fanoutReport is what damone-bench fanout prints (as JSON with --json).
type fanoutReport struct {
	Server   string         `json:"server"`
	Replicas []string       `json:"replicas"` // gRPC addresses; replica i is Replicas[i]
	PIDs     []int          `json:"pids"`
	Watchers int            `json:"watchers"`
	Games    int            `json:"games"`
	Duration string         `json:"duration_per_setup"`
	Warmup   string         `json:"warmup_per_setup"`
	Rounds   int            `json:"rounds"`
	Drain    string         `json:"drain"`
	Client   string         `json:"client"`
	Setups   []*fanoutSetup `json:"setups"`
	// EventsOverSingle is the replicas' events/s over the single
	// replica's.
	EventsOverSingle float64 `json:"events_per_sec_ratio_to_single,omitempty"`
}

// fanoutSetup is one setup's figures over every round. Servers has every
// replica, the idle ones too, each with its CPU per event delivered.
type fanoutSetup struct {
	Setup          string         `json:"setup"`
	MoverReplicas  []int          `json:"mover_replicas"`
	WatchReplicas  []int          `json:"watcher_replicas"`
	Watch          *watchResult   `json:"watch"`
	Servers        []*watchServer `json:"servers"`
	RoundEventsSec []float64      `json:"events_per_sec_per_round"`
}

func benchFanout(ctx context.Context, cfg fanoutConfig, progress io.Writer) (rep *fanoutReport, err error) {
	dir, err := os.MkdirTemp("", "damone-bench-fanout-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if cfg.keep || err != nil {
			fmt.Fprintf(progress, "damone-bench fanout: the replicas' logs kept in %s\n", dir)
			return
		}
		os.RemoveAll(dir)
	}()
	rep = &fanoutReport{
		Server: cfg.serverBin, Watchers: cfg.watchers, Games: cfg.games, Duration: cfg.duration.String(), Warmup: cfg.warmup.String(),
		Rounds: cfg.rounds, Drain: cfg.drain.String(),
		Client: fmt.Sprintf("%s %s/%s, GOMAXPROCS %d", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0)),
	}
	var srvs []*serverProc
	defer func() {
		for _, s := range srvs {
			s.stop()
		}
	}()
	args := []string{"--store", "postgres", "--postgres-dsn", cfg.postgresDSN}
	if cfg.profileDir != "" {
		args = append(args, "--pprof")
	}
	// One after another: the first applies the migrations.
	for i := range cfg.replicas {
		srv, err := newServerProc(cfg.serverBin, filepath.Join(dir, fmt.Sprintf("replica%d.log", i)), args...)
		if err != nil {
			return nil, err
		}
		srvs = append(srvs, srv)
		if err := srv.start(ctx); err != nil {
			return nil, fmt.Errorf("replica %d: %w", i, err)
		}
		rep.Replicas, rep.PIDs = append(rep.Replicas, srv.grpcAddr), append(rep.PIDs, srv.pid())
		fmt.Fprintf(progress, "damone-bench fanout: replica %d served by pid %d at %s\n", i, srv.pid(), srv.grpcAddr)
	}
	// dead names the first replica that is no longer running.
	dead := func() error {
		for i, s := range srvs {
			if !s.running() {
				return fmt.Errorf("replica %d (pid %d, %s) exited (%v); its log ends:\n%s", i, s.pid(), s.grpcAddr, s.waitErr, s.logTail(20))
			}
		}
		return nil
	}

	all := make([]int, cfg.replicas)
	for i := range all {
		all[i] = i
	}
	setups := []*fanoutSetup{
		{Setup: fanoutReplicas, MoverReplicas: []int{0}, WatchReplicas: all[1:]},
		{Setup: fanoutSingle, MoverReplicas: []int{0}, WatchReplicas: []int{0}},
	}
	warmup, window := cfg.warmup/time.Duration(cfg.rounds), cfg.duration/time.Duration(cfg.rounds)
	for round := 1; round <= cfg.rounds; round++ {
		for _, st := range setups {
			fmt.Fprintf(progress, "damone-bench fanout: round %d/%d: %s: moves on replica 0, %d watchers on %s ...\n",
				round, cfg.rounds, st.Setup, cfg.watchers, replicaList(st.WatchReplicas))
			bc := benchConfig{
				duration: window, warmup: warmup, conns: 1, watchers: cfg.watchers, watchGames: cfg.games,
				watchersPerConn: cfg.watchersPerConn, watchSetup: cfg.setup, watchDrain: cfg.drain,
			}
			if st.Setup == fanoutReplicas {
				bc.grpcAddrs, bc.watchMovers = rep.Replicas, 1
			} else {
				bc.grpcAddrs = rep.Replicas[:1]
			}
			cpu := make([]time.Duration, len(srvs))
			bc.watchWindow = func(d time.Duration) func() error {
				return fanoutWindow(ctx, srvs, st, round, cfg.profileDir, d, cpu)
			}
			wr, err := benchWatch(ctx, bc)
			if derr := dead(); derr != nil {
				return nil, derr
			}
			if err != nil {
				return nil, fmt.Errorf("%s, round %d: %w", st.Setup, round, err)
			}
			st.RoundEventsSec = append(st.RoundEventsSec, wr.EventsPerSec)
			if st.Watch == nil {
				st.Watch = wr
				for i, s := range srvs {
					st.Servers = append(st.Servers, &watchServer{Addr: s.grpcAddr, Role: replicaRole(st, i)})
				}
			} else {
				st.Watch.merge(wr)
			}
			for i, d := range cpu {
				st.Servers[i].cpu += d
			}
		}
	}
	for _, st := range setups {
		st.Watch.summarize()
		for _, s := range st.Servers {
			s.CPUCores = s.cpu.Seconds() / st.Watch.Seconds
			if st.Watch.Events > 0 {
				s.CPUUsPerEvent = us(s.cpu) / float64(st.Watch.Events)
			}
		}
	}
	rep.Setups = setups
	if single := setups[1].Watch.EventsPerSec; single > 0 {
		rep.EventsOverSingle = setups[0].Watch.EventsPerSec / single
	}
	return rep, nil
}

// fanoutWindow starts what is measured over a watch window of length d:
// every replica's CPU time (into cpu, by replica) and, with a profile
// directory, a CPU profile of each replica serving the setup's watchers.
// It returns the function that ends it, called after the window.
func fanoutWindow(ctx context.Context, srvs []*serverProc, st *fanoutSetup, round int, profileDir string, d time.Duration, cpu []time.Duration) func() error {
	var errs []error
	c0 := make([]time.Duration, len(srvs))
	for i, s := range srvs {
		var err error
		if c0[i], err = procCPU(s.pid()); err != nil {
			errs = append(errs, fmt.Errorf("replica %d CPU: %w", i, err))
		}
	}
	var profiles []chan error
	if profileDir != "" {
		for _, i := range st.WatchReplicas {
			done := make(chan error, 1)
			path := filepath.Join(profileDir, fmt.Sprintf("%s-replica%d-r%d.pprof", st.Setup, i, round))
			go func() { done <- saveProfile(ctx, srvs[i].metricsAddr, 0, d, path) }()
			profiles = append(profiles, done)
		}
	}
	return func() error {
		for i, s := range srvs {
			c1, err := procCPU(s.pid())
			if err != nil {
				errs = append(errs, fmt.Errorf("replica %d CPU: %w", i, err))
				continue
			}
			cpu[i] = c1 - c0[i]
		}
		for _, p := range profiles {
			if err := <-p; err != nil {
				errs = append(errs, fmt.Errorf("profile: %w", err))
			}
		}
		return errors.Join(errs...)
	}
}

func replicaRole(st *fanoutSetup, i int) string {
	moves, watch := slices.Contains(st.MoverReplicas, i), slices.Contains(st.WatchReplicas, i)
	switch {
	case moves && watch:
		return "moves and watchers"
	case moves:
		return "moves"
	case watch:
		return "watchers"
	}
	return "idle (listening)"
}

func replicaList(rs []int) string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = fmt.Sprint(r)
	}
	return "replica " + strings.Join(out, ", ")
}

// failures names what makes the run's figures wrong or empty: a setup
// with no event delivered, any event lost or duplicated, any error.
func (rep *fanoutReport) failures() []string {
	var out []string
	for _, st := range rep.Setups {
		w := st.Watch
		if w == nil {
			out = append(out, st.Setup+": not run")
			continue
		}
		if w.Events == 0 {
			out = append(out, fmt.Sprintf("%s: no event delivered in %.2fs (%d moves)", st.Setup, w.Seconds, w.Moves))
		}
		if w.Lost > 0 || w.Duplicated > 0 {
			out = append(out, fmt.Sprintf("%s: %d event(s) lost, %d duplicated", st.Setup, w.Lost, w.Duplicated))
		}
		if w.Errors > 0 {
			out = append(out, fmt.Sprintf("%s: %d error(s), first: %s", st.Setup, w.Errors, w.FirstError))
		}
	}
	return out
}

func (rep *fanoutReport) writeText(w io.Writer) error {
	fmt.Fprintf(w, "damone-bench fanout: %d replicas of %s on one PostgreSQL database; %d watchers on %d games (one mover each); %s per setup in %d interleaved round(s), after %s warm-up; drain %s; client %s\n",
		len(rep.Replicas), rep.Server, rep.Watchers, rep.Games, rep.Duration, rep.Rounds, rep.Warmup, rep.Drain, rep.Client)
	fmt.Fprintln(w, "commit to delivered: from the mover receiving the MakeMove answer (sent once the move is committed) to a watcher receiving move_played, this machine's clock;")
	fmt.Fprintln(w, "  event_time to delivered: from the time the server stamps on the event before writing it (an upper bound)")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "setup\tmoves on\twatchers on\tevents/s\tmoves/s\tcommit→delivered p50\tp99\tevent_time→delivered p50\tp99\tMakeMove p50\tp99\tlost\tduplicated\tcut off\terrors\t")
	for _, st := range rep.Setups {
		r := st.Watch
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t\n", st.Setup, replicaList(st.MoverReplicas), replicaList(st.WatchReplicas),
			r.EventsPerSec, r.MovesPerSec, fmtUs(r.CommitP50us), fmtUs(r.CommitP99us), fmtUs(r.CommitBoundP50us), fmtUs(r.CommitBoundP99us),
			fmtUs(r.MoveP50us), fmtUs(r.MoveP99us), r.Lost, r.Duplicated, r.CutOff, r.Errors)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if rep.EventsOverSingle > 0 {
		fmt.Fprintf(w, "\n%s deliver %.2fx the events/s of the single replica\n", rep.Setups[0].Setup, rep.EventsOverSingle)
	}
	fmt.Fprintln(w, "\nserver CPU (/proc/PID/stat over each window) per event delivered to any watcher:")
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "setup\treplica\tpid\trole\tCPU\tCPU/event\t")
	for _, st := range rep.Setups {
		for i, s := range st.Servers {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%.2f cores\t%s\t\n", st.Setup, i, rep.PIDs[i], s.Role, s.CPUCores, fmtUs(s.CPUUsPerEvent))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, st := range rep.Setups {
		if st.Watch.FirstError != "" {
			fmt.Fprintf(w, "  %s, first error: %s\n", st.Setup, st.Watch.FirstError)
		}
		if st.Watch.CPUError != "" {
			fmt.Fprintf(w, "  %s, CPU not read: %s\n", st.Setup, st.Watch.CPUError)
		}
	}
	return nil
}

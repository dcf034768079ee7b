package main

// damone-bench soak (issue 14, section 5): a real damone serve with the
// embedded store under mixed load, killed with SIGKILL and restarted at
// every interval; no acknowledged game or move may be lost, and the
// server's memory, goroutines, open files and p99 latency may not trend
// upward after the warm-up.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/cli"
)

// The trend tolerances (see trendCheck): a rise over the run above both
// the share of the median and the amount, and steady, fails the soak.
// Memory is judged by RSS less its file-backed part: that part is the
// store's file mapped in (and the binary's text), which tracks the data
// the soak keeps adding, not a leak; it is checked against the store
// file's size instead (fileBackedSlack).
var soakTrendLimits = []struct {
	metric string
	rel    float64
	abs    float64
}{
	{"rss_anon_bytes", 0.25, 8 << 20},
	{"goroutines", 0.25, 25},
	{"open_files", 0.25, 10},
	{"p99_ms", 0.50, 10},
}

// minP99Calls is the fewest calls an interval needs for its p99 to be
// judged across intervals: with fewer, the p99 rests on one or two calls
// (of 121 calls it is the second slowest), a draw of the machine's load
// rather than a statistic, and three such draws often fall on a line.
// With 1,000 calls, 10 lie above it.
const minP99Calls = 1000

// Within one interval (one server process), samples after the first
// quarter: goroutines and open files may not climb either.
var soakInProcessLimits = []struct {
	metric string
	rel    float64
	abs    float64
}{
	{"goroutines", 0.25, 25},
	{"open_files", 0.25, 10},
}

// fileBackedSlack is the file-backed RSS allowed beyond the store file's
// size: the server binary's own mapped text and data.
const fileBackedSlack = 64 << 20

// callTimeout bounds every call of the load; longer than a restart.
const callTimeout = 15 * time.Second

// reconnectGrace: calls that start within this long after the server is
// ready again may still wait for their connection to come back; their
// latency is not the server's, so p99 leaves them out.
const reconnectGrace = time.Second

type soakConfig struct {
	serverBin       string
	store           string
	duration        time.Duration
	killEvery       time.Duration
	sampleEvery     time.Duration
	warmupIntervals int
	movers          int
	moveRate        float64
	watchers        int
	createRate      float64
	analysisRate    float64
	badRate         float64
	seed            uint64
	json, keep      bool
}

func runSoakCommand(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := cli.NewFlags("soak", stdout, `Usage: damone-bench soak [flags]

Runs a real damone serve (embedded store, in a temporary --data-dir) on
free loopback ports under mixed load over gRPC and REST: games created and
played with request ids, watchers joining and leaving, analyses, and bad
requests that must be refused as documented. At the end of every
interval it kills the server (SIGKILL), restarts it on the same data and
ports, and, with the load paused, checks that every acknowledged game and
move is there (GetGame; watchers check every move event as it comes). It
reports per interval the server's resident memory, goroutines, open files
and p99 latency, and fails if any of them trends upward after the
warm-up (docs/BENCHMARKS.md, Soak), if an acknowledged move is lost, or
if a call fails other than by the restarts.`)
	var cfg soakConfig
	fs.StringVar(&cfg.serverBin, "server-bin", "", "the damone binary to run (default: damone next to damone-bench, else on PATH)")
	fs.StringVar(&cfg.store, "store", "embedded", "the server's store: embedded, or memory, which loses every game at a kill (the soak must then fail: a check of the check)")
	fs.DurationVar(&cfg.duration, "duration", 10*time.Minute, "length of the run: intervals of --kill-every, rounded up")
	fs.DurationVar(&cfg.killEvery, "kill-every", time.Minute, "interval: the server is killed and restarted at the end of each")
	fs.DurationVar(&cfg.sampleEvery, "sample-every", time.Second, "how often the server's memory, goroutines and open files are read")
	fs.IntVar(&cfg.warmupIntervals, "warmup-intervals", 1, "first intervals left out of the trend checks")
	fs.IntVar(&cfg.movers, "movers", 8, "games played at once (both sides each, random legal moves, a request id per move)")
	fs.Float64Var(&cfg.moveRate, "move-rate", 100, "moves per second, over all movers (paced)")
	fs.IntVar(&cfg.watchers, "watchers", 12, "watchers at once, each watching a game for 0.5-3 s, then leaving for another")
	fs.Float64Var(&cfg.createRate, "create-rate", 1, "games per second created and left unplayed (on top of the movers')")
	fs.Float64Var(&cfg.analysisRate, "analysis-rate", 1, "AnalyzePosition calls per second (50 ms each)")
	fs.Float64Var(&cfg.badRate, "bad-rate", 20, "bad requests per second, gRPC and REST")
	fs.Uint64Var(&cfg.seed, "seed", 1, "seed of the random choices")
	fs.BoolVar(&cfg.json, "json", false, "print the report as JSON")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the temporary directory (data, server log) even when the soak passes")
	if rest, err := fs.ParseArgs(args); err != nil {
		return err
	} else if len(rest) != 0 {
		return cli.Usagef("unexpected argument %q", rest[0])
	}
	intervals := soakIntervals(cfg.duration, cfg.killEvery)
	switch {
	case cfg.killEvery < 4*cfg.sampleEvery:
		return cli.Usagef("--kill-every %v: must be at least 4 samples (--sample-every %v) long", cfg.killEvery, cfg.sampleEvery)
	case cfg.sampleEvery <= 0:
		return cli.Usagef("--sample-every %v: must be above 0", cfg.sampleEvery)
	case cfg.warmupIntervals < 0:
		return cli.Usagef("--warmup-intervals %d: must be 0 or more", cfg.warmupIntervals)
	case cfg.duration <= 0 || intervals-cfg.warmupIntervals < minTrendPoints:
		return cli.Usagef("--duration %v: %d interval(s) of --kill-every %v; a trend needs %d after the %d of --warmup-intervals",
			cfg.duration, intervals, cfg.killEvery, minTrendPoints, cfg.warmupIntervals)
	case cfg.store != "embedded" && cfg.store != "memory":
		return cli.Usagef("--store %q: want embedded or memory", cfg.store)
	case cfg.movers < 1:
		return cli.Usagef("--movers %d: must be 1 or more", cfg.movers)
	case cfg.moveRate <= 0:
		return cli.Usagef("--move-rate %v: must be above 0", cfg.moveRate)
	case cfg.watchers < 0:
		return cli.Usagef("--watchers %d: must be 0 or more", cfg.watchers)
	case cfg.createRate < 0 || cfg.analysisRate < 0 || cfg.badRate < 0:
		return cli.Usagef("--create-rate, --analysis-rate and --bad-rate: must be 0 or more")
	}
	var err error
	if cfg.serverBin, err = findServerBin(cfg.serverBin); err != nil {
		return err
	}
	rep, err := soak(context.Background(), cfg, stderr)
	if err != nil {
		return err
	}
	if err := writeReport(stdout, rep, cfg.json); err != nil {
		return err
	}
	if len(rep.Failures) > 0 {
		return fmt.Errorf("soak failed: %s", strings.Join(rep.Failures, "; "))
	}
	return nil
}

// soakIntervals is the number of intervals of a run: d in intervals of
// every, rounded up.
func soakIntervals(d, every time.Duration) int {
	if every <= 0 {
		return 0
	}
	return int((d + every - 1) / every)
}

// soakReport is what damone-bench soak prints (as JSON with --json).
type soakReport struct {
	Server          string          `json:"server"`
	Store           string          `json:"store"`
	DataDir         string          `json:"data_dir"`
	KillEvery       string          `json:"kill_every"`
	WarmupIntervals int             `json:"warmup_intervals"`
	Load            string          `json:"load"`
	Intervals       []*soakInterval `json:"intervals"`
	Trends          []trendCheck    `json:"trends"`
	InProcess       []trendCheck    `json:"in_process_trends_rising,omitempty"`
	GamesChecked    int             `json:"games_checked_last"`
	MovesChecked    int             `json:"moves_checked_last"`
	Lost            []string        `json:"lost,omitempty"`
	Unexpected      []string        `json:"unexpected_errors,omitempty"`
	UnexpectedCount int64           `json:"unexpected_error_count"`
	WatchEvents     int64           `json:"watch_events"`
	Analyses        int64           `json:"analyses"`
	BadRequests     int64           `json:"bad_requests"`
	StopError       string          `json:"stop_error,omitempty"`
	Failures        []string        `json:"failures,omitempty"`
}

// soakInterval is one interval: one server process's life under load,
// from ready to killed, then its restart and the check of the data.
type soakInterval struct {
	Index        int       `json:"index"`
	Warmup       bool      `json:"warmup"`
	PID          int       `json:"pid"`
	Seconds      float64   `json:"seconds"`
	Calls        int       `json:"calls"`
	Moves        int       `json:"moves_acknowledged"`
	Expected     int       `json:"errors_of_restart"`
	Unexpected   int       `json:"unexpected_errors"`
	P99ms        float64   `json:"p99_ms"`
	MoveP99ms    float64   `json:"make_move_p99_ms"`
	RSS          float64   `json:"rss_bytes"`
	RSSAnon      float64   `json:"rss_anon_bytes"`
	RSSFile      float64   `json:"rss_file_bytes"`
	StoreBytes   float64   `json:"store_file_bytes"`
	HeapInuse    float64   `json:"heap_inuse_bytes"` // go_memstats_heap_inuse_bytes: to tell the Go heap from the rest of RSS
	Goroutines   float64   `json:"goroutines"`
	OpenFiles    float64   `json:"open_files"`
	Samples      int       `json:"samples"`
	RestartMs    float64   `json:"restart_ms"` // from SIGKILL to ready again
	KillMs       float64   `json:"kill_ms"`    // of which from SIGKILL to the process reaped
	CheckMs      float64   `json:"check_ms"`   // then the check of every acknowledged game and move
	GamesChecked int       `json:"games_checked"`
	MovesChecked int       `json:"moves_checked"`
	samples      []sample  // the process's samples, in order
	begun        time.Time // when its process was ready
	mu           sync.Mutex
	lat, moveLat []time.Duration
}

// sample is one reading of the server process.
type sample struct {
	at                   time.Duration // since the interval began
	rss, anon, file      float64
	heap                 float64
	goroutines, openFile float64
}

// soakRun is the state shared by the load, the sampler and the checks.
type soakRun struct {
	cfg     soakConfig
	srv     *serverProc
	conn    *grpc.ClientConn
	games   damonev1.GameServiceClient
	rules   damonev1.RulesServiceClient
	anal    damonev1.AnalysisServiceClient
	http    *http.Client
	ledger  ledger
	outages outages

	cur atomic.Pointer[soakInterval]
	// pause is held for reading by every call of the load (not by a
	// watch stream once open), and for writing by the check after a
	// restart.
	pause sync.RWMutex

	failMu     sync.Mutex
	unexpected []string
	unexpN     atomic.Int64
	lost       []string

	watchEvents, analyses, bad atomic.Int64
}

func soak(ctx context.Context, cfg soakConfig, progress io.Writer) (rep *soakReport, err error) {
	dir, err := os.MkdirTemp("", "damone-soak-")
	if err != nil {
		return nil, err
	}
	r := &soakRun{cfg: cfg, http: &http.Client{Timeout: callTimeout}}
	r.ledger.games = map[string]*gameLedger{}
	rep = &soakReport{Server: cfg.serverBin, Store: cfg.store, DataDir: filepath.Join(dir, "data"), KillEvery: cfg.killEvery.String(), WarmupIntervals: cfg.warmupIntervals,
		Load: fmt.Sprintf("%d movers at %.0f moves/s in all, %d watchers, %.1f creates/s, %.1f analyses/s, %.0f bad requests/s",
			cfg.movers, cfg.moveRate, cfg.watchers, cfg.createRate, cfg.analysisRate, cfg.badRate)}
	defer func() {
		if cfg.keep || err != nil || (rep != nil && len(rep.Failures) > 0) {
			fmt.Fprintf(progress, "damone-bench soak: data and server log kept in %s\n", dir)
			return
		}
		os.RemoveAll(dir)
	}()
	r.srv, err = newServerProc(cfg.serverBin, filepath.Join(dir, "serve.log"), "--store", cfg.store, "--data-dir", rep.DataDir)
	if err != nil {
		return nil, err
	}
	defer r.srv.kill()
	if err := r.srv.start(ctx); err != nil {
		return nil, err
	}
	r.conn, err = grpc.NewClient("passthrough:///"+r.srv.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		// Reconnect soon after a restart, not after gRPC's default 1 s,
		// 1.6 s, ... backoff.
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: backoff.Config{BaseDelay: 50 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 500 * time.Millisecond},
			MinConnectTimeout: time.Second}),
		grpc.WithDefaultCallOptions(grpc.WaitForReady(true), grpc.MaxCallRecvMsgSize(64<<20)))
	if err != nil {
		return nil, err
	}
	defer r.conn.Close()
	r.games, r.rules, r.anal = damonev1.NewGameServiceClient(r.conn), damonev1.NewRulesServiceClient(r.conn), damonev1.NewAnalysisServiceClient(r.conn)

	n := soakIntervals(cfg.duration, cfg.killEvery)
	fmt.Fprintf(progress, "damone-bench soak: %d intervals of %v, server %s (pid %d) on %s, data in %s\n",
		n, cfg.killEvery, cfg.serverBin, r.srv.pid(), r.srv.grpcAddr, rep.DataDir)
	ivStart := time.Now()
	iv := &soakInterval{Index: 1, Warmup: cfg.warmupIntervals >= 1, PID: r.srv.pid(), begun: ivStart}
	r.cur.Store(iv)

	loadCtx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	r.startLoad(loadCtx, &wg)
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.sampler(loadCtx)
	}()

	for i := 1; i <= n; i++ {
		sleepUntil(ctx, ivStart.Add(cfg.killEvery))
		iv.Seconds = time.Since(ivStart).Seconds()
		// The outage starts before the signal, so every call it breaks
		// is counted as the restart's.
		t0 := r.outages.begin()
		r.srv.kill()
		killed := time.Now()
		if err := r.srv.start(ctx); err != nil {
			stopLoad()
			wg.Wait()
			return nil, fmt.Errorf("restart %d: %w", i, err)
		}
		ready := time.Now()
		// The check runs with the load paused (calls under way finish
		// first), so its GetGame calls, more at every restart, are not
		// in any interval's latency.
		r.pause.Lock()
		iv.GamesChecked, iv.MovesChecked = r.verify(ctx)
		checked := time.Now()
		next := &soakInterval{Index: i + 1, Warmup: i+1 <= cfg.warmupIntervals, PID: r.srv.pid(), begun: checked}
		if i < n {
			r.cur.Store(next)
		}
		r.outages.end(checked)
		r.pause.Unlock()
		iv.KillMs = float64(killed.Sub(t0).Microseconds()) / 1000
		iv.RestartMs = float64(ready.Sub(t0).Microseconds()) / 1000
		iv.CheckMs = float64(checked.Sub(ready).Microseconds()) / 1000
		r.summarize(iv)
		if st, err := os.Stat(filepath.Join(rep.DataDir, "damone.db")); err == nil {
			iv.StoreBytes = float64(st.Size())
		}
		if iv.RSSFile > iv.StoreBytes+fileBackedSlack {
			rep.Failures = append(rep.Failures, fmt.Sprintf("interval %d: file-backed RSS %.1f MiB is more than the store file's %.1f MiB and %d MiB for the binary",
				iv.Index, iv.RSSFile/(1<<20), iv.StoreBytes/(1<<20), fileBackedSlack>>20))
		}
		fmt.Fprintf(progress, "damone-bench soak: interval %d/%d: %d calls, p99 %.1fms, RSS %.1f MiB, %0.f goroutines, %0.f open files; killed in %.0fms, ready again after %.0fms (pid %d); %d games and %d moves checked in %.0fms\n",
			i, n, iv.Calls, iv.P99ms, iv.RSS/(1<<20), iv.Goroutines, iv.OpenFiles, iv.KillMs, iv.RestartMs, r.srv.pid(), iv.GamesChecked, iv.MovesChecked, iv.CheckMs)
		rep.Intervals = append(rep.Intervals, iv)
		iv, ivStart = next, checked
	}
	stopLoad()
	wg.Wait()
	// Everything acknowledged by now, checked on the last restart's
	// process once the load is over.
	rep.GamesChecked, rep.MovesChecked = r.verify(ctx)
	if err := r.srv.stop(); err != nil {
		rep.StopError = err.Error()
		rep.Failures = append(rep.Failures, "the server did not stop cleanly at SIGTERM: "+err.Error())
	}

	r.failMu.Lock()
	rep.Lost, rep.Unexpected = r.lost, r.unexpected
	r.failMu.Unlock()
	rep.UnexpectedCount = r.unexpN.Load()
	rep.WatchEvents, rep.Analyses, rep.BadRequests = r.watchEvents.Load(), r.analyses.Load(), r.bad.Load()
	if len(rep.Lost) > 0 {
		rep.Failures = append(rep.Failures, fmt.Sprintf("%d acknowledged game(s) or move(s) lost", len(rep.Lost)))
	}
	if rep.UnexpectedCount > 0 {
		rep.Failures = append(rep.Failures, fmt.Sprintf("%d call(s) failed other than by a restart", rep.UnexpectedCount))
	}
	// A server that answered nothing cannot show a loss or a trend.
	for _, iv := range rep.Intervals {
		if iv.Moves == 0 || iv.Calls == 0 {
			rep.Failures = append(rep.Failures, fmt.Sprintf("no progress in interval %d: %d calls answered, %d moves acknowledged", iv.Index, iv.Calls, iv.Moves))
		}
	}
	if cfg.watchers > 0 && rep.WatchEvents == 0 {
		rep.Failures = append(rep.Failures, fmt.Sprintf("no progress: %d watchers received 0 events", cfg.watchers))
	}
	rep.Trends, rep.InProcess = judgeSoak(rep.Intervals, cfg.warmupIntervals)
	for _, t := range rep.Trends {
		if t.Rising {
			rep.Failures = append(rep.Failures, fmt.Sprintf("%s trends upward after the warm-up (%s)", t.Metric, fmtTrend(t)))
		}
	}
	for _, t := range rep.InProcess {
		rep.Failures = append(rep.Failures, fmt.Sprintf("%s climbs within one server's life (%s)", t.Metric, fmtTrend(t)))
	}
	return rep, nil
}

// judgeSoak checks the intervals after the warm-up for upward trends:
// across intervals (each metric's value per interval), and within each
// interval's process (goroutines and open files sample by sample); it
// returns every cross-interval check, and the in-process checks that
// found a climb.
func judgeSoak(ivs []*soakInterval, warmup int) (trends, inProcess []trendCheck) {
	var after []*soakInterval
	for _, iv := range ivs {
		if iv.Index > warmup {
			after = append(after, iv)
		}
	}
	if len(after) < minTrendPoints {
		return nil, nil
	}
	series := func(metric string, iv *soakInterval) float64 {
		switch metric {
		case "rss_anon_bytes":
			return iv.RSSAnon
		case "goroutines":
			return iv.Goroutines
		case "open_files":
			return iv.OpenFiles
		case "p99_ms":
			return iv.P99ms
		}
		panic("unknown metric " + metric)
	}
	fewest := after[0].Calls
	for _, iv := range after {
		fewest = min(fewest, iv.Calls)
	}
	for _, l := range soakTrendLimits {
		ys := make([]float64, len(after))
		for i, iv := range after {
			ys[i] = series(l.metric, iv)
		}
		c := checkTrend(l.metric, ys, l.rel, l.abs)
		if l.metric == "p99_ms" && fewest < minP99Calls {
			c.Rising = false
			c.NotJudged = fmt.Sprintf("an interval answered %d calls, fewer than the %d a p99 needs", fewest, minP99Calls)
		}
		trends = append(trends, c)
	}
	for _, iv := range after {
		late := iv.samples[len(iv.samples)/4:]
		if len(late) < minTrendPoints {
			continue
		}
		for _, l := range soakInProcessLimits {
			ys := make([]float64, len(late))
			for i, s := range late {
				if l.metric == "goroutines" {
					ys[i] = s.goroutines
				} else {
					ys[i] = s.openFile
				}
			}
			if c := checkTrend(fmt.Sprintf("%s in interval %d", l.metric, iv.Index), ys, l.rel, l.abs); c.Rising {
				inProcess = append(inProcess, c)
			}
		}
	}
	return trends, inProcess
}

func fmtTrend(t trendCheck) string {
	return fmt.Sprintf("values %s; projected rise %.4g > tolerance %.4g, t %.2f > %.2f", fmtValues(t.Values), t.Rise, t.Tolerance, t.T, t.TCrit)
}

func fmtValues(vs []float64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = fmt.Sprintf("%.4g", v)
	}
	return strings.Join(s, ", ")
}

// summarize fills an interval's figures from its calls and samples: p99
// over its calls, and for the process readings the median of the samples
// in the second half of the interval (the process's state after some
// load, not its start).
func (r *soakRun) summarize(iv *soakInterval) {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	iv.Calls = len(iv.lat)
	iv.P99ms = float64(percentile(sortedCopy(iv.lat), 990)) / float64(time.Millisecond)
	iv.MoveP99ms = float64(percentile(sortedCopy(iv.moveLat), 990)) / float64(time.Millisecond)
	half := time.Duration(iv.Seconds * float64(time.Second) / 2)
	var late []sample
	for _, s := range iv.samples {
		if s.at >= half {
			late = append(late, s)
		}
	}
	iv.Samples = len(late)
	med := func(f func(sample) float64) float64 {
		if len(late) == 0 {
			return 0
		}
		vs := make([]float64, len(late))
		for i, s := range late {
			vs[i] = f(s)
		}
		slices.Sort(vs)
		if len(vs)%2 == 1 {
			return vs[len(vs)/2]
		}
		return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
	}
	iv.RSS = med(func(s sample) float64 { return s.rss })
	iv.RSSAnon = med(func(s sample) float64 { return s.anon })
	iv.RSSFile = med(func(s sample) float64 { return s.file })
	iv.HeapInuse = med(func(s sample) float64 { return s.heap })
	iv.Goroutines = med(func(s sample) float64 { return s.goroutines })
	iv.OpenFiles = med(func(s sample) float64 { return s.openFile })
}

func sortedCopy(d []time.Duration) []time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s
}

// sampler reads the server process every sampleEvery into the current
// interval, skipping restarts.
func (r *soakRun) sampler(ctx context.Context) {
	t := time.NewTicker(r.cfg.sampleEvery)
	defer t.Stop()
	client := &http.Client{Timeout: 5 * time.Second}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		iv := r.cur.Load()
		if r.outages.active() {
			continue
		}
		mem, err1 := readProcMem(iv.PID)
		fds, err2 := openFiles(iv.PID)
		g, err3 := scrapeGauges(ctx, client, r.srv.metricsAddr, "go_goroutines", "go_memstats_heap_inuse_bytes")
		if errors.Join(err1, err2, err3) != nil || r.outages.active() {
			continue // killed meanwhile
		}
		iv.mu.Lock()
		iv.samples = append(iv.samples, sample{at: time.Since(iv.begun), rss: float64(mem.RSS), anon: float64(mem.Anon), file: float64(mem.File),
			heap: g["go_memstats_heap_inuse_bytes"], goroutines: g["go_goroutines"], openFile: float64(fds)})
		iv.mu.Unlock()
	}
}

// outages are the restarts, from just before the kill to ready.
type outages struct {
	mu   sync.Mutex
	list [][2]time.Time // [from, to]; to is zero while under way
}

func (o *outages) begin() time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	t := time.Now()
	o.list = append(o.list, [2]time.Time{t})
	return t
}

func (o *outages) end(t time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.list[len(o.list)-1][1] = t
}

func (o *outages) active() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.list) > 0 && o.list[len(o.list)-1][1].IsZero()
}

// overlaps tells whether a call from t0 to t1 met a restart: it was under
// way at some moment between a kill and reconnectGrace after the ready.
func (o *outages) overlaps(t0, t1 time.Time) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, w := range o.list {
		to := w[1]
		if to.IsZero() {
			to = t1
		}
		if !t0.After(to.Add(reconnectGrace)) && !t1.Before(w[0]) {
			return true
		}
	}
	return false
}

// transient codes are how a restart shows to a call.
func transient(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded:
		return true
	}
	return false
}

// record files one finished unary call of the load: its latency (kind
// "move" also in the moves' p99) unless it met a restart, or its error:
// of the restart if transient and it met one, else unexpected. It
// returns whether the error (if any) is the restart's.
func (r *soakRun) record(kind string, t0, t1 time.Time, err error) (restart bool) {
	iv := r.cur.Load()
	met := r.outages.overlaps(t0, t1)
	if err != nil {
		if met && transient(err) {
			iv.mu.Lock()
			iv.Expected++
			iv.mu.Unlock()
			return true
		}
		r.fail(fmt.Sprintf("%s: %v", kind, err))
		iv.mu.Lock()
		iv.Unexpected++
		iv.mu.Unlock()
		return false
	}
	if met {
		return false
	}
	d := t1.Sub(t0)
	iv.mu.Lock()
	iv.lat = append(iv.lat, d)
	if kind == "move" {
		iv.moveLat = append(iv.moveLat, d)
		iv.Moves++
	}
	iv.mu.Unlock()
	return false
}

// maxListed caps the failures kept word for word.
const maxListed = 20

func (r *soakRun) fail(msg string) {
	r.unexpN.Add(1)
	r.failMu.Lock()
	defer r.failMu.Unlock()
	if len(r.unexpected) < maxListed {
		r.unexpected = append(r.unexpected, msg)
	}
}

func (r *soakRun) lose(msg string) {
	r.failMu.Lock()
	defer r.failMu.Unlock()
	if len(r.lost) < maxListed {
		r.lost = append(r.lost, msg)
	}
}

// lostMoves compares a game's acknowledged moves with the server's: every
// acknowledged move must be there, in order (the server may have more:
// moves under way).
func lostMoves(name string, acked, server []string) error {
	if len(server) < len(acked) {
		return fmt.Errorf("%s: %d moves acknowledged, the server has %d: lost from ply %d (%s)", name, len(acked), len(server), len(server)+1, acked[len(server)])
	}
	for i, m := range acked {
		if server[i] != m {
			return fmt.Errorf("%s: ply %d acknowledged as %s, the server has %s", name, i+1, m, server[i])
		}
	}
	return nil
}

// verify checks every acknowledged game and move against GetGame on the
// server as it is now (its calls are not load: no latency is recorded).
// It returns the games and moves checked.
func (r *soakRun) verify(ctx context.Context) (games, moves int) {
	snap := r.ledger.snapshot()
	names := make(chan string)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				acked := snap[name]
				var g *damonev1.Game
				var err error
				for attempt := 0; attempt < 5; attempt++ {
					cctx, cancel := context.WithTimeout(ctx, callTimeout)
					g, err = r.games.GetGame(cctx, &damonev1.GetGameRequest{Name: name})
					cancel()
					if err == nil || !transient(err) {
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
				switch {
				case status.Code(err) == codes.NotFound:
					r.lose(fmt.Sprintf("%s: acknowledged by CreateGame, not found (%d moves acknowledged)", name, len(acked)))
					continue
				case err != nil:
					r.fail(fmt.Sprintf("check %s: GetGame: %v", name, err))
					continue
				}
				server := make([]string, len(g.GetMoves()))
				for i, m := range g.GetMoves() {
					server[i] = m.GetNotation()
				}
				if err := lostMoves(name, acked, server); err != nil {
					r.lose(err.Error())
				}
				mu.Lock()
				games++
				moves += len(acked)
				mu.Unlock()
			}
		}()
	}
	for name := range snap {
		names <- name
	}
	close(names)
	wg.Wait()
	return games, moves
}

func (rep *soakReport) writeText(w io.Writer) error {
	fmt.Fprintf(w, "damone-bench soak: server %s (%s store), killed (SIGKILL) and restarted every %s, first %d interval(s) warm-up; load: %s\n",
		rep.Server, rep.Store, rep.KillEvery, rep.WarmupIntervals, rep.Load)
	fmt.Fprintln(w, "per interval (from the end of a restart's check to the next kill): p99 of the unary calls that met no restart; RSS (and its anonymous and file parts, /proc/PID/status; the store file's size beside the file part), Go heap in use, goroutines (go_goroutines) and open files (/proc/PID/fd): median of the samples in the interval's second half")
	fmt.Fprintln(w, "after each restart the load pauses while every acknowledged game and move is checked with GetGame")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "interval\tpid\tseconds\tcalls\tmoves\trestart errors\tother errors\tp99\tmove p99\tRSS\tanon\tfile\tstore file\theap\tgoroutines\topen files\trestart\tgames checked\tmoves checked\tcheck\t\t")
	for _, iv := range rep.Intervals {
		note := ""
		if iv.Warmup {
			note = "warm-up"
		}
		fmt.Fprintf(tw, "%d\t%d\t%.1f\t%d\t%d\t%d\t%d\t%.2fms\t%.2fms\t%.1f MiB\t%.1f MiB\t%.1f MiB\t%.1f MiB\t%.1f MiB\t%.0f\t%.0f\t%.0fms\t%d\t%d\t%.0fms\t\t%s\n",
			iv.Index, iv.PID, iv.Seconds, iv.Calls, iv.Moves, iv.Expected, iv.Unexpected, iv.P99ms, iv.MoveP99ms,
			iv.RSS/(1<<20), iv.RSSAnon/(1<<20), iv.RSSFile/(1<<20), iv.StoreBytes/(1<<20), iv.HeapInuse/(1<<20), iv.Goroutines, iv.OpenFiles, iv.RestartMs, iv.GamesChecked, iv.MovesChecked, iv.CheckMs, note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nat the end: %d games and %d acknowledged moves checked; %d watch events checked, %d analyses, %d bad requests refused as documented\n",
		rep.GamesChecked, rep.MovesChecked, rep.WatchEvents, rep.Analyses, rep.BadRequests)
	fmt.Fprintln(w, "\ntrends after the warm-up (rising: projected rise above the tolerance and t above its 95% critical value):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, t := range rep.Trends {
		verdict := "flat"
		switch {
		case t.Rising:
			verdict = "RISING"
		case t.NotJudged != "":
			verdict = "not judged (" + t.NotJudged + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\tprojected rise %.4g\ttolerance %.4g\tt %.2f (critical %.2f)\n", t.Metric, verdict, t.Rise, t.Tolerance, math.Max(-999, math.Min(999, t.T)), t.TCrit)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, t := range rep.InProcess {
		fmt.Fprintf(w, "  RISING %s: %s\n", t.Metric, fmtTrend(t))
	}
	for _, s := range rep.Lost {
		fmt.Fprintf(w, "  LOST %s\n", s)
	}
	for _, s := range rep.Unexpected {
		fmt.Fprintf(w, "  ERROR %s\n", s)
	}
	if len(rep.Failures) == 0 {
		fmt.Fprintln(w, "\nsoak: passed (no acknowledged game or move lost, no unexpected error, no upward trend)")
	} else {
		fmt.Fprintf(w, "\nsoak: FAILED: %s\n", strings.Join(rep.Failures, "; "))
	}
	return nil
}

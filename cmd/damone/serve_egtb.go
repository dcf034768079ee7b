package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/server"
)

// egtbBuildMemLimit bounds the background build's heap (GOMEMLIMIT of its
// process): the ≤ 4 set's largest pair needs well under it.
const egtbBuildMemLimit = "256MiB"

// egtbLockName is the lock file in a default set's directory: the damone
// serve holding it builds the set; any other sharing the directory waits,
// then loads what it built.
const egtbLockName = ".build.lock"

// tableSource is what damone serve serves from: a set once ready, its
// state until then, and its metrics.
type tableSource struct {
	set      atomic.Pointer[egtb.Set]
	loading  atomic.Bool
	progress atomic.Uint64 // float64 bits: fraction of the set's positions built or checked
	done     chan struct{}
	metrics  []prometheus.Collector
}

func newTableSource() *tableSource {
	ts := &tableSource{done: make(chan struct{})}
	ts.loading.Store(true)
	ts.metrics = []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "damone_tablebase_ready",
			Help: "1 when TablebaseService answers from a loaded, checked set of endgame tables; 0 while they load or build, or when none are served.",
		}, func() float64 {
			if ts.set.Load() != nil {
				return 1
			}
			return 0
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "damone_tablebase_build_progress_ratio",
			Help: "Fraction (0..1) of the default endgame tables' positions built or found built in the data directory by the background build; 1 once ready.",
		}, func() float64 { return ts.fraction() }),
	}
	return ts
}

// noTables is the source of a server that serves no tables: its gauges
// read 0, so dashboards and alerts see the series either way.
func noTables() *tableSource {
	ts := newTableSource()
	ts.loading.Store(false)
	close(ts.done)
	return ts
}

func (ts *tableSource) fraction() float64 { return math.Float64frombits(ts.progress.Load()) }

func (ts *tableSource) setFraction(f float64) { ts.progress.Store(math.Float64bits(f)) }

// tables is the view the server probes through.
func (ts *tableSource) tables() server.Tables {
	return func() (*egtb.Set, bool) {
		if s := ts.set.Load(); s != nil {
			return s, false
		}
		return nil, ts.loading.Load()
	}
}

// wait returns once the source has stopped working: ready, failed or
// stopped.
func (ts *tableSource) wait() { <-ts.done }

func (ts *tableSource) serve(s *egtb.Set) {
	ts.set.Store(s)
	ts.setFraction(1)
}

// loadTables opens the prebuilt set in dir, given by --egtb-dir. Its
// manifest is read before the server starts: a directory that is not a
// set is an error here. Its files are read and checked in the background
// (probes answer TABLEBASE_LOADING meanwhile); one that fails its checks
// stops the server through fail, since the operator asked for this set.
func loadTables(dir string, logger *slog.Logger, fail func(error)) (*tableSource, error) {
	if _, err := egtb.ReadManifest(dir); err != nil {
		return nil, fmt.Errorf("--egtb-dir %s: %w", dir, err)
	}
	ts := newTableSource()
	go func() {
		defer close(ts.done)
		defer ts.loading.Store(false)
		start := time.Now()
		s, err := egtb.Open(dir)
		if err != nil {
			logger.Error("endgame tables of --egtb-dir fail their checks; stopping", "dir", dir, "err", err)
			fail(fmt.Errorf("--egtb-dir %s: %w", dir, err))
			return
		}
		ts.serve(s)
		logger.Info("endgame tables loaded", "dir", dir, "pieces", s.Pieces(), "tables", len(s.Manifest.Tables), "took", time.Since(start).Round(time.Millisecond))
	}()
	return ts, nil
}

// defaultTables serves the set of up to pieces pieces kept in dir: loaded
// if it is there and sound, otherwise built there first by a child process
// (`damone egtb build`: one thread, lowest CPU priority, bounded heap),
// which resumes a half-built set and is stopped when ctx ends. Probes
// answer TABLEBASE_LOADING until the set is ready; a set that cannot be
// made is logged and not served.
func defaultTables(ctx context.Context, dir string, pieces int, logger *slog.Logger) *tableSource {
	ts := newTableSource()
	go func() {
		defer close(ts.done)
		defer ts.loading.Store(false)
		s, err := ts.makeDefault(ctx, dir, pieces, logger)
		switch {
		case err == nil:
			ts.serve(s)
		case ctx.Err() != nil:
			logger.Info("endgame tables build stopped at shutdown; it resumes at the next start", "dir", dir)
		default:
			logger.Error("endgame tables not served", "dir", dir, "pieces", pieces, "err", err)
		}
	}()
	return ts
}

func (ts *tableSource) makeDefault(ctx context.Context, dir string, pieces int, logger *slog.Logger) (*egtb.Set, error) {
	start := time.Now()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockDir(ctx, filepath.Join(dir, egtbLockName), func() {
		logger.Info("another damone is building the endgame tables here; waiting for it", "dir", dir)
	})
	if err != nil {
		return nil, err
	}
	defer unlock()
	if man, err := egtb.ReadManifest(dir); err == nil && man.Pieces == pieces {
		s, err := egtb.Open(dir)
		if err == nil {
			logger.Info("endgame tables loaded", "dir", dir, "pieces", pieces, "tables", len(s.Manifest.Tables), "took", time.Since(start).Round(time.Millisecond))
			return s, nil
		}
		logger.Warn("endgame tables in the data directory fail their checks; rebuilding what is unsound", "dir", dir, "err", err)
	}
	logger.Info("building the endgame tables in the background; probes answer TABLEBASE_LOADING until they are ready", "dir", dir, "pieces", pieces)
	if err := ts.runBuild(ctx, dir, pieces, logger); err != nil {
		return nil, err
	}
	s, err := egtb.Open(dir)
	if err != nil {
		return nil, err
	}
	logger.Info("endgame tables built and loaded", "dir", dir, "pieces", pieces, "tables", len(s.Manifest.Tables), "took", time.Since(start).Round(time.Second))
	return s, nil
}

// buildProgress reads the percentage of positions done from a progress
// line of damone egtb build.
var buildProgress = regexp.MustCompile(`\[(\d+)/(\d+) slices\].* ([0-9.]+)% of positions`)

// runBuild runs `damone egtb build` on dir in a child process, so that it
// has its own single thread at the lowest priority and its own heap limit,
// and can be stopped at once at shutdown (its files are written
// atomically, pair by pair, so the next start resumes).
func (ts *tableSource) runBuild(ctx context.Context, dir string, pieces int, logger *slog.Logger) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding the damone binary to build with: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe, "egtb", "build", "--pieces", strconv.Itoa(pieces), "--threads", "1", "--out", dir)
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1", "GOMEMLIMIT="+egtbBuildMemLimit)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 5 * time.Second
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	if err := lowerPriority(cmd.Process.Pid); err != nil {
		logger.Warn("endgame tables build runs at normal priority", "err", err)
	}
	var last string
	lastLog := time.Time{}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		last = line
		m := buildProgress.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if pct, err := strconv.ParseFloat(m[3], 64); err == nil {
			ts.setFraction(min(pct/100, 1))
		}
		if time.Since(lastLog) >= 10*time.Second || m[1] == m[2] {
			lastLog = time.Now()
			logger.Info("building the endgame tables", "dir", dir, "slices_done", m[1], "slices", m[2], "positions_percent", m[3])
		}
	}
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("damone egtb build: %v (last output: %q)", err, last)
	}
	return nil
}

// egtbDefaultDir is where damone serve keeps its default set of up to
// pieces pieces: under the embedded store's data directory, else (memory
// or PostgreSQL store) under the user's cache directory; "" when there is
// none.
func egtbDefaultDir(storeKind, dataDir string, pieces int) (string, error) {
	name := fmt.Sprintf("egtb-%d", pieces)
	if storeKind == "embedded" {
		return filepath.Join(dataDir, name), nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "damone", name), nil
}

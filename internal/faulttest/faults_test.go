//go:build faults

package faulttest

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"golang.org/x/time/rate"
)

// config is one run of the harness.
type config struct {
	store    string // "postgres" (3 replicas) or "embedded" (1)
	kinds    []faultKind
	seconds  int    // at least this long of traffic (every kind is injected at least once anyway)
	bug      string // a planted bug (DAMONE_PLANTED_BUG of a -tags faultinject binary), "" for none
	slots    int    // games played at once
	timed    int    // of which with a clock
	opsPerS  float64
	gap      time.Duration // quiet time between faults
	seed     int64
	noFaults bool
}

// result is what a run found.
type result struct {
	anoms  []anomaly
	dir    string
	report string
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func seed() int64 {
	if v, err := strconv.ParseInt(os.Getenv("DAMONE_FAULTS_SEED"), 10, 64); err == nil {
		return v
	}
	return time.Now().UnixNano() % 1_000_000
}

// onlyKinds is kinds, or those named in DAMONE_FAULTS_KINDS (comma
// separated), to run a few of them alone.
func onlyKinds(t *testing.T, kinds []faultKind) []faultKind {
	names := os.Getenv("DAMONE_FAULTS_KINDS")
	if names == "" {
		return kinds
	}
	var out []faultKind
	for _, n := range strings.Split(names, ",") {
		found := false
		for _, k := range kinds {
			if k.name == n {
				out, found = append(out, k), true
			}
		}
		if !found {
			t.Fatalf("DAMONE_FAULTS_KINDS: no fault kind %q", n)
		}
	}
	return out
}

// TestFaults runs the workload on three replicas on one PostgreSQL while
// every fault kind is injected (DAMONE_FAULTS_KINDS: only those), and
// checks the history.
func TestFaults(t *testing.T) {
	cfg := config{store: "postgres", kinds: onlyKinds(t, pgKinds), seconds: envInt("DAMONE_FAULTS_SECONDS", 0), slots: 7, timed: 1,
		opsPerS: 120, gap: 2 * time.Second, seed: seed(), noFaults: os.Getenv("DAMONE_FAULTS_NONE") != ""}
	res := runHarness(t, cfg)
	t.Log(res.report)
	if len(res.anoms) > 0 {
		t.Fatalf("%d anomalies (seed %d); histories, porcupine's HTML and logs in %s:\n%s", len(res.anoms), cfg.seed, res.dir, describe(res.anoms))
	}
}

// TestFaultsEmbedded is the same on one node on the embedded store:
// kill -9 and SIGSTOP (and lost replies) under the same workload.
func TestFaultsEmbedded(t *testing.T) {
	cfg := config{store: "embedded", kinds: embeddedKinds, seconds: envInt("DAMONE_FAULTS_SECONDS", 0), slots: 5, timed: 1,
		opsPerS: 80, gap: 2 * time.Second, seed: seed()}
	res := runHarness(t, cfg)
	t.Log(res.report)
	if len(res.anoms) > 0 {
		t.Fatalf("%d anomalies (seed %d); histories, porcupine's HTML and logs in %s:\n%s", len(res.anoms), cfg.seed, res.dir, describe(res.anoms))
	}
}

// plantedBugs are the bugs a -tags faultinject server can carry
// (internal/games/planted_faultinject.go) and the fault kinds each run
// uses: the harness must catch every one.
var plantedBugs = []struct {
	name  string
	kinds []string
}{
	{"skip-precondition", nil},
	{"ack-before-commit", []string{"kill9"}},
	{"stale-cache", nil},
	{"replay-current-state", nil},
	{"replay-action-current-state", nil},
}

// TestPlantedBugs runs the harness once per planted bug, and passes only
// if each run finds anomalies; it logs which checks caught which bug.
func TestPlantedBugs(t *testing.T) {
	caught := map[string]string{}
	for _, b := range plantedBugs {
		t.Run(b.name, func(t *testing.T) {
			var kinds []faultKind
			for _, k := range pgKinds {
				for _, n := range b.kinds {
					if k.name == n {
						kinds = append(kinds, k)
					}
				}
			}
			cfg := config{store: "postgres", kinds: kinds, seconds: 15, bug: b.name, slots: 6, opsPerS: 120,
				gap: 3 * time.Second, seed: seed(), noFaults: len(kinds) == 0}
			res := runHarness(t, cfg)
			checks := map[string]int{}
			for _, a := range res.anoms {
				checks[a.Check]++
			}
			var names []string
			for c, n := range checks {
				names = append(names, fmt.Sprintf("%s×%d", c, n))
			}
			sort.Strings(names)
			caught[b.name] = strings.Join(names, " ")
			if len(res.anoms) == 0 {
				t.Fatalf("planted bug %s: the harness found nothing (seed %d)\n%s", b.name, cfg.seed, res.report)
			}
			t.Logf("planted bug %s caught by %s; first: %s", b.name, caught[b.name], describe(res.anoms[:1]))
		})
	}
	for _, b := range plantedBugs {
		t.Logf("%-28s caught by %s", b.name, caught[b.name])
	}
}

func describe(as []anomaly) string {
	var b strings.Builder
	for i, a := range as {
		if i == 30 {
			fmt.Fprintf(&b, "... and %d more\n", len(as)-i)
			break
		}
		fmt.Fprintf(&b, "%s %s: %s\n", a.Check, a.Game, a.What)
	}
	return b.String()
}

func runHarness(t *testing.T, cfg config) result {
	dir := os.Getenv("DAMONE_FAULTS_ARTIFACTS")
	if dir == "" {
		dir = os.TempDir()
	}
	dir, err := os.MkdirTemp(dir, "damone-faults-"+cfg.store+"-")
	if err != nil {
		t.Fatal(err)
	}
	tags := ""
	var env []string
	if cfg.bug != "" {
		tags = "faultinject"
		env = append(env, "DAMONE_PLANTED_BUG="+cfg.bug)
	}
	env = append(env, "GOMAXPROCS=1")
	bin := buildDamone(t, t.TempDir(), tags)

	var reps []*replica
	var db *pg
	switch cfg.store {
	case "postgres":
		db = startPG(t)
		for i := 1; i <= 3; i++ {
			name := fmt.Sprintf("r%d", i)
			px, err := NewProxy("127.0.0.1:" + db.port)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(px.Close)
			dsn := fmt.Sprintf("postgres://postgres@%s/damone_test?sslmode=disable&application_name=damone-%s", px.Addr, name)
			reps = append(reps, newReplica(t, name, bin, dir, env, []string{"--store", "postgres", "--postgres-dsn", dsn}, px))
		}
	case "embedded":
		reps = append(reps, newReplica(t, "r1", bin, dir, env, []string{"--store", "embedded", "--data-dir", t.TempDir()}, nil))
	}
	for _, r := range reps {
		if err := r.start(); err != nil {
			t.Fatalf("%v\n%s", err, r.logTail(20))
		}
	}

	h := newHistory() // times count from here: the traffic's start
	w := &workload{h: h, reps: reps, lim: rate.NewLimiter(rate.Limit(cfg.opsPerS), 20), seed: cfg.seed, replayCh: make(chan replayReq, 64)}
	n := &nemesis{h: h, reps: reps, pg: db, rng: rand.New(rand.NewSource(cfg.seed)), hot: func() *gameRun {
		w.mu.Lock()
		defer w.mu.Unlock()
		for i := len(w.games) - 1; i >= 0; i-- {
			if g := w.games[i]; !g.over.Load() && !g.timed {
				return g
			}
		}
		return nil
	}}
	traffic, stopTraffic := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); w.run(traffic, cfg.slots-cfg.timed, cfg.timed) }()
	start := time.Now()
	if !cfg.noFaults {
		n.run(context.Background(), cfg.kinds, cfg.gap)
	}
	for time.Since(start) < time.Duration(cfg.seconds)*time.Second {
		if !cfg.noFaults && len(cfg.kinds) > 0 && time.Since(start)+20*time.Second < time.Duration(cfg.seconds)*time.Second {
			n.run(context.Background(), cfg.kinds, cfg.gap)
			continue
		}
		time.Sleep(time.Second)
	}
	time.Sleep(5 * time.Second) // quiet traffic after the last fault
	stopTraffic()
	wg.Wait()
	n.wg.Wait()
	trafficTime := time.Since(start)

	// Every replica is up and ready before the final reads.
	for _, r := range reps {
		if err := r.waitReady(30 * time.Second); err != nil {
			t.Fatalf("after the run: %v\n%s", err, r.logTail(20))
		}
	}
	w.mu.Lock()
	gamesRun := append([]*gameRun(nil), w.games...)
	w.mu.Unlock()
	var names []string
	for _, g := range gamesRun {
		names = append(names, g.name)
	}
	c := &checker{h: h, w: w, reps: reps, pg: db, dir: dir}
	c.readFinals(names)
	// Watchers of games still going catch up, then stop.
	deadline := time.Now().Add(20 * time.Second)
	for _, g := range gamesRun {
		f := c.finals[g.name]
		for _, wl := range g.watchers {
			for f != nil && time.Now().Before(deadline) {
				wl.mu.Lock()
				got := int64(len(wl.events))
				wl.mu.Unlock()
				if got >= f.st.Seq {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		g.watchersStop()
		g.wg.Wait()
	}

	recs := h.all()
	h.faults.mu.Lock()
	faults := append([]fault(nil), h.faults.faults...)
	h.faults.mu.Unlock()
	wantKinds := cfg.kinds
	if cfg.noFaults {
		wantKinds = nil
	}
	c.assumptions(recs, wantKinds, faults)
	settled := c.settleSQL(recs)
	c.linearizable(settled, faults, gamesRun)
	c.lostAcks(settled)
	c.duplicates(names)
	c.staleReads(settled)
	c.watchers(gamesRun)
	c.replays()
	c.clocks(gamesRun)
	c.lockedRow(recs, faults)

	rep := report(cfg, recs, faults, c, w, len(names), trafficTime)
	os.WriteFile(filepath.Join(dir, "report.txt"), []byte(rep), 0o644)
	switch {
	case len(c.anoms) > 0 || os.Getenv("DAMONE_FAULTS_KEEP") != "":
		c.keep(settled, faults)
	default:
		os.RemoveAll(dir)
	}
	return result{anoms: c.anoms, dir: dir, report: rep}
}

// report renders the run's figures.
func report(cfg config, recs []*record, faults []fault, c *checker, w *workload, games int, took time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fault run: store %s, seed %d, bug %q, %d games, %d ops in %.0f s (%.0f ops/s)\n",
		cfg.store, cfg.seed, cfg.bug, games, len(recs), took.Seconds(), float64(len(recs))/took.Seconds())
	type key struct{ kind, res string }
	counts := map[key]int{}
	for _, r := range recs {
		res := "ok"
		switch {
		case r.Out.Unknown:
			res = "unknown"
		case r.Out.Code != "":
			res = "refused " + r.Out.Code
		}
		switch r.Settled {
		case "replay":
			res += ", settled by replay"
		case "sql":
			res += ", settled from the stored ids"
		}
		counts[key{r.In.Kind, res}]++
	}
	var keys []key
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].kind != keys[j].kind {
			return keys[i].kind < keys[j].kind
		}
		return keys[i].res < keys[j].res
	})
	b.WriteString("operations (call, result: count):\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "  %-7s %-40s %6d\n", k.kind, k.res, counts[k])
	}
	fmt.Fprintf(&b, "  unknown writes with a request id settled from the stored ids: %d applied, %d never applied\n", c.sqlKept, c.sqlDrops)
	replays := map[string]int{}
	for _, r := range w.replays {
		k := r.req.in.Kind
		if r.req.create != nil {
			k = "create"
		}
		replays[k]++
	}
	fmt.Fprintf(&b, "  creates: %d ok after unknown attempts (settled by replay), %d still unknown (possible orphan games), %d refused\n", w.createRe, w.orphans, w.createKO)
	fmt.Fprintf(&b, "  replays of acknowledged writes through another replica: %d (create %d, move %d, offer %d, answer %d, resign %d); %d not replayed, the queue full\n",
		len(w.replays), replays["create"], replays[kMove], replays[kOffer], replays[kAnswer], replays[kResign], w.replayDropped.Load())
	if c.lockReads > 0 {
		fmt.Fprintf(&b, "  row lock: %d reads of other games while it lasted, p99 %.1f ms\n", c.lockReads, float64(c.lockP99)/1e6)
	}
	b.WriteString("faults (kind, target, start s, length s, calls unknown during it, and in the 3 s after it healed (up to the next fault)):\n")
	for i, f := range faults {
		var during, after int
		healed := f.End + int64(3*time.Second) // or the next fault's start
		if i+1 < len(faults) {
			healed = min(healed, faults[i+1].Start)
		}
		for _, r := range recs {
			switch {
			case !r.Out.Unknown:
			case r.Call >= f.Start && r.Call < f.End:
				during++
			case r.Call >= f.End && r.Call < healed:
				after++
			}
		}
		fmt.Fprintf(&b, "  %-22s %-8s %6.1f %5.1f %5d %5d %s\n", f.Kind, f.Target, float64(f.Start)/1e9, float64(f.End-f.Start)/1e9, during, after, f.Err)
	}
	b.WriteString("latency of calls with a definite answer (phase: n, p50, p99):\n")
	for _, ph := range []string{"before", "during", "after"} {
		var ds []time.Duration
		for _, r := range recs {
			if r.Phase == ph && !r.Out.Unknown && r.Attempts == 1 && r.Settled == "" {
				ds = append(ds, time.Duration(r.Return-r.Call))
			}
		}
		p50, p99 := percentile(ds, 0.50), percentile(ds, 0.99)
		fmt.Fprintf(&b, "  %-7s %6d %8.1f ms %8.1f ms\n", ph, len(ds), float64(p50)/1e6, float64(p99)/1e6)
	}
	var timed int
	for _, g := range w.games {
		if g.timed {
			timed++
		}
	}
	fmt.Fprintf(&b, "timed games (2 s a move; not in the model, checked by C8): %d, %d of them lost on time\n", timed, c.timeouts)
	fmt.Fprintf(&b, "linearizability: %d games ok, %d illegal, %d timed out; slowest check %v\n",
		c.porc[porcupine.Ok], c.porc[porcupine.Illegal], c.porc[porcupine.Unknown], c.slowest.Round(time.Millisecond))
	fmt.Fprintf(&b, "anomalies: %d\n", len(c.anoms))
	return b.String()
}

package main

import (
	"context"
	"encoding/json"
	"math"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

func TestCheckTrend(t *testing.T) {
	tests := []struct {
		name     string
		ys       []float64
		rel, abs float64
		rising   bool
		rise     float64 // the fitted slope times n-1, worked out by hand
	}{
		// On a line of slope 2: rise 2×3 = 6; median (12+14)/2 = 13, so the
		// tolerance is max(0.25×13, 1) = 3.25 < 6; t is infinite.
		{"steady climb", []float64{10, 12, 14, 16}, 0.25, 1, true, 6},
		// The same climb under a tolerance of 10: not material.
		{"climb within tolerance", []float64{10, 12, 14, 16}, 0.25, 10, false, 6},
		// Flat.
		{"flat", []float64{40, 40, 40, 40, 40}, 0.25, 1, false, 0},
		// Falling: slope -5 over 4 steps = -20.
		{"falling", []float64{100, 95, 90, 85, 80}, 0.1, 1, false, -20},
		// One spike at the end: x̄ = 2, ȳ = 28; Sxy = (-2)(-8)+(-1)(-8)+0+1(-8)+2(32) = 80,
		// Sxx = 10, slope 8, rise 32 > tolerance max(0.25×20, 1) = 5; but
		// the residuals are large: t = 1.66 < 2.353 (3 degrees of freedom).
		{"one spike", []float64{20, 20, 20, 20, 60}, 0.25, 1, false, 32},
		// Noise around a clear climb: ys = 10,21,29,41,50, ȳ = 30.2:
		// Sxy = (-2)(-20.2)+(-1)(-9.2)+0+1(10.8)+2(19.8) = 100, slope 10,
		// rise 40 > max(0.25×29, 1); residuals -0.2,0.8,-1.2,0.8,-0.2:
		// SSE 2.8, se = sqrt(2.8/3/10) = 0.306, t = 32.7.
		{"noisy climb", []float64{10, 21, 29, 41, 50}, 0.25, 1, true, 40},
	}
	for _, tt := range tests {
		c := checkTrend(tt.name, tt.ys, tt.rel, tt.abs)
		if c.Rising != tt.rising || math.Abs(c.Rise-tt.rise) > 1e-9 {
			t.Errorf("%s %v: rising %v, rise %v (t %.3f > %.3f, tolerance %v); want rising %v, rise %v",
				tt.name, tt.ys, c.Rising, c.Rise, c.T, c.TCrit, c.Tolerance, tt.rising, tt.rise)
		}
	}
	// The spike's t, by hand: SSE = Σ(y - (28 + 8(x-2)))² over residuals
	// 8, 0, -8, -16, 16 = 64+0+64+256+256 = 640; se = sqrt(640/3/10) =
	// 4.619; t = 8/4.619 = 1.732.
	if c := checkTrend("spike", []float64{20, 20, 20, 20, 60}, 0.25, 1); math.Abs(c.T-1.732) > 0.001 || c.TCrit != 2.353 {
		t.Errorf("spike: t %.4f (critical %.3f), want 1.732 (critical 2.353)", c.T, c.TCrit)
	}
}

// Every acknowledged move must be on the server, in order; the server may
// have more.
func TestLostMoves(t *testing.T) {
	acked := []string{"e2-d3", "d7-c6", "f3-e4"}
	for _, ok := range [][]string{acked, append(acked[:3:3], "c6-b5")} {
		if err := lostMoves("games/g", acked, ok); err != nil {
			t.Errorf("server %v: %v", ok, err)
		}
	}
	for server, want := range map[string]string{
		"e2-d3,d7-c6":       "3 moves acknowledged, the server has 2: lost from ply 3 (f3-e4)",
		"e2-d3,d7-c6,h3-g2": "ply 3 acknowledged as f3-e4, the server has h3-g2",
		"":                  "lost from ply 1 (e2-d3)",
	} {
		moves := strings.Split(server, ",")
		if server == "" {
			moves = nil
		}
		if err := lostMoves("games/g", acked, moves); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("server %v: error %v, want %q", moves, err, want)
		}
	}
}

func TestOutagesOverlap(t *testing.T) {
	base := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	var o outages
	o.list = [][2]time.Time{{at(10_000), at(10_500)}}
	for _, c := range []struct {
		from, to int
		want     bool
	}{
		{0, 9_999, false},       // before the kill
		{9_000, 10_000, true},   // broken by it
		{10_100, 10_200, true},  // inside
		{10_400, 12_000, true},  // started before ready
		{11_400, 11_600, true},  // within the reconnect grace (1 s after ready)
		{11_600, 11_700, false}, // after the grace
	} {
		if got := o.overlaps(at(c.from), at(c.to)); got != c.want {
			t.Errorf("call %d..%d ms: overlaps %v, want %v", c.from, c.to, got, c.want)
		}
	}
	// An outage under way covers every call that reaches it.
	o.list = append(o.list, [2]time.Time{at(20_000)})
	if !o.active() || !o.overlaps(at(19_000), at(25_000)) || o.overlaps(at(18_000), at(19_000)) {
		t.Error("an outage under way: wrong overlaps")
	}
}

func TestParseGauges(t *testing.T) {
	text := `# HELP go_goroutines Number of goroutines that currently exist.
# TYPE go_goroutines gauge
go_goroutines 42
go_goroutines_total_fake{x="1"} 7
process_open_fds 17
`
	got, err := parseGauges(strings.NewReader(text), "go_goroutines", "process_open_fds")
	if err != nil || got["go_goroutines"] != 42 || got["process_open_fds"] != 17 {
		t.Errorf("parseGauges = %v, %v; want 42 and 17", got, err)
	}
	if _, err := parseGauges(strings.NewReader(text), "process_resident_memory_bytes"); err == nil {
		t.Error("a missing metric passed")
	}
}

func TestReadProcMem(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	m, err := readProcMem(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// A Go test binary is resident for a few MiB at least, mostly anonymous
	// memory; VmRSS is the sum of its anonymous, file and shared parts.
	if m.RSS < 1<<20 || m.Anon <= 0 || m.File <= 0 || m.Anon+m.File > m.RSS {
		t.Errorf("readProcMem = %+v", m)
	}
	if n, err := openFiles(os.Getpid()); err != nil || n < 3 {
		t.Errorf("openFiles = %d, %v; want stdin, stdout, stderr at least", n, err)
	}
}

// judgeSoak leaves the warm-up out, judges every metric across the
// intervals, and flags goroutines that climb within one process.
func TestJudgeSoak(t *testing.T) {
	mk := func(i int, goroutines float64) *soakInterval {
		return &soakInterval{Index: i, RSS: 100 << 20, RSSAnon: 80 << 20, Goroutines: goroutines, OpenFiles: 16, P99ms: 20}
	}
	// The warm-up's 10 goroutines would make 10, 40, 40, 40 a climb.
	ivs := []*soakInterval{mk(1, 10), mk(2, 40), mk(3, 40), mk(4, 40)}
	trends, in := judgeSoak(ivs, 1)
	if len(trends) != len(soakTrendLimits) || len(in) != 0 {
		t.Fatalf("%d trends, %d in-process; want %d and 0", len(trends), len(in), len(soakTrendLimits))
	}
	for _, c := range trends {
		if c.Rising || len(c.Values) != 3 {
			t.Errorf("%s: rising %v over %v", c.Metric, c.Rising, c.Values)
		}
	}
	// 40, 80, 120 goroutines: a leak across restarts.
	ivs = []*soakInterval{mk(1, 10), mk(2, 40), mk(3, 80), mk(4, 120)}
	trends, _ = judgeSoak(ivs, 1)
	for _, c := range trends {
		if (c.Metric == "goroutines") != c.Rising {
			t.Errorf("%s: rising %v over %v", c.Metric, c.Rising, c.Values)
		}
	}
	// Within one process: 30 goroutines, then 10 more each second after
	// the first quarter of the samples.
	for i := range 12 {
		g := 30.0
		if i >= 3 {
			g += float64(10 * (i - 2))
		}
		ivs[2].samples = append(ivs[2].samples, sample{at: time.Duration(i) * time.Second, goroutines: g, openFile: 16})
	}
	_, in = judgeSoak(ivs, 1)
	if len(in) != 1 || in[0].Metric != "goroutines in interval 3" {
		t.Errorf("in-process climbs %+v, want goroutines in interval 3", in)
	}
	// p99 climbing 20, 40, 60 ms is a trend when each interval's p99
	// rests on enough calls, and is left unjudged when it does not.
	for _, c := range []struct {
		calls  int
		rising bool
	}{{minP99Calls, true}, {121, false}} {
		ivs := []*soakInterval{mk(1, 40), mk(2, 40), mk(3, 40), mk(4, 40)}
		for i, iv := range ivs {
			iv.Calls, iv.P99ms = c.calls, float64(20*i)
		}
		trends, _ := judgeSoak(ivs, 1)
		for _, tr := range trends {
			if tr.Metric == "p99_ms" && (tr.Rising != c.rising || (tr.NotJudged == "") != c.rising) {
				t.Errorf("%d calls per interval: p99 %v rising %v, not judged %q; want rising %v", c.calls, tr.Values, tr.Rising, tr.NotJudged, c.rising)
			}
		}
	}
	// Too few intervals after the warm-up: nothing judged.
	if trends, _ := judgeSoak(ivs[:3], 1); trends != nil {
		t.Errorf("2 intervals after the warm-up judged: %+v", trends)
	}
}

// lossyGames is a GameService that answers GetGame from a fixed table.
type lossyGames struct {
	damonev1.UnimplementedGameServiceServer
	moves map[string][]string
}

func (g *lossyGames) GetGame(_ context.Context, req *damonev1.GetGameRequest) (*damonev1.Game, error) {
	ms, ok := g.moves[req.GetName()]
	if !ok {
		return nil, status.Error(codes.NotFound, "no such game")
	}
	out := &damonev1.Game{Name: req.GetName()}
	for _, m := range ms {
		out.Moves = append(out.Moves, &damonev1.Move{Notation: m})
	}
	return out, nil
}

// verify reports a lost game and a lost move, and counts what it checked.
func TestVerifyFindsLosses(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	damonev1.RegisterGameServiceServer(srv, &lossyGames{moves: map[string][]string{
		"games/kept":  {"e2-d3", "d7-c6"},
		"games/short": {"e2-d3"},
	}})
	go srv.Serve(lis)
	defer srv.Stop()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := &soakRun{games: damonev1.NewGameServiceClient(conn)}
	r.ledger.games = map[string]*gameLedger{}
	for name, moves := range map[string][]string{
		"games/kept":  {"e2-d3", "d7-c6"},
		"games/short": {"e2-d3", "d7-c6"},
		"games/gone":  nil,
	} {
		r.ledger.created(name, false)
		for i, m := range moves {
			if err := r.ledger.acked(name, i+1, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	games, moves := r.verify(context.Background())
	if games != 2 || moves != 4 {
		t.Errorf("verify checked %d games and %d moves, want 2 and 4 (the lost game is not checked)", games, moves)
	}
	lost := strings.Join(r.lost, "\n")
	for _, want := range []string{"games/short: 2 moves acknowledged, the server has 1", "games/gone: acknowledged by CreateGame, not found"} {
		if !strings.Contains(lost, want) {
			t.Errorf("lost:\n%s\nwant %q", lost, want)
		}
	}
	if len(r.lost) != 2 || r.unexpN.Load() != 0 {
		t.Errorf("%d losses, %d errors; want 2 and 0", len(r.lost), r.unexpN.Load())
	}
	// A move acknowledged out of turn is the load generator's own error.
	if err := r.ledger.acked("games/kept", 4, "a8-b7"); err == nil {
		t.Error("ply 4 acknowledged after 2 moves passed")
	}
}

// Bad settings are refused before anything starts, with the flag named.
func TestSoakAndMovesBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"soak", "--duration", "30s", "--kill-every", "10s"}, "--duration 30s: 3 interval(s) of --kill-every 10s; a trend needs 3 after the 1 of --warmup-intervals"},
		{[]string{"soak", "--kill-every", "3s"}, "--kill-every 3s: must be at least 4 samples"},
		{[]string{"soak", "--move-rate", "0"}, "--move-rate 0: must be above 0"},
		{[]string{"soak", "--store", "postgres"}, `--store "postgres": want embedded or memory`},
		{[]string{"soak", "--server-bin", "/nonexistent/damone"}, "--server-bin: stat /nonexistent/damone"},
		{[]string{"moves", "--stores", "memory,postgres"}, "--stores postgres needs --postgres-dsn"},
		{[]string{"moves", "--stores", "disk"}, `--stores: unknown name "disk"`},
		{[]string{"moves", "--long-plies", "5000,100"}, "--long-plies: 100 after 5000: want ascending plies"},
		{[]string{"moves", "--games", "0"}, "--games 0: must be 1 or more"},
	} {
		out, errOut, code := runCLI(c.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errOut, c.want)
		}
	}
}

// The soak's check can fail: against the memory store, which loses every
// game at a kill, it reports the games lost and fails.
func TestSoakFailsWhenTheStoreForgets(t *testing.T) {
	needServer(t)
	t.Setenv("TMPDIR", t.TempDir()) // the soak keeps its directory when it fails
	out, errOut, code := runCLI("soak", "--server-bin", serverBin, "--store", "memory", "--json",
		"--duration", "8s", "--kill-every", "2s", "--sample-every", "500ms")
	if code != 1 || !strings.Contains(errOut, "soak failed") {
		t.Fatalf("exit %d, stderr %s; want exit 1 and the soak failed", code, errOut)
	}
	var rep soakReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rep.Lost) == 0 || !strings.Contains(strings.Join(rep.Lost, "\n"), "acknowledged by CreateGame, not found") {
		t.Errorf("lost %q, want games not found", rep.Lost)
	}
	if len(rep.Intervals) != 4 || rep.Store != "memory" {
		t.Errorf("%d intervals on %q, want 4 on memory", len(rep.Intervals), rep.Store)
	}
}

package match

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/players"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// Pentanomial [5 10 40 30 15] over 100 pairs, worked out by hand:
// pair scores x = 0, ¼, ½, ¾, 1 with frequencies .05 .10 .40 .30 .15;
// μ = .025 + .2 + .225 + .15 = 0.6;
// σ² = .05·.36 + .10·.1225 + .40·.01 + .30·.0225 + .15·.16 = 0.065;
// half-width 1.959964·√(0.065/100) = 0.0499695, so [0.5500305, 0.6499695];
// Elo(0.6) = -400·log10(2/3) = 70.4365; Elo(0.5500305) = 34.8815;
// Elo(0.6499695) = 107.5148.
func TestStatsHandWorked(t *testing.T) {
	st := ComputeStats(Pentanomial{5, 10, 40, 30, 15})
	checks := []struct {
		name      string
		got, want float64
	}{
		{"score", st.Score, 0.6}, {"variance", st.PairVariance, 0.065},
		{"low", st.ScoreLow, 0.5500305}, {"high", st.ScoreHigh, 0.6499695},
		{"elo", st.Elo, 70.4365}, {"elo low", st.EloLow, 34.8815}, {"elo high", st.EloHigh, 107.5148},
	}
	for _, c := range checks {
		if !near(c.got, c.want, 1e-4) {
			t.Errorf("%s = %.7f, want %.7f", c.name, c.got, c.want)
		}
	}
	if st.Degenerate {
		t.Error("flagged degenerate")
	}
}

// Same sample, H0: 0 Elo, H1: 10 Elo. μ0 = 0.5, μ1 = 1/(1+10^(-10/400))
// = 0.5143872; LLR = 100·0.0143872·(1.2 - 0.5 - 0.5143872)/(2·0.065)
// = 100·0.0143872·0.1856128/0.13 = 2.0542.
func TestLLRHandWorked(t *testing.T) {
	if got := LLR(Pentanomial{5, 10, 40, 30, 15}, 0, 10); !near(got, 2.0542, 1e-3) {
		t.Fatalf("LLR = %.5f, want 2.0542", got)
	}
	// Symmetry: the mirror sample against the mirrored hypotheses.
	if a, b := LLR(Pentanomial{5, 10, 40, 30, 15}, 0, 10), LLR(Pentanomial{15, 30, 40, 10, 5}, 0, -10); !near(a, b, 1e-9) {
		t.Fatalf("mirror LLR %.6f vs %.6f", a, b)
	}
	if !near(SPRTUpper, 2.944439, 1e-6) || !near(SPRTLower, -2.944439, 1e-6) {
		t.Fatalf("bounds %.6f %.6f, want ±ln 19 = ±2.944439", SPRTLower, SPRTUpper)
	}
}

// All 100 pairs won 2-0: the normal interval collapses; the exact bound
// 0.025^(1/100) = 0.9637833 gives Elo -400·log10(1/0.9637833 - 1) = 570.03.
func TestStatsAllWins(t *testing.T) {
	st := ComputeStats(Pentanomial{0, 0, 0, 0, 100})
	if !st.Degenerate || st.Score != 1 || !near(st.ScoreLow, 0.9637833, 1e-6) || !near(st.EloLow, 570.03, 0.01) || !math.IsInf(st.Elo, 1) {
		t.Fatalf("%+v", st)
	}
	// LLR with zero variance: the empty cells get 0.001 each (N = 100.004,
	// μ = 0.999975, σ² = 1.87486e-5); H0 0, H1 200 Elo (μ1 = 0.7597469):
	// LLR = 100.004·0.2597469·(1.99995 - 1.2597469)/(2·1.87486e-5) ≈ 512766.
	if l := LLR(Pentanomial{0, 0, 0, 0, 100}, 0, 200); !near(l/512766.04, 1, 1e-5) {
		t.Fatalf("LLR all wins = %f, want 512766", l)
	}
	if EloOf(0.5) != 0 || !near(ScoreOf(EloOf(0.75)), 0.75, 1e-12) {
		t.Fatal("EloOf/ScoreOf")
	}
}

func TestOpeningsAreSeededAndDistinct(t *testing.T) {
	v := engine.DefaultVariant()
	a, err := Openings(v, 4, 50, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Openings(v, 4, 50, 7)
	c, _ := Openings(v, 4, 50, 8)
	if len(a) != 50 || !reflect.DeepEqual(a, b) || reflect.DeepEqual(a, c) {
		t.Fatalf("len %d, same seed equal %v, other seed equal %v", len(a), reflect.DeepEqual(a, b), reflect.DeepEqual(a, c))
	}
	seen := map[string]bool{}
	for _, o := range a {
		if len(o.Moves) != 4 || seen[o.Position.String()] {
			t.Fatalf("opening %v repeated or short", o.Moves)
		}
		seen[o.Position.String()] = true
	}
	// After one ply from the standard start there are exactly 8 positions
	// (8 legal first moves, RULES.md setup): asking for 20 gives those 8.
	one, _ := Openings(v, 1, 20, 1)
	if len(one) != 8 {
		t.Fatalf("%d one-ply openings, want 8", len(one))
	}
}

func spec(t *testing.T, s string) players.Spec {
	t.Helper()
	sp, err := players.ParseSpec(s)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// A node-limited engine against the random mover: the same seed gives the
// same games whatever the number of workers.
func TestMatchIsReproducible(t *testing.T) {
	cfg := Config{Player1: spec(t, "engine:nodes=3000"), Player2: spec(t, "random"), Pairs: 4, OpeningPlies: 4, Seed: 3}
	cfg.Concurrency = 1
	a, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Concurrency = 3
	b, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Games, b.Games) {
		t.Fatal("the same seed gave different games with 1 and 3 workers")
	}
	if a.Wins+a.Draws+a.Losses != 8 || a.Penta.Pairs() != 4 {
		t.Fatalf("W/D/L %d/%d/%d, pairs %d", a.Wins, a.Draws, a.Losses, a.Penta.Pairs())
	}
	for _, g := range a.Games {
		if g.P1Side != engine.Side(g.Game) || g.Opening != g.Pair {
			t.Fatalf("game %+v: colours or opening wrong", g)
		}
		if !g.Outcome.Over() && !g.Adjudicated {
			t.Fatalf("game %d/%d not finished", g.Pair, g.Game)
		}
	}
	// The two games of a pair start from the same opening.
	if !reflect.DeepEqual(a.Games[0].Moves[:4], a.Games[1].Moves[:4]) {
		t.Fatal("a pair's games start differently")
	}
}

// Pentanomial bookkeeping, worked out on made-up games.
func TestSummarize(t *testing.T) {
	win := engine.Outcome{Result: engine.RedWins, Reason: engine.AllPiecesCaptured}
	draw := engine.Outcome{Result: engine.Draw, Reason: engine.Repetition}
	games := []GameResult{
		{Pair: 0, Game: 0, Points: 1, Outcome: win, Plies: 10}, {Pair: 0, Game: 1, Points: 0.5, Outcome: draw, Plies: 30}, // 1½
		{Pair: 1, Game: 0, Points: 1, Outcome: win, Plies: 10}, {Pair: 1, Game: 1, Points: 1, Outcome: win, Plies: 10}, // 2
		{Pair: 2, Game: 0, Points: 0.5, Adjudicated: true, Plies: 1000}, {Pair: 2, Game: 1, Points: 0, Outcome: win, Plies: 20}, // ½
	}
	r := summarize(Config{}, games, 3)
	if r.Wins != 3 || r.Draws != 2 || r.Losses != 1 || r.Penta != (Pentanomial{0, 1, 0, 1, 1}) ||
		r.Adjudicated != 1 || r.DrawReasons["repetition"] != 1 || r.DrawReasons["max plies"] != 1 {
		t.Fatalf("%+v", r)
	}
	// μ = (¼ + ¾ + 1)/3 = 2/3.
	if !near(r.Stats.Score, 2.0/3, 1e-12) || !near(r.AvgPlies, 1080.0/6, 1e-9) {
		t.Fatalf("score %v plies %v", r.Stats.Score, r.AvgPlies)
	}
}

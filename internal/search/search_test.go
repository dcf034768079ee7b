package search

import (
	"context"
	"math/rand"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/engine"
)

func pos(t *testing.T, text string) engine.Position {
	t.Helper()
	p, err := engine.ParsePosition(text)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func search(t *testing.T, text string, lim Limits) Result {
	t.Helper()
	return NewSearcher(4).Search(context.Background(), pos(t, text), Options{Variant: engine.DefaultVariant()}, lim, nil)
}

// Forced results worked out by hand from RULES.md.
func TestForcedResults(t *testing.T) {
	cases := []struct {
		name, position string
		best           string // the only winning first move ("" = any)
		plies          int    // win in this many plies (negative: loss)
	}{
		// Red Dama d3 takes the last Black piece: win in 1.
		{"last piece captured", "R:RDd3:BPe4:0", "d3xf5", 1},
		// The duplicate loop takes all four Black Pedines: win in 1.
		{"loop takes everything", "R:RDd3:BPe4,Pg4,Pg2,Pe2:0", "", 1},
		// Black to move, its only piece a Pedine on h1 with no move (every
		// direction leaves the board): stalemate, a loss now (RULES.md, End
		// of the game).
		{"stalemated side to move", "B:RDg2:BPh1:0", "", 0},
		// Red Dama e4, Black Pedine b1 (its only move is b1-c2). Only
		// e4-d3 wins in 3 plies: Black must play b1-c2 and d3xb1 takes the
		// last piece; no Red move captures or stalemates at once.
		{"win in three", "R:RDe4:BPb1:0", "e4-d3", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := search(t, c.position, Limits{Depth: 6})
			sc := res.Info.Lines[0].Score
			n, forced := sc.Plies()
			switch {
			case c.plies > 0 && (!forced || sc < 0 || n != c.plies):
				t.Fatalf("score %d (forced %v, %d plies), want a win in %d plies", sc, forced, n, c.plies)
			case c.plies == 0 && (!forced || sc > 0 || n != 0):
				t.Fatalf("score %d, want a loss in 0 plies", sc)
			}
			if c.best != "" && res.Best.String() != c.best {
				t.Fatalf("best %s, want %s", res.Best.String(), c.best)
			}
			if c.plies == 0 && res.HasBest {
				t.Fatal("a best move in a position without legal moves")
			}
		})
	}
}

// A side to move without legal moves has lost, and there is no move to
// report.
func TestNoMoveIsALoss(t *testing.T) {
	p := pos(t, "B:RDd3:BPh1:0")
	if n := len(p.LegalMoves()); n != 0 {
		t.Fatalf("Black has %d moves, want 0 (a Pedine on h1 is stuck)", n)
	}
	res := NewSearcher(1).Search(context.Background(), p, Options{Variant: engine.DefaultVariant()}, Limits{Depth: 3}, nil)
	if res.HasBest || res.Info.Lines[0].Score != -Win {
		t.Fatalf("score %d, best %v; want -Win and no move", res.Info.Lines[0].Score, res.HasBest)
	}
}

// The no-progress limit of the variant makes a position a draw.
func TestNoProgressDrawScoresZero(t *testing.T) {
	v := engine.DefaultVariant()
	// Red is clearly behind, so contempt is off and a draw is 0.
	p := pos(t, "R:RDd3:BMa8,Dc8:80")
	res := NewSearcher(1).Search(context.Background(), p, Options{Variant: v}, Limits{Depth: 4}, nil)
	// The root itself is not scored as over (the game layer decides
	// that); every child has reached the limit, so every line is a draw.
	if sc := res.Info.Lines[0].Score; sc != 0 {
		t.Fatalf("score %d at the no-progress limit, want 0 (draw)", sc)
	}
}

// Every principal variation is a sequence of legal moves, on positions
// reached by seeded random play.
func TestPrincipalVariationsAreLegal(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	s := NewSearcher(8)
	for game := 0; game < 12; game++ {
		p, _ := engine.StartPosition(engine.Setup(1+game%2), engine.Side(game%2))
		for ply := 0; ply < 60; ply++ {
			moves := p.LegalMoves()
			if len(moves) == 0 {
				break
			}
			if ply%7 == 3 {
				res := s.Search(context.Background(), p, Options{Lines: 3, Variant: engine.DefaultVariant()}, Limits{Nodes: 20_000}, nil)
				for _, line := range res.Info.Lines {
					q := p
					for i, m := range line.PV {
						legal := false
						for _, l := range q.LegalMoves() {
							if l == m {
								legal = true
							}
						}
						if !legal {
							t.Fatalf("%s: move %d (%s) of PV %v is not legal", p, i, m, line.PV)
						}
						q.Play(&m)
					}
				}
				if len(res.Info.Lines) != min(3, len(moves)) {
					t.Fatalf("%s: %d lines, want %d", p, len(res.Info.Lines), min(3, len(moves)))
				}
			}
			p.Play(&moves[rng.Intn(len(moves))])
		}
	}
}

// With a node limit on one thread, a search is the same on every run.
func TestNodeLimitIsDeterministic(t *testing.T) {
	p, _ := engine.StartPosition(engine.SetupStandard, engine.Red)
	var first Result
	for run := 0; run < 3; run++ {
		res := NewSearcher(16).Search(context.Background(), p, Options{Lines: 2, Variant: engine.DefaultVariant()}, Limits{Nodes: 300_000}, nil)
		if run == 0 {
			first = res
			continue
		}
		if res.Best != first.Best || res.Info.Depth != first.Info.Depth || res.Info.Nodes != first.Info.Nodes ||
			res.Info.Lines[0].Score != first.Info.Lines[0].Score {
			t.Fatalf("run %d: best %s depth %d nodes %d score %d; run 0: %s %d %d %d", run,
				res.Best, res.Info.Depth, res.Info.Nodes, res.Info.Lines[0].Score,
				first.Best, first.Info.Depth, first.Info.Nodes, first.Info.Lines[0].Score)
		}
	}
	if first.Info.Nodes != 300_000 {
		t.Fatalf("nodes %d, want the limit 300000 exactly", first.Info.Nodes)
	}
}

// An infinite search stops when its context is cancelled.
func TestCancellationStopsTheSearch(t *testing.T) {
	p, _ := engine.StartPosition(engine.SetupStandard, engine.Red)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result)
	go func() {
		done <- NewSearcher(16).Search(ctx, p, Options{Variant: engine.DefaultVariant()}, Limits{}, nil)
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case res := <-done:
		if !res.HasBest {
			t.Fatal("no best move after a cancelled search")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the search did not stop after cancellation")
	}
}

// BenchmarkCancellation measures how long a running search takes to
// return once its context is cancelled (the target is under 10 ms).
func BenchmarkCancellation(b *testing.B) {
	p, _ := engine.StartPosition(engine.SetupStandard, engine.Red)
	s := NewSearcher(16)
	var total time.Duration
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan time.Time)
		go func() {
			s.Search(ctx, p, Options{Variant: engine.DefaultVariant()}, Limits{}, nil)
			done <- time.Now()
		}()
		time.Sleep(20 * time.Millisecond)
		t0 := time.Now()
		cancel()
		total += (<-done).Sub(t0)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs-to-stop")
}

// Node limits are exact. In R:RPa2:BPh7 each side has one legal move
// (Red a2-b3: north-west and south-west leave the board; Black h7-g6:
// south-east and north-east leave it) and no capture is in sight, so with
// no choices there are no null-window searches or re-searches to count:
// iteration 1 visits the root and the quiet leaf after a2-b3 (2 nodes);
// iteration 2 the root, that child and the quiet leaf after h7-g6 (3
// more; the child's table entry from iteration 1 does not exist, since
// leaves are not stored).
//   - Depth 2: 2 + 3 = 5 nodes.
//   - Nodes 2: the second node is where the limit stops the search, so
//     iteration 1 is incomplete: depth 0, 2 nodes reported.
//   - Nodes 3: iteration 1 completes, iteration 2 stops at its root:
//     depth 1, 3 nodes.
//   - Nodes 6: iterations 1 and 2 complete (5), iteration 3 stops at its
//     root: depth 2, 6 nodes.
func TestNodeLimitIsExact(t *testing.T) {
	cases := []struct {
		lim          Limits
		depth, nodes int
	}{
		{Limits{Depth: 2}, 2, 5},
		{Limits{Nodes: 1}, 0, 1},
		{Limits{Nodes: 2}, 0, 2},
		{Limits{Nodes: 3}, 1, 3},
		{Limits{Nodes: 6}, 2, 6},
	}
	for _, c := range cases {
		res := search(t, "R:RPa2:BPh7:0", c.lim)
		if res.Info.Depth != c.depth || res.Info.Nodes != int64(c.nodes) || res.Best.String() != "a2-b3" {
			t.Errorf("%+v: depth %d nodes %d best %s, want depth %d nodes %d and a2-b3",
				c.lim, res.Info.Depth, res.Info.Nodes, res.Best, c.depth, c.nodes)
		}
	}
	// A search stopped by the limit reports exactly the limit, whatever
	// node the limit falls on (a stopped null-window search once triggered
	// a re-search that counted one node more).
	p, _ := engine.StartPosition(engine.SetupStandard, engine.Red)
	s := NewSearcher(1)
	for n := int64(1); n <= 20_000; n += 97 {
		s.Clear()
		res := s.Search(context.Background(), p, Options{Lines: 2, Variant: engine.DefaultVariant()}, Limits{Nodes: n}, nil)
		if res.Info.Nodes != n {
			t.Fatalf("Limits{Nodes: %d}: %d nodes reported", n, res.Info.Nodes)
		}
	}
}

// Contempt (docs/engine.md, Draw awareness). Red's Damone d3 against
// Black's lone Dama a8 at the no-progress limit: no Red move captures (a8
// is far) or blocks b7, Black's only square, so every child is a
// no-progress draw. Red is ahead at the root, so a draw is worth
// -contempt to Red: the score is -contempt, not 0. Where the root side
// is clearly behind (Black to move, Red with a Pedine g2 besides, so that
// Red has the two pieces a win against a lone Dama needs and its lead
// counts whole), a draw is worth 0 to it.
func TestContemptWhenAhead(t *testing.T) {
	res := search(t, "R:RMd3:BDa8:80", Limits{Depth: 4})
	if sc := res.Info.Lines[0].Score; sc != -DefaultContempt {
		t.Fatalf("ahead: score %d, want -DefaultContempt (%d)", sc, -DefaultContempt)
	}
	res = search(t, "B:RMd3,Pg2:BDa8:80", Limits{Depth: 4})
	if sc := res.Info.Lines[0].Score; sc != 0 {
		t.Fatalf("behind: score %d, want 0", sc)
	}
}

// Options.Contempt sets what the draw costs in the same position: every
// Red move from R:RMd3:BDa8 at the limit is a draw (TestContemptWhenAhead),
// so the score is minus the contempt given, and 0 with NoContempt.
func TestContemptOption(t *testing.T) {
	for _, c := range []struct{ contempt, want Score }{{100, -100}, {NoContempt, 0}, {0, -DefaultContempt}} {
		res := NewSearcher(4).Search(context.Background(), pos(t, "R:RMd3:BDa8:80"),
			Options{Variant: engine.DefaultVariant(), Contempt: c.contempt}, Limits{Depth: 4}, nil)
		if sc := res.Info.Lines[0].Score; sc != c.want {
			t.Errorf("contempt %d: score %d, want %d", c.contempt, sc, c.want)
		}
	}
}

// The default contempt grows with the pieces on the board: 25, and 15
// for each beyond 6 (docs/engine.md, Draw awareness). Seven pieces at the
// no-progress limit, none able to capture or promote in a move (Red's
// Pedines on their first rank, Black's far away): every Red move is a
// draw, worth -(25 + 15) to Red, which is ahead; a contempt given is
// taken as it is.
func TestContemptGrowsWithPieces(t *testing.T) {
	for _, c := range []struct{ contempt, want Score }{{0, -40}, {100, -100}} {
		res := NewSearcher(4).Search(context.Background(), pos(t, "R:RMd3,Pb1,Pf1,Ph1:BDa8,Pe8,Pg8:80"),
			Options{Variant: engine.DefaultVariant(), Contempt: c.contempt}, Limits{Depth: 4}, nil)
		if sc := res.Info.Lines[0].Score; sc != c.want {
			t.Errorf("contempt %d: score %d, want %d", c.contempt, sc, c.want)
		}
	}
}

// However large the contempt asked for, a draw (and a tablebase's cursed
// win or blessed loss, one point either side) stays an evaluation: below
// every tablebase win and above every tablebase loss at any ply and DTC
// (DTC < 128, egtb.MaxLimit), and never a forced result. 28999 is one
// below WinThreshold, the most damone match used to accept.
func TestContemptStaysBelowTablebaseResults(t *testing.T) {
	for _, c := range []Score{WinThreshold - 1, 1 << 20} {
		s := NewSearcher(1)
		s.Search(context.Background(), pos(t, "R:RMd3:BDa8:80"), Options{Variant: engine.DefaultVariant(), Contempt: c}, Limits{Depth: 1}, nil)
		if s.drawScore[0] >= 0 {
			t.Fatalf("contempt %d: draw score %d at the root, want below 0", c, s.drawScore[0])
		}
		for ply := 0; ply < maxPly; ply++ {
			lowestWin, highestLoss := s.tbScore(ply, egtb.Win, 127), s.tbScore(ply, egtb.Loss, 127)
			for _, cat := range []egtb.Category{egtb.CursedWin, egtb.Draw, egtb.BlessedLoss} {
				sc := s.tbScore(ply, cat, 0)
				if sc >= lowestWin || sc <= highestLoss || sc.IsForced() {
					t.Fatalf("contempt %d, ply %d: %v scores %d, want strictly between a tablebase loss (%d) and win (%d)", c, ply, cat, sc, highestLoss, lowestWin)
				}
			}
		}
	}
}

// A timed search spends its whole time: an iteration that completes in
// the second half of the budget is followed by another, stopped at the
// deadline. (The rule this replaced started no iteration after half the
// time, so it returned at that completion, before the deadline.) The
// budget is set from an untimed search's completion times so that one
// falls in its second half; load can move it out, so up to four budgets
// are tried and the test fails if none had a completion there.
func TestTimedSearchSpendsTheTime(t *testing.T) {
	p, _ := engine.StartPosition(engine.SetupStandard, engine.Red)
	opts := Options{Variant: engine.DefaultVariant()}
	var done []time.Duration
	NewSearcher(4).Search(context.Background(), p, opts, Limits{MoveTime: 2 * time.Second}, func(info Info) {
		done = append(done, info.Elapsed)
	})
	tried := 0
	for _, at := range done {
		if at < 60*time.Millisecond {
			continue // too short to place against the scheduler's noise
		}
		if tried++; tried > 4 {
			break
		}
		budget := at * 3 / 2
		var inSecondHalf bool
		res := NewSearcher(4).Search(context.Background(), p, opts, Limits{MoveTime: budget}, func(info Info) {
			inSecondHalf = inSecondHalf || (info.Elapsed > budget/2 && info.Elapsed < budget)
		})
		if !inSecondHalf {
			continue
		}
		if res.Info.Elapsed < budget {
			t.Fatalf("an iteration completed in the second half of a %v budget, and the search returned after %v", budget, res.Info.Elapsed)
		}
		return
	}
	t.Fatalf("no budget had an iteration complete in its second half (untimed completions at %v)", done)
}

// A search stopped during an iteration plays the move that iteration has
// proved better than the previous iteration's best, if one has (Result).
// In the positions of a seeded random game where a search to depth d
// chooses another move than one to depth d-1, node limits between the
// two searches' node counts stop during iteration d: the old search, which
// threw that iteration away, returned depth d-1's move at every one of
// them. Depth d's move is found by the time iteration d ends unless it is
// the last root move searched, so at most limits just short of the end
// should give it in most such positions.
func TestUnfinishedIterationCounts(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	p, _ := engine.StartPosition(engine.SetupStandard, engine.Red)
	opts := Options{Variant: engine.DefaultVariant()}
	changed, found := 0, 0
	for ply := 0; ply < 40 && changed < 12; ply++ {
		moves := p.LegalMoves()
		if len(moves) == 0 {
			break
		}
		for d := 3; d <= 5; d++ {
			prev := NewSearcher(1).Search(context.Background(), p, opts, Limits{Depth: d - 1}, nil)
			full := NewSearcher(1).Search(context.Background(), p, opts, Limits{Depth: d}, nil)
			if full.Info.Depth != d || prev.Best.Equivalent(&full.Best) {
				continue
			}
			changed++
			seen := false
			// A fresh searcher's stopped search is a prefix of the full
			// one, so a move taken from iteration d carries a score the
			// full iteration also proved: never above its best, the best
			// itself when it is the best move, and never falling as the
			// limit (n, walked downwards here) shrinks.
			ceiling := full.BestLine.Score
			for n := full.Info.Nodes - 1; n > prev.Info.Nodes; n -= max(1, (full.Info.Nodes-prev.Info.Nodes)/25) {
				res := NewSearcher(1).Search(context.Background(), p, opts, Limits{Nodes: n}, nil)
				if res.Info.Depth != d-1 {
					t.Fatalf("%s, %d nodes: depth %d completed, want %d", p, n, res.Info.Depth, d-1)
				}
				if !legal(moves, &res.Best) {
					t.Fatalf("%s, %d nodes: best %s is not a legal move", p, n, res.Best)
				}
				switch res.BestDepth {
				case d - 1:
					if !res.Best.Equivalent(&prev.Best) || res.BestLine.Score != prev.BestLine.Score {
						t.Fatalf("%s, %d nodes: best %s (%d) from depth %d, want depth %d's %s (%d)", p, n, res.Best, res.BestLine.Score, d-1, d-1, prev.Best, prev.BestLine.Score)
					}
					ceiling = -infinity // no smaller limit may take a depth-d move
				case d:
					if res.BestLine.Score > ceiling || len(res.BestLine.PV) == 0 || !res.BestLine.PV[0].Equivalent(&res.Best) {
						t.Fatalf("%s, %d nodes: best %s at depth %d scores %d with line %v; want at most %d (the full iteration's best, or a larger limit's)", p, n, res.Best, d, res.BestLine.Score, res.BestLine.PV, ceiling)
					}
					if res.Best.Equivalent(&full.Best) && res.BestLine.Score != full.BestLine.Score {
						t.Fatalf("%s, %d nodes: best %s scores %d; the full depth-%d search scores it %d", p, n, res.Best, res.BestLine.Score, d, full.BestLine.Score)
					}
					ceiling = res.BestLine.Score
				default:
					t.Fatalf("%s, %d nodes: best proved at depth %d, want %d or %d", p, n, res.BestDepth, d-1, d)
				}
				seen = seen || res.Best.Equivalent(&full.Best)
			}
			if seen {
				found++
			}
		}
		p.Play(&moves[rng.Intn(len(moves))])
	}
	t.Logf("%d positions whose best move changes at the last depth, %d of them found it before the iteration ended", changed, found)
	if changed < 5 || 2*found < changed {
		t.Fatalf("%d positions whose best move changes, %d of them given the new move by an unfinished iteration; want at least 5 and half", changed, found)
	}
}

func legal(moves []engine.Move, m *engine.Move) bool {
	for i := range moves {
		if moves[i].Equivalent(m) {
			return true
		}
	}
	return false
}

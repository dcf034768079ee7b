package search

import (
	"context"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

// Stalemate is a win for the side that blocks (RULES.md, End of the
// game). Black's only piece, a Pedine on h5, can move only south-west to
// g4 (south-east and north-east leave the board). Red Dama f3-g4 blocks
// that square, and a Pedine cannot capture a Dama: Black is left without a
// legal move. No Red move captures (h5 is not next to f3), so f3-g4 is
// the only win in one ply.
func TestStalemateWin(t *testing.T) {
	res := search(t, "R:RDf3:BPh5:0", Limits{Depth: 6})
	if sc := res.Info.Lines[0].Score; sc != Win-1 || res.Best.String() != "f3-g4" {
		t.Fatalf("best %s score %d, want f3-g4 with a win in 1 (%d)", res.Best, sc, Win-1)
	}
	after := pos(t, "B:RDg4:BPh5:0")
	if n := len(after.LegalMoves()); n != 0 {
		t.Fatalf("Black has %d moves after f3-g4, want 0", n)
	}
}

// Scores of finished positions at the root: a side with no pieces, or
// with pieces but no move, has lost now (-Win, no best move).
func TestFinishedPositionScores(t *testing.T) {
	for _, text := range []string{"B:RDd3:B:0", "B:RDg4:BPh5:0", "R:R:BMa8:7"} {
		res := search(t, text, Limits{Depth: 4})
		if res.HasBest || len(res.Info.Lines) != 1 || res.Info.Lines[0].Score != -Win {
			t.Fatalf("%s: best %v, lines %v; want no move and score -Win", text, res.HasBest, res.Info.Lines)
		}
	}
}

// Capture all Damones: Red Damone d3 takes the Black Damone e4 (d3xf5).
// Under that win condition it wins at once although Black keeps its
// Pedine a4; under the standard one Black's Pedine plays on, so the
// capture is no win in one.
func TestCaptureAllDamonesWin(t *testing.T) {
	p := pos(t, "R:RMd3:BMe4,Pa4:0")
	v := engine.DefaultVariant()
	v.WinCondition = engine.CaptureAllDamones
	res := NewSearcher(1).Search(context.Background(), p, Options{Variant: v}, Limits{Depth: 4}, nil)
	if sc := res.Info.Lines[0].Score; sc != Win-1 || res.Best.String() != "d3xf5" {
		t.Fatalf("capture-all-damones: best %s score %d, want d3xf5 and %d", res.Best, sc, Win-1)
	}
	res = NewSearcher(1).Search(context.Background(), p, Options{Variant: engine.DefaultVariant()}, Limits{Depth: 4}, nil)
	if sc := res.Info.Lines[0].Score; sc == Win-1 {
		t.Fatal("standard rules: d3xf5 scored as a win in one, but Black keeps a Pedine")
	}
}

// The best move of a time-limited search is legal on positions reached by
// play (the time limit stops it mid-iteration; speed is measured by the
// benchmarks, not here).
func TestTimedSearchReturnsLegalMove(t *testing.T) {
	s := NewSearcher(4)
	p, _ := engine.StartPosition(engine.SetupStandard, engine.Red)
	for ply := 0; ply < 40; ply++ {
		moves := p.LegalMoves()
		if len(moves) == 0 {
			break
		}
		res := s.Search(context.Background(), p, Options{Variant: engine.DefaultVariant()}, Limits{MoveTime: 20 * time.Millisecond}, nil)
		legal := false
		for _, m := range moves {
			legal = legal || m == res.Best
		}
		if !res.HasBest || !legal {
			t.Fatalf("ply %d: best %s not legal in %s", ply, res.Best, p)
		}
		p.Play(&moves[(ply*7)%len(moves)])
	}
}

// BenchmarkDepthInOneSecond searches the standard start for 1 s with a
// fresh (cleared) table and reports the last depth completed.
func BenchmarkDepthInOneSecond(b *testing.B) {
	p, _ := engine.StartPosition(engine.SetupStandard, engine.Red)
	s := NewSearcher(64)
	depth, nodes := 0, int64(0)
	n := 0
	for b.Loop() {
		s.Clear()
		res := s.Search(context.Background(), p, Options{Variant: engine.DefaultVariant()}, Limits{MoveTime: time.Second}, nil)
		depth += res.Info.Depth
		nodes += res.Info.Nodes
		n++
	}
	if depth == 0 {
		b.Fatal("no search completed an iteration")
	}
	b.ReportMetric(float64(depth)/float64(n), "depth")
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// Endings the side ahead cannot win score far below their material lead
// (RULES.md, Captures: an edge piece cannot be captured, so a lone Dama
// shuttles on a2–b1 and only two blockers stalemate it); one with enough
// pieces to stalemate keeps its full value. Worked out by hand:
//   - a lone immune Damone against a Dama and a Pedine: the Dama shuttles
//     on a2–b1, the Pedine promotes and does the same on g8–h7;
//   - two Damones against two Damas on both shuttles: four blockers needed;
//   - two Damones against one Dama: c2 and b3, then the square it left,
//     stalemate it.
func TestFortressEndings(t *testing.T) {
	for _, c := range []struct {
		text     string
		min, max Score
	}{
		{"R:RMd5:BDb1,Pe8:0", -valuePedine, valuePedine},
		{"R:RMc4,Me4:BDb1,Dh7:0", 0, valueDama}, // a lead of 7.5 Pedines
		{"B:RMc4,Me4:BDb1,Dh7:0", -valueDama, 0},
		{"R:RMc4,Me4:BDb1:0", valueDama, Win},
	} {
		p := pos(t, c.text)
		if sc := Evaluate(&p); sc < c.min || sc > c.max {
			t.Errorf("%s: evaluation %d, want %d to %d", c.text, sc, c.min, c.max)
		}
	}
}

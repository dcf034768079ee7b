package search

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/engine"
)

// darkSquares names the 32 playing squares (file + rank odd, a = 1).
func darkSquares() []string {
	var out []string
	for f := 1; f <= 8; f++ {
		for r := 1; r <= 8; r++ {
			if (f+r)%2 == 1 {
				out = append(out, fmt.Sprintf("%c%d", 'a'+f-1, r))
			}
		}
	}
	return out
}

// wonPositions returns up to n Red-to-move positions of Red Damone and
// Dama against a Black Dama that the tables call won at counter 0 with a
// DTC of at least minDTC (beyond the test's search horizon), spread over
// the placements.
func wonPositions(t *testing.T, set *egtb.Set, n, minDTC int) []engine.Position {
	sq := darkSquares()
	var out []engine.Position
	for i := 0; i < len(sq) && len(out) < n; i += 3 {
		for j := 0; j < len(sq) && len(out) < n; j += 5 {
			for k := 0; k < len(sq) && len(out) < n; k += 7 {
				if i == j || j == k || i == k {
					continue
				}
				p, err := engine.ParsePosition(fmt.Sprintf("R:RM%s,D%s:BD%s:0", sq[i], sq[j], sq[k]))
				if err != nil {
					continue // a Dama on its promotion row
				}
				r, err := set.Report(&p, engine.CaptureAllPieces, 80)
				if err != nil {
					t.Fatal(err)
				}
				if r.Answer.Category == egtb.Win && r.Answer.DTC >= minDTC {
					out = append(out, p)
				}
			}
		}
	}
	if len(out) < n {
		t.Fatalf("found %d won positions, want %d", len(out), n)
	}
	return out
}

func withCounter(t *testing.T, p engine.Position, c int) engine.Position {
	q, err := engine.ParsePosition(fmt.Sprintf("%s%d", p.String()[:len(p.String())-1], c))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// From won positions (the tables' verdict, which internal/egtb's tests
// check against an independent search), the engine with the tables plays
// against the tables' best defence: each of its moves keeps the win at
// the new counter, and the game ends with Red winning. Started at counter
// 80 − DTC, only DTC-optimal moves keep the win, so every ply counts. A
// search to depth 3 cannot see the conversion (DTC ≥ 9).
func TestTablebaseKeepsWins(t *testing.T) {
	set := set3(t)
	v := engine.DefaultVariant()
	s := NewSearcher(1)
	for _, p0 := range wonPositions(t, set, 4, 9) {
		r0, _ := set.Report(&p0, v.WinCondition, v.NoProgressLimit)
		for _, start := range []engine.Position{p0, withCounter(t, p0, 80-r0.Answer.DTC)} {
			pos := start
			for ply := 0; ; ply++ {
				if o := v.PositionOutcome(&pos); o.Over() {
					if o.Result != engine.RedWins {
						t.Errorf("from %s: the game ended %v at ply %d, want Red to win", start, o, ply)
					}
					break
				}
				if ply > 200 {
					t.Fatalf("from %s: no end after 200 plies", start)
				}
				var m engine.Move
				if pos.SideToMove() == engine.Red {
					res := s.Search(context.Background(), pos, Options{Variant: v, Tablebase: Tables(set)}, Limits{Depth: 3}, nil)
					if !res.HasBest {
						t.Fatalf("from %s: no move in %s", start, pos)
					}
					m = res.Best
					q := pos.After(&m)
					r, err := set.Report(&q, v.WinCondition, v.NoProgressLimit)
					if err != nil {
						t.Fatal(err)
					}
					if r.Answer.Category != egtb.Loss {
						t.Errorf("from %s: in %s the engine played %s to %v for Black, throwing the win away", start, pos, m, r.Answer.Category)
						break
					}
				} else {
					r, err := set.Report(&pos, v.WinCondition, v.NoProgressLimit)
					if err != nil {
						t.Fatal(err)
					}
					m = r.Moves[0].Move
				}
				pos = pos.After(&m)
			}
		}
	}
}

var (
	tb3Once sync.Once
	tb3     *egtb.Set
	tb3Err  error
	tb3Dir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if tb3Dir != "" {
		os.RemoveAll(tb3Dir)
	}
	os.Exit(code)
}

// set3 builds the ≤ 3-piece set (both win conditions) once.
func set3(t *testing.T) *egtb.Set {
	tb3Once.Do(func() {
		dir, err := os.MkdirTemp("", "damone-search-tb3-")
		if err != nil {
			tb3Err = err
			return
		}
		tb3Dir = dir
		if tb3Err = egtb.Build(dir, egtb.Options{Pieces: 3, Threads: 2}); tb3Err == nil {
			tb3, tb3Err = egtb.Open(dir)
		}
	})
	if tb3Err != nil {
		t.Fatal(tb3Err)
	}
	return tb3
}

// A game's engine move (Pool.BestMove) uses the pool's tables: from
// R:RMa2,Db3:BDf3 at counter 71 (the tables: a win with DTC 9, so only
// DTC-optimal moves keep it; a depth-3 search without them plays a2-b1,
// a blessed loss for Black) the move keeps the win.
func TestPoolBestMoveUsesTables(t *testing.T) {
	set := set3(t)
	pos, err := engine.ParsePosition("R:RMa2,Db3:BDf3:71")
	if err != nil {
		t.Fatal(err)
	}
	v := engine.DefaultVariant()
	if r, _ := set.Report(&pos, v.WinCondition, 80); r.Answer.Category != egtb.Win || r.Answer.DTC != 9 {
		t.Fatalf("tables: %+v, want a win with DTC 9", r.Answer)
	}
	pool := NewPool(1).WithTables(func() Tablebase { return Tables(set) })
	m, ok := pool.BestMove(context.Background(), pos, nil, v, time.Minute, 3)
	if !ok {
		t.Fatal("no move")
	}
	q := pos.After(&m)
	if r, _ := set.Report(&q, v.WinCondition, 80); r.Answer.Category != egtb.Loss {
		t.Errorf("played %s to %v for Black, want a loss", m, r.Answer.Category)
	}
}

// The tables' scores order wins by DTC and put cursed results next to the
// draw score, blessed losses below it.
func TestTablebaseScores(t *testing.T) {
	s := NewSearcher(1)
	s.drawScore = [2]Score{-DefaultContempt, DefaultContempt}
	w3, w5 := s.tbScore(2, egtb.Win, 3), s.tbScore(2, egtb.Win, 5)
	if !(w3 > w5 && w5 > 10000 && !w3.IsForced()) {
		t.Errorf("wins: DTC 3 %d, DTC 5 %d; want the shorter higher, above evaluations, not forced", w3, w5)
	}
	if l := s.tbScore(2, egtb.Loss, 3); l != -w3 {
		t.Errorf("loss in 3: %d, want %d", l, -w3)
	}
	d := s.tbScore(2, egtb.Draw, 0)
	if c, b := s.tbScore(2, egtb.CursedWin, 7), s.tbScore(2, egtb.BlessedLoss, 7); !(c == d+1 && b == d-1) {
		t.Errorf("cursed win %d, blessed loss %d, draw %d: want draw ± 1", c, b, d)
	}
}

// The root drops a move that makes a third repetition when the tables
// call it a win (they ignore the game's history; RULES.md, End of the
// game: the third occurrence is a draw). The game, worked out by hand
// from B:RMb3,Db1:BDc8:0 (Black to move):
//
//  1. c8-b7  2. b1-c2  3. b7-c8  4. b3-a2   B:RMa2,Dc2:BDc8 (X, first time)
//  5. c8-b7  6. c2-b3  7. b7-c8  8. b3-c2   X again
//  9. c8-b7 10. c2-b1 11. b7-c8             R:RMa2,Db1:BDc8:11 (P)
//
// In P the tables give Red exactly two winning moves (DTC 13): b1-c2,
// which makes X a third time (a draw), and a2-b3, which makes the
// starting position a second time (the game goes on). Both lead to a
// position seen before, which the search scores as a draw, so without
// the rule at the root it played the first generated, b1-c2.
func TestRootDropsThirdRepetition(t *testing.T) {
	set := set3(t)
	v := engine.DefaultVariant()
	g, err := engine.ContinueGame(v, nil, pos(t, "B:RMb3,Db1:BDc8:0"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range strings.Fields("c8-b7 b1-c2 b7-c8 b3-a2 c8-b7 c2-b3 b7-c8 b3-c2 c8-b7 c2-b1 b7-c8") {
		if _, err := g.PlayText(m); err != nil || g.Outcome().Over() {
			t.Fatalf("%s: %v, %v", m, err, g.Outcome())
		}
	}
	p := g.Position()
	if p.String() != "R:RMa2,Db1:BDc8:11" {
		t.Fatalf("after the game: %s", p)
	}
	r, err := set.Report(&p, v.WinCondition, v.NoProgressLimit)
	if err != nil {
		t.Fatal(err)
	}
	var wins []string
	for _, m := range r.Moves {
		if m.Answer.Category == egtb.Loss {
			wins = append(wins, m.Move.String())
		}
	}
	slices.Sort(wins)
	if r.Answer.Category != egtb.Win || r.Answer.DTC != 13 || !slices.Equal(wins, []string{"a2-b3", "b1-c2"}) {
		t.Fatalf("tables: %+v, winning moves %v; want a win, DTC 13, by a2-b3 and b1-c2", r.Answer, wins)
	}
	for m, want := range map[string]engine.Outcome{"b1-c2": {Result: engine.Draw, Reason: engine.Repetition}, "a2-b3": {}} {
		h, _ := engine.ContinueGame(v, g.History(), p)
		if _, err := h.PlayText(m); err != nil || h.Outcome() != want {
			t.Fatalf("the rules after %s: %v, %v; want %v", m, err, h.Outcome(), want)
		}
	}
	pool := NewPool(1).WithTables(func() Tablebase { return Tables(set) })
	for _, depth := range []int{1, 3} {
		m, ok := pool.BestMove(context.Background(), p, g.History(), v, time.Minute, depth)
		if !ok || m.String() != "a2-b3" {
			t.Errorf("depth %d: played %s (%v), want a2-b3 (b1-c2 draws by repetition)", depth, m, ok)
		}
	}
}

// A win by the tables converts when it can: in B:RMb7:BDf1,Dg2:0 Black's
// Dama g2 promotes on h1 (RULES.md, Promotion), the tables' DTC 1. The
// distance to the conversion after it must not count against it: scored
// by that distance, every quiet Dama move (the next conversion two plies
// away) looked better, and the engine shuffled its Damas until the game
// was drawn by repetition.
func TestTablebaseWinConverts(t *testing.T) {
	set := set3(t)
	v := engine.DefaultVariant()
	p := pos(t, "B:RMb7:BDf1,Dg2:0")
	if r, _ := set.Report(&p, v.WinCondition, 80); r.Answer.Category != egtb.Win || r.Answer.DTC != 1 {
		t.Fatalf("tables: %+v, want a win with DTC 1", r.Answer)
	}
	pool := NewPool(1).WithTables(func() Tablebase { return Tables(set) })
	if m, ok := pool.BestMove(context.Background(), p, nil, v, time.Minute, 3); !ok || m.String() != "g2-h1" {
		t.Errorf("played %s (%v), want the promotion g2-h1", m, ok)
	}
}

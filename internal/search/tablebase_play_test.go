package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/engine"
)

// playSample is a position drawn from the tables with the side to move's
// category at its counter.
type playSample struct {
	v   engine.Variant
	pos engine.Position
	cat egtb.Category
	dtc int
}

// samplePositions draws positions of every material of the set (both win
// conditions it holds, every size, either side to move), each material
// equally likely and its squares uniform, until it has wins won at
// counter 0 and draws drawn at counter 0. At most half the wins have a DTC
// under 9 (inside a shallow search's horizon). A win with DTC d is given
// the counter 80 − d (only DTC-optimal moves keep it) or, every other one,
// a uniform counter in [0, 80 − d]; a draw a uniform counter in [0, 79].
func samplePositions(t *testing.T, set *egtb.Set, wins, draws int, seed uint64) []playSample {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x706c6179)) // "play"
	sq := darkSquares()
	type mat struct {
		wc engine.WinCondition
		m  egtb.Material
	}
	var mats []mat
	for _, wc := range []engine.WinCondition{engine.CaptureAllPieces, engine.CaptureAllDamones} {
		if set.Has(wc) {
			for _, m := range egtb.Materials(set.Pieces(), wc) {
				mats = append(mats, mat{wc, m})
			}
		}
	}
	var out []playSample
	nWins, nShort, nDraws := 0, 0, 0
	for tries := 0; nWins < wins || nDraws < draws; tries++ {
		if tries > 1000*(wins+draws) {
			t.Fatalf("after %d tries: %d wins, %d draws", tries, nWins, nDraws)
		}
		mt := mats[rng.IntN(len(mats))]
		stm := engine.Side(rng.IntN(2))
		perm := rng.Perm(len(sq))
		var sides [2][]string
		k := 0
		for s := 0; s < 2; s++ {
			for r := engine.Damone; ; r-- {
				for i := 0; i < int(mt.m[s][r]); i++ {
					sides[s] = append(sides[s], string(r.Letter())+sq[perm[k]])
					k++
				}
				if r == engine.Pedine {
					break
				}
			}
		}
		red, black := sides[0], sides[1]
		if stm == engine.Black {
			red, black = black, red
		}
		text := fmt.Sprintf("%s:R%s:B%s:0", [2]string{"R", "B"}[stm], strings.Join(red, ","), strings.Join(black, ","))
		p, err := engine.ParsePosition(text)
		if err != nil {
			continue // a piece on its own promotion square
		}
		v := engine.DefaultVariant()
		v.WinCondition = mt.wc
		if v.PositionOutcome(&p).Over() {
			continue
		}
		r, err := set.Report(&p, v.WinCondition, v.NoProgressLimit)
		if err != nil {
			t.Fatal(err)
		}
		switch a := r.Answer; a.Category {
		case egtb.Win:
			if nWins >= wins || (a.DTC < 9 && nShort >= wins/2) {
				continue
			}
			c := v.NoProgressLimit - a.DTC
			if nWins%2 == 1 {
				c = rng.IntN(c + 1)
			}
			out = append(out, playSample{v, withCounter(t, p, c), egtb.Win, a.DTC})
			nWins++
			if a.DTC < 9 {
				nShort++
			}
		case egtb.Draw:
			if nDraws >= draws {
				continue
			}
			out = append(out, playSample{v, withCounter(t, p, rng.IntN(v.NoProgressLimit)), egtb.Draw, 0})
			nDraws++
		}
	}
	return out
}

// playFromSample plays the game from the sample: the engine (Pool.BestMove
// to depth 3, the game's history given, the tables if tables is set) has
// the side to move, the tables' best defence (Set.Report's first move:
// from a lost position the longest loss, from a drawn one a draw, or the
// win as soon as the engine errs) the other. It returns the outcome.
func playFromSample(t *testing.T, set *egtb.Set, pool *Pool, s playSample) engine.Outcome {
	t.Helper()
	g, err := engine.ContinueGame(s.v, nil, s.pos)
	if err != nil {
		t.Fatal(err)
	}
	us := s.pos.SideToMove()
	for !g.Outcome().Over() {
		if g.Ply() > 2000 {
			t.Fatalf("from %s: no end after 2000 plies", s.pos)
		}
		p := g.Position()
		var m engine.Move
		if p.SideToMove() == us {
			var ok bool
			if m, ok = pool.BestMove(context.Background(), p, g.History(), s.v, time.Minute, 3); !ok {
				t.Fatalf("from %s: no engine move in %s", s.pos, p)
			}
		} else {
			r, err := set.Report(&p, s.v.WinCondition, s.v.NoProgressLimit)
			if err != nil {
				t.Fatal(err)
			}
			m = r.Moves[0].Move
		}
		if err := g.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	return g.Outcome()
}

// playSet is the set the play test uses: DAMONE_EGTB_DIR if set (e.g.
// the ≤ 4 set, `make egtb-play`), else the ≤ 3 set built for the tests.
func playSet(t *testing.T) (*egtb.Set, int, int) {
	if dir := os.Getenv("DAMONE_EGTB_DIR"); dir != "" {
		set, err := egtb.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return set, 500, 200
	}
	return set3(t), 500, 200
}

// From 500 won positions sampled from the tables (every material and
// size, both win conditions, half of them at counter 80 − DTC, where only
// DTC-optimal moves keep the win), the engine with the tables wins every
// game against the tables' best defence within the no-progress rule; from
// 200 drawn positions it never loses. The tables' verdicts are checked
// against an independent search in internal/egtb. The same engine without
// the tables (a control, on the wins at 80 − DTC) must fail some of them,
// or the test would not measure the tables.
func TestTablebasePlay(t *testing.T) {
	set, wins, draws := playSet(t)
	samples := samplePositions(t, set, wins, draws, 1)
	withTB := NewPool(1).WithTables(func() Tablebase { return Tables(set) })
	failed := 0
	for _, s := range samples {
		o := playFromSample(t, set, withTB, s)
		us := s.pos.SideToMove()
		switch {
		case s.cat == egtb.Win && o.Result != engine.WinFor(us):
			failed++
			t.Errorf("%v, won (DTC %d, %v): the game ended %v", s.pos, s.dtc, s.v.WinCondition, o)
		case s.cat == egtb.Draw && o.Result == engine.WinFor(us^1):
			failed++
			t.Errorf("%v, drawn (%v): the engine lost, %v", s.pos, s.v.WinCondition, o)
		}
		if failed >= 10 {
			t.Fatal("stopping after 10 failures")
		}
	}
	noTB := NewPool(1)
	edge, missed := 0, 0
	for _, s := range samples {
		if s.cat != egtb.Win || s.pos.NoProgress()+s.dtc != s.v.NoProgressLimit || s.dtc < 9 {
			continue
		}
		edge++
		if o := playFromSample(t, set, noTB, s); o.Result != engine.WinFor(s.pos.SideToMove()) {
			missed++
		}
	}
	t.Logf("%d wins and %d draws played; without the tables the engine won %d of %d wins at counter 80 − DTC (DTC ≥ 9)",
		wins, draws, edge-missed, edge)
	if missed == 0 {
		t.Errorf("without the tables the engine still won all %d wins at 80 − DTC: the test does not depend on the tables", edge)
	}
}

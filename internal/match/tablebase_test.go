package match

import (
	"context"
	"testing"

	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/players"
)

func set2(t *testing.T) *egtb.Set {
	t.Helper()
	dir := t.TempDir()
	if err := egtb.Build(dir, egtb.Options{Pieces: 2, Win: []engine.WinCondition{engine.CaptureAllPieces}}); err != nil {
		t.Fatal(err)
	}
	set, err := egtb.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func gameAt(t *testing.T, text string, limit int) *engine.Game {
	t.Helper()
	p, err := engine.ParsePosition(text)
	if err != nil {
		t.Fatal(err)
	}
	v := engine.DefaultVariant()
	v.NoProgressLimit = limit
	g, err := engine.ContinueGame(v, nil, p)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Verdicts worked out by hand (RULES.md). R:RDe4:BPb1: Black's Pedine has
// one move, b1-c2 (forward and the other sideways step leave the board),
// and no Red move captures or blocks it at once, so the fastest win is
// e4-d3, b1-c2, d3xb1: the capture, which ends the game, 3 plies away.
// At counter 77 it comes at 80: a win. At 78 the counter reaches 80 after
// b1-c2, a no-progress draw first; with the rule off Red still wins: a
// cursed win. B:RDd3:BPb1 is the position after e4-d3 (a loss in 2).
// For a limit other than 80 and 0 the tables, built for 80, cannot tell.
func TestTablebaseResult(t *testing.T) {
	set := set2(t)
	cases := []struct {
		pos   string
		limit int
		res   engine.Result
		cat   egtb.Category
		ok    bool
	}{
		{"R:RDe4:BPb1:77", 80, engine.RedWins, egtb.Win, true},
		{"R:RDe4:BPb1:78", 80, engine.Draw, egtb.CursedWin, true},
		{"B:RDd3:BPb1:78", 80, engine.RedWins, egtb.Loss, true},
		{"B:RDd3:BPb1:79", 80, engine.Draw, egtb.BlessedLoss, true},
		{"R:RDe4:BPb1:78", 0, engine.RedWins, egtb.Win, true},
		{"R:RDe4:BPb1:0", 40, 0, egtb.Unknown, false},
		{"R:RDe4:BPb1,Pg8:0", 80, 0, egtb.Unknown, false}, // 3 pieces: not in the set
	}
	for _, c := range cases {
		res, cat, ok := tablebaseResult(set, gameAt(t, c.pos, c.limit))
		if res != c.res || cat != c.cat || ok != c.ok {
			t.Errorf("%s, limit %d: %v, %v, %v; want %v, %v, %v", c.pos, c.limit, res, cat, ok, c.res, c.cat, c.ok)
		}
	}
}

// A game is adjudicated at the first position the tables decide: from
// R:RDf5:BPe4,Pb1:0 (3 pieces, outside the ≤ 2 set) Red's only legal move
// is the capture f5xd3 (compulsory; no further leap from d3), which
// leaves B:RDd3:BPb1:0, lost for Black (above). Without adjudication the
// same game is played on.
func TestTablebaseAdjudication(t *testing.T) {
	set := set2(t)
	for _, adjudicate := range []bool{true, false} {
		cfg := Config{MaxPlies: 1000, Tables: set, TablebaseAdjudication: adjudicate}
		p1, p2 := players.NewRandom(), players.NewRandom()
		r := GameResult{P1Side: engine.Red}
		playOn(context.Background(), cfg, gameAt(t, "R:RDf5:BPe4,Pb1:0", 80), p1, p2, &r)
		if !adjudicate {
			if r.Tablebase || !r.Outcome.Over() || r.Outcome.Reason == engine.NoReason {
				t.Errorf("not adjudicating: %+v, want the game played to its end", r)
			}
			continue
		}
		if !r.Tablebase || r.TablebaseCategory != "loss" || r.Outcome != (engine.Outcome{Result: engine.RedWins}) ||
			r.Plies != 1 || len(r.Moves) != 1 || r.Moves[0] != "f5xd3" || r.Points != 1 || r.Final != "B:RDd3:BPb1:0" {
			t.Errorf("%+v, want adjudicated after f5xd3: Red wins (loss for Black), 1 point to player 1", r)
		}
	}
	games := []GameResult{{Pair: 0, Game: 0, Points: 1, Tablebase: true, Outcome: engine.Outcome{Result: engine.RedWins}, Plies: 1},
		{Pair: 0, Game: 1, Points: 0.5, Tablebase: true, Outcome: engine.Outcome{Result: engine.Draw}, Plies: 3}}
	if s := summarize(Config{}, games, 1); s.Tablebase != 2 || s.Wins != 1 || s.Draws != 1 || s.DrawReasons["tablebase"] != 1 {
		t.Errorf("summary %+v", s)
	}
}

// Endgame openings: distinct, reached by legal play from the start, each
// with 6 to 8 pieces, balanced within a Pedine, the game still going; the
// same seed gives the same openings.
func TestEndgameOpenings(t *testing.T) {
	v := engine.DefaultVariant()
	a, err := EndgameOpenings(v, 4, 6, 8, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := EndgameOpenings(v, 4, 6, 8, 5, 1)
	seen := map[string]bool{}
	for i, o := range a {
		g, _ := engine.NewGame(v)
		for _, m := range o.Moves {
			if _, err := g.PlayText(m); err != nil {
				t.Fatalf("opening %d: %s: %v", i, m, err)
			}
		}
		p := g.Position()
		n := p.CountSide(engine.Red) + p.CountSide(engine.Black)
		d := players.Material(&p, engine.Red)
		if p.String() != o.Position.String() || n < 6 || n > 8 || d > 100 || d < -100 || g.Outcome().Over() || seen[p.String()] {
			t.Errorf("opening %d: %s (%d pieces, material %+d, %v)", i, p, n, d, g.Outcome())
		}
		seen[p.String()] = true
		if b[i].Position.String() != p.String() {
			t.Errorf("opening %d differs with the same seed", i)
		}
	}
	if _, err := EndgameOpenings(v, 4, 9, 8, 5, 1); err == nil {
		t.Error("min above max: no error")
	}
}

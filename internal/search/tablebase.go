package search

import (
	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/engine"
)

// Tablebase gives exact values of endgame positions to the search.
type Tablebase interface {
	// Pieces is the most pieces a held position has (a cheap pre-check).
	Pieces() int
	// Probe answers for p at its counter under v for the side to move:
	// the category and a distance to order wins by (the plies to the next
	// conversion or the end; 0 when unknown). ok is false when the tables
	// do not hold p or cannot tell under v's no-progress limit.
	Probe(p *engine.Position, v engine.Variant) (cat egtb.Category, dtc int, ok bool)
}

// Tables adapts a loaded set of tables for the search.
func Tables(s *egtb.Set) Tablebase { return setProber{s} }

type setProber struct{ s *egtb.Set }

func (t setProber) Pieces() int { return t.s.Pieces() }

func (t setProber) Probe(p *engine.Position, v engine.Variant) (egtb.Category, int, bool) {
	val, err := t.s.Probe(p, v.WinCondition)
	if err != nil {
		return egtb.Unknown, 0, false
	}
	a := val.At(p.NoProgress(), v.NoProgressLimit, t.s.Limit())
	if a.Category == egtb.Unknown {
		return egtb.Unknown, 0, false
	}
	d := a.DTC
	if !a.HasDTC && val.Rule != 0 {
		// Limit 0: the distance at the set's limit still measures progress.
		d = val.DTC
	}
	return a.Category, d, true
}

// tbWin is the score of a tablebase win at DTC 0: above every evaluation,
// below the forced results (a DTC counts plies to a conversion, not to
// the end of the game, so it is no "win in N").
const tbWin = WinThreshold - 1 - 2*maxPly - 256

// tbScore is the score of a held position at ply for its side to move:
// wins and losses exact, shorter wins (and longer losses) better; cursed
// wins and blessed losses, draws under the rule, one point either side of
// the draw score.
func (s *Searcher) tbScore(ply int, cat egtb.Category, dtc int) Score {
	switch cat {
	case egtb.Win:
		return tbWin - Score(ply+dtc)
	case egtb.Loss:
		return -(tbWin - Score(ply+dtc))
	case egtb.CursedWin:
		return s.drawScore[ply&1] + 1
	case egtb.BlessedLoss:
		return s.drawScore[ply&1] - 1
	}
	return s.drawScore[ply&1]
}

// moverCategory is the category for the side that played a move whose
// resulting position has category c for the opponent.
func moverCategory(c egtb.Category) egtb.Category {
	switch c {
	case egtb.Win:
		return egtb.Loss
	case egtb.Loss:
		return egtb.Win
	case egtb.CursedWin:
		return egtb.BlessedLoss
	case egtb.BlessedLoss:
		return egtb.CursedWin
	}
	return c
}

// categoryRank orders categories for the side to move, best first.
var categoryRank = [...]int{egtb.Win: 0, egtb.CursedWin: 1, egtb.Draw: 2, egtb.BlessedLoss: 3, egtb.Loss: 4, egtb.Unknown: 5}

func pieceCount(p *engine.Position) int {
	return p.CountSide(engine.Red) + p.CountSide(engine.Black)
}

// rootBest returns the root moves that keep the best category the tables
// give, or all of them when the tables do not answer for every move. A
// move that makes the third occurrence of a position is a draw whatever
// the tables say (they ignore the game's history): so a side winning by
// the tables never repeats a third time, and a losing one takes the draw.
func (s *Searcher) rootBest(root *engine.Position, moves []engine.Move) []engine.Move {
	tb := s.opts.Tablebase
	if tb == nil || pieceCount(root) > tb.Pieces() {
		return moves
	}
	cats := make([]egtb.Category, len(moves))
	best := egtb.Unknown
	for i := range moves {
		q := root.After(&moves[i])
		c, _, ok := tb.Probe(&q, s.opts.Variant)
		switch {
		case s.thirdOccurrence(&q):
			cats[i] = egtb.Draw
		case !ok:
			return moves
		default:
			cats[i] = moverCategory(c)
		}
		if categoryRank[cats[i]] < categoryRank[best] {
			best = cats[i]
		}
	}
	var keep []engine.Move
	for i := range moves {
		if cats[i] == best {
			keep = append(keep, moves[i])
		}
	}
	return keep
}

// thirdOccurrence reports whether q, the position after a root move, ends
// the game by repetition: the third time it stands on the board with the
// same side to move in the game (the root's history, then the root), with
// no win deciding first (RULES.md, End of the game). Only positions since
// the last capture or promotion, and every other one (the side to move
// alternates), can equal it.
func (s *Searcher) thirdOccurrence(q *engine.Position) bool {
	v := &s.opts.Variant
	if !v.RepetitionDraw {
		return false
	}
	if o := v.PositionOutcome(q); o.Over() && o.Result != engine.Draw {
		return false
	}
	h := s.opts.History
	n := 0
	// q would stand at index len(h)+1, after h and the root.
	for i := len(h) - 1; i >= 0 && len(h)+1-i <= q.NoProgress(); i -= 2 {
		if h[i].Hash() == q.Hash() && h[i].SamePlacement(q) {
			n++
		}
	}
	return n >= 2
}

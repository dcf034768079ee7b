package egtb

import (
	"slices"

	"github.com/damone-rules/damone/internal/engine"
)

// MoveAnswer is a legal move with the answer for the position after it,
// for the side then to move.
type MoveAnswer struct {
	Move       engine.Move
	Conversion bool // a capture or a promotion: the counter restarts
	Answer     Answer
	value      Value // the stored value after the move, to order moves
}

// Report is what the tables say of a position at its counter under a
// no-progress limit (0: the rule off).
type Report struct {
	Answer Answer
	// Spare is limit − counter − DTC for an exact win or loss under a
	// limit (the plies the winner may waste); −1 otherwise.
	Spare int
	// Moves are every legal move, best first for the side to move (see
	// Set.Report).
	Moves []MoveAnswer
}

// Report answers for p (at p's counter) under the win condition and the
// no-progress limit, and for each legal move the position after it, best
// first for the side to move: moves to an opponent's loss (the shortest
// win first, so conversions first), to a blessed loss, a draw, an unknown,
// a cursed win, then to an opponent's win (the longest first). Errors:
// ErrNotInTables, or a corrupt entry.
func (s *Set) Report(p *engine.Position, wc engine.WinCondition, limit int) (Report, error) {
	v, err := s.Probe(p, wc)
	if err != nil {
		return Report{}, err
	}
	r := Report{Answer: v.At(p.NoProgress(), limit, s.Limit()), Spare: -1}
	if r.Answer.HasDTC && limit > 0 && (r.Answer.Category == Win || r.Answer.Category == Loss) {
		r.Spare = limit - p.NoProgress() - r.Answer.DTC
	}
	if v.Terminal {
		return r, nil
	}
	moves := p.GenerateMoves(nil)
	r.Moves = make([]MoveAnswer, len(moves))
	for i := range moves {
		q := p.After(&moves[i])
		cv, err := s.Probe(&q, wc)
		if err != nil {
			return Report{}, err
		}
		_, promotes := moves[i].Promotion()
		r.Moves[i] = MoveAnswer{Move: moves[i], Conversion: moves[i].IsCapture() || promotes,
			Answer: cv.At(q.NoProgress(), limit, s.Limit()), value: cv}
	}
	slices.SortStableFunc(r.Moves, func(a, b MoveAnswer) int { return moveKey(a) - moveKey(b) })
	return r, nil
}

// rank orders the categories of the position after a move from the
// mover's side: its opponent's loss first.
var rank = [...]int{Loss: 0, BlessedLoss: 1, Draw: 2, Unknown: 3, CursedWin: 4, Win: 5}

// moveKey is a move's sort key, lower first: the category after it, then
// the DTC (shortest for the opponent's losses, longest for its wins). A
// DTC not exact for the limit (limit 0, cursed results) falls back to the
// stored distance at the set's limit, which still orders wins by progress.
func moveKey(m MoveAnswer) int {
	d := m.Answer.DTC
	if !m.Answer.HasDTC {
		d = 255
		if m.value.Rule != 0 {
			d = m.value.DTC
		}
	}
	k := rank[m.Answer.Category] * 1024
	if m.Answer.Category == Win || m.Answer.Category == CursedWin {
		return k + 512 - d
	}
	return k + d
}

// Mainline returns the optimal line from p under the win condition and
// limit: the first move of each Report in turn, to the end of the game,
// to the no-progress draw, or after maxPlies moves. It returns the
// answer for p, the moves and the position after the last.
func (s *Set) Mainline(p *engine.Position, wc engine.WinCondition, limit, maxPlies int) (Answer, []MoveAnswer, engine.Position, error) {
	cur := *p
	var line []MoveAnswer
	var first Answer
	for ply := 0; ; ply++ {
		r, err := s.Report(&cur, wc, limit)
		if err != nil {
			return Answer{}, nil, cur, err
		}
		if ply == 0 {
			first = r.Answer
		}
		if len(r.Moves) == 0 || (limit > 0 && cur.NoProgress() >= limit) || ply >= maxPlies {
			return first, line, cur, nil
		}
		m := r.Moves[0]
		line = append(line, m)
		cur = cur.After(&m.Move)
	}
}

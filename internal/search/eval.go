package search

import (
	"math/bits"

	"github.com/damone-rules/damone/internal/engine"
)

// Score is an evaluation in hundredths of a Pedine, from the point of view
// of the side to move. Scores beyond ±WinThreshold are forced results:
// Win-n means "wins in n plies", -(Win-n) "loses in n plies".
type Score int32

const (
	// Win is the score of a won position at the root.
	Win Score = 30000
	// WinThreshold separates forced results from evaluations.
	WinThreshold = Win - 1000
	infinity     = Win + 1
)

// IsForced reports whether s is a forced win or loss.
func (s Score) IsForced() bool { return s >= WinThreshold || s <= -WinThreshold }

// Plies returns, for a forced result, in how many plies it comes (and
// whether it is one).
func (s Score) Plies() (int, bool) {
	switch {
	case s >= WinThreshold:
		return int(Win - s), true
	case s <= -WinThreshold:
		return int(Win + s), true
	}
	return 0, false
}

// The evaluation weights, all in hundredths of a Pedine, in one place.
//
//   - Material by rank. A Dama moves and captures in all four directions and
//     can take Damas and Pedines, so it is worth about three Pedines; a
//     Damone can take anything and only a Damone can take it, so it is
//     worth about two Damas.
//   - damoneImmune: a Damone facing no enemy Damone can never be captured
//     (RULES.md, Captures), a lasting advantage material alone misses.
//   - Advancement: a Pedine close to its promotion squares (the enemy
//     Damas' starting squares) is near to becoming a Dama; a Dama close to
//     the enemy Damone's corner near to becoming a Damone. Both are scored
//     per step saved, by distance along the piece's own directions.
//   - Mobility: each available step, since a side short of moves is close
//     to losing by stalemate (which is a loss in this game).
//   - Tempo: the side to move is a little better off.
const (
	valuePedine       = 100
	valueDama         = 300
	valueDamone       = 600
	damoneImmune      = 150
	pedineAdvancement = 6 // per step closer to promotion
	damaAdvancement   = 2 // per step closer to the Damone corner
	mobilityPerStep   = 4
	tempo             = 10
)

// promotionDistance[side][rank][sq] is the number of steps, along the
// piece's own directions on an empty board, from sq to its nearest
// promotion square (RULES.md, Promotion); 0 where it cannot promote.
var promotionDistance [2][2][64]int

func init() {
	for s := engine.Red; s <= engine.Black; s++ {
		for r := engine.Pedine; r <= engine.Dama; r++ {
			dist := bfs(engine.PromotionSquares(s, r), engine.Directions(s, r))
			for sq := range dist {
				if dist[sq] > 0 {
					promotionDistance[s][r][sq] = 8 - min(dist[sq], 8)
				}
			}
		}
	}
}

// bfs returns 1 + the distance of every square to the targets moving only
// along dirs (0 if unreachable); computed backwards from the targets.
func bfs(targets uint64, dirs uint8) [64]int {
	var dist [64]int
	var queue []engine.Square
	for b := targets; b != 0; b &= b - 1 {
		sq := engine.Square(bits.TrailingZeros64(b))
		dist[sq] = 1
		queue = append(queue, sq)
	}
	for len(queue) > 0 {
		sq := queue[0]
		queue = queue[1:]
		for d := engine.Direction(0); d < 4; d++ {
			// A piece reaches sq by moving in d from the square behind it.
			if dirs&(1<<d) == 0 {
				continue
			}
			from := engine.Neighbour(sq, d^3)
			if from != engine.NoSquare && dist[from] == 0 {
				dist[from] = dist[sq] + 1
				queue = append(queue, from)
			}
		}
	}
	return dist
}

// Evaluate scores a position without searching, from the side to move's
// point of view, in hundredths of a Pedine.
func Evaluate(p *engine.Position) Score {
	us := p.SideToMove()
	return sideScore(p, us) - sideScore(p, us^1) + tempo
}

func sideScore(p *engine.Position, s engine.Side) Score {
	pedines := p.Bitboard(s, engine.Pedine)
	damas := p.Bitboard(s, engine.Dama)
	damones := p.Bitboard(s, engine.Damone)
	score := valuePedine*bits.OnesCount64(pedines) + valueDama*bits.OnesCount64(damas) +
		valueDamone*bits.OnesCount64(damones)
	if damones != 0 && p.Bitboard(s^1, engine.Damone) == 0 {
		score += damoneImmune
	}
	for b := pedines; b != 0; b &= b - 1 {
		score += pedineAdvancement * promotionDistance[s][engine.Pedine][bits.TrailingZeros64(b)]
	}
	for b := damas; b != 0; b &= b - 1 {
		score += damaAdvancement * promotionDistance[s][engine.Dama][bits.TrailingZeros64(b)]
	}
	score += mobilityPerStep * p.StepTargets(s)
	return Score(score)
}

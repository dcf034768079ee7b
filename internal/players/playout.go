package players

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

// Playout is a Monte Carlo player in the style of the Dagaz game's
// simplest AI: for every root move it plays many short random games
// (PlayoutPlies plies) from the position after it, scores each by the
// material at its end (or ±playoutWin when a side has run out of moves),
// and plays the root move with the best average. The budget is either
// MoveTime (round after round of one playout per root move until the time
// is up, so every root move gets the same number) or Playouts per root
// move (deterministic for a seed).
//
// The playouts are biased the way Dagaz biases them to captures, adapted
// to this game: captures are compulsory and the priority rule leaves only
// captures of equal material to choose between, so the bias falls on the
// quiet moves instead — a step after which the opponent has no capture
// (it hangs nothing) weighs safeWeight, one that hands the opponent a
// capture weighs 1, and a promoting move of either kind weighs
// promoWeight more.
type Playout struct {
	MoveTime     time.Duration
	Playouts     int // per root move; used when MoveTime is 0
	PlayoutPlies int
	rng          *rand.Rand
	buf          []engine.Move
	weights      []int
	rounds       int // playouts per root move in the last Move (for benchmarks)
}

const (
	playoutWin  = 10 * valueDamone // a win outweighs any material
	safeWeight  = 4
	promoWeight = 4
)

// NewPlayout returns a playout player; plies 0 means 20.
func NewPlayout(moveTime time.Duration, playouts, plies int) *Playout {
	if plies <= 0 {
		plies = 20
	}
	if moveTime <= 0 && playouts <= 0 {
		moveTime = defaultMoveTime
	}
	return &Playout{MoveTime: moveTime, Playouts: playouts, PlayoutPlies: plies, rng: newRand(0),
		buf: make([]engine.Move, 0, 128), weights: make([]int, 0, 128)}
}

func (p *Playout) Name() string {
	if p.MoveTime > 0 {
		return fmt.Sprintf("playout(movetime=%s,plies=%d)", p.MoveTime, p.PlayoutPlies)
	}
	return fmt.Sprintf("playout(playouts=%d,plies=%d)", p.Playouts, p.PlayoutPlies)
}

func (p *Playout) NewGame(seed uint64) { p.rng = newRand(seed) }

// Move runs the playouts and returns the root move with the best average.
func (p *Playout) Move(ctx context.Context, st State) (engine.Move, error) {
	p.rounds = 0
	root := st.Position
	moves := root.LegalMoves()
	if len(moves) == 0 {
		return engine.Move{}, ErrNoMove
	}
	if len(moves) == 1 {
		return moves[0], nil
	}
	us := root.SideToMove()
	total := make([]int64, len(moves))
	deadline := time.Now().Add(p.MoveTime)
	round := 0
	for ; ; round++ {
		if p.MoveTime > 0 {
			if round > 0 && (time.Now().After(deadline) || ctx.Err() != nil) {
				break
			}
		} else if round >= p.Playouts {
			break
		}
		for i := range moves {
			after := root.After(&moves[i])
			total[i] += int64(p.playout(after, us))
		}
	}
	p.rounds = round
	best := 0
	for i := range total {
		if total[i] > total[best] {
			best = i
		}
	}
	return moves[best], nil
}

// playout plays biased random moves from pos and scores the end for us.
func (p *Playout) playout(pos engine.Position, us engine.Side) int {
	for ply := 0; ply < p.PlayoutPlies; ply++ {
		moves := pos.GenerateMoves(p.buf)
		p.buf = moves[:0]
		if len(moves) == 0 { // no move: the side to move has lost
			if pos.SideToMove() == us {
				return -playoutWin
			}
			return playoutWin
		}
		i := p.pick(&pos, moves)
		pos.Play(&moves[i])
	}
	return Material(&pos, us)
}

// pick draws a move index with the capture-aware bias described on
// Playout.
func (p *Playout) pick(pos *engine.Position, moves []engine.Move) int {
	if len(moves) == 1 {
		return 0
	}
	w := p.weights[:0]
	sum := 0
	for i := range moves {
		m := &moves[i]
		wt := 1
		if !m.IsCapture() {
			after := pos.After(m)
			if !after.HasCapture() {
				wt = safeWeight
			}
		}
		if _, promo := m.Promotion(); promo {
			wt += promoWeight
		}
		w = append(w, wt)
		sum += wt
	}
	p.weights = w
	r := p.rng.IntN(sum)
	for i, wt := range w {
		if r < wt {
			return i
		}
		r -= wt
	}
	return len(w) - 1
}

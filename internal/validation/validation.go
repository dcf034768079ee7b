// Package validation judges whole games played elsewhere: it plays a list
// of moves in notation from a variant's start and reports the first
// illegal move, the legal plies, and where and how the game ended under
// the variant's rules (RULES.md, End of the game), repetition included.
// It knows nothing of transport or of PDN.
package validation

import (
	"sync"

	"github.com/damone-rules/damone/internal/engine"
)

// games recycles the engine's games, whose storage (a position per ply,
// kept for the repetition rule) would otherwise be allocated and cleared
// afresh for every game judged.
var games sync.Pool

// maxPooledMoves bounds the games kept for reuse, so that the storage
// made for one very long game does not stay alive in the pool.
const maxPooledMoves = 1024

func release(g *engine.Game, moves int) {
	if moves <= maxPooledMoves {
		games.Put(g)
	}
}

// Options says what a Verdict records beyond the verdict itself.
type Options struct {
	// Positions keeps the position after each legal ply.
	Positions bool
}

// Verdict is the judgement on one game.
type Verdict struct {
	// Moves are the legal plies played, in order.
	Moves []engine.Move
	// Positions, with Options.Positions, holds the position after each
	// legal ply: Positions[i] follows Moves[i].
	Positions []engine.Position
	// Outcome is how the game ended under the variant's rules; the zero
	// Outcome if it goes on after the last legal ply.
	Outcome engine.Outcome
	// EndPly is the ply after which the game ended (0 for a decided
	// start); meaningful only when Outcome.Over().
	EndPly int
	// IllegalPly is the 1-based ply of the first move refused; 0 if every
	// move was legal.
	IllegalPly int
	// IllegalMove is that move as given.
	IllegalMove string
	// Err says why it was refused: a *engine.MoveError, or
	// engine.ErrGameOver for a move given after the game ended.
	Err error
	// Final is the position after the last legal ply: the one in which a
	// refused move was tried.
	Final engine.Position
}

// Valid reports whether every move was legal and none came after the end.
func (v *Verdict) Valid() bool { return v.IllegalPly == 0 }

// growPlies bounds what Game reserves ahead of playing: more than most games
// last, so they never grow, and nothing that scales with untrusted input.
const growPlies = 512

// Game plays moves from the variant's start and judges them. The variant
// must be valid (see engine.Variant.InitialPosition, whose error it
// returns); an illegal or unfinished game is a Verdict, not an error.
func Game(variant engine.Variant, moves []string, opt Options) (*Verdict, error) {
	g, _ := games.Get().(*engine.Game)
	if g == nil {
		g = new(engine.Game)
	}
	if err := g.Reset(variant); err != nil {
		return nil, err
	}
	defer release(g, len(moves))
	// Reserve for a typical game only: a long record refused at its first
	// ply must not reserve room for every ply it lists first.
	g.Grow(min(len(moves), growPlies))
	v := &Verdict{}
	if opt.Positions {
		v.Positions = make([]engine.Position, 0, min(len(moves), growPlies))
	}
	for i, text := range moves {
		if _, err := g.PlayText(text); err != nil {
			v.IllegalPly, v.IllegalMove, v.Err = i+1, text, err
			break
		}
		if opt.Positions {
			v.Positions = append(v.Positions, g.Position())
		}
	}
	v.Moves = g.Moves() // a copy: g goes back to the pool
	v.Outcome = g.Outcome()
	if v.Outcome.Over() {
		v.EndPly = g.Ply()
	}
	v.Final = g.Position()
	return v, nil
}

// Package players holds the move choosers that play games of Italian
// Damone: the engine (internal/search with a time, node or depth budget)
// and the baselines it is measured against — a random mover, a greedy
// one-ply material player and a playout player in the style of the Dagaz
// game. See docs/engine.md, "Baselines".
//
// A Player is used by one goroutine at a time. Match runners give each
// worker its own players (one Searcher per goroutine) and call NewGame
// before every game with a seed derived from the match seed, so a game's
// moves depend only on that seed and the opening, never on which worker
// played which games before.
package players

import (
	"context"
	"errors"
	"math/bits"
	"math/rand/v2"

	"github.com/damone-rules/damone/internal/engine"
)

// State is what a player sees when asked for a move: the position, the
// game's earlier positions (oldest first, for the repetition rule) and
// the rule settings.
type State struct {
	Position engine.Position
	History  []engine.Position
	Variant  engine.Variant
}

// StateOf returns the state of a game in progress.
func StateOf(g *engine.Game) State {
	hist := make([]engine.Position, 0, g.Ply())
	p := g.InitialPosition()
	for _, m := range g.Moves() {
		hist = append(hist, p)
		p.Play(&m)
	}
	return State{Position: g.Position(), History: hist, Variant: g.Variant()}
}

// Player chooses moves.
type Player interface {
	// Name describes the player and its budget, e.g. "engine(movetime=100ms)".
	Name() string
	// NewGame resets the player for a new game; seed drives any random
	// choice it makes in that game.
	NewGame(seed uint64)
	// Move returns a legal move of st.Position within the player's budget.
	// It returns ErrNoMove when the side to move has no legal move, and
	// ctx.Err() if ctx ends before any move was chosen.
	Move(ctx context.Context, st State) (engine.Move, error)
}

// ErrNoMove is returned by Move for a position without legal moves.
var ErrNoMove = errors.New("players: the side to move has no legal move")

// Material values of the baselines, in hundredths of a Pedine: the same
// ratios as the engine's evaluation (internal/search, eval.go), so that the
// baselines and the engine count material alike.
const (
	valuePedine = 100
	valueDama   = 300
	valueDamone = 600
)

// Material returns side s's material minus its opponent's.
func Material(p *engine.Position, s engine.Side) int {
	return sideMaterial(p, s) - sideMaterial(p, s^1)
}

func sideMaterial(p *engine.Position, s engine.Side) int {
	return valuePedine*bits.OnesCount64(p.Bitboard(s, engine.Pedine)) +
		valueDama*bits.OnesCount64(p.Bitboard(s, engine.Dama)) +
		valueDamone*bits.OnesCount64(p.Bitboard(s, engine.Damone))
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

// Random plays a uniformly random legal move.
type Random struct{ rng *rand.Rand }

// NewRandom returns a random mover (seed 0 until NewGame).
func NewRandom() *Random { return &Random{rng: newRand(0)} }

func (r *Random) Name() string        { return "random" }
func (r *Random) NewGame(seed uint64) { r.rng = newRand(seed) }
func (r *Random) Move(_ context.Context, st State) (engine.Move, error) {
	moves := st.Position.LegalMoves()
	if len(moves) == 0 {
		return engine.Move{}, ErrNoMove
	}
	return moves[r.rng.IntN(len(moves))], nil
}

// Greedy plays the move that leaves it the most material (one ply, no
// look-ahead at the reply), breaking ties uniformly at random. Since the
// priority rule makes every legal capture take the same material, what it
// sees is promotion (a Pedine becoming a Dama, a Dama a Damone) and, as a
// tie-break among equals, chance.
type Greedy struct{ rng *rand.Rand }

// NewGreedy returns a greedy player (seed 0 until NewGame).
func NewGreedy() *Greedy { return &Greedy{rng: newRand(0)} }

func (g *Greedy) Name() string        { return "greedy" }
func (g *Greedy) NewGame(seed uint64) { g.rng = newRand(seed) }
func (g *Greedy) Move(_ context.Context, st State) (engine.Move, error) {
	p := &st.Position
	moves := p.LegalMoves()
	if len(moves) == 0 {
		return engine.Move{}, ErrNoMove
	}
	us := p.SideToMove()
	best, ties := 0, 0
	var choice engine.Move
	for i := range moves {
		after := p.After(&moves[i])
		v := Material(&after, us)
		switch {
		case ties == 0 || v > best:
			best, ties, choice = v, 1, moves[i]
		case v == best:
			// Reservoir sampling: each of the k tied moves is kept with
			// probability 1/k.
			ties++
			if g.rng.IntN(ties) == 0 {
				choice = moves[i]
			}
		}
	}
	return choice, nil
}

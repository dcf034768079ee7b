package engine

import (
	"errors"
	"fmt"
	"slices"
)

// WinCondition says how a game is won (RULES.md, End of the game).
type WinCondition uint8

const (
	// CaptureAllPieces: a side wins when the opponent has no pieces or,
	// being to move, no legal move (stalemate is a win for the blocker).
	CaptureAllPieces WinCondition = iota + 1
	// CaptureAllDamones: in addition, a side wins as soon as the opponent
	// has no Damone left.
	CaptureAllDamones
)

func (w WinCondition) String() string {
	switch w {
	case CaptureAllPieces:
		return "capture-all-pieces"
	case CaptureAllDamones:
		return "capture-all-damones"
	}
	return fmt.Sprintf("WinCondition(%d)", uint8(w))
}

// DefaultNoProgressLimit is the no-progress draw limit in plies (RULES.md,
// End of the game: 80 plies, 40 moves each).
const DefaultNoProgressLimit = 80

// Variant holds the rule settings of a game.
type Variant struct {
	// Setup is the starting arrangement. SetupCustom takes Start.
	Setup Setup
	// Start is the starting position for SetupCustom (its side to move
	// moves first); ignored otherwise.
	Start Position
	// WinCondition defaults to CaptureAllPieces when zero.
	WinCondition WinCondition
	// FirstPlayer moves first in the standard and no-Damone setups.
	FirstPlayer Side
	// RepetitionDraw: the third occurrence of a position with the same
	// side to move is a draw.
	RepetitionDraw bool
	// NoProgressLimit is the number of plies in a row without a capture or
	// a promotion that draws the game; 0 turns the rule off.
	NoProgressLimit int
}

// DefaultVariant returns the standard game: standard setup, capture all
// pieces, Red first, repetition draw on, no-progress limit 80 plies.
func DefaultVariant() Variant {
	return Variant{
		Setup:           SetupStandard,
		WinCondition:    CaptureAllPieces,
		FirstPlayer:     Red,
		RepetitionDraw:  true,
		NoProgressLimit: DefaultNoProgressLimit,
	}
}

// ErrNoDamone is returned for the capture-all-Damones win condition with a
// standard setup that has no Damone (RULES.md, End of the game: the win
// condition needs a Damone for each side). A custom start in which a side
// has no Damone is not an error: it is a decided start (see
// Variant.PositionOutcome).
var ErrNoDamone = errors.New("win condition capture-all-damones needs a Damone for each side in the starting position")

// InitialPosition validates the variant and returns its starting position.
// A start that is already decided is valid (RULES.md, End of the game:
// a game from it is over at ply 0). Errors: an unknown setup, win
// condition or side, a negative no-progress limit, or ErrNoDamone.
func (v *Variant) InitialPosition() (Position, error) {
	if v.FirstPlayer > Black {
		return Position{}, fmt.Errorf("unknown first player %d", v.FirstPlayer)
	}
	if v.NoProgressLimit < 0 {
		return Position{}, fmt.Errorf("no-progress limit %d is negative (0 turns the rule off)", v.NoProgressLimit)
	}
	var start Position
	switch v.Setup {
	case SetupStandard, SetupNoDamone:
		start, _ = StartPosition(v.Setup, v.FirstPlayer)
	case SetupCustom:
		start = v.Start
	default:
		return Position{}, fmt.Errorf("unknown setup %d", v.Setup)
	}
	switch v.WinCondition {
	case 0, CaptureAllPieces:
	case CaptureAllDamones:
		if v.Setup != SetupCustom && (start.pieces[Red][Damone] == 0 || start.pieces[Black][Damone] == 0) {
			return Position{}, ErrNoDamone
		}
	default:
		return Position{}, fmt.Errorf("unknown win condition %d", v.WinCondition)
	}
	return start, nil
}

// Result is who won, if anyone.
type Result uint8

const (
	Ongoing Result = iota
	RedWins
	BlackWins
	Draw
	NoResult // an aborted game: recorded by the game layer
)

func (r Result) String() string {
	return [...]string{"ongoing", "red wins", "black wins", "draw", "no result"}[r]
}

// WinFor returns the result in which s wins.
func WinFor(s Side) Result {
	if s == Red {
		return RedWins
	}
	return BlackWins
}

// Reason is why a game ended.
type Reason uint8

const (
	NoReason Reason = iota
	AllPiecesCaptured
	Stalemate
	AllDamonesCaptured
	Repetition
	NoProgress
	Resignation // recorded by the game layer
	AgreedDraw  // recorded by the game layer
	Timeout     // recorded by the game layer: the side to move ran out of time
	Aborted     // recorded by the game layer: a first move never came
)

func (r Reason) String() string {
	return [...]string{"", "all pieces captured", "stalemate", "all damones captured",
		"repetition", "no progress", "resignation", "agreed draw", "timeout", "aborted"}[r]
}

// Outcome is a game's result and the reason for it; the zero value means
// the game goes on.
type Outcome struct {
	Result Result
	Reason Reason
}

// Over reports whether the game has ended.
func (o Outcome) Over() bool { return o.Result != Ongoing }

func (o Outcome) String() string {
	if !o.Over() {
		return "ongoing"
	}
	return o.Result.String() + " (" + o.Reason.String() + ")"
}

// PositionOutcome returns the outcome decided by the position alone under
// the variant's settings: every rule of RULES.md, End of the game, except
// repetition (which needs the game's history; see Game). When several
// hold, the first of these decides (RULES.md, End of the game): the side
// to move has no pieces; under capture-all-Damones, it has no Damone; it
// has no legal move; the no-progress count has reached the limit. The
// checks on the side not to move can only hold in a custom start.
func (v *Variant) PositionOutcome(p *Position) Outcome {
	if o := v.decisive(p); o.Over() {
		return o
	}
	return v.noProgress(p)
}

// decisive returns the wins the position decides: every ending but the
// draws.
func (v *Variant) decisive(p *Position) Outcome {
	us := p.stm
	win := WinFor(us ^ 1)
	if p.occ[us] == 0 {
		return Outcome{win, AllPiecesCaptured}
	}
	if p.occ[us^1] == 0 { // only a custom start can leave the mover alone
		return Outcome{WinFor(us), AllPiecesCaptured}
	}
	if v.WinCondition == CaptureAllDamones {
		if p.pieces[us][Damone] == 0 {
			return Outcome{win, AllDamonesCaptured}
		}
		if p.pieces[us^1][Damone] == 0 { // only a custom start
			return Outcome{WinFor(us), AllDamonesCaptured}
		}
	}
	if !p.HasMoves() {
		return Outcome{win, Stalemate}
	}
	return Outcome{}
}

// noProgress returns the no-progress draw if the position's count has
// reached the limit (RULES.md, End of the game: the count starts from the
// start's position text).
func (v *Variant) noProgress(p *Position) Outcome {
	if v.NoProgressLimit > 0 && p.NoProgress() >= v.NoProgressLimit {
		return Outcome{Draw, NoProgress}
	}
	return Outcome{}
}

// Game is a game in progress: its variant, the positions and moves so far,
// and its outcome. It is not safe for concurrent use.
type Game struct {
	variant   Variant
	positions []Position // positions[base+i] is the position before moves[i]
	base      int        // positions before the first move's (ContinueGame's earlier)
	moves     []Move
	outcome   Outcome
	legal     []Move // PlayText's move list, reused from ply to ply
}

// NewGame starts a game of the variant (see Variant.InitialPosition for
// the errors).
func NewGame(v Variant) (*Game, error) {
	g := &Game{}
	if err := g.Reset(v); err != nil {
		return nil, err
	}
	return g, nil
}

// Reset starts a new game of the variant in g, as NewGame does, keeping
// the storage of g's positions and moves for it: a caller that judges
// game after game allocates them once. On an error g is unchanged.
func (g *Game) Reset(v Variant) error {
	start, err := v.InitialPosition()
	if err != nil {
		return err
	}
	if v.WinCondition == 0 {
		v.WinCondition = CaptureAllPieces
	}
	g.variant = v
	g.positions = append(g.positions[:0], start)
	g.base = 0
	g.moves = g.moves[:0]
	g.outcome = v.PositionOutcome(&start)
	return nil
}

// ContinueGame returns a game going on from pos under the variant's rules,
// as if it had reached pos through the earlier positions (oldest first):
// those the repetition rule can still count, as Recent returns them, so a
// caller that keeps them need not replay a long game to go on with it.
// Its moves and ply count from pos, and InitialPosition is the oldest of
// the earlier positions (pos if there are none). Errors as NewGame.
func ContinueGame(v Variant, earlier []Position, pos Position) (*Game, error) {
	if _, err := v.InitialPosition(); err != nil {
		return nil, err
	}
	if v.WinCondition == 0 {
		v.WinCondition = CaptureAllPieces
	}
	g := &Game{variant: v, base: len(earlier)}
	g.positions = append(append(make([]Position, 0, len(earlier)+8), earlier...), pos)
	g.outcome = g.judge(&g.positions[len(g.positions)-1])
	return g, nil
}

// Variant returns the game's rule settings.
func (g *Game) Variant() Variant { return g.variant }

// Position returns the current position.
func (g *Game) Position() Position { return g.positions[len(g.positions)-1] }

// InitialPosition returns the starting position.
func (g *Game) InitialPosition() Position { return g.positions[0] }

// Moves returns the moves played, in order (a copy).
func (g *Game) Moves() []Move { return append([]Move(nil), g.moves...) }

// Grow makes room for n more moves, so a caller that knows a game's length
// pays for one allocation instead of several.
func (g *Game) Grow(n int) {
	g.moves = slices.Grow(g.moves, n)
	g.positions = slices.Grow(g.positions, n)
}

// Ply returns the number of moves played.
func (g *Game) Ply() int { return len(g.moves) }

// Outcome returns the game's outcome; the zero Outcome while it goes on.
func (g *Game) Outcome() Outcome { return g.outcome }

// ErrGameOver is returned for a move or an ending after the game has ended.
var ErrGameOver = errors.New("the game is over")

// PlayText parses a move in notation on the current position (see
// Position.ParseMove for its errors), plays it and returns it.
func (g *Game) PlayText(text string) (Move, error) {
	if g.outcome.Over() {
		return Move{}, ErrGameOver
	}
	if g.legal == nil {
		g.legal = make([]Move, 0, 32)
	}
	m, legal, err := g.positions[len(g.positions)-1].parseMove(text, g.legal)
	g.legal = legal[:0] // keep any storage that grew
	if err != nil {
		return Move{}, err
	}
	g.play(m)
	return m, nil
}

// Play plays a move that must be legal in the current position; a move
// that is not is refused with a *MoveError.
func (g *Game) Play(m Move) error {
	if g.outcome.Over() {
		return ErrGameOver
	}
	cur := g.Position()
	for _, l := range cur.LegalMoves() {
		if l.Equivalent(&m) {
			g.play(l)
			return nil
		}
	}
	_, err := cur.ParseMove(m.String())
	if err == nil {
		err = &MoveError{m.String(), MoveIllegal, "not a legal move here", nil}
	}
	return err
}

func (g *Game) play(m Move) {
	next := g.Position().After(&m)
	g.moves = append(g.moves, m)
	g.positions = append(g.positions, next)
	g.outcome = g.judge(&next)
}

// judge returns the outcome of the game at p, its latest position: wins,
// then repetition, then no progress (RULES.md, End of the game).
func (g *Game) judge(p *Position) Outcome {
	o := g.variant.decisive(p)
	if !o.Over() && g.variant.RepetitionDraw && g.occurrences(p) >= 3 {
		o = Outcome{Draw, Repetition}
	}
	if !o.Over() {
		o = g.variant.noProgress(p)
	}
	return o
}

// occurrences counts the positions of the game equal to p for the
// repetition rule. Only positions since the last capture or promotion can
// repeat one after it, so the no-progress counter bounds the scan; and as
// every ply changes the side to move, which equal positions share, only
// every other one can be equal.
func (g *Game) occurrences(p *Position) int {
	n := 0
	last := len(g.positions) - 1
	for i := last; i >= 0 && i >= last-p.NoProgress(); i -= 2 {
		q := &g.positions[i]
		if q.hash == p.hash && q.SamePlacement(p) {
			n++
		}
	}
	return n
}

// End records an ending decided outside the rules of play (resignation or
// an agreed draw) and returns ErrGameOver if the game had already ended.
func (g *Game) End(o Outcome) error {
	if g.outcome.Over() {
		return ErrGameOver
	}
	g.outcome = o
	return nil
}

// History returns the positions before the current one, oldest first (a
// copy): what a search needs for the repetition rule.
func (g *Game) History() []Position {
	return append([]Position(nil), g.positions[:len(g.positions)-1]...)
}

// Recent returns the positions before the current one that the repetition
// rule can still count (oldest first, a copy; none without the rule): the
// last no-progress count of them, since a capture or a promotion makes
// every earlier position unreachable. With the current position, they are
// all ContinueGame needs to go on with the game exactly. The no-progress
// rule (80 plies by default) bounds how many there are.
func (g *Game) Recent() []Position {
	if !g.variant.RepetitionDraw {
		return nil
	}
	last := len(g.positions) - 1
	first := max(0, last-g.positions[last].NoProgress())
	return append([]Position(nil), g.positions[first:last]...)
}

package engine

import (
	"fmt"
	"math/bits"
	"sort"
)

// Position is a board with its side to move and the no-progress counter
// that the draw rule needs. It is a small value (copying it is the cheap
// way to keep an earlier position) and its zero value is an empty board
// with Red to move.
type Position struct {
	pieces     [2][NumRanks]uint64 // [side][rank] bitboards
	occ        [2]uint64           // union of a side's bitboards
	hash       uint64              // Zobrist hash, kept incrementally
	noProgress uint32              // plies since the last capture or promotion, 0..MaxNoProgress
	stm        Side
}

// MaxNoProgress is the no-progress counter's largest value, the largest
// the API's int32 holds. The counter counts every ply up to it (RULES.md,
// End of the game), so a no-progress limit up to it is reached exactly; a
// game that goes on past it, which only the rule turned off allows, keeps
// it there.
const MaxNoProgress = 1<<31 - 1

// PlacedPiece is a piece on a square.
type PlacedPiece struct {
	Square Square
	Piece
}

// PositionError reports a position that is malformed or that no game can
// reach. Where names where (a square, a field, a character offset) and
// Reason says what is wrong.
type PositionError struct {
	Where  string
	Reason string
}

func (e *PositionError) Error() string {
	if e.Where == "" {
		return "invalid position: " + e.Reason
	}
	return fmt.Sprintf("invalid position: %s: %s", e.Where, e.Reason)
}

// NewPosition builds a position from its pieces, side to move and
// no-progress counter (plies since the last capture or promotion).
// It returns a *PositionError for an invalid square, two pieces on one
// square, an unknown side or rank, a negative counter, or a piece standing
// unpromoted where its own move would have promoted it (RULES.md,
// Promotion: no game can reach such a position).
func NewPosition(stm Side, pieces []PlacedPiece, noProgress int) (Position, error) {
	var p Position
	if stm > Black {
		return p, &PositionError{"side to move", "unknown side"}
	}
	if noProgress < 0 || noProgress > MaxNoProgress {
		return p, &PositionError{"no-progress counter", fmt.Sprintf("%d is out of range 0..%d", noProgress, MaxNoProgress)}
	}
	p.stm = stm
	p.noProgress = uint32(noProgress)
	for _, pc := range pieces {
		if !pc.Square.Valid() {
			return Position{}, &PositionError{pc.Square.String(), "not a playing square"}
		}
		if pc.Side > Black || pc.Rank > Damone {
			return Position{}, &PositionError{pc.Square.String(), "unknown side or rank"}
		}
		if _, taken := p.PieceAt(pc.Square); taken {
			return Position{}, &PositionError{pc.Square.String(), "two pieces on one square"}
		}
		if promotionSquares[pc.Side][pc.Rank]&bit(pc.Square) != 0 {
			return Position{}, &PositionError{pc.Square.String(), fmt.Sprintf(
				"a %s cannot stand on %s: it would have been promoted there (RULES.md, Promotion)",
				pc.Piece, pc.Square)}
		}
		p.put(pc.Side, pc.Rank, pc.Square)
	}
	p.hash = p.computeHash()
	return p, nil
}

func (p *Position) put(s Side, r Rank, at Square) {
	p.pieces[s][r] |= bit(at)
	p.occ[s] |= bit(at)
}

// SideToMove returns the side whose turn it is.
func (p *Position) SideToMove() Side { return p.stm }

// NoProgress returns the plies played since the last capture or promotion.
func (p *Position) NoProgress() int { return int(p.noProgress) }

// Hash returns the position's Zobrist hash (pieces and side to move; the
// no-progress counter is not part of it, as it is not part of repetition).
func (p *Position) Hash() uint64 { return p.hash }

// PieceAt returns the piece on sq, if any.
func (p *Position) PieceAt(sq Square) (Piece, bool) {
	if sq >= 64 {
		return Piece{}, false
	}
	b := bit(sq)
	for s := Red; s <= Black; s++ {
		if p.occ[s]&b == 0 {
			continue
		}
		for r := Pedine; r <= Damone; r++ {
			if p.pieces[s][r]&b != 0 {
				return Piece{s, r}, true
			}
		}
	}
	return Piece{}, false
}

// Pieces lists the pieces on the board, Red first, then by rank from
// Damone down, then by square a1..h8.
func (p *Position) Pieces() []PlacedPiece {
	out := make([]PlacedPiece, 0, bits.OnesCount64(p.occ[Red]|p.occ[Black]))
	for s := Red; s <= Black; s++ {
		for r := Damone; ; r-- {
			for b := p.pieces[s][r]; b != 0; b &= b - 1 {
				out = append(out, PlacedPiece{Square(bits.TrailingZeros64(b)), Piece{s, r}})
			}
			if r == Pedine {
				break
			}
		}
	}
	return out
}

// Count returns how many pieces of rank r side s has.
func (p *Position) Count(s Side, r Rank) int { return bits.OnesCount64(p.pieces[s][r]) }

// CountSide returns how many pieces side s has.
func (p *Position) CountSide(s Side) int { return bits.OnesCount64(p.occ[s]) }

// SamePlacement reports whether p and q have the same pieces on the same
// squares and the same side to move: the equality of the repetition rule.
func (p *Position) SamePlacement(q *Position) bool {
	return p.pieces == q.pieces && p.stm == q.stm
}

// Zobrist keys: fixed, from a splitmix64 stream, so hashes are stable
// across runs and processes.
var (
	zobristPiece [2][NumRanks][64]uint64
	zobristBlack uint64
)

func init() {
	x := uint64(0x9E3779B97F4A7C15)
	next := func() uint64 {
		x += 0x9E3779B97F4A7C15
		z := x
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		return z ^ (z >> 31)
	}
	for s := range zobristPiece {
		for r := range zobristPiece[s] {
			for q := range zobristPiece[s][r] {
				zobristPiece[s][r][q] = next()
			}
		}
	}
	zobristBlack = next()
	buildStartPositions()
}

// computeHash computes the Zobrist hash from scratch.
func (p *Position) computeHash() uint64 {
	var h uint64
	for s := range p.pieces {
		for r := range p.pieces[s] {
			for b := p.pieces[s][r]; b != 0; b &= b - 1 {
				h ^= zobristPiece[s][r][bits.TrailingZeros64(b)]
			}
		}
	}
	if p.stm == Black {
		h ^= zobristBlack
	}
	return h
}

// Setup names a starting arrangement (RULES.md, Sides and setup).
type Setup uint8

const (
	// SetupStandard: 1 Damone, 2 Damas and 5 Pedines each.
	SetupStandard Setup = iota + 1
	// SetupNoDamone: 3 Damas and 3 Pedines each, no Damone.
	SetupNoDamone
	// SetupCustom: a starting position given by the caller.
	SetupCustom
)

func (s Setup) String() string {
	switch s {
	case SetupStandard:
		return "standard"
	case SetupNoDamone:
		return "no-damone"
	case SetupCustom:
		return "custom"
	}
	return fmt.Sprintf("Setup(%d)", uint8(s))
}

// ParseSetup parses "standard" or "no-damone" (any case; "nodamone",
// "no_damone" and the prefix "SETUP_" are accepted too).
func ParseSetup(text string) (Setup, error) {
	switch normalizeEnum(text, "SETUP_") {
	case "STANDARD":
		return SetupStandard, nil
	case "NO-DAMONE", "NO_DAMONE", "NODAMONE":
		return SetupNoDamone, nil
	}
	return 0, fmt.Errorf("unknown setup %s (want standard or no-damone)", Quote(text))
}

// StartPosition returns the starting position of a standard or no-Damone
// setup with the given side to move (RULES.md, Sides and setup).
func StartPosition(setup Setup, first Side) (Position, error) {
	if (setup == SetupStandard || setup == SetupNoDamone) && first <= Black {
		return startPositions[setup-SetupStandard][first], nil
	}
	return buildStartPosition(setup, first)
}

// startPositions holds the four fixed starts, built once (by init, once
// the Zobrist keys exist): every game and every request with a variant
// starts from one.
var startPositions [2][2]Position

func buildStartPositions() {
	for i, setup := range []Setup{SetupStandard, SetupNoDamone} {
		for first := Red; first <= Black; first++ {
			p, err := buildStartPosition(setup, first)
			if err != nil {
				panic(err)
			}
			startPositions[i][first] = p
		}
	}
}

// buildStartPosition is StartPosition worked out from the setup's squares.
func buildStartPosition(setup Setup, first Side) (Position, error) {
	var names map[Rank][]string
	switch setup {
	case SetupStandard:
		names = map[Rank][]string{Damone: {"h1"}, Dama: {"f1", "h3"}, Pedine: {"d1", "e2", "f3", "g4", "h5"}}
	case SetupNoDamone:
		names = map[Rank][]string{Dama: {"h1", "f1", "h3"}, Pedine: {"e2", "f3", "g4"}}
	default:
		return Position{}, fmt.Errorf("setup %v has no fixed starting position", setup)
	}
	var pieces []PlacedPiece
	for r, list := range names {
		for _, n := range list {
			red := sq(n)
			// Black's army is Red's turned half round the board.
			black := Square(63 - red)
			pieces = append(pieces, PlacedPiece{red, Piece{Red, r}}, PlacedPiece{black, Piece{Black, r}})
		}
	}
	sort.Slice(pieces, func(i, j int) bool { return pieces[i].Square < pieces[j].Square })
	return NewPosition(first, pieces, 0)
}

// Bitboard returns the squares of side s's pieces of rank r as a bitboard
// (bit i = Square i), for callers such as an evaluation that need the
// whole board at once.
func (p *Position) Bitboard(s Side, r Rank) uint64 { return p.pieces[s][r] }

// StepTargets returns how many single steps side s's pieces could make
// in p, whoever is to move and ignoring captures: a measure of mobility.
func (p *Position) StepTargets(s Side) int {
	empty := dark &^ (p.occ[Red] | p.occ[Black])
	all := p.occ[s]
	kings := all &^ p.pieces[s][Pedine]
	n := bits.OnesCount64(all<<9&empty) + bits.OnesCount64(all>>9&empty)
	if s == Red {
		return n + bits.OnesCount64(all<<7&empty) + bits.OnesCount64(kings>>7&empty)
	}
	return n + bits.OnesCount64(kings<<7&empty) + bits.OnesCount64(all>>7&empty)
}

// PromotionSquares returns the squares on which a move of a piece of side
// s and rank r that ends there promotes it (RULES.md, Promotion).
func PromotionSquares(s Side, r Rank) uint64 { return promotionSquares[s][r] }

// Directions returns the diagonals a piece of side s and rank r moves and
// captures along (RULES.md, Moves), as a bit mask over Direction.
func Directions(s Side, r Rank) uint8 { return dirsOf(s, r) }

// Neighbour returns the square next to sq in direction d, or NoSquare.
func Neighbour(sq Square, d Direction) Square {
	if sq >= 64 {
		return NoSquare
	}
	return neighbour[sq][d]
}

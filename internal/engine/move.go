package engine

import (
	"fmt"
	"math/bits"
	"strings"
)

// MaxCaptures bounds the pieces one capture sequence can take: a jumped
// piece needs a square on each side of it, so it stands on one of the 18
// dark squares off the board's edge.
const MaxCaptures = 18

// Move is one legal move: a step, or one complete capture sequence
// (RULES.md, Moves). It is a 32-byte value that does not refer to the
// position it was generated from.
type Move struct {
	captured uint64              // squares of the captured pieces
	from, to Square              // origin and final landing square
	rank     Rank                // the moving piece's rank when the move starts
	promo    bool                // the piece is promoted where the move ends
	n        uint8               // pieces captured; 0 for a step
	path     [MaxCaptures]Square // landing squares in order; path[n-1] == to
}

// From returns the origin square.
func (m *Move) From() Square { return m.from }

// To returns the square where the move ends.
func (m *Move) To() Square { return m.to }

// Rank returns the moving piece's rank when the move starts.
func (m *Move) Rank() Rank { return m.rank }

// IsCapture reports whether the move is a capture sequence.
func (m *Move) IsCapture() bool { return m.n > 0 }

// CaptureCount returns the number of pieces captured (0 for a step).
func (m *Move) CaptureCount() int { return int(m.n) }

// Promotion returns the rank the piece has after the move and whether that
// is a promotion (RULES.md, Promotion).
func (m *Move) Promotion() (Rank, bool) {
	if m.promo {
		return m.rank + 1, true
	}
	return m.rank, false
}

// Landings returns the landing squares in order: one square for a step,
// one per captured piece for a capture sequence.
func (m *Move) Landings() []Square {
	if m.n == 0 {
		return []Square{m.to}
	}
	return append([]Square(nil), m.path[:m.n]...)
}

// Captured returns the captured squares in the order they are jumped.
func (m *Move) Captured() []Square {
	out := make([]Square, m.n)
	prev := m.from
	for i := range out {
		out[i] = (prev + m.path[i]) / 2 // the jumped square is the midpoint
		prev = m.path[i]
	}
	return out
}

// CapturedSet returns the captured squares as a bitboard (bit i = Square i).
func (m *Move) CapturedSet() uint64 { return m.captured }

// Equivalent reports whether m and o are the same move under RULES.md,
// Captures: the same origin, destination and set of captured squares,
// whatever the path between them.
func (m *Move) Equivalent(o *Move) bool {
	return m.from == o.from && m.to == o.to && m.captured == o.captured
}

// String returns the move in the notation of RULES.md, Notation: "e2-d3"
// for a step, every landing square joined by "x" for a capture ("f3xd5xb7").
func (m Move) String() string {
	var b strings.Builder
	b.Grow(3 + 3*int(m.n))
	b.WriteString(m.from.String())
	if m.n == 0 {
		b.WriteByte('-')
		b.WriteString(m.to.String())
		return b.String()
	}
	for _, s := range m.path[:m.n] {
		b.WriteByte('x')
		b.WriteString(s.String())
	}
	return b.String()
}

// AppendNotation appends the move in the notation String returns to b,
// without allocating when b has room (3 bytes a square).
func (m *Move) AppendNotation(b []byte) []byte {
	b = append(b, m.from.String()...)
	if m.n == 0 {
		b = append(b, '-')
		return append(b, m.to.String()...)
	}
	for _, s := range m.path[:m.n] {
		b = append(b, 'x')
		b = append(b, s.String()...)
	}
	return b
}

// priorityKey orders complete capture sequences by RULES.md, Captures,
// Priority: count, then the capturer's rank, then the captured ranks sorted
// high to low compared position by position. With equal counts the last
// comparison is the same as comparing (Damones taken, Damas taken) in turn,
// so the key packs those fields (each below 32) into one integer.
func priorityKey(n int, capturer Rank, damones, damas int) uint32 {
	return uint32(n)<<12 | uint32(capturer)<<10 | uint32(damones)<<5 | uint32(damas)
}

func trailingZeros(b uint64) int { return bits.TrailingZeros64(b) }

// CapturedPieces returns the pieces m captures when played in p, in the
// order they are jumped. p must be the position m was generated from.
func (p *Position) CapturedPieces(m *Move) []PlacedPiece {
	squares := m.Captured()
	out := make([]PlacedPiece, len(squares))
	for i, s := range squares {
		pc, _ := p.PieceAt(s)
		out[i] = PlacedPiece{s, pc}
	}
	return out
}

// MoveFromPath rebuilds a move from what a record keeps of it: the
// moving piece's rank when it started, its origin, its landing squares (one
// for a step, one per capture otherwise) and whether it was promoted. It
// checks the geometry (one-square steps, two-square leaps) but not
// legality, which needs the position; a game store uses it to read back
// moves it wrote.
func MoveFromPath(rank Rank, from Square, landings []Square, promoted bool) (Move, error) {
	m := Move{from: from, rank: rank, promo: promoted}
	if !from.Valid() || rank > Damone || len(landings) == 0 || len(landings) > MaxCaptures {
		return Move{}, fmt.Errorf("move record: bad origin, rank or number of landings")
	}
	if promoted && rank == Damone {
		return Move{}, fmt.Errorf("move record: a Damone cannot be promoted")
	}
	m.to = landings[len(landings)-1]
	if _, ok := direction(from, landings[0], 1); ok && len(landings) == 1 {
		return m, nil
	}
	prev := from
	for i, l := range landings {
		if _, ok := direction(prev, l, 2); !ok || !l.Valid() {
			return Move{}, fmt.Errorf("move record: %s to %s is not a leap", prev, l)
		}
		m.captured |= bit((prev + l) / 2)
		m.path[i] = l
		prev = l
	}
	m.n = uint8(len(landings))
	return m, nil
}

// NumLandings returns how many landing squares the move has (Landings
// without the allocation): 1 for a step.
func (m *Move) NumLandings() int { return max(int(m.n), 1) }

// Landing returns the i-th landing square, 0 <= i < NumLandings().
func (m *Move) Landing(i int) Square {
	if m.n == 0 {
		return m.to
	}
	return m.path[i]
}

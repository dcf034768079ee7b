// Package engine implements the rules of Italian Damone: the board, move
// generation with the capture priority rule, playing moves, outcomes,
// notation and perft. It does no I/O and knows nothing of any transport.
//
// The binding rules are in RULES.md (shared with the project); comments
// cite its sections, e.g. "RULES.md, Captures".
package engine

import (
	"fmt"
	"unicode/utf8"
)

// Side is one of the two players. Red starts in the lower-right corner (h1),
// Black in the upper-left (a8) (RULES.md, Sides and setup).
type Side uint8

const (
	Red Side = iota
	Black
)

// Opponent returns the other side.
func (s Side) Opponent() Side { return s ^ 1 }

// String returns "red" or "black".
func (s Side) String() string {
	switch s {
	case Red:
		return "red"
	case Black:
		return "black"
	}
	return fmt.Sprintf("Side(%d)", uint8(s))
}

// Letter returns the one-letter form used by the position text form: R or B.
func (s Side) Letter() byte {
	if s == Red {
		return 'R'
	}
	return 'B'
}

// Rank is a piece's rank, ordered so that a higher value is a higher rank:
// Damone > Dama > Pedine (RULES.md, Sides and setup).
type Rank uint8

const (
	Pedine Rank = iota
	Dama
	Damone
)

// NumRanks is the number of ranks.
const NumRanks = 3

// String returns "pedine", "dama" or "damone".
func (r Rank) String() string {
	switch r {
	case Pedine:
		return "pedine"
	case Dama:
		return "dama"
	case Damone:
		return "damone"
	}
	return fmt.Sprintf("Rank(%d)", uint8(r))
}

// Letter returns the rank letter of the position text form: P, D or M.
func (r Rank) Letter() byte { return "PDM"[r] }

// Piece is a side's piece of a given rank.
type Piece struct {
	Side Side
	Rank Rank
}

func (p Piece) String() string { return p.Side.String() + " " + p.Rank.String() }

// Square is a square of the 8×8 board, numbered file + 8×row with a1 = 0 and
// h8 = 63. Only the 32 dark squares (file + row odd, RULES.md, Board and
// coordinates) are playing squares; Valid reports which.
type Square uint8

// NoSquare is the zero-information square value; it is never Valid.
const NoSquare Square = 255

// NewSquare returns the square on file (0 = a) and row (0 = rank 1).
// The result may be a light square; check Valid.
func NewSquare(file, row int) Square { return Square(row*8 + file) }

// File returns the file index, 0 (a) to 7 (h).
func (s Square) File() int { return int(s) & 7 }

// Row returns the row index, 0 (rank 1) to 7 (rank 8).
func (s Square) Row() int { return int(s) >> 3 }

// Valid reports whether s is one of the 32 dark playing squares.
func (s Square) Valid() bool { return s < 64 && (s.File()+s.Row())&1 == 1 }

// String returns the algebraic name, e.g. "h1".
func (s Square) String() string {
	if s >= 64 {
		return "-"
	}
	return squareNames[s]
}

// squareNames holds every square's name, so naming one allocates nothing.
var squareNames = func() (names [64]string) {
	for s := range names {
		names[s] = string([]byte{'a' + byte(s&7), '1' + byte(s>>3)})
	}
	return names
}()

// Squares lists the 32 playing squares in order a1..h8 by row, then file.
var Squares = func() []Square {
	var out []Square
	for s := Square(0); s < 64; s++ {
		if s.Valid() {
			out = append(out, s)
		}
	}
	return out
}()

// SquareError reports a malformed or unplayable square name.
type SquareError struct {
	Text   string // the text that was given
	Reason string // e.g. "light square", "off the board"
}

func (e *SquareError) Error() string {
	return fmt.Sprintf("invalid square %s: %s", Quote(e.Text), e.Reason)
}

// ParseSquare parses an algebraic square name such as "h1". Light squares
// and anything off the board are errors (*SquareError), never ignored
// (RULES.md, Board and coordinates). Upper-case files are accepted.
func ParseSquare(text string) (Square, error) {
	if len(text) != 2 {
		return NoSquare, &SquareError{text, "want a file a-h and a rank 1-8, e.g. h1"}
	}
	f, r := text[0]|0x20, text[1]
	if f < 'a' || f > 'h' || r < '1' || r > '8' {
		return NoSquare, &SquareError{text, "off the board (files a-h, ranks 1-8)"}
	}
	sq := NewSquare(int(f-'a'), int(r-'1'))
	if !sq.Valid() {
		return NoSquare, &SquareError{text, "light square (play is on the dark squares only)"}
	}
	return sq, nil
}

// ParseSide parses a side name in any case, with or without an enum prefix:
// "red", "RED", "SIDE_RED", "r" and "R" are all Red.
func ParseSide(text string) (Side, error) {
	switch normalizeEnum(text, "SIDE_") {
	case "RED", "R":
		return Red, nil
	case "BLACK", "B":
		return Black, nil
	}
	return 0, fmt.Errorf("unknown side %s (want red or black)", Quote(text))
}

// ParseRank parses a rank name in any case, with or without an enum prefix:
// "pedine", "PEDINE", "RANK_PEDINE", and likewise for dama and damone.
func ParseRank(text string) (Rank, error) {
	switch normalizeEnum(text, "RANK_") {
	case "PEDINE":
		return Pedine, nil
	case "DAMA":
		return Dama, nil
	case "DAMONE":
		return Damone, nil
	}
	return 0, fmt.Errorf("unknown rank %s (want pedine, dama or damone)", Quote(text))
}

func normalizeEnum(text, prefix string) string {
	b := []byte(text)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	s := string(b)
	if len(s) > len(prefix) && s[:len(prefix)] == prefix {
		s = s[len(prefix):]
	}
	return s
}

// quoteLimit is the most of a caller's text an error message repeats.
const quoteLimit = 40

// Quote quotes a caller's text for an error message, cut to its first
// quoteLimit bytes (marked with "..."), so a huge input never makes a
// huge error.
func Quote(text string) string {
	if len(text) <= quoteLimit {
		return fmt.Sprintf("%q", text)
	}
	cut := quoteLimit
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return fmt.Sprintf("%q...", text[:cut])
}

package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// The position text form (docs/notation.md):
//
//	<side to move>:R<red pieces>:B<black pieces>:<no-progress plies>
//
// Pieces are comma-separated, each a rank letter (M Damone, D Dama,
// P Pedine) then a square. The standard start with Red to move is
//
//	R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0
//
// String writes each side's pieces by rank from Damone down, then by
// square a1..h8, so equal positions have equal text.

// String returns the position in its text form.
func (p Position) String() string {
	var buf [160]byte // the longest text, 32 pieces, is 139 bytes
	return string(p.AppendText(buf[:0]))
}

// AppendText appends the position's text form (String) to b.
func (p *Position) AppendText(b []byte) []byte {
	b = append(b, p.stm.Letter())
	for s := Red; s <= Black; s++ {
		b = append(b, ':', s.Letter())
		first := true
		for r := Damone; ; r-- {
			for bb := p.pieces[s][r]; bb != 0; bb &= bb - 1 {
				if !first {
					b = append(b, ',')
				}
				first = false
				b = append(b, r.Letter())
				b = append(b, Square(trailingZeros(bb)).String()...)
			}
			if r == Pedine {
				break
			}
		}
	}
	b = append(b, ':')
	return strconv.AppendInt(b, int64(p.noProgress), 10)
}

// ParsePosition parses the text form written by String. Piece order within
// a list is free, and the no-progress field may be left out (meaning 0).
// Every error is a *PositionError naming the field or piece that is wrong:
// a missing or unknown side to move, a missing side list, an unknown rank
// letter, a bad or light square, two pieces on one square, a bad counter,
// or a placement no game can reach (see NewPosition).
func ParsePosition(text string) (Position, error) {
	// Split without allocating: this runs on every request that carries a
	// position.
	var fields [4]string
	nf := 0
	for rest, more := strings.TrimSpace(text), true; more; nf++ {
		if nf == len(fields) {
			nf = strings.Count(text, ":") + 1
			break
		}
		fields[nf], rest, more = strings.Cut(rest, ":")
	}
	if nf < 3 || nf > 4 {
		return Position{}, &PositionError{"", fmt.Sprintf(
			"want 3 or 4 fields separated by ':' (side to move, R pieces, B pieces, no-progress plies), got %d; example %s",
			nf, standardText)}
	}
	var stm Side
	switch fields[0] {
	case "R", "r":
		stm = Red
	case "B", "b":
		stm = Black
	case "":
		return Position{}, &PositionError{"field 1 (side to move)", "missing side to move (want R or B)"}
	default:
		return Position{}, &PositionError{"field 1 (side to move)", fmt.Sprintf("unknown side to move %s (want R or B)", Quote(fields[0]))}
	}
	var buf [32]PlacedPiece
	pieces := buf[:0]
	var seen [2]bool
	for i, f := range fields[1:3] {
		where := [...]string{"field 2", "field 3"}[i]
		if f == "" {
			return Position{}, &PositionError{where, "empty piece list (want R or B then the pieces, e.g. RMh1,Pd1)"}
		}
		var side Side
		switch f[0] {
		case 'R', 'r':
			side = Red
		case 'B', 'b':
			side = Black
		default:
			return Position{}, &PositionError{where, fmt.Sprintf("piece list must start with R or B, got %s", Quote(f[:1]))}
		}
		if seen[side] {
			return Position{}, &PositionError{where, fmt.Sprintf("second piece list for %s", side)}
		}
		seen[side] = true
		where = [...]string{"red pieces", "black pieces"}[side]
		if len(f) == 1 {
			continue // a side with no pieces
		}
		for rest, more := f[1:], true; more; {
			var item string
			item, rest, more = strings.Cut(rest, ",")
			if len(item) == 0 {
				return Position{}, &PositionError{where, "empty entry (two commas in a row or a trailing comma)"}
			}
			var rank Rank
			switch item[0] {
			case 'P', 'p':
				rank = Pedine
			case 'D', 'd':
				rank = Dama
			case 'M', 'm':
				rank = Damone
			default:
				return Position{}, &PositionError{fmt.Sprintf("%s, %s", where, Quote(item)),
					fmt.Sprintf("unknown rank letter %s (want M Damone, D Dama, P Pedine)", Quote(item[:1]))}
			}
			at, err := ParseSquare(item[1:])
			if err != nil {
				return Position{}, &PositionError{fmt.Sprintf("%s, %s", where, Quote(item)), err.Error()}
			}
			pieces = append(pieces, PlacedPiece{at, Piece{side, rank}})
		}
	}
	noProgress := 0
	if nf == 4 {
		n, ok := plainNumber(fields[3])
		if !ok || n > MaxNoProgress {
			return Position{}, &PositionError{"field 4 (no-progress plies)", fmt.Sprintf("want a whole number 0..%d, got %s", MaxNoProgress, Quote(fields[3]))}
		}
		noProgress = n
	}
	return NewPosition(stm, pieces, noProgress)
}

// plainNumber parses a number written in its canonical form: digits only,
// no sign, no leading zero, at most 10 digits (every int32).
func plainNumber(s string) (int, bool) {
	if len(s) == 0 || len(s) > 10 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

const standardText = "R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0"

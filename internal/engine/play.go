package engine

import "math/bits"

// Play applies a legal move of the side to move in place (copy the
// position first to keep it; Position is a small value, and copy-make is
// faster here than make/unmake). The move must come from GenerateMoves or
// ParseMove on this position: Play does not check legality.
//
// Captured pieces leave the board, the piece lands on its final square and
// is promoted there if the move ends on one of its promotion squares
// (RULES.md, Promotion); the no-progress counter restarts after a capture
// or a promotion and otherwise counts one more ply (RULES.md, End of the
// game); the Zobrist hash is updated incrementally.
func (p *Position) Play(m *Move) {
	us, them := p.stm, p.stm^1
	h := p.hash
	if m.captured != 0 {
		for r := Pedine; r <= Damone; r++ {
			c := p.pieces[them][r] & m.captured
			if c == 0 {
				continue
			}
			p.pieces[them][r] &^= c
			for ; c != 0; c &= c - 1 {
				h ^= zobristPiece[them][r][bits.TrailingZeros64(c)]
			}
		}
		p.occ[them] &^= m.captured
	}
	r := m.rank
	p.pieces[us][r] &^= bit(m.from)
	p.occ[us] &^= bit(m.from)
	h ^= zobristPiece[us][r][m.from]
	if m.promo {
		r++
	}
	p.pieces[us][r] |= bit(m.to)
	p.occ[us] |= bit(m.to)
	h ^= zobristPiece[us][r][m.to] ^ zobristBlack
	if m.captured != 0 || m.promo {
		p.noProgress = 0
	} else if p.noProgress < MaxNoProgress {
		p.noProgress++
	}
	p.hash = h
	p.stm = them
}

// After returns the position after m, leaving p unchanged.
func (p Position) After(m *Move) Position {
	p.Play(m)
	return p
}

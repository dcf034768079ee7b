package engine

import "math/bits"

// dirDelta[d] is the square-number change of one step in direction d.
var dirDelta = [4]int8{NorthWest: 7, NorthEast: 9, SouthWest: -9, SouthEast: -7}

// capturable returns the enemy pieces a piece of rank r may capture: the
// same or a lower rank (RULES.md, Captures).
func (p *Position) capturable(them Side, r Rank) uint64 {
	t := p.pieces[them][Pedine]
	if r >= Dama {
		t |= p.pieces[them][Dama]
	}
	if r == Damone {
		t |= p.pieces[them][Damone]
	}
	return t
}

// capturers returns, per rank, the side to move's pieces that have at least
// one capture, found for all pieces at once with shifts. No edge masks are
// needed: a shift that wraps round the board lands on a light square, and
// every set it meets (targets, empty squares) holds dark squares only.
func (p *Position) capturers() (byRank [NumRanks]uint64, any bool) {
	us, them := p.stm, p.stm^1
	empty := dark &^ (p.occ[Red] | p.occ[Black])
	tP := p.pieces[them][Pedine]
	tD := tP | p.pieces[them][Dama]
	tM := tD | p.pieces[them][Damone]
	// Squares from which a leap in each direction over a target of the set
	// lands on an empty square.
	eNW, eNE, eSW, eSE := empty>>7, empty>>9, empty<<9, empty<<7
	side := (tP&eNE)>>9 | (tP&eSW)<<9
	if us == Red {
		byRank[Pedine] = p.pieces[us][Pedine] & (side | (tP&eNW)>>7)
	} else {
		byRank[Pedine] = p.pieces[us][Pedine] & (side | (tP&eSE)<<7)
	}
	byRank[Dama] = p.pieces[us][Dama] & ((tD&eNW)>>7 | (tD&eNE)>>9 | (tD&eSW)<<9 | (tD&eSE)<<7)
	byRank[Damone] = p.pieces[us][Damone] & ((tM&eNW)>>7 | (tM&eNE)>>9 | (tM&eSW)<<9 | (tM&eSE)<<7)
	return byRank, byRank[Pedine]|byRank[Dama]|byRank[Damone] != 0
}

// HasCapture reports whether the side to move must capture.
func (p *Position) HasCapture() bool {
	_, any := p.capturers()
	return any
}

// GenerateMoves writes the legal moves of the side to move into buf
// (reusing its storage from index 0) and returns the filled slice. With a
// buffer of capacity 128 or more it does not allocate on any position
// reachable from the standard setups. The moves follow RULES.md completely:
// captures are compulsory and complete, only the sequences with the
// greatest priority key are legal, and sequences with the same origin,
// destination and captured set are listed once.
func (p *Position) GenerateMoves(buf []Move) []Move {
	buf = buf[:0]
	if byRank, any := p.capturers(); any {
		return p.generateCaptures(buf, &byRank)
	}
	us := p.stm
	empty := dark &^ (p.occ[Red] | p.occ[Black])
	for r := Pedine; r <= Damone; r++ {
		pcs := p.pieces[us][r]
		if pcs == 0 {
			continue
		}
		dirs := dirsOf(us, r)
		promo := promotionSquares[us][r]
		for d := Direction(0); d < 4; d++ {
			if dirs&(1<<d) == 0 {
				continue
			}
			for to := shift(pcs, d) & empty; to != 0; to &= to - 1 {
				t := Square(bits.TrailingZeros64(to))
				buf = append(buf, Move{
					from:  Square(int8(t) - dirDelta[d]),
					to:    t,
					rank:  r,
					promo: promo&bit(t) != 0,
				})
			}
		}
	}
	return buf
}

// HasMoves reports whether the side to move has a legal move, without
// generating any: a capture exists, or a step does.
func (p *Position) HasMoves() bool {
	if _, any := p.capturers(); any {
		return true
	}
	return p.StepTargets(p.stm) > 0
}

// LegalMoves returns the legal moves in a new slice.
func (p *Position) LegalMoves() []Move { return p.GenerateMoves(make([]Move, 0, 32)) }

// CountMoves returns the number of legal moves; for a position without
// captures it counts them with population counts and generates nothing.
func (p *Position) CountMoves(buf []Move) int {
	if byRank, any := p.capturers(); any {
		return len(p.generateCaptures(buf[:0], &byRank))
	}
	return p.StepTargets(p.stm)
}

// captureSearch holds the state of the depth-first search for capture
// sequences of one position.
type captureSearch struct {
	moves      []Move
	best       uint32 // greatest priority key found so far
	enemy      *[NumRanks]uint64
	capturable uint64 // enemy pieces the current piece may take
	empty      uint64 // empty squares, the origin included
	side       Side
	rank       Rank
	dirs       uint8
	from       Square
	path       [MaxCaptures]Square
}

func (p *Position) generateCaptures(buf []Move, byRank *[NumRanks]uint64) []Move {
	us, them := p.stm, p.stm^1
	g := captureSearch{moves: buf, enemy: &p.pieces[them], side: us}
	empty := dark &^ (p.occ[Red] | p.occ[Black])
	for r := Damone; ; r-- {
		g.rank = r
		g.dirs = dirsOf(us, r)
		g.capturable = p.capturable(them, r)
		for b := byRank[r]; b != 0; b &= b - 1 {
			g.from = Square(bits.TrailingZeros64(b))
			// The origin counts as empty during its own sequence.
			g.empty = empty | bit(g.from)
			g.search(g.from, 0, 0, 0, 0)
		}
		if r == Pedine {
			break
		}
	}
	return g.moves
}

// search extends the sequence that has reached at, having captured the
// squares in captured (which stay on the board until the move ends, so they
// block landings and cannot be jumped twice: RULES.md, Captures).
func (g *captureSearch) search(at Square, captured uint64, n, damones, damas int) {
	extended := false
	for d := Direction(0); d < 4; d++ {
		if g.dirs&(1<<d) == 0 {
			continue
		}
		mid := neighbour[at][d]
		if mid == NoSquare {
			continue
		}
		mb := bit(mid)
		if g.capturable&mb == 0 || captured&mb != 0 {
			continue
		}
		land := neighbour[mid][d]
		if land == NoSquare || g.empty&bit(land) == 0 {
			continue
		}
		extended = true
		g.path[n] = land
		switch {
		case g.enemy[Damone]&mb != 0:
			g.search(land, captured|mb, n+1, damones+1, damas)
		case g.enemy[Dama]&mb != 0:
			g.search(land, captured|mb, n+1, damones, damas+1)
		default:
			g.search(land, captured|mb, n+1, damones, damas)
		}
	}
	if !extended && n > 0 {
		g.record(at, captured, n, damones, damas)
	}
}

// record keeps a complete sequence if its priority key is the greatest so
// far (dropping all weaker ones) and it is not a duplicate.
func (g *captureSearch) record(at Square, captured uint64, n, damones, damas int) {
	key := priorityKey(n, g.rank, damones, damas)
	if key < g.best {
		return
	}
	if key > g.best {
		g.best = key
		g.moves = g.moves[:0]
	}
	for i := range g.moves {
		if m := &g.moves[i]; m.from == g.from && m.to == at && m.captured == captured {
			return
		}
	}
	g.moves = append(g.moves, Move{
		captured: captured,
		from:     g.from,
		to:       at,
		rank:     g.rank,
		promo:    promotionSquares[g.side][g.rank]&bit(at) != 0,
		n:        uint8(n),
		path:     g.path,
	})
}

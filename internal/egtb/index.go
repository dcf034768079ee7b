package egtb

import (
	"math/bits"

	"github.com/damone-rules/damone/internal/engine"
)

// The index: a position of a material is numbered by placing its groups
// in the order own Pedines, other Pedines, own Damas, other Damas, own
// Damones, other Damones, each as a combination (colex rank) of the
// squares the earlier groups left free. Squares are numbered 0..31,
// i = row·4 + file/2 (a1..h8 by row), so turning the board 180° is
// bits.Reverse32. Entries where a piece stands on its own promotion
// square (RULES.md, Promotion: no game reaches them) are "broken": they
// exist in the numbering but hold no value.

// board is a position with its side to move as "own" ([0], moving like
// Red) and the other side [1], as 32-square masks per engine.Rank.
type board [2][engine.NumRanks]uint32

// groupOrder lists the (side, rank) groups in index order.
var groupOrder = [6][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2}}

var binom [33][33]uint64

// toEngine32 and fromEngine map a 32-square index to the engine's 64-square
// numbering and back.
var toEngine32 [32]engine.Square

// brokenMask[s][r] are the squares where a piece of side s (0 own moving
// like Red, 1 the other, like Black) and rank r cannot stand.
var brokenMask [2][engine.NumRanks]uint32

// mirror32[i] is square i reflected in the long diagonal a8–h1,
// (file, row) → (7−row, 7−file).
var mirror32 [32]uint8

func init() {
	for n := 0; n <= 32; n++ {
		binom[n][0] = 1
		for k := 1; k <= n; k++ {
			binom[n][k] = binom[n-1][k-1] + binom[n-1][k]
		}
	}
	for i := 0; i < 32; i++ {
		row := i / 4
		file := 2 * (i % 4)
		if row%2 == 0 {
			file++
		}
		toEngine32[i] = engine.NewSquare(file, row)
	}
	for i := 0; i < 32; i++ {
		s := toEngine32[i]
		m := engine.NewSquare(7-s.Row(), 7-s.File())
		mirror32[i] = uint8(m / 2)
	}
	for r := engine.Pedine; r <= engine.Damone; r++ {
		dirs := engine.Directions(engine.Red, r)
		for s := 0; s < 32; s++ {
			for d := engine.Direction(0); d < 4; d++ {
				if dirs&(1<<d) == 0 {
					continue
				}
				if t := engine.Neighbour(toEngine32[s], d); t != engine.NoSquare {
					backSteps[r][t/2] |= 1 << s
				}
			}
		}
		for s := 0; s < 32; s++ {
			for d := engine.Direction(0); d < 4; d++ {
				leaps[r][s][d] = [2]int8{-1, -1}
				if engine.Directions(engine.Red, r)&(1<<d) == 0 {
					continue
				}
				over := engine.Neighbour(toEngine32[s], d)
				if over == engine.NoSquare {
					continue
				}
				stepsTo[r][s] |= 1 << (over / 2)
				if to := engine.Neighbour(over, d); to != engine.NoSquare {
					leaps[r][s][d] = [2]int8{int8(over / 2), int8(to / 2)}
				}
			}
		}
		brokenMask[0][r] = compress(engine.PromotionSquares(engine.Red, r))
		brokenMask[1][r] = compress(engine.PromotionSquares(engine.Black, r))
	}
}

// leaps[r][s][d] are the square a piece of own side (moving like Red) and
// rank r on s leaps over in direction d and the square it lands on, or
// -1s.
var leaps [engine.NumRanks][32][4][2]int8

// stepsTo[r][s] are the squares a piece of own side (moving like Red) and
// rank r on s steps to.
var stepsTo [engine.NumRanks][32]uint32

// maxSteps bounds a board's steps: four directions a piece.
const maxSteps = 4 * MaxPieces

// steps counts own side's steps in b (to move, no capture compulsory): nq
// quiet ones, and np promoting ones, whose children (the opponent to
// move, turned) it writes to promos (RULES.md, Moves and Promotion).
func (b *board) steps(promos *[maxSteps]board) (nq, np int) {
	occ := b.occupied()
	for r := 0; r < engine.NumRanks; r++ {
		for m := b[0][r]; m != 0; m &= m - 1 {
			from := bits.TrailingZeros32(m)
			to := stepsTo[r][from] &^ occ
			nq += bits.OnesCount32(to &^ brokenMask[0][r])
			for ps := to & brokenMask[0][r]; ps != 0; ps &= ps - 1 {
				c := *b
				c[0][r] ^= 1 << from
				c[0][r+1] |= 1 << bits.TrailingZeros32(ps)
				promos[np] = c.swapTurn()
				np++
			}
		}
	}
	return nq, np
}

// hasCapture reports whether own side (to move) has a capture in b: a leap
// over an adjacent enemy piece of the same or lower rank onto an empty
// square (RULES.md, Captures); the first leap is all it takes.
func (b *board) hasCapture() bool {
	occ := b.occupied()
	var prey uint32
	for r := 0; r < engine.NumRanks; r++ {
		prey |= b[1][r]
		for m := b[0][r]; m != 0; m &= m - 1 {
			for _, l := range &leaps[r][bits.TrailingZeros32(m)] {
				if l[0] >= 0 && prey&(1<<l[0]) != 0 && occ&(1<<l[1]) == 0 {
					return true
				}
			}
		}
	}
	return false
}

// indexer numbers the boards of one material (index, unindex), with the
// material's groups and their place values worked out once: the build
// keeps one a slice.
type indexer struct {
	n      int
	groups [6]struct{ side, rank int }
	weight [6]uint64
	radix  [6]uint32 // the group's number of combinations
	size   [6]int    // the group's number of pieces
}

func newIndexer(m *Material) indexer {
	var ix indexer
	w := uint64(1)
	free := 32 - m.Pieces()
	for j := len(groupOrder) - 1; j >= 0; j-- {
		g := groupOrder[j]
		k := int(m[g[0]][g[1]])
		if k == 0 {
			continue
		}
		ix.groups[ix.n] = struct{ side, rank int }{g[0], g[1]}
		ix.weight[ix.n] = w
		ix.radix[ix.n] = uint32(binom[free+k][k])
		ix.size[ix.n] = k
		ix.n++
		w *= binom[free+k][k]
		free += k
	}
	// Index order: the first group first.
	for i, j := 0, ix.n-1; i < j; i, j = i+1, j-1 {
		ix.groups[i], ix.groups[j] = ix.groups[j], ix.groups[i]
		ix.weight[i], ix.weight[j] = ix.weight[j], ix.weight[i]
		ix.radix[i], ix.radix[j] = ix.radix[j], ix.radix[i]
		ix.size[i], ix.size[j] = ix.size[j], ix.size[i]
	}
	return ix
}

// unindex returns the board of entry idx of the indexer's material, whose
// entries number under 2^32 (a MaxPieces set's largest slice has about 2^25), so the
// digits come from 32-bit divisions.
func (ix *indexer) unindex(idx uint32) board {
	var digits [6]uint32
	for j := ix.n - 1; j >= 0; j-- {
		digits[j] = idx % ix.radix[j]
		idx /= ix.radix[j]
	}
	var b board
	var occ uint32
	for j := 0; j < ix.n; j++ {
		var mask uint32
		if k := ix.size[j]; k < len(combos) {
			mask = deposit(combos[k][digits[j]], occ)
		} else {
			mask = unrank(uint64(digits[j]), k, 32-bits.OnesCount32(occ), occ)
		}
		b[ix.groups[j].side][ix.groups[j].rank] = mask
		occ |= mask
	}
	return b
}

// index returns b's entry number (b must have the indexer's material).
func (ix *indexer) index(b *board) uint64 {
	var idx uint64
	var occ uint32
	for j := 0; j < ix.n; j++ {
		g := ix.groups[j]
		var rank uint64
		i := 0
		for x := b[g.side][g.rank]; x != 0; x &= x - 1 {
			sq := bits.TrailingZeros32(x)
			i++
			rank += binom[sq-bits.OnesCount32(occ&(1<<sq-1))][i]
		}
		idx += rank * ix.weight[j]
		occ |= b[g.side][g.rank]
	}
	return idx
}

// compress turns an engine bitboard (dark squares only) into a 32-square
// mask: dark square sq has index sq/2.
func compress(b uint64) uint32 {
	var out uint32
	for ; b != 0; b &= b - 1 {
		out |= 1 << (bits.TrailingZeros64(b) >> 1)
	}
	return out
}

// fromEngine returns the board of p seen from its side to move.
func fromEngine(p *engine.Position) board {
	var b board
	us := p.SideToMove()
	for r := engine.Pedine; r <= engine.Damone; r++ {
		own := compress(p.Bitboard(us, r))
		other := compress(p.Bitboard(us.Opponent(), r))
		if us == engine.Black {
			own, other = bits.Reverse32(own), bits.Reverse32(other)
		}
		b[0][r], b[1][r] = own, other
	}
	return b
}

// swapTurn returns the board with the other side to move, turned 180° so
// that the new side to move moves like Red.
func (b *board) swapTurn() board {
	var o board
	for r := 0; r < engine.NumRanks; r++ {
		o[0][r] = bits.Reverse32(b[1][r])
		o[1][r] = bits.Reverse32(b[0][r])
	}
	return o
}

// position returns the engine position of b with Red (own) to move and the
// given counter.
func (b *board) position(counter int) engine.Position {
	var buf [2 * MaxPieces * 2]engine.PlacedPiece
	pcs := buf[:0]
	for s := 0; s < 2; s++ {
		for r := engine.Pedine; r <= engine.Damone; r++ {
			for m := b[s][r]; m != 0; m &= m - 1 {
				pcs = append(pcs, engine.PlacedPiece{Square: toEngine32[bits.TrailingZeros32(m)],
					Piece: engine.Piece{Side: engine.Side(s), Rank: r}})
			}
		}
	}
	p, err := engine.NewPosition(engine.Red, pcs, counter)
	if err != nil {
		panic("egtb: board of a valid index is not a position: " + err.Error())
	}
	return p
}

func (b *board) material() Material {
	var m Material
	for s := 0; s < 2; s++ {
		for r := 0; r < engine.NumRanks; r++ {
			m[s][r] = uint8(bits.OnesCount32(b[s][r]))
		}
	}
	return m
}

func (b *board) broken() bool {
	for s := 0; s < 2; s++ {
		for r := 0; r < engine.NumRanks; r++ {
			if b[s][r]&brokenMask[s][r] != 0 {
				return true
			}
		}
	}
	return false
}

func (b *board) occupied() uint32 {
	return b[0][0] | b[0][1] | b[0][2] | b[1][0] | b[1][1] | b[1][2]
}

// mirror reflects b in the long diagonal a8–h1, which maps the rules, the
// setup and the promotion squares onto themselves (a6↔c8, f1↔h3).
func (b *board) mirror() board {
	var o board
	for s := 0; s < 2; s++ {
		for r := 0; r < engine.NumRanks; r++ {
			for m := b[s][r]; m != 0; m &= m - 1 {
				o[s][r] |= 1 << mirror32[bits.TrailingZeros32(m)]
			}
		}
	}
	return o
}

// Size returns the number of index entries of a material (broken ones
// included).
func Size(m Material) uint64 {
	n, free := uint64(1), 32
	for _, g := range groupOrder {
		k := int(m[g[0]][g[1]])
		n *= binom[free][k]
		free -= k
	}
	return n
}

// combos[k][r] is the k-square combination of colex rank r as a mask of
// relative squares (the r-th k-bit mask in increasing order), for the
// group sizes a set holds.
var combos [MaxPieces][]uint32

func init() {
	for k := 1; k < len(combos); k++ {
		combos[k] = make([]uint32, 0, binom[32][k])
		for x := uint32(1)<<k - 1; ; {
			combos[k] = append(combos[k], x)
			if x&(1<<31) != 0 && bits.LeadingZeros32(^x) >= k {
				break // the top k squares: the last combination
			}
			// The next larger mask with as many bits (Gosper).
			c := x & -x
			r := x + c
			x = ((r^x)>>2)/c | r
		}
	}
}

// deposit places the relative squares rel on the squares not in occ: bit
// c of rel goes to the c-th (from 0) free square.
func deposit(rel, occ uint32) uint32 {
	for o := occ; o != 0; o &= o - 1 {
		below := o&-o - 1
		rel = rel&below | (rel&^below)<<1
	}
	return rel
}

// unrank returns the squares of the k-combination of colex rank among the
// free squares left by occ, of which there are free.
func unrank(rank uint64, k, free int, occ uint32) uint32 {
	var mask uint32
	c := free - 1
	for i := k; i >= 1; i-- {
		for binom[c][i] > rank {
			c--
		}
		rank -= binom[c][i]
		mask |= 1 << nthFree(occ, c)
		c--
	}
	return mask
}

// nthFree returns the square of the c-th (from 0) square not in occ.
func nthFree(occ uint32, c int) int {
	x := ^occ
	for ; c > 0; c-- {
		x &= x - 1
	}
	return bits.TrailingZeros32(x)
}

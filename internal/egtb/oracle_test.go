package egtb_test

// An independent model of the rules for the tablebase tests: its own
// board, move generator and exact search, written from RULES.md and
// sharing no code with the generator or the engine's move generator. It
// is checked against the shared perft counts before anything relies on it.

import (
	"fmt"
	"slices"
	"strings"
)

const (
	oPedine = 0
	oDama   = 1
	oDamone = 2
	oRed    = 0
	oBlack  = 1
)

// opos is a position: cell[file][rank] holds 0 for empty, else
// 1 + side·3 + rank.
type opos struct {
	cell [8][8]int8
	stm  int
}

type ocoord struct{ f, r int }

func (c ocoord) ok() bool        { return c.f >= 0 && c.f < 8 && c.r >= 0 && c.r < 8 }
func (c ocoord) name() string    { return string([]byte{byte('a' + c.f), byte('1' + c.r)}) }
func (p *opos) at(c ocoord) int8 { return p.cell[c.f][c.r] }

// The four diagonals as (file, rank) steps.
var (
	oNW = ocoord{-1, 1}
	oNE = ocoord{1, 1}
	oSW = ocoord{-1, -1}
	oSE = ocoord{1, -1}
)

func odirs(side, rank int) []ocoord {
	if rank != oPedine {
		return []ocoord{oNW, oNE, oSW, oSE}
	}
	if side == oRed {
		return []ocoord{oNW, oNE, oSW} // forward north-west, never south-east
	}
	return []ocoord{oSE, oNE, oSW} // forward south-east, never north-west
}

// opromotes reports whether a piece's move ending on c promotes it.
func opromotes(side, rank int, c ocoord) bool {
	n := c.name()
	switch {
	case side == oRed && rank == oPedine:
		return n == "a6" || n == "c8"
	case side == oRed && rank == oDama:
		return n == "a8"
	case side == oBlack && rank == oPedine:
		return n == "f1" || n == "h3"
	case side == oBlack && rank == oDama:
		return n == "h1"
	}
	return false
}

type omove struct {
	from, to   ocoord
	captured   []ocoord
	conversion bool
	text       string
}

// omoves lists the legal moves of the side to move (RULES.md, Moves and
// Captures): compulsory, complete captures, only those with the greatest
// key (count, capturer's rank, captured ranks high to low), one per
// origin, destination and captured set.
func (p *opos) omoves() []omove {
	type seq struct {
		from, to ocoord
		capt     []ocoord
		key      []int
		path     []ocoord
		rank     int
	}
	var seqs []seq
	for f := 0; f < 8; f++ {
		for r := 0; r < 8; r++ {
			v := p.cell[f][r]
			if v == 0 || int(v-1)/3 != p.stm {
				continue
			}
			rank := int(v-1) % 3
			from := ocoord{f, r}
			var dfs func(at ocoord, capt []ocoord, path []ocoord)
			dfs = func(at ocoord, capt []ocoord, path []ocoord) {
				ext := false
				for _, d := range odirs(p.stm, rank) {
					mid := ocoord{at.f + d.f, at.r + d.r}
					land := ocoord{mid.f + d.f, mid.r + d.r}
					if !mid.ok() || !land.ok() {
						continue
					}
					mv := p.at(mid)
					if mv == 0 || int(mv-1)/3 == p.stm || int(mv-1)%3 > rank || slices.Contains(capt, mid) {
						continue
					}
					if lv := p.at(land); lv != 0 && land != from {
						continue
					}
					if slices.Contains(capt, land) {
						continue
					}
					ext = true
					dfs(land, append(slices.Clone(capt), mid), append(slices.Clone(path), land))
				}
				if !ext && len(capt) > 0 {
					ranks := []int{}
					for _, c := range capt {
						ranks = append(ranks, int(p.at(c)-1)%3)
					}
					slices.Sort(ranks)
					slices.Reverse(ranks)
					key := append([]int{len(capt), rank}, ranks...)
					seqs = append(seqs, seq{from, at, capt, key, path, rank})
				}
			}
			dfs(from, nil, nil)
		}
	}
	var out []omove
	if len(seqs) > 0 {
		best := seqs[0].key
		for _, s := range seqs {
			if slices.Compare(s.key, best) > 0 {
				best = s.key
			}
		}
		seen := map[string]bool{}
		for _, s := range seqs {
			if slices.Compare(s.key, best) != 0 {
				continue
			}
			set := []string{}
			for _, c := range s.capt {
				set = append(set, c.name())
			}
			slices.Sort(set)
			k := s.from.name() + s.to.name() + strings.Join(set, ",")
			if seen[k] {
				continue
			}
			seen[k] = true
			text := s.from.name()
			for _, l := range s.path {
				text += "x" + l.name()
			}
			out = append(out, omove{s.from, s.to, s.capt, true, text})
		}
		return out
	}
	for f := 0; f < 8; f++ {
		for r := 0; r < 8; r++ {
			v := p.cell[f][r]
			if v == 0 || int(v-1)/3 != p.stm {
				continue
			}
			rank := int(v-1) % 3
			for _, d := range odirs(p.stm, rank) {
				to := ocoord{f + d.f, r + d.r}
				if to.ok() && p.at(to) == 0 {
					from := ocoord{f, r}
					out = append(out, omove{from, to, nil, opromotes(p.stm, rank, to), from.name() + "-" + to.name()})
				}
			}
		}
	}
	return out
}

func (p *opos) oplay(m omove) opos {
	q := *p
	v := q.at(m.from)
	rank := int(v-1) % 3
	for _, c := range m.captured {
		q.cell[c.f][c.r] = 0
	}
	q.cell[m.from.f][m.from.r] = 0
	if opromotes(p.stm, rank, m.to) {
		v++
	}
	q.cell[m.to.f][m.to.r] = v
	q.stm ^= 1
	return q
}

func (p *opos) operft(depth int) uint64 {
	ms := p.omoves()
	if depth == 1 {
		return uint64(len(ms))
	}
	var n uint64
	for _, m := range ms {
		q := p.oplay(m)
		n += q.operft(depth - 1)
	}
	return n
}

// text writes the position in the engine's position text form
// (docs/notation.md), with the counter.
func (p *opos) text(counter int) string {
	var b strings.Builder
	b.WriteString([]string{"R", "B"}[p.stm])
	for side := 0; side < 2; side++ {
		b.WriteString(":" + []string{"R", "B"}[side])
		first := true
		for f := 0; f < 8; f++ {
			for r := 0; r < 8; r++ {
				v := p.cell[f][r]
				if v == 0 || int(v-1)/3 != side {
					continue
				}
				if !first {
					b.WriteByte(',')
				}
				first = false
				b.WriteString(string("PDM"[int(v-1)%3]) + ocoord{f, r}.name())
			}
		}
	}
	fmt.Fprintf(&b, ":%d", counter)
	return b.String()
}

func (p *opos) key() uint64 {
	var k uint64
	for f := 0; f < 8; f++ {
		for r := 0; r < 8; r++ {
			if v := p.cell[f][r]; v != 0 {
				k = k<<9 | uint64(f*8+r)<<3 | uint64(v)
			}
		}
	}
	return k<<1 | uint64(p.stm)
}

func (p *opos) count(side, rank int) int {
	n := 0
	for f := 0; f < 8; f++ {
		for r := 0; r < 8; r++ {
			if v := p.cell[f][r]; v != 0 && int(v-1)/3 == side && (rank < 0 || int(v-1)%3 == rank) {
				n++
			}
		}
	}
	return n
}

// osolver is exact minimax over (position, counter) states under a
// no-progress limit: every quiet ply raises the counter and every
// conversion leads to less material or a promoted piece, so the state
// graph has no cycles and plain memoised recursion solves it.
type osolver struct {
	limit   int
	damones bool // capture-all-Damones
	memo    map[uint64]int8
}

// value is +1 win, 0 draw, −1 loss for the side to move at counter c
// (RULES.md, End of the game: wins before draws).
func (s *osolver) value(p *opos, c int) int8 {
	if p.count(p.stm, -1) == 0 {
		return -1
	}
	if s.damones && p.count(p.stm, oDamone) == 0 {
		return -1
	}
	k := p.key()<<7 | uint64(c)
	if v, ok := s.memo[k]; ok {
		return v
	}
	ms := p.omoves()
	var best int8 = -1
	if len(ms) > 0 && c >= s.limit {
		best = 0
	} else {
		for _, m := range ms {
			q := p.oplay(m)
			nc := c + 1
			if m.conversion {
				nc = 0
			}
			if v := -s.value(&q, nc); v > best {
				best = v
				if best == 1 {
					break
				}
			}
		}
	}
	s.memo[k] = best
	return best
}

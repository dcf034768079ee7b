package engine

// A second, deliberately simple move generator that follows RULES.md
// literally (plain arrays, straightforward recursion, no bitboards, no
// packed priority key), and property tests that compare the engine with it
// over thousands of seeded random playouts.

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
)

// refCell is one square of the reference board.
type refCell struct {
	occupied bool
	side     Side
	rank     Rank
}

// refBoard is the reference position.
type refBoard struct {
	cells      [64]refCell
	stm        Side
	noProgress int
}

// refMove is one complete sequence (or a step).
type refMove struct {
	from, to int
	rank     Rank  // the mover's rank when the move starts
	landings []int // landing squares in order
	captured []int // captured squares in jump order (empty for a step)
	capRanks []Rank
}

func (m refMove) notation() string {
	parts := []string{xtName(Square(m.from))}
	for _, l := range m.landings {
		parts = append(parts, xtName(Square(l)))
	}
	if len(m.captured) == 0 {
		return strings.Join(parts, "-")
	}
	return strings.Join(parts, "x")
}

func (m refMove) key() string {
	caps := make([]Square, len(m.captured))
	for i, c := range m.captured {
		caps[i] = Square(c)
	}
	return xtKey(Square(m.from), Square(m.to), caps, len(m.captured) > 0)
}

// refDirs are the (file, row) deltas of a piece, from RULES.md, Moves:
// Damas and Damones all four; Red Pedine NW, NE, SW; Black Pedine SE, NE,
// SW.
func refDirs(side Side, rank Rank) [][2]int {
	nw, ne, sw, se := [2]int{-1, 1}, [2]int{1, 1}, [2]int{-1, -1}, [2]int{1, -1}
	if rank != Pedine {
		return [][2]int{nw, ne, sw, se}
	}
	if side == Red {
		return [][2]int{nw, ne, sw}
	}
	return [][2]int{se, ne, sw}
}

func refSq(f, r int) int { return f + 8*r }

func refOnBoard(f, r int) bool { return f >= 0 && f < 8 && r >= 0 && r < 8 }

// refPromotes tells whether a move of (side, rank) ending on sq promotes,
// from RULES.md, Promotion, with the squares written out by name.
func refPromotes(side Side, rank Rank, sq int) bool {
	name := xtName(Square(sq))
	switch {
	case side == Red && rank == Pedine:
		return name == "a6" || name == "c8"
	case side == Red && rank == Dama:
		return name == "a8"
	case side == Black && rank == Pedine:
		return name == "f1" || name == "h3"
	case side == Black && rank == Dama:
		return name == "h1"
	}
	return false
}

// refCompare compares two capture sequences by the priority rule i-vi:
// count, then capturer rank, then the captured ranks sorted from highest to
// lowest compared position by position. It returns >0 if a is preferred.
func refCompare(a, b refMove) int {
	if len(a.captured) != len(b.captured) {
		return len(a.captured) - len(b.captured)
	}
	if a.rank != b.rank {
		return int(a.rank) - int(b.rank)
	}
	ra := append([]Rank(nil), a.capRanks...)
	rb := append([]Rank(nil), b.capRanks...)
	sort.Slice(ra, func(i, j int) bool { return ra[i] > ra[j] })
	sort.Slice(rb, func(i, j int) bool { return rb[i] > rb[j] })
	for i := range ra {
		if ra[i] != rb[i] {
			return int(ra[i]) - int(rb[i])
		}
	}
	return 0
}

// refGenerate returns the legal moves grouped by (origin, destination,
// captured set) key, each with all its valid paths.
func refGenerate(b *refBoard) map[string][]refMove {
	var seqs []refMove
	for sq := 0; sq < 64; sq++ {
		c := b.cells[sq]
		if !c.occupied || c.side != b.stm {
			continue
		}
		var captured [64]bool
		var walk func(at int, land []int, caps []int, ranks []Rank)
		walk = func(at int, land []int, caps []int, ranks []Rank) {
			extended := false
			for _, d := range refDirs(c.side, c.rank) {
				mf, mr := at%8+d[0], at/8+d[1]
				lf, lr := at%8+2*d[0], at/8+2*d[1]
				if !refOnBoard(lf, lr) {
					continue
				}
				mid, to := refSq(mf, mr), refSq(lf, lr)
				mc := b.cells[mid]
				if !mc.occupied || mc.side == c.side || captured[mid] || mc.rank > c.rank {
					continue
				}
				// The landing must be empty; the origin counts as empty.
				if b.cells[to].occupied && to != sq {
					continue
				}
				extended = true
				captured[mid] = true
				walk(to, append(append([]int(nil), land...), to),
					append(append([]int(nil), caps...), mid),
					append(append([]Rank(nil), ranks...), mc.rank))
				captured[mid] = false
			}
			if !extended && len(caps) > 0 {
				seqs = append(seqs, refMove{from: sq, to: at, rank: c.rank, landings: land, captured: caps, capRanks: ranks})
			}
		}
		walk(sq, nil, nil, nil)
	}
	out := map[string][]refMove{}
	if len(seqs) > 0 {
		best := seqs[0]
		for _, s := range seqs[1:] {
			if refCompare(s, best) > 0 {
				best = s
			}
		}
		for _, s := range seqs {
			if refCompare(s, best) == 0 {
				out[s.key()] = append(out[s.key()], s)
			}
		}
		return out
	}
	for sq := 0; sq < 64; sq++ {
		c := b.cells[sq]
		if !c.occupied || c.side != b.stm {
			continue
		}
		for _, d := range refDirs(c.side, c.rank) {
			f, r := sq%8+d[0], sq/8+d[1]
			if !refOnBoard(f, r) || b.cells[refSq(f, r)].occupied {
				continue
			}
			m := refMove{from: sq, to: refSq(f, r), rank: c.rank, landings: []int{refSq(f, r)}}
			out[m.key()] = append(out[m.key()], m)
		}
	}
	return out
}

// refPlay applies a move to the reference board.
func refPlay(b *refBoard, m refMove) {
	c := b.cells[m.from]
	for _, s := range m.captured {
		b.cells[s] = refCell{}
	}
	b.cells[m.from] = refCell{}
	promoted := refPromotes(c.side, c.rank, m.to)
	if promoted {
		c.rank++
	}
	b.cells[m.to] = c
	if len(m.captured) > 0 || promoted {
		b.noProgress = 0
	} else {
		b.noProgress++
	}
	b.stm ^= 1
}

func refFromPieces(stm Side, pieces []PlacedPiece, noProgress int) refBoard {
	b := refBoard{stm: stm, noProgress: noProgress}
	for _, pc := range pieces {
		b.cells[pc.Square] = refCell{true, pc.Side, pc.Rank}
	}
	return b
}

// refCheckSame compares the engine position with the reference board,
// square by square.
func refCheckSame(t *testing.T, ctx string, p *Position, b *refBoard) bool {
	t.Helper()
	for sq := 0; sq < 64; sq++ {
		pc, ok := p.PieceAt(Square(sq))
		c := b.cells[sq]
		if ok != c.occupied || (ok && (pc.Side != c.side || pc.Rank != c.rank)) {
			t.Errorf("%s: square %s: engine %v %v, reference %+v", ctx, xtName(Square(sq)), pc, ok, c)
			return false
		}
	}
	if p.SideToMove() != b.stm || p.NoProgress() != b.noProgress {
		t.Errorf("%s: side to move %v / no-progress %d, reference %v / %d", ctx, p.SideToMove(), p.NoProgress(), b.stm, b.noProgress)
		return false
	}
	return true
}

// refCheckPosition runs every property on one position and returns the
// engine's legal moves with their matching reference moves.
func refCheckPosition(t *testing.T, ctx string, p *Position, b *refBoard, buf []Move) ([]Move, []refMove, bool) {
	t.Helper()
	if !refCheckSame(t, ctx, p, b) {
		return nil, nil, false
	}
	if p.Hash() != p.computeHash() {
		t.Errorf("%s: Hash %#x != computeHash %#x", ctx, p.Hash(), p.computeHash())
		return nil, nil, false
	}
	ref := refGenerate(b)
	moves := p.GenerateMoves(buf)
	ok := true
	seen := map[string]bool{}
	matched := make([]refMove, len(moves))
	for i := range moves {
		m := &moves[i]
		k := xtMoveKey(m)
		if seen[k] {
			t.Errorf("%s: move %s listed twice", ctx, m)
			ok = false
		}
		seen[k] = true
		paths, legal := ref[k]
		if !legal {
			t.Errorf("%s: engine move %s is not legal by the reference", ctx, m)
			ok = false
			continue
		}
		found := false
		for _, rp := range paths {
			if rp.notation() == m.String() {
				found = true
				matched[i] = rp
			}
		}
		if !found {
			t.Errorf("%s: engine move %s: path not among the reference paths %v", ctx, m, paths)
			ok = false
			continue
		}
		rm := matched[i]
		// Accessors agree with the reference path.
		caps := m.Captured()
		if len(caps) != len(rm.captured) || m.CaptureCount() != len(rm.captured) || m.IsCapture() != (len(rm.captured) > 0) {
			t.Errorf("%s: %s: Captured %v, count %d; reference %v", ctx, m, caps, m.CaptureCount(), rm.captured)
			ok = false
		}
		var set uint64
		for j, c := range caps {
			set |= 1 << c
			if j < len(rm.captured) && int(c) != rm.captured[j] {
				t.Errorf("%s: %s: Captured()[%d] = %v, reference %s", ctx, m, j, c, xtName(Square(rm.captured[j])))
				ok = false
			}
		}
		if set != m.CapturedSet() {
			t.Errorf("%s: %s: CapturedSet %#x != set of Captured %#x", ctx, m, m.CapturedSet(), set)
			ok = false
		}
		land := m.Landings()
		if len(land) == 0 || land[len(land)-1] != m.To() || int(m.From()) != rm.from || m.Rank() != rm.rank {
			t.Errorf("%s: %s: Landings %v To %v From %v Rank %v", ctx, m, land, m.To(), m.From(), m.Rank())
			ok = false
		}
		r, promo := m.Promotion()
		wantPromo := refPromotes(b.stm, rm.rank, rm.to)
		wantRank := rm.rank
		if wantPromo {
			wantRank++
		}
		if promo != wantPromo || r != wantRank {
			t.Errorf("%s: %s: Promotion() = %v, %v; want %v, %v", ctx, m, r, promo, wantRank, wantPromo)
			ok = false
		}
		// No capture of a higher rank than the capturer.
		for _, c := range caps {
			if pc, has := p.PieceAt(c); !has || pc.Side == b.stm || pc.Rank > m.Rank() {
				t.Errorf("%s: %s captures %v on %v", ctx, m, pc, c)
				ok = false
			}
		}
		// Pedines never move backward: Red never south-east, Black never
		// north-west, in steps and in every leap.
		if m.Rank() == Pedine {
			prev := m.From()
			for _, l := range land {
				df, dr := l.File()-prev.File(), l.Row()-prev.Row()
				if (b.stm == Red && df > 0 && dr < 0) || (b.stm == Black && df < 0 && dr > 0) {
					t.Errorf("%s: Pedine move %s goes backward from %v to %v", ctx, m, prev, l)
					ok = false
				}
				prev = l
			}
		}
	}
	for k, paths := range ref {
		if !seen[k] {
			t.Errorf("%s: reference move %s (%d paths) missing from the engine", ctx, paths[0].notation(), len(paths))
			ok = false
		}
	}
	if n := Perft(p, 1); n != uint64(len(ref)) {
		t.Errorf("%s: Perft(1) = %d, reference %d moves", ctx, n, len(ref))
		ok = false
	}
	if n := p.CountMoves(make([]Move, 0, 128)); n != len(ref) {
		t.Errorf("%s: CountMoves = %d, reference %d", ctx, n, len(ref))
		ok = false
	}
	if p.HasCapture() != (len(moves) > 0 && moves[0].IsCapture()) {
		t.Errorf("%s: HasCapture = %v", ctx, p.HasCapture())
		ok = false
	}
	if !ok {
		t.Logf("%s: position %v, %v to move", ctx, p.Pieces(), p.SideToMove())
	}
	return moves, matched, ok
}

// refPlayout plays random moves from p, checking every position on the way
// and every move's copy-make and effect against the reference.
func refPlayout(t *testing.T, ctx string, p Position, rng *rand.Rand, maxPlies int) (positions int, ok bool) {
	t.Helper()
	b := refFromPieces(p.SideToMove(), p.Pieces(), p.NoProgress())
	buf := make([]Move, 0, 128)
	for ply := 0; ply <= maxPlies; ply++ {
		where := fmt.Sprintf("%s ply %d", ctx, ply)
		moves, matched, good := refCheckPosition(t, where, &p, &b, buf)
		positions++
		if !good {
			return positions, false
		}
		if len(moves) == 0 {
			return positions, true
		}
		// Copy-make on every move leaves the original intact, and the
		// result matches the reference.
		before := p
		for i := range moves {
			child := p.After(&moves[i])
			if p != before || p.Hash() != before.Hash() {
				t.Errorf("%s: After(%s) changed the original position", where, &moves[i])
				return positions, false
			}
			rb := b
			refPlay(&rb, matched[i])
			if !refCheckSame(t, where+" after "+moves[i].String(), &child, &rb) {
				return positions, false
			}
			if child.Hash() != child.computeHash() {
				t.Errorf("%s: after %s: incremental hash %#x != computeHash %#x", where, &moves[i], child.Hash(), child.computeHash())
				return positions, false
			}
			// Piece counts change exactly by the captures and promotions.
			for s := Red; s <= Black; s++ {
				for r := Pedine; r <= Damone; r++ {
					want := p.Count(s, r)
					if s != b.stm {
						for _, c := range moves[i].Captured() {
							if pc, _ := p.PieceAt(c); pc.Rank == r {
								want--
							}
						}
					} else if newRank, promo := moves[i].Promotion(); promo {
						if r == moves[i].Rank() {
							want--
						} else if r == newRank {
							want++
						}
					}
					if got := child.Count(s, r); got != want {
						t.Errorf("%s: after %s: %v %v count %d, want %d", where, &moves[i], s, r, got, want)
						return positions, false
					}
				}
			}
		}
		i := rng.Intn(len(moves))
		p.Play(&moves[i])
		refPlay(&b, matched[i])
	}
	return positions, true
}

// refRandomPosition places nRed and nBlack random pieces on random dark
// squares, rerolling pieces NewPosition would reject.
func refRandomPosition(rng *rand.Rand, nRed, nBlack int, rankWeights [3]int) Position {
	squares := append([]Square(nil), Squares...)
	rng.Shuffle(len(squares), func(i, j int) { squares[i], squares[j] = squares[j], squares[i] })
	total := rankWeights[0] + rankWeights[1] + rankWeights[2]
	var pieces []PlacedPiece
	for i := 0; i < nRed+nBlack; i++ {
		side := Red
		if i >= nRed {
			side = Black
		}
		for {
			x := rng.Intn(total)
			rank := Pedine
			if x >= rankWeights[0] {
				rank = Dama
			}
			if x >= rankWeights[0]+rankWeights[1] {
				rank = Damone
			}
			if !refPromotes(side, rank, int(squares[i])) {
				pieces = append(pieces, PlacedPiece{squares[i], Piece{side, rank}})
				break
			}
		}
	}
	p, err := NewPosition(Side(rng.Intn(2)), pieces, rng.Intn(100))
	if err != nil {
		panic(err)
	}
	return p
}

func TestReferenceGeneratorSelfCheck(t *testing.T) {
	// The reference itself on hand-worked positions (so that agreement with
	// it means something): the duplicate loop and the priority examples.
	b := refFromPieces(Red, append(xtPieces(Red, "Dd3"), xtPieces(Black, "Pe4,Pg4,Pg2,Pe2")...), 0)
	got := refGenerate(&b)
	if len(got) != 1 || len(got[xtPathKey("d3xf5xh3xf1xd3")]) != 2 {
		t.Errorf("reference loop: %v", got)
	}
	b = refFromPieces(Red, append(xtPieces(Red, "Mb1,Ma2"), xtPieces(Black, "Mc2,Me4,Pg6,Mb3,Db5,Db7")...), 0)
	got = refGenerate(&b)
	if len(got) != 1 || got[xtPathKey("b1xd3xf5xh7")] == nil {
		t.Errorf("reference example 1: %v", got)
	}
	b = refFromPieces(Red, append(xtPieces(Red, "Dd1"), xtPieces(Black, "De2,Pg4,Pc2,Dc4")...), 0)
	got = refGenerate(&b)
	if len(got) != 2 {
		t.Errorf("reference example 4: %v", got)
	}
	b = refFromPieces(Red, append(xtPieces(Red, "Pc4"), xtPieces(Black, "Pb5,Db7")...), 0)
	got = refGenerate(&b)
	if ms := got[xtPathKey("c4xa6")]; len(got) != 1 || len(ms) != 1 || !refPromotes(Red, ms[0].rank, ms[0].to) {
		t.Errorf("reference promotion: %v", got)
	}
}

func TestReferencePlayoutsFromSetups(t *testing.T) {
	games, plies := 300, 120
	if testing.Short() {
		games = 40
	}
	rng := rand.New(rand.NewSource(20240601))
	total := 0
	for g := 0; g < games; g++ {
		setup := SetupStandard
		if g%2 == 1 {
			setup = SetupNoDamone
		}
		first := Side(g / 2 % 2)
		p, err := StartPosition(setup, first)
		if err != nil {
			t.Fatal(err)
		}
		n, ok := refPlayout(t, fmt.Sprintf("game %d (%v, %v first)", g, setup, first), p, rng, plies)
		total += n
		if !ok {
			return
		}
	}
	t.Logf("%d positions checked", total)
}

func TestReferencePlayoutsFromRandomPositions(t *testing.T) {
	games, plies := 1500, 30
	if testing.Short() {
		games = 200
	}
	rng := rand.New(rand.NewSource(777))
	total := 0
	for g := 0; g < games; g++ {
		var p Position
		switch g % 4 {
		case 0: // sparse, any ranks
			p = refRandomPosition(rng, 1+rng.Intn(6), 1+rng.Intn(6), [3]int{1, 1, 1})
		case 1: // dense: many pieces and many captures
			p = refRandomPosition(rng, 8+rng.Intn(5), 8+rng.Intn(5), [3]int{2, 1, 1})
		case 2: // dense, mostly Damones and Damas: long sequences, many ties
			p = refRandomPosition(rng, 6+rng.Intn(8), 6+rng.Intn(8), [3]int{1, 2, 3})
		default: // mostly Pedines, near the promotion squares
			p = refRandomPosition(rng, 3+rng.Intn(10), 3+rng.Intn(10), [3]int{6, 1, 1})
		}
		n, ok := refPlayout(t, fmt.Sprintf("random game %d", g), p, rng, plies)
		total += n
		if !ok {
			return
		}
	}
	t.Logf("%d positions checked", total)
}

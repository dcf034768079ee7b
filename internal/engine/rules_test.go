package engine

// Independent tests of every ruling in RULES.md on hand-built positions.
// Every expected move set below was worked out by hand from RULES.md (the
// reasoning is in the comments); none was copied from the engine's output.
//
// The helpers here (prefix xt) are shared by the other independent test
// files: seed_examples_test.go, reference_test.go, perft_test.go,
// notation_rules_test.go and notation_fuzz_test.go. They deliberately do not
// use the engine's own text form or square parser.

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// xtSquare converts "c4" into a Square by its definition (file + 8*row),
// independently of ParseSquare. It panics on a light or off-board square:
// the tests only name dark squares.
func xtSquare(name string) Square {
	if len(name) != 2 || name[0] < 'a' || name[0] > 'h' || name[1] < '1' || name[1] > '8' {
		panic("xtSquare: bad square " + name)
	}
	f, r := int(name[0]-'a'), int(name[1]-'1')
	if (f+r)%2 != 1 {
		panic("xtSquare: light square " + name)
	}
	return Square(f + 8*r)
}

// xtName is the inverse of xtSquare.
func xtName(s Square) string {
	return string([]byte{'a' + byte(int(s)%8), '1' + byte(int(s)/8)})
}

// xtPieces parses a list such as "Pc4,Db7 Mh1" (separators: comma or space;
// rank letters M Damone, D Dama, P Pedine) for one side.
func xtPieces(side Side, list string) []PlacedPiece {
	var out []PlacedPiece
	for _, item := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
		var rank Rank
		switch item[0] {
		case 'P':
			rank = Pedine
		case 'D':
			rank = Dama
		case 'M':
			rank = Damone
		default:
			panic("xtPieces: bad rank letter in " + item)
		}
		out = append(out, PlacedPiece{xtSquare(item[1:]), Piece{side, rank}})
	}
	return out
}

// xtPosN builds a position with NewPosition from the red and black piece
// lists, the side to move and the no-progress counter; it fails the test if
// NewPosition refuses it.
func xtPosN(t testing.TB, stm Side, red, black string, noProgress int) Position {
	t.Helper()
	pieces := append(xtPieces(Red, red), xtPieces(Black, black)...)
	p, err := NewPosition(stm, pieces, noProgress)
	if err != nil {
		t.Fatalf("NewPosition(%v, R:%s B:%s): %v", stm, red, black, err)
	}
	return p
}

func xtPos(t testing.TB, stm Side, red, black string) Position {
	t.Helper()
	return xtPosN(t, stm, red, black, 0)
}

// xtPathKey computes the (origin, destination, captured set) key of a move
// written in notation ("e2-d3", "f3xd5xb7"), with the captured squares worked
// out as the midpoints of the leaps, independently of the engine.
func xtPathKey(notation string) string {
	if strings.Contains(notation, "-") {
		parts := strings.Split(notation, "-")
		return parts[0] + ">" + parts[1] + "/"
	}
	parts := strings.Split(notation, "x")
	var caps []Square
	for i := 1; i < len(parts); i++ {
		a, b := xtSquare(parts[i-1]), xtSquare(parts[i])
		caps = append(caps, (a+b)/2)
	}
	return xtKey(xtSquare(parts[0]), xtSquare(parts[len(parts)-1]), caps, true)
}

func xtKey(from, to Square, caps []Square, capture bool) string {
	sorted := append([]Square(nil), caps...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	names := make([]string, len(sorted))
	for i, s := range sorted {
		names[i] = xtName(s)
	}
	if !capture {
		return xtName(from) + ">" + xtName(to) + "/"
	}
	return xtName(from) + ">" + xtName(to) + "/x" + strings.Join(names, ",")
}

// xtMoveKey is the key of an engine move, from its From, To and Captured.
func xtMoveKey(m *Move) string {
	return xtKey(m.From(), m.To(), m.Captured(), m.IsCapture())
}

// xtExpect checks that the legal moves of p are exactly the moves named in
// want. Several notations in want with the same key are equivalent paths of
// one move: the engine must list that move once, under one of those paths.
func xtExpect(t testing.TB, p Position, want ...string) []Move {
	t.Helper()
	wantPaths := map[string][]string{}
	for _, w := range want {
		k := xtPathKey(w)
		wantPaths[k] = append(wantPaths[k], w)
	}
	moves := p.LegalMoves()
	got := map[string]string{}
	var gotList []string
	ok := true
	for i := range moves {
		m := &moves[i]
		s := m.String()
		gotList = append(gotList, s)
		k := xtMoveKey(m)
		if prev, dup := got[k]; dup {
			t.Errorf("move %s listed twice (also as %s)", s, prev)
			ok = false
		}
		got[k] = s
		paths, expected := wantPaths[k]
		if !expected {
			t.Errorf("unexpected legal move %s", s)
			ok = false
			continue
		}
		found := false
		for _, w := range paths {
			if w == s {
				found = true
			}
		}
		if !found {
			t.Errorf("move %s has key %s but its path is none of %v", s, k, paths)
			ok = false
		}
	}
	for k, paths := range wantPaths {
		if _, present := got[k]; !present {
			t.Errorf("missing legal move %s", paths[0])
			ok = false
		}
	}
	if !ok {
		t.Logf("position R/B pieces %v, %v to move; got moves %v; want %v", p.Pieces(), p.SideToMove(), gotList, want)
	}
	if n := p.CountMoves(make([]Move, 0, 128)); n != len(want)-xtDupCount(want) {
		t.Errorf("CountMoves = %d, want %d", n, len(want)-xtDupCount(want))
	}
	return moves
}

func xtDupCount(want []string) int {
	seen := map[string]bool{}
	d := 0
	for _, w := range want {
		k := xtPathKey(w)
		if seen[k] {
			d++
		}
		seen[k] = true
	}
	return d
}

// xtFind returns the legal move with the given notation.
func xtFind(t testing.TB, p Position, notation string) Move {
	t.Helper()
	for _, m := range p.LegalMoves() {
		if m.String() == notation {
			return m
		}
	}
	t.Fatalf("no legal move %s", notation)
	return Move{}
}

// xtAt asserts the piece on a square (want "" for empty, else e.g. "RD" =
// red Dama, "BP" = black Pedine, "RM" = red Damone).
func xtAt(t testing.TB, p *Position, square, want string) {
	t.Helper()
	pc, ok := p.PieceAt(xtSquare(square))
	got := ""
	if ok {
		got = string("RB"[pc.Side]) + string("PDM"[pc.Rank])
	}
	if got != want {
		t.Errorf("on %s: got %q, want %q", square, got, want)
	}
}

// ---------------------------------------------------------------- Moves

// RULES.md, Moves: Pedines step forward and sideways, never backward; Red
// forward = north-west, Black forward = south-east. Damas and Damones use
// all four diagonals.
func TestRulesSteps(t *testing.T) {
	cases := []struct {
		name       string
		stm        Side
		red, black string
		want       []string
	}{
		// Red Pedine e4: NW d5, NE f5, SW d3; never SE f3.
		{"red pedine", Red, "Pe4", "Ph7", []string{"e4-d5", "e4-f5", "e4-d3"}},
		// Black Pedine e4: SE f3, NE f5, SW d3; never NW d5.
		{"black pedine", Black, "Pa2", "Pe4", []string{"e4-f3", "e4-f5", "e4-d3"}},
		{"red dama", Red, "De4", "Ph7", []string{"e4-d5", "e4-f5", "e4-d3", "e4-f3"}},
		{"black dama", Black, "Pa2", "De4", []string{"e4-d5", "e4-f5", "e4-d3", "e4-f3"}},
		{"red damone", Red, "Me4", "Ph7", []string{"e4-d5", "e4-f5", "e4-d3", "e4-f3"}},
		{"black damone", Black, "Pa2", "Me4", []string{"e4-d5", "e4-f5", "e4-d3", "e4-f3"}},
		// Edges: Red Pedine a2 has only NE b3 (NW, SW off the board).
		{"red pedine edge", Red, "Pa2", "Ph7", []string{"a2-b3"}},
		// Black Pedine h7: SE off board, NE off board, SW g6.
		{"black pedine edge", Black, "Pa2", "Ph7", []string{"h7-g6"}},
		// Steps onto occupied squares (own or enemy) are not moves:
		// Red Pedine e4 with own d5 and enemy f5 -> only e4-d3 (and d5's own
		// steps: c6, e6, c4; it cannot go SE to e4 anyway).
		{"occupied", Red, "Pe4,Pd5", "Df5,Ph7", []string{"e4-d3", "d5-c6", "d5-e6", "d5-c4"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			xtExpect(t, xtPos(t, c.stm, c.red, c.black), c.want...)
		})
	}
}

// RULES.md, Moves/Captures: the same three directions apply to Pedine
// captures; Damas capture in all four.
func TestRulesCaptureDirections(t *testing.T) {
	cases := []struct {
		name       string
		stm        Side
		red, black string
		want       []string
	}{
		{"red pedine NW", Red, "Pe4", "Pd5", []string{"e4xc6"}},
		{"red pedine NE", Red, "Pe4", "Pf5", []string{"e4xg6"}},
		{"red pedine SW", Red, "Pe4", "Pd3", []string{"e4xc2"}},
		// SE is backward for Red: no capture, so the steps are legal.
		{"red pedine SE forbidden", Red, "Pe4", "Pf3", []string{"e4-d5", "e4-f5", "e4-d3"}},
		{"black pedine SE", Black, "Pf3", "Pe4", []string{"e4xg2"}},
		{"black pedine NE", Black, "Pf5", "Pe4", []string{"e4xg6"}},
		{"black pedine SW", Black, "Pd3", "Pe4", []string{"e4xc2"}},
		// NW is backward for Black.
		{"black pedine NW forbidden", Black, "Pd5", "Pe4", []string{"e4-f3", "e4-f5", "e4-d3"}},
		{"red dama SE", Red, "De4", "Pf3", []string{"e4xg2"}},
		{"black dama NW", Black, "Pd5", "De4", []string{"e4xc6"}},
		// No landing square beyond the edge: Red Pedine b7? use a7 edge:
		// Red Dama g2 with Black Pedine h3? h3 is on the edge, nothing beyond.
		{"no leap off the board", Red, "Dg2", "Dh3", []string{"g2-f3", "g2-f1", "g2-h1"}},
		// A leap needs an empty landing square: Red Pedine e4, Black d5 with
		// Black c6 behind it -> no capture; steps f5, d3.
		{"blocked landing", Red, "Pe4", "Pd5,Pc6", []string{"e4-f5", "e4-d3"}},
		// Own pieces are never captured: Red Pedine e4 and own d5.
		{"own piece", Red, "Pe4,Pd5", "Ph7", []string{"e4-f5", "e4-d3", "d5-c6", "d5-e6", "d5-c4"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			xtExpect(t, xtPos(t, c.stm, c.red, c.black), c.want...)
		})
	}
}

// RULES.md, Captures: a piece may capture only the same or a lower rank.
func TestRulesRankLimits(t *testing.T) {
	cases := []struct {
		name       string
		stm        Side
		red, black string
		want       []string
	}{
		// Pedine cannot take Dama (d5) or Damone (f5): only the step d3.
		{"pedine vs dama and damone", Red, "Pe4", "Dd5,Mf5", []string{"e4-d3"}},
		// Pedine takes the Pedine d3, not the Dama d5.
		{"pedine takes pedine only", Red, "Pe4", "Pd3,Dd5", []string{"e4xc2"}},
		// Dama cannot take a Damone: steps only.
		{"dama vs damone", Red, "De4", "Md5", []string{"e4-f5", "e4-d3", "e4-f3"}},
		// Dama takes the Dama f5, never the Damone d5.
		{"dama takes dama", Red, "De4", "Md5,Df5", []string{"e4xg6"}},
		{"dama takes pedine", Red, "De4", "Md5,Pf5", []string{"e4xg6"}},
		// Damone takes anything.
		{"damone takes damone", Red, "Me4", "Md5", []string{"e4xc6"}},
		{"damone takes dama", Red, "Me4", "Dd5", []string{"e4xc6"}},
		{"damone takes pedine", Red, "Me4", "Pd5", []string{"e4xc6"}},
		// The same for Black.
		{"black pedine vs dama", Black, "Df3", "Pe4", []string{"e4-f5", "e4-d3"}},
		{"black dama vs damone", Black, "Mf3", "De4", []string{"e4-d5", "e4-f5", "e4-d3"}},
		{"black damone takes damone", Black, "Mf3", "Me4", []string{"e4xg2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			xtExpect(t, xtPos(t, c.stm, c.red, c.black), c.want...)
		})
	}
}

// RULES.md, Captures: capturing is compulsory; no step is legal when any
// capture exists, whichever piece has it.
func TestRulesCaptureCompulsory(t *testing.T) {
	// Red Dama a2 could step to b1 or b3; Red Damone h1 to g2; but the
	// Pedine e4 can take d5.
	p := xtPos(t, Red, "Pe4,Da2,Mh1", "Pd5")
	xtExpect(t, p, "e4xc6")
	if !p.HasCapture() {
		t.Error("HasCapture = false, want true")
	}
	q := xtPos(t, Red, "Pe4,Da2,Mh1", "Pd7")
	xtExpect(t, q, "e4-d5", "e4-f5", "e4-d3", "a2-b1", "a2-b3", "h1-g2")
	if q.HasCapture() {
		t.Error("HasCapture = true, want false")
	}
}

// RULES.md, Captures: a sequence must be completed; it cannot stop early.
// Also RULES.md, Promotion: a Pedine reaching the enemy Damone corner (a8)
// stays a Pedine and can never move again.
func TestRulesSequenceMustComplete(t *testing.T) {
	// e4 over d5 to c6, then over b7 to a8. From c6 the other leaps (d7, b5)
	// have nothing to take; at a8 nothing is left. Stopping on c6 is illegal.
	p := xtPos(t, Red, "Pe4", "Pd5,Pb7")
	moves := xtExpect(t, p, "e4xc6xa8")
	if len(moves) != 1 {
		return
	}
	m := moves[0]
	if r, promo := m.Promotion(); promo || r != Pedine {
		t.Errorf("e4xc6xa8: Promotion() = %v, %v; want pedine, false", r, promo)
	}
	q := p.After(&m)
	xtAt(t, &q, "a8", "RP")
	xtAt(t, &q, "e4", "")
	xtAt(t, &q, "d5", "")
	xtAt(t, &q, "b7", "")
	if q.CountSide(Black) != 0 || q.CountSide(Red) != 1 {
		t.Errorf("after e4xc6xa8: counts red %d black %d, want 1 0", q.CountSide(Red), q.CountSide(Black))
	}
	// The Pedine on a8 has no direction left: no legal move for Red.
	stuck := xtPos(t, Red, "Pa8", "Ph7")
	xtExpect(t, stuck)
	// Likewise a Black Pedine on h1.
	stuckB := xtPos(t, Black, "Pa2", "Ph1")
	xtExpect(t, stuckB)
	// And a three-leap chain for Black: f7 (SE) over g6? use a zig-zag:
	// Black Pedine b7 SE over c6 -> d5, NE over e6 -> f7? NE from d5 is e6,
	// landing f7; then from f7 SE over g6 -> h5. All three must be taken.
	r := xtPos(t, Black, "Pc6,Pe6,Pg6", "Pb7")
	xtExpect(t, r, "b7xd5xf7xh5")
}

// RULES.md, Captures: captured pieces stay on the board until the move
// ends and cannot be jumped twice.
func TestRulesNoDoubleJump(t *testing.T) {
	// Dama d3 over e4 to f5; from f5 the only piece near is e4 (already
	// captured): jumping it back to d3 would take it twice.
	xtExpect(t, xtPos(t, Red, "Dd3", "Pe4"), "d3xf5")
	xtExpect(t, xtPos(t, Red, "Md3", "De4"), "d3xf5")
	// Captured pieces still block: Dama c1? (light). Dama b2 is light too;
	// use Dama a2: over b3 to c4, over d5 to e6 (2). From e6 nothing.
	// Now Black also on c4's neighbour? Keep the simple block case:
	// Dama d1, Black e2, Black g4: d1xf3xh5; from h5 nothing.
	xtExpect(t, xtPos(t, Red, "Dd1", "Pe2,Pg4"), "d1xf3xh5")
}

// RULES.md, Captures: the origin counts as empty during the sequence (it may
// land there again); duplicate sequences (same origin, destination and
// captured set) are one move, listed once under any one of its paths.
func TestRulesOriginReusableAndDuplicateLoop(t *testing.T) {
	// Dama d3 around the square e4, g4, g2, e2: d3 -NE-> f5 -SE-> h3 -SW->
	// f1 -NW-> d3, or the other way round. One move, 4 captures, ends on d3.
	p := xtPos(t, Red, "Dd3", "Pe4,Pg4,Pg2,Pe2")
	moves := xtExpect(t, p, "d3xf5xh3xf1xd3", "d3xf1xh3xf5xd3")
	if len(moves) == 1 {
		m := moves[0]
		if m.CaptureCount() != 4 || m.From() != xtSquare("d3") || m.To() != xtSquare("d3") {
			t.Errorf("loop move %s: count %d from %v to %v", m, m.CaptureCount(), m.From(), m.To())
		}
		want := uint64(1)<<xtSquare("e4") | 1<<xtSquare("g4") | 1<<xtSquare("g2") | 1<<xtSquare("e2")
		if m.CapturedSet() != want {
			t.Errorf("CapturedSet = %#x, want %#x", m.CapturedSet(), want)
		}
		q := p.After(&m)
		xtAt(t, &q, "d3", "RD")
		if q.CountSide(Black) != 0 || q.CountSide(Red) != 1 {
			t.Errorf("after the loop: red %d black %d pieces, want 1 0", q.CountSide(Red), q.CountSide(Black))
		}
	}
	// With a fifth Black Pedine on c2 the sequence passes through its origin
	// d3 and goes on over c2 to b1: 5 captures, one move (two paths). The
	// short alternative d3xb1 (1 capture) is outranked.
	p5 := xtPos(t, Red, "Dd3", "Pe4,Pg4,Pg2,Pe2,Pc2")
	xtExpect(t, p5, "d3xf5xh3xf1xd3xb1", "d3xf1xh3xf5xd3xb1")
}

// RULES.md, Captures: sequences with the same origin and destination but
// different captured pieces are different moves.
func TestRulesSameEndsDifferentCaptures(t *testing.T) {
	// Red Pedine d1; Black Pedines c2, c4, e2, e4, e6.
	//  A: d1 -NW over c2-> b3 -NE over c4-> d5 -NE over e6-> f7
	//  B: d1 -NE over e2-> f3 -NW over e4-> d5 -NE over e6-> f7
	//  C: d1 -NE over e2-> f3 -NW over e4-> d5 -SW over c4-> b3
	// At d5 in A, e4 is south-east (backward for Red); at b3 in C, c2 is
	// south-east too. All three take 3 Pedines with a Pedine: all legal.
	// A and B share origin and destination but not the captured set.
	p := xtPos(t, Red, "Pd1", "Pc2,Pc4,Pe2,Pe4,Pe6")
	xtExpect(t, p, "d1xb3xd5xf7", "d1xf3xd5xf7", "d1xf3xd5xb3")
}

// RULES.md, Promotion: a piece is promoted only where its move ends.
func TestRulesPromotionOnlyAtEnd(t *testing.T) {
	// Red Pedine c4; Black Pedines b5, b7: c4 over b5 to a6 (a promotion
	// square, but the sequence goes on as a Pedine) over b7 to c8: promoted
	// on c8.
	p := xtPos(t, Red, "Pc4", "Pb5,Pb7")
	moves := xtExpect(t, p, "c4xa6xc8")
	if len(moves) == 1 {
		m := moves[0]
		if r, promo := m.Promotion(); !promo || r != Dama {
			t.Errorf("c4xa6xc8: Promotion() = %v, %v; want dama, true", r, promo)
		}
		if m.Rank() != Pedine {
			t.Errorf("c4xa6xc8: Rank() = %v, want pedine", m.Rank())
		}
		q := p.After(&m)
		xtAt(t, &q, "c8", "RD")
		xtAt(t, &q, "a6", "")
		xtAt(t, &q, "c4", "")
		if q.CountSide(Black) != 0 {
			t.Errorf("black pieces left: %d", q.CountSide(Black))
		}
	}
	// b7 a Black Dama: the Pedine cannot take it, so the sequence ends on
	// a6, where it is promoted. (Promoted mid-sequence it could go on.)
	p2 := xtPos(t, Red, "Pc4", "Pb5,Db7")
	moves = xtExpect(t, p2, "c4xa6")
	if len(moves) == 1 {
		m := moves[0]
		if r, promo := m.Promotion(); !promo || r != Dama {
			t.Errorf("c4xa6: Promotion() = %v, %v; want dama, true", r, promo)
		}
		q := p2.After(&m)
		xtAt(t, &q, "a6", "RD")
		xtAt(t, &q, "b7", "BD")
		xtAt(t, &q, "b5", "")
	}
	// Passing through c8 mid-sequence: e6 over d7 to c8, over b7 to a6.
	p3 := xtPos(t, Red, "Pe6", "Pd7,Pb7")
	moves = xtExpect(t, p3, "e6xc8xa6")
	if len(moves) == 1 {
		q := p3.After(&moves[0])
		xtAt(t, &q, "a6", "RD")
		xtAt(t, &q, "c8", "")
	}
	// Black: f5 over g4 to h3 (a promotion square) then over g2 to f1:
	// promoted once, on f1.
	p4 := xtPos(t, Black, "Pg4,Pg2", "Pf5")
	moves = xtExpect(t, p4, "f5xh3xf1")
	if len(moves) == 1 {
		q := p4.After(&moves[0])
		xtAt(t, &q, "f1", "BD")
		xtAt(t, &q, "h3", "")
	}
}

// RULES.md, Promotion: the promotion squares and ranks, by step and by
// capture, for both sides; a Pedine never becomes a Damone; a Damone is
// never promoted.
func TestRulesPromotionSquares(t *testing.T) {
	type promo struct {
		move string
		rank Rank // rank after the move
		yes  bool
	}
	cases := []struct {
		name       string
		stm        Side
		red, black string
		want       []promo
	}{
		{"red pedine b5", Red, "Pb5", "Ph7", []promo{{"b5-a6", Dama, true}, {"b5-c6", Pedine, false}, {"b5-a4", Pedine, false}}},
		// b7: NW a8 (enemy Damone corner: stays Pedine), NE c8 and SW a6
		// (promotion squares).
		{"red pedine b7", Red, "Pb7", "Ph7", []promo{{"b7-a8", Pedine, false}, {"b7-c8", Dama, true}, {"b7-a6", Dama, true}}},
		{"black pedine g2", Black, "Pa2", "Pg2", []promo{{"g2-h3", Dama, true}, {"g2-f1", Dama, true}, {"g2-h1", Pedine, false}}},
		{"red dama b7", Red, "Db7", "Ph7", []promo{{"b7-a8", Damone, true}, {"b7-c8", Dama, false}, {"b7-a6", Dama, false}, {"b7-c6", Dama, false}}},
		{"black dama g2", Black, "Pa2", "Dg2", []promo{{"g2-h1", Damone, true}, {"g2-f1", Dama, false}, {"g2-h3", Dama, false}, {"g2-f3", Dama, false}}},
		{"red damone b7", Red, "Mb7", "Ph7", []promo{{"b7-a8", Damone, false}, {"b7-c8", Damone, false}, {"b7-a6", Damone, false}, {"b7-c6", Damone, false}}},
		{"black damone g2", Black, "Pa2", "Mg2", []promo{{"g2-h1", Damone, false}, {"g2-f1", Damone, false}, {"g2-h3", Damone, false}, {"g2-f3", Damone, false}}},
		// Red's promotion squares are not Black's: Black Pedine b7 -> c8 (NE)
		// and a6 (SW) stays a Pedine; likewise Red Pedine g2 -> h3, f1.
		{"black pedine b7", Black, "Pa2", "Pb7", []promo{{"b7-c6", Pedine, false}, {"b7-c8", Pedine, false}, {"b7-a6", Pedine, false}}},
		{"red pedine g2", Red, "Pg2", "Pb7", []promo{{"g2-f3", Pedine, false}, {"g2-h3", Pedine, false}, {"g2-f1", Pedine, false}}},
		// By capture.
		{"red dama capture to a8", Red, "Dc6", "Pb7", []promo{{"c6xa8", Damone, true}}},
		{"black dama capture to h1", Black, "Pg2", "Df3", []promo{{"f3xh1", Damone, true}}},
		{"black pedine capture to f1", Black, "Pe2", "Pd3", []promo{{"d3xf1", Dama, true}}},
		{"black pedine capture to h3", Black, "Pg4", "Pf5", []promo{{"f5xh3", Dama, true}}},
		{"red pedine capture to a6", Red, "Pc4", "Pb5", []promo{{"c4xa6", Dama, true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := xtPos(t, c.stm, c.red, c.black)
			var names []string
			for _, w := range c.want {
				names = append(names, w.move)
			}
			xtExpect(t, p, names...)
			for _, w := range c.want {
				m := xtFind(t, p, w.move)
				r, yes := m.Promotion()
				if r != w.rank || yes != w.yes {
					t.Errorf("%s: Promotion() = %v, %v; want %v, %v", w.move, r, yes, w.rank, w.yes)
				}
				q := p.After(&m)
				pc, ok := q.PieceAt(m.To())
				if !ok || pc.Rank != w.rank || pc.Side != c.stm {
					t.Errorf("%s: piece on %v after the move = %v, %v; want %v %v", w.move, m.To(), pc, ok, c.stm, w.rank)
				}
			}
		})
	}
	// A Dama that was once a Pedine later becomes a Damone like any other:
	// Red Pedine b7 -> c8 (Dama), then (after a Black move) c8 -> b7 ->
	// a8 is two moves; check the last step b7-a8 promotes the promoted
	// Dama by playing the whole line.
	p := xtPos(t, Red, "Pb7", "Ph7")
	m := xtFind(t, p, "b7-c8")
	p.Play(&m)
	m = xtFind(t, p, "h7-g6")
	p.Play(&m)
	m = xtFind(t, p, "c8-b7")
	p.Play(&m)
	m = xtFind(t, p, "g6-h5")
	p.Play(&m)
	m = xtFind(t, p, "b7-a8")
	if r, yes := m.Promotion(); r != Damone || !yes {
		t.Errorf("b7-a8 by a former Pedine: Promotion() = %v, %v; want damone, true", r, yes)
	}
	p.Play(&m)
	xtAt(t, &p, "a8", "RM")
}

// RULES.md, Captures, Priority, step 1: the number of pieces captured
// comes first, whatever the capturer's or the captured ranks.
func TestRulesPriorityCount(t *testing.T) {
	// Pedine e4 takes two Pedines (d5, b7) ending on a8; Damone h5 takes
	// one Damone (g6 -> f7). Two beats one.
	xtExpect(t, xtPos(t, Red, "Pe4,Mh5", "Pd5,Pb7,Mg6"), "e4xc6xa8")
}

// Step 2: equal counts, the capturer's rank decides; a Pedine whose capture
// ends in promotion still counts as a Pedine.
func TestRulesPriorityCapturerRank(t *testing.T) {
	// Dama a2 over b3 to c4 vs Pedine e4 over f5 to g6: both take one
	// Pedine; the Dama's is legal.
	xtExpect(t, xtPos(t, Red, "Da2,Pe4", "Pb3,Pf5"), "a2xc4")
	// Damone h5 over g6 to f7 vs Dama a2 over b3 to c4.
	xtExpect(t, xtPos(t, Red, "Da2,Mh5", "Pb3,Pg6"), "h5xf7")
	// Pedine e6 over d7 to c8 promotes, but still ranks as a Pedine below
	// the Dama a2 (over b3 to c4).
	xtExpect(t, xtPos(t, Red, "Da2,Pe6", "Pb3,Pd7"), "a2xc4")
	// Two Pedines, one promoting: a tie, both legal.
	xtExpect(t, xtPos(t, Red, "Pa2,Pe6", "Pb3,Pd7"), "a2xc4", "e6xc8")
	// Black: Pedine d3 over e2 to f1 (promotes) vs Dama h7 over g6 to f5.
	xtExpect(t, xtPos(t, Black, "Pe2,Pg6", "Pd3,Dh7"), "h7xf5")
}

// Step 3: equal counts and capturer, the captured ranks sorted high to low
// compared position by position.
func TestRulesPriorityCapturedRanks(t *testing.T) {
	// Damone e4 can take the Damone d5 (to c6), the Dama f5 (to g6) or the
	// Pedine d3 (to c2): the Damone line wins.
	xtExpect(t, xtPos(t, Red, "Me4", "Md5,Df5,Pd3"), "e4xc6")
	// Without the Damone, the Dama line wins.
	xtExpect(t, xtPos(t, Red, "Me4", "Df5,Pd3"), "e4xg6")
	// Damone d1: NE line e2 (Damone), g4 (Pedine) to h5; NW line c2, c4
	// (Damas) to d5. [M,P] beats [D,D] at the first position (a sum of
	// ranks would tie them).
	xtExpect(t, xtPos(t, Red, "Md1", "Me2,Pg4,Dc2,Dc4"), "d1xf3xh5")
	// Dama d1: [D,P] beats [P,P].
	xtExpect(t, xtPos(t, Red, "Dd1", "De2,Pg4,Pc2,Pc4"), "d1xf3xh5")
	// [D,D] beats [D,P] (second position).
	xtExpect(t, xtPos(t, Red, "Md1", "De2,Pg4,Dc2,Dc4"), "d1xb3xd5")
}

// Rule vii: all sequences that tie on the whole key are legal, across
// pieces as well as within one piece's lines.
func TestRulesPriorityTies(t *testing.T) {
	xtExpect(t, xtPos(t, Red, "Da2,Dh5", "Pb3,Pg6"), "a2xc4", "h5xf7")
	xtExpect(t, xtPos(t, Red, "Dd1", "De2,Pg4,Pc2,Dc4"), "d1xf3xh5", "d1xb3xd5")
}

// RULES.md, Promotion: a position with a piece standing unpromoted on its
// own promotion square is rejected; the same squares for other pieces are
// fine. Also the basic placement errors.
func TestRulesNewPositionRejects(t *testing.T) {
	bad := []struct {
		side Side
		rank Rank
		sq   string
	}{
		{Red, Pedine, "a6"}, {Red, Pedine, "c8"}, {Red, Dama, "a8"},
		{Black, Pedine, "f1"}, {Black, Pedine, "h3"}, {Black, Dama, "h1"},
	}
	for _, b := range bad {
		pieces := []PlacedPiece{{xtSquare(b.sq), Piece{b.side, b.rank}}, {xtSquare("d5"), Piece{b.side ^ 1, Pedine}}}
		if _, err := NewPosition(Red, pieces, 0); err == nil {
			t.Errorf("NewPosition accepted a %v %v on %s", b.side, b.rank, b.sq)
		} else if _, ok := err.(*PositionError); !ok {
			t.Errorf("NewPosition error for %v %v on %s is %T, want *PositionError", b.side, b.rank, b.sq, err)
		}
	}
	good := []struct {
		side Side
		rank Rank
		sq   string
	}{
		{Red, Pedine, "a8"}, {Red, Dama, "a6"}, {Red, Dama, "c8"}, {Red, Damone, "a8"},
		{Red, Pedine, "f1"}, {Red, Pedine, "h3"}, {Red, Dama, "h1"},
		{Black, Pedine, "h1"}, {Black, Dama, "f1"}, {Black, Dama, "h3"}, {Black, Damone, "h1"},
		{Black, Pedine, "a6"}, {Black, Pedine, "c8"}, {Black, Dama, "a8"},
	}
	for _, g := range good {
		pieces := []PlacedPiece{{xtSquare(g.sq), Piece{g.side, g.rank}}}
		if _, err := NewPosition(g.side, pieces, 0); err != nil {
			t.Errorf("NewPosition rejected a %v %v on %s: %v", g.side, g.rank, g.sq, err)
		}
	}
	// Two pieces on one square.
	if _, err := NewPosition(Red, []PlacedPiece{{xtSquare("d5"), Piece{Red, Pedine}}, {xtSquare("d5"), Piece{Black, Dama}}}, 0); err == nil {
		t.Error("NewPosition accepted two pieces on d5")
	}
	// Light and off-board squares.
	for _, s := range []Square{0 /* a1 */, 9 /* b2 */, 63 - 0 /* h8 */, 64, 200} {
		if _, err := NewPosition(Red, []PlacedPiece{{s, Piece{Red, Dama}}}, 0); err == nil {
			t.Errorf("NewPosition accepted a piece on square %d", s)
		}
	}
	// ParseSquare: light squares and off-board are errors.
	for _, s := range []string{"a1", "b2", "h8", "e5", "i1", "a9", "a0", "", "h", "h11"} {
		if _, err := ParseSquare(s); err == nil {
			t.Errorf("ParseSquare(%q) accepted", s)
		}
	}
	for _, s := range []string{"h1", "a8", "b1", "g8", "e4", "d5"} {
		got, err := ParseSquare(s)
		if err != nil || got != xtSquare(s) || got.String() != s {
			t.Errorf("ParseSquare(%q) = %v (%v), %v", s, got, got.String(), err)
		}
	}
}

// RULES.md, Sides and setup: both setups as tabled, by side to move.
func TestRulesSetups(t *testing.T) {
	cases := []struct {
		setup      Setup
		red, black string
	}{
		{SetupStandard, "Mh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5", "Ma8,Dc8,Da6,Pe8,Pd7,Pc6,Pb5,Pa4"},
		{SetupNoDamone, "Dh1,Df1,Dh3,Pe2,Pf3,Pg4", "Da8,Dc8,Da6,Pd7,Pc6,Pb5"},
	}
	for _, c := range cases {
		for _, first := range []Side{Red, Black} {
			want := xtPos(t, first, c.red, c.black)
			got, err := StartPosition(c.setup, first)
			if err != nil {
				t.Fatalf("StartPosition(%v, %v): %v", c.setup, first, err)
			}
			if !got.SamePlacement(&want) || got.SideToMove() != first || got.NoProgress() != 0 || got.Hash() != want.Hash() {
				t.Errorf("StartPosition(%v, %v) = %v, want %v", c.setup, first, got.Pieces(), want.Pieces())
			}
		}
	}
	// Who moves first is a game setting; the default is Red.
	for _, first := range []Side{Red, Black} {
		v := DefaultVariant()
		v.FirstPlayer = first
		g, err := NewGame(v)
		if err != nil {
			t.Fatal(err)
		}
		if p := g.Position(); p.SideToMove() != first {
			t.Errorf("FirstPlayer %v: side to move %v", first, p.SideToMove())
		}
	}
	if v := DefaultVariant(); v.FirstPlayer != Red {
		t.Errorf("default first player %v, want red", v.FirstPlayer)
	}
	// g2 and b7 start empty; the Damone's first moves go there.
	p, _ := StartPosition(SetupStandard, Red)
	xtExpect(t, p, "d1-c2", "e2-d3", "f1-g2", "f3-e4", "g4-f5", "h1-g2", "h3-g2", "h5-g6")
}

// RULES.md, End of the game (no progress): the counter restarts after a
// capture or a promotion and otherwise counts one more ply, Pedine steps
// included.
func TestRulesNoProgressCounter(t *testing.T) {
	cases := []struct {
		name       string
		stm        Side
		red, black string
		move       string
		before     int
		after      int
	}{
		{"pedine step", Red, "Pe4", "Ph7", "e4-d5", 5, 6},
		{"pedine sideways step", Red, "Pe4", "Ph7", "e4-d3", 0, 1},
		{"dama step", Red, "De4", "Ph7", "e4-f3", 79, 80},
		{"black damone step", Black, "Pa2", "Me4", "e4-f3", 12, 13},
		{"capture", Red, "Pe4", "Pd5", "e4xc6", 30, 0},
		{"pedine promotion step", Red, "Pb5", "Ph7", "b5-a6", 30, 0},
		{"dama promotion step", Red, "Db7", "Ph7", "b7-a8", 30, 0},
		{"black dama promotion step", Black, "Pa2", "Dg2", "g2-h1", 7, 0},
		{"pedine to enemy damone corner is no promotion", Red, "Pb7", "Ph7", "b7-a8", 7, 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := xtPosN(t, c.stm, c.red, c.black, c.before)
			if p.NoProgress() != c.before {
				t.Fatalf("NoProgress = %d, want %d", p.NoProgress(), c.before)
			}
			m := xtFind(t, p, c.move)
			q := p.After(&m)
			if q.NoProgress() != c.after {
				t.Errorf("after %s: NoProgress = %d, want %d", c.move, q.NoProgress(), c.after)
			}
		})
	}
	if _, err := NewPosition(Red, xtPieces(Red, "Pe4"), -1); err == nil {
		t.Error("NewPosition accepted a negative no-progress counter")
	}
}

// The hash covers the side to move (repetition is "the same position with
// the same side to move"), and the incremental hash equals the one computed
// from scratch.
func TestRulesHashSideToMove(t *testing.T) {
	r := xtPos(t, Red, "Pe4,Mh1", "Pd7,Ma8")
	b := xtPos(t, Black, "Pe4,Mh1", "Pd7,Ma8")
	if r.Hash() == b.Hash() {
		t.Error("hash does not depend on the side to move")
	}
	if r.SamePlacement(&b) {
		t.Error("SamePlacement ignores the side to move")
	}
	// Playing e4-d5 gives the position built directly with Black to move.
	m := xtFind(t, r, "e4-d5")
	q := r.After(&m)
	want := xtPosN(t, Black, "Pd5,Mh1", "Pd7,Ma8", 1)
	if q.Hash() != want.Hash() || q.Hash() != q.computeHash() || !q.SamePlacement(&want) || q != want {
		t.Errorf("after e4-d5: hash %#x (scratch %#x), want %#x", q.Hash(), q.computeHash(), want.Hash())
	}
	// The no-progress counter is not part of the hash.
	w2 := xtPosN(t, Black, "Pd5,Mh1", "Pd7,Ma8", 40)
	if w2.Hash() != want.Hash() {
		t.Error("hash depends on the no-progress counter")
	}
	// Different ranks on the same square hash differently.
	d := xtPos(t, Red, "De4,Mh1", "Pd7,Ma8")
	if d.Hash() == r.Hash() {
		t.Error("hash does not depend on rank")
	}
}

// Sanity of the helper itself: a test that cannot fail is a defect, so make
// sure xtExpect does fail on a wrong expectation.
func TestRulesHelperCanFail(t *testing.T) {
	ft := &xtFakeT{}
	xtExpect(ft, xtPos(t, Red, "Pe4", "Ph7"), "e4-d5", "e4-f5", "e4-f3")
	if !ft.failed {
		t.Error("xtExpect did not fail on a wrong move set")
	}
	ft = &xtFakeT{}
	xtExpect(ft, xtPos(t, Red, "Pe4", "Ph7"), "e4-d5", "e4-f5", "e4-d3")
	if ft.failed {
		t.Errorf("xtExpect failed on the right move set: %v", ft.msgs)
	}
}

type xtFakeT struct {
	testing.TB
	failed bool
	msgs   []string
}

func (f *xtFakeT) Helper() {}
func (f *xtFakeT) Errorf(format string, args ...any) {
	f.failed = true
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}
func (f *xtFakeT) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
}
func (f *xtFakeT) Logf(string, ...any) {}

// RULES.md, End of the game: when several endings hold after one ply,
// repetition comes before no progress, and wins before both.
func TestRulesEndingPrecedence(t *testing.T) {
	v := DefaultVariant()
	v.Setup = SetupCustom
	v.Start = xtPos(t, Red, "Mc2,Dd3,Pg4", "Mc6,Md7,Pg6")
	v.NoProgressLimit = 8
	g, err := NewGame(v)
	if err != nil {
		t.Fatal(err)
	}
	// The start occurs again after plies 4 and 8; ply 8 also reaches the
	// limit of 8 plies without progress.
	for i, m := range strings.Fields("c2-b1 g6-h7 b1-c2 h7-g6 c2-b1 g6-h7 b1-c2 h7-g6") {
		if _, err := g.PlayText(m); err != nil {
			t.Fatalf("ply %d %s: %v", i+1, m, err)
		}
		if i < 7 && g.Outcome().Over() {
			t.Fatalf("over after ply %d: %v", i+1, g.Outcome())
		}
	}
	if o := g.Outcome(); o != (Outcome{Draw, Repetition}) {
		t.Errorf("third occurrence on the ply that reaches the limit: %v, want draw (repetition)", o)
	}
	// With repetition off, the same ply ends by no progress.
	v.RepetitionDraw = false
	g, _ = NewGame(v)
	for _, m := range strings.Fields("c2-b1 g6-h7 b1-c2 h7-g6 c2-b1 g6-h7 b1-c2 h7-g6") {
		g.PlayText(m)
	}
	if o := g.Outcome(); o != (Outcome{Draw, NoProgress}) || g.Ply() != 8 {
		t.Errorf("repetition off: %v at ply %d, want draw (no progress) at ply 8", o, g.Ply())
	}
}

// RULES.md, End of the game: the no-progress count starts from the start's
// counter, and a start at the limit is over at ply 0.
func TestRulesDecidedStarts(t *testing.T) {
	v := DefaultVariant()
	v.Setup = SetupCustom
	v.NoProgressLimit = 5
	v.Start = xtPosN(t, Red, "Mc2", "Mc6", 3)
	g, err := NewGame(v)
	if err != nil {
		t.Fatal(err)
	}
	g.PlayText("c2-b1")
	if g.Outcome().Over() {
		t.Fatalf("over after one ply from counter 3 (limit 5): %v", g.Outcome())
	}
	g.PlayText("c6-b7")
	if o := g.Outcome(); o != (Outcome{Draw, NoProgress}) {
		t.Errorf("counter 3 + 2 plies, limit 5: %v, want draw (no progress)", o)
	}
	v.Start = xtPosN(t, Red, "Mc2", "Mc6", 5)
	if g, err := NewGame(v); err != nil || g.Outcome() != (Outcome{Draw, NoProgress}) {
		t.Errorf("start at the limit: %v, %v; want over at ply 0, draw (no progress)", g.Outcome(), err)
	}
	// A side without pieces, either to move or not.
	v.Start = xtPos(t, Red, "", "Mc6")
	if g, err := NewGame(v); err != nil || g.Outcome() != (Outcome{BlackWins, AllPiecesCaptured}) {
		t.Errorf("Red to move without pieces: %v, %v", g.Outcome(), err)
	}
	v.Start = xtPos(t, Red, "Mc2", "")
	if g, err := NewGame(v); err != nil || g.Outcome() != (Outcome{RedWins, AllPiecesCaptured}) {
		t.Errorf("Black without pieces, Red to move: %v, %v", g.Outcome(), err)
	}
	// Blocked at the start: Black Pedine b7 against Damas on a6, c6, c8,
	// with the counter also past the limit: the win comes first.
	v.Start = xtPosN(t, Black, "Dc6,Dc8,Da6", "Pb7", 9)
	if g, err := NewGame(v); err != nil || g.Outcome() != (Outcome{RedWins, Stalemate}) {
		t.Errorf("blocked start past the limit: %v, %v; want red wins (stalemate)", g.Outcome(), err)
	}
	if _, err := g.PlayText("b7-a8"); err != ErrGameOver {
		t.Errorf("a move in a decided start: %v, want ErrGameOver", err)
	}
}

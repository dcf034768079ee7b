package engine

// The four worked examples of the capture priority rule in
// shared/seeds/002_9f2b78095a0f6e48.txt (RULES.md: "required test cases,
// each built as a real position on the board"). Each position was designed
// and its legal moves worked out by hand; the comments give the lines.

import "testing"

// Two geometries are reused:
//
// Two Red Damones, "A" on b1 and "B" on a2:
//   A: b1 -NE over c2-> d3 -NE over e4-> f5 -NE over g6-> h7
//      (from d3: c4, e2 empty; from f5: e6, g4 empty; h7: g8 empty)
//   B: a2 -NE over b3-> c4 -NW over b5-> a6 -NE over b7-> c8
//      (from c4: d5, d3 empty; from a6 nothing else; from c8: d7 empty)
//   The lines do not touch (d3 and c4 are neighbours, but both are empty
//   landing squares). A Damone on a6 or c8 is not promoted.
//
// One Red piece on d1 with two lines:
//   NE: d1 -NE over e2-> f3 -NE over g4-> h5 -NW over g6-> f7
//   NW: d1 -NW over c2-> b3 -NE over c4-> d5 -NW over c6-> b7
//   (from f3: e4, g2 empty; h5: only g6; f7: e8, g8, e6 empty;
//    b3: a4, a2 empty; d5: e6, e4 empty; b7: a8, c8, a6 empty)

// Example 1: Damone A can capture 2 Damones and 1 Pedine, Damone B 1 Damone
// and 2 Damas: rule iv, A's line (2 Damones) must be taken. (A sum of ranks
// would tie: 2+2+0 = 2+1+1.)
func TestSeedExample1(t *testing.T) {
	p := xtPos(t, Red, "Mb1,Ma2", "Mc2,Me4,Pg6, Mb3,Db5,Db7")
	xtExpect(t, p, "b1xd3xf5xh7")
	// The same with the lines swapped between the Damones: B's line wins.
	q := xtPos(t, Red, "Mb1,Ma2", "Mc2,De4,Dg6, Mb3,Mb5,Pb7")
	xtExpect(t, q, "a2xc4xa6xc8")
	// And for Black, the board turned half round (square s -> 63-s):
	// Black Damones g8 (A) and h7 (B).
	r := xtPos(t, Black, "Mf7,Md5,Pb3, Mg6,Dg4,Dg2", "Mg8,Mh7")
	xtExpect(t, r, "g8xe6xc4xa2")
}

// Example 2: one Damone, two lines: A = 2 Damones + 1 Pedine, B = 1 Damone
// + 2 Damas. Line A must be taken.
func TestSeedExample2(t *testing.T) {
	p := xtPos(t, Red, "Md1", "Me2,Mg4,Pg6, Mc2,Dc4,Dc6")
	xtExpect(t, p, "d1xf3xh5xf7")
	// Swapped between the two lines, and in another order along the line
	// (Pedine first): still the 2-Damone line.
	q := xtPos(t, Red, "Md1", "Pe2,Mg4,Mg6, Dc2,Dc4,Mc6")
	xtExpect(t, q, "d1xf3xh5xf7")
	r := xtPos(t, Red, "Md1", "Me2,Dg4,Dg6, Pc2,Mc4,Mc6")
	xtExpect(t, r, "d1xb3xd5xb7")
}

// Example 3: Damone A can capture 1 Damone + 2 Damas, Damone B 1 Damone +
// 1 Dama + 1 Pedine: rule vi, A's line (2 Damas) must be taken.
func TestSeedExample3(t *testing.T) {
	p := xtPos(t, Red, "Mb1,Ma2", "Mc2,De4,Dg6, Mb3,Db5,Pb7")
	xtExpect(t, p, "b1xd3xf5xh7")
	q := xtPos(t, Red, "Mb1,Ma2", "Mc2,De4,Pg6, Db3,Mb5,Db7")
	xtExpect(t, q, "a2xc4xa6xc8")
	// One Damone, two lines (the d1 geometry).
	r := xtPos(t, Red, "Md1", "Me2,Dg4,Pg6, Dc2,Mc4,Dc6")
	xtExpect(t, r, "d1xb3xd5xb7")
}

// Example 4: one Dama, two lines each of 1 Dama + 1 Pedine: rule vii, both
// lines are legal, whatever the order of the ranks along the line.
func TestSeedExample4(t *testing.T) {
	// d1 NE over e2 (Dama) to f3, over g4 (Pedine) to h5; NW over c2
	// (Pedine) to b3, over c4 (Dama) to d5. From f3: e4, g2 empty; h5: g6
	// empty; b3: a4, a2 empty; d5: c6, e6, e4 empty.
	p := xtPos(t, Red, "Dd1", "De2,Pg4, Pc2,Dc4")
	xtExpect(t, p, "d1xf3xh5", "d1xb3xd5")
	// The same for Black, the board turned half round: Dama e8, lines
	// over d7, b5 and over f7, f5.
	q := xtPos(t, Black, "Dd7,Pb5, Pf7,Df5", "De8")
	xtExpect(t, q, "e8xc6xa4", "e8xg6xe4")
	// Two Damas, one line each, tie too (rule vii across pieces).
	r := xtPos(t, Red, "Db1,Da2", "Dc2,Pe4, Pb3,Db5")
	xtExpect(t, r, "b1xd3xf5", "a2xc4xa6")
}

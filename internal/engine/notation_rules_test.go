package engine

// Independent tests of RULES.md, Notation (move input, the position text
// form) and End of the game, on hand-built positions.

import (
	"errors"
	"strings"
	"testing"
)

const xtStandardText = "R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0"

func TestNotationPositionText(t *testing.T) {
	start, _ := StartPosition(SetupStandard, Red)
	if got := start.String(); got != xtStandardText {
		t.Errorf("standard start String() = %q, want %q", got, xtStandardText)
	}
	p, err := ParsePosition(xtStandardText)
	if err != nil || p != start {
		t.Errorf("ParsePosition(standard) = %v, %v", p.Pieces(), err)
	}
	// Hand-written canonical forms: side to move, both lists by rank from
	// Damone down, then by square a1..h8 (index order), counter.
	cases := []struct {
		stm        Side
		red, black string
		n          int
		want       string
	}{
		{Black, "Pe4,Mh1", "Pd7,Ma8", 0, "B:RMh1,Pe4:BMa8,Pd7:0"},
		{Red, "Dd3", "Pe4,Pg4,Pg2,Pe2", 17, "R:RDd3:BPe2,Pg2,Pe4,Pg4:17"},
		{Red, "Dh3,Df1,Mh1,Mb1", "Pa8", 65535, "R:RMb1,Mh1,Df1,Dh3:BPa8:65535"},
		{Black, "", "De8", 3, "B:R:BDe8:3"},
		{Red, "Dc6,Pa2", "", 0, "R:RDc6,Pa2:B:0"},
		{Black, "Dd7,Pb5,Pf7,Df5", "De8", 0, "B:RDf5,Dd7,Pb5,Pf7:BDe8:0"},
	}
	for _, c := range cases {
		p := xtPosN(t, c.stm, c.red, c.black, c.n)
		if got := p.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
		q, err := ParsePosition(c.want)
		if err != nil || q != p {
			t.Errorf("ParsePosition(%q) = %v, %v; want %v", c.want, q.Pieces(), err, p.Pieces())
		}
	}
	// Any order is read; String writes the canonical one.
	q, err := ParsePosition("R:RPh5,Pg4,Pf3,Pe2,Pd1,Dh3,Df1,Mh1:BPe8,Pd7,Pc6,Pb5,Pa4,Dc8,Da6,Ma8:0")
	if err != nil || q.String() != xtStandardText {
		t.Errorf("reordered standard: %q, %v", q.String(), err)
	}
}

func TestNotationPositionErrors(t *testing.T) {
	bad := []string{
		"",
		"R",
		"R:RMh1",
		"X:RMh1:BMa8:0",
		":RMh1:BMa8:0",
		"R:RMh1:BMa8:-1",
		"R:RMh1:BMa8:x",
		"R:RMh1:BMa8:0:0",
		"R:RXh1:BMa8:0",
		"R:RMa1:BMa8:0",     // light square
		"R:RMi1:BMa8:0",     // off the board
		"R:RMh1,Dh1:BMa8:0", // two pieces on h1
		"R:RMh1:BMh1:0",     // two pieces on h1
		"R:RPa6:BMa8:0",     // unpromoted Red Pedine on a6
		"R:RPc8:BMa8:0",
		"R:RDa8:BMh1:0",
		"R:RMh1:BPf1:0",
		"R:RMh1:BPh3:0",
		"R:RMa8:BDh1:0",
		"R:RMh1:RMa8:0", // two red lists
		"R:RMh1,:BMa8:0",
		"R:RMh1,,Pe2:BMa8:0",
		"R:XMh1:BMa8:0",
		"R:RM:BMa8:0",
		"R:RMh10:BMa8:0",
	}
	for _, s := range bad {
		_, err := ParsePosition(s)
		var pe *PositionError
		if err == nil {
			t.Errorf("ParsePosition(%q) accepted", s)
		} else if !errors.As(err, &pe) || pe.Reason == "" {
			t.Errorf("ParsePosition(%q): error %v (%T) is not a *PositionError with a reason", s, err, err)
		} else if n := strings.Count(s, ":"); (n == 2 || n == 3) && pe.Where == "" {
			// RULES.md, Notation: the error names what is wrong and where.
			t.Errorf("ParsePosition(%q): error %q does not say where", s, err)
		}
	}
}

// RULES.md, Notation and Captures: every equivalent path of a duplicate
// move is accepted; the short form when unambiguous; an ambiguous short
// form is an error listing the matching moves.
func TestNotationParseMoveAccepts(t *testing.T) {
	loop := xtPos(t, Red, "Dd3", "Pe4,Pg4,Pg2,Pe2")
	legal := loop.LegalMoves()
	for _, text := range []string{"d3xf5xh3xf1xd3", "d3xf1xh3xf5xd3", "d3xd3"} {
		m, err := loop.ParseMove(text)
		if err != nil {
			t.Errorf("ParseMove(%q): %v", text, err)
			continue
		}
		if len(legal) != 1 || !m.Equivalent(&legal[0]) || m.CaptureCount() != 4 {
			t.Errorf("ParseMove(%q) = %s, not the loop move", text, m)
		}
	}
	// Same origin and destination, different captured sets (see
	// TestRulesSameEndsDifferentCaptures).
	p := xtPos(t, Red, "Pd1", "Pc2,Pc4,Pe2,Pe4,Pe6")
	for text, key := range map[string]string{
		"d1xb3xd5xf7": "d1xb3xd5xf7",
		"d1xf3xd5xf7": "d1xf3xd5xf7",
		"d1xf3xd5xb3": "d1xf3xd5xb3",
		"d1xb3":       "d1xf3xd5xb3", // short form, one move ends on b3
	} {
		m, err := p.ParseMove(text)
		if err != nil {
			t.Errorf("ParseMove(%q): %v", text, err)
		} else if xtMoveKey(&m) != xtPathKey(key) {
			t.Errorf("ParseMove(%q) = %s, want %s", text, m, key)
		}
	}
	_, err := p.ParseMove("d1xf7")
	var me *MoveError
	if !errors.As(err, &me) || me.Code != MoveAmbiguous {
		t.Errorf("ParseMove(d1xf7): %v, want MoveAmbiguous", err)
	} else {
		keys := map[string]bool{}
		for i := range me.Candidates {
			keys[xtMoveKey(&me.Candidates[i])] = true
		}
		if len(me.Candidates) != 2 || !keys[xtPathKey("d1xb3xd5xf7")] || !keys[xtPathKey("d1xf3xd5xf7")] {
			t.Errorf("ParseMove(d1xf7) candidates %v", me.Candidates)
		}
	}
	// Steps, and every move's own String parses back to it.
	q := xtPos(t, Red, "Pe4,Da2,Mh1", "Pd7")
	for _, m := range q.LegalMoves() {
		got, err := q.ParseMove(m.String())
		if err != nil || !got.Equivalent(&m) {
			t.Errorf("ParseMove(%s) = %s, %v", m, got, err)
		}
	}
	if m, err := q.ParseMove("e4-d5"); err != nil || m.String() != "e4-d5" {
		t.Errorf("ParseMove(e4-d5) = %s, %v", m, err)
	}
}

func TestNotationParseMoveErrors(t *testing.T) {
	steps := xtPos(t, Red, "Pe4,Da2,Mh1", "Pd7")    // no capture
	capture := xtPos(t, Red, "Pe4,Da2,Mh1", "Pd5")  // e4xc6 compulsory
	chain := xtPos(t, Red, "Pe4", "Pd5,Pb7")        // e4xc6xa8 only
	priority := xtPos(t, Red, "Me4", "Md5,Df5,Pd3") // e4xc6 only
	cases := []struct {
		name string
		p    Position
		text string
		code MoveErrorCode
	}{
		{"empty", steps, "", MoveMalformed},
		{"one square", steps, "e4", MoveMalformed},
		{"dangling", steps, "e4-", MoveMalformed},
		{"bad square", steps, "z9-a1", MoveMalformed},
		{"light square", steps, "e4-e5", MoveMalformed},
		{"mixed separators", steps, "e4-d5xc6", MoveMalformed},
		{"three step squares", steps, "e4-d5-c6", MoveMalformed},
		{"no separator", steps, "e4d5", MoveMalformed},
		{"no piece", steps, "b1-c2", MoveNoPiece},
		{"wrong side", steps, "d7-e6", MoveWrongSide},
		{"backward pedine", steps, "e4-f3", MoveIllegal},
		{"not adjacent", steps, "e4-c6", MoveIllegal},
		{"occupied", xtPos(t, Red, "Pe4,Pd5", "Ph7"), "e4-d5", MoveIllegal},
		{"capture compulsory", capture, "a2-b3", MoveCaptureCompulsory},
		{"capture compulsory same piece", capture, "e4-f5", MoveCaptureCompulsory},
		{"stops early", chain, "e4xc6", MoveIncomplete},
		{"lower priority", priority, "e4xg6", MoveLowerPriority},
		{"lower priority pedine", priority, "e4xc2", MoveLowerPriority},
		{"cannot take a damone", xtPos(t, Red, "De4", "Md5"), "e4xc6", MoveIllegal},
		{"nothing to take", steps, "e4xc6", MoveIllegal},
		{"no legal moves", xtPos(t, Red, "Pa8", "Ph7"), "a8-b7", MoveNoLegalMoves},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := c.p.ParseMove(c.text)
			var me *MoveError
			if err == nil {
				t.Errorf("ParseMove(%q) accepted as %s", c.text, m)
			} else if !errors.As(err, &me) {
				t.Errorf("ParseMove(%q): %T %v, want *MoveError", c.text, err, err)
			} else if me.Code != c.code {
				t.Errorf("ParseMove(%q): code %v (%v), want %v", c.text, me.Code, err, c.code)
			} else if me.Reason == "" {
				t.Errorf("ParseMove(%q): empty reason", c.text)
			}
		})
	}
}

// RULES.md, End of the game.
func TestRulesEndOfGame(t *testing.T) {
	v := DefaultVariant()
	if v.NoProgressLimit != 80 || !v.RepetitionDraw || v.FirstPlayer != Red || v.Setup != SetupStandard {
		t.Errorf("DefaultVariant = %+v; want standard, Red first, repetition on, 80 plies", v)
	}
	outcome := func(v Variant, p Position) Outcome { return v.PositionOutcome(&p) }
	// Opponent has no pieces: a win for the side that captured them.
	if o := outcome(v, xtPos(t, Black, "Pc6", "")); o.Result != RedWins {
		t.Errorf("Black without pieces: %v, want red wins", o)
	}
	// The side NOT to move has no pieces (only a custom start can give
	// this): the opponent "has no pieces", so the side to move has won.
	if o := outcome(v, xtPos(t, Red, "Mh1", "")); o.Result != RedWins {
		t.Errorf("Red to move, Black without pieces: %v, want red wins (all pieces captured)", o)
	}
	// Stalemate: the side to move has no legal move and loses.
	if o := outcome(v, xtPos(t, Red, "Pa8", "Ph7")); o.Result != BlackWins || o.Reason != Stalemate {
		t.Errorf("Red Pedine stuck on a8: %v, want black wins (stalemate)", o)
	}
	// Blocked: Black Pedine b7 (directions SE c6, NE c8, SW a6) with Red
	// Damas on all three: no capture (a Pedine cannot take a Dama), no step.
	if o := outcome(v, xtPos(t, Black, "Dc6,Dc8,Da6", "Pb7")); o.Result != RedWins || o.Reason != Stalemate {
		t.Errorf("Black Pedine b7 blocked: %v, want red wins (stalemate)", o)
	}
	if o := outcome(v, xtPos(t, Black, "Dc6,Dc8", "Pb7")); o.Over() {
		t.Errorf("Black Pedine b7 with a6 free: %v, want ongoing", o)
	}
	// Capture all Damones: needs a Damone on each side at the start.
	v2 := DefaultVariant()
	v2.WinCondition = CaptureAllDamones
	if _, err := NewGame(v2); err != nil {
		t.Errorf("standard + capture-all-damones: %v", err)
	}
	v2.Setup = SetupNoDamone
	if _, err := NewGame(v2); err == nil {
		t.Error("no-Damone setup + capture-all-damones accepted")
	}
	// A custom start without a Damone is a decided start, over at ply 0
	// (RULES.md, End of the game): the side without one has lost.
	v2.Setup = SetupCustom
	v2.Start = xtPos(t, Red, "Mh1,Pe2", "Pd7,Da8")
	if g, err := NewGame(v2); err != nil {
		t.Errorf("custom start without a Black Damone + capture-all-damones: %v", err)
	} else if o := g.Outcome(); o != (Outcome{RedWins, AllDamonesCaptured}) {
		t.Errorf("custom start without a Black Damone: %v, want red wins (all damones captured)", o)
	}
	v2.Start = xtPos(t, Red, "Dh1,Pe2", "Pd7,Ma8")
	if g, err := NewGame(v2); err != nil {
		t.Errorf("custom start, Red to move without a Damone: %v", err)
	} else if o := g.Outcome(); o != (Outcome{BlackWins, AllDamonesCaptured}) {
		t.Errorf("custom start, Red to move without a Damone: %v, want black wins (all damones captured)", o)
	}
	v2.Start = xtPos(t, Red, "Mh1,Pe2", "Pd7,Ma8")
	if _, err := NewGame(v2); err != nil {
		t.Errorf("custom start with both Damones: %v", err)
	}
	// Red Damone e4 takes the last Black Damone d5: Red wins at once,
	// although Black still has pieces and moves.
	v2.Start = xtPos(t, Red, "Me4,Pa2", "Md5,Pe8,Pc8")
	g, err := NewGame(v2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.PlayText("e4xc6"); err != nil {
		t.Fatal(err)
	}
	if o := g.Outcome(); o.Result != RedWins || o.Reason != AllDamonesCaptured {
		t.Errorf("after taking the last Damone: %v, want red wins (all damones captured)", o)
	}
	if _, err := g.PlayText("e8-f7"); !errors.Is(err, ErrGameOver) {
		t.Errorf("move after the end: %v, want ErrGameOver", err)
	}
	// Under the standard condition the same capture does not end the game.
	v3 := v2
	v3.WinCondition = CaptureAllPieces
	g, _ = NewGame(v3)
	g.PlayText("e4xc6")
	if g.Outcome().Over() {
		t.Errorf("capture-all-pieces ended on the last Damone: %v", g.Outcome())
	}
}

func TestRulesRepetitionDraw(t *testing.T) {
	// Damones shuffle: the start position occurs at ply 0, 4 and 8; the
	// third occurrence (ply 8) is a draw, not the second.
	g, err := NewGame(DefaultVariant())
	if err != nil {
		t.Fatal(err)
	}
	line := []string{"h1-g2", "a8-b7", "g2-h1", "b7-a8", "h1-g2", "a8-b7", "g2-h1"}
	for i, mv := range line {
		if _, err := g.PlayText(mv); err != nil {
			t.Fatalf("ply %d %s: %v", i+1, mv, err)
		}
		if g.Outcome().Over() {
			t.Fatalf("ended after ply %d: %v", i+1, g.Outcome())
		}
	}
	if _, err := g.PlayText("b7-a8"); err != nil {
		t.Fatal(err)
	}
	if o := g.Outcome(); o.Result != Draw || o.Reason != Repetition {
		t.Errorf("third occurrence: %v, want draw (repetition)", o)
	}
	// With the rule off, nothing ends.
	v := DefaultVariant()
	v.RepetitionDraw = false
	g, _ = NewGame(v)
	for _, mv := range append(line, "b7-a8") {
		g.PlayText(mv)
	}
	if g.Outcome().Over() {
		t.Errorf("repetition off: %v", g.Outcome())
	}
}

func TestRulesNoProgressDraw(t *testing.T) {
	v := DefaultVariant()
	v.Setup = SetupCustom
	v.RepetitionDraw = false
	v.NoProgressLimit = 4
	v.Start = xtPos(t, Red, "Dd1,Pa2", "Dd7,Ph7")
	g, err := NewGame(v)
	if err != nil {
		t.Fatal(err)
	}
	// Pedine steps are not progress either.
	for i, mv := range []string{"d1-e2", "h7-g6", "a2-b3"} {
		if _, err := g.PlayText(mv); err != nil || g.Outcome().Over() {
			t.Fatalf("ply %d %s: %v %v", i+1, mv, err, g.Outcome())
		}
	}
	g.PlayText("g6-h5")
	if o := g.Outcome(); o.Result != Draw || o.Reason != NoProgress {
		t.Errorf("after 4 plies without progress: %v, want draw (no progress)", o)
	}
	// 0 turns the rule off.
	v.NoProgressLimit = 0
	g, _ = NewGame(v)
	for _, mv := range []string{"d1-e2", "h7-g6", "a2-b3", "g6-h5", "e2-d1", "d7-e6"} {
		g.PlayText(mv)
	}
	if g.Outcome().Over() || g.Ply() != 6 {
		t.Errorf("no-progress off: %v after %d plies", g.Outcome(), g.Ply())
	}
	// A capture restarts the count. Limit 3: f1-g2 (1), c4-b3 (2), a2xc4
	// (capture: 0), h7-g6 (1), g2-f1 (2), g6-h5 (3: draw).
	v.NoProgressLimit = 3
	v.Start = xtPos(t, Red, "Pa2,Df1", "Pc4,Dh7")
	g, _ = NewGame(v)
	if _, err := g.PlayText("f1-g2"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.PlayText("c4xa2"); err == nil {
		t.Error("c4xa2 accepted with b3 empty")
	}
	for i, mv := range []string{"c4-b3", "a2xc4", "h7-g6", "g2-f1"} {
		if _, err := g.PlayText(mv); err != nil || g.Outcome().Over() {
			t.Fatalf("limit 3, ply %d %s: %v %v", i+2, mv, err, g.Outcome())
		}
	}
	if p := g.Position(); p.NoProgress() != 2 {
		t.Errorf("no-progress after capture and two steps = %d, want 2", p.NoProgress())
	}
	g.PlayText("g6-h5")
	if o := g.Outcome(); o.Result != Draw || o.Reason != NoProgress {
		t.Errorf("limit 3 after the capture: %v, want draw (no progress)", o)
	}
	// Resignation and agreed draw end the game; nothing after.
	g, _ = NewGame(DefaultVariant())
	if err := g.End(Outcome{BlackWins, Resignation}); err != nil {
		t.Fatal(err)
	}
	if err := g.End(Outcome{Draw, AgreedDraw}); !errors.Is(err, ErrGameOver) {
		t.Errorf("End after the end: %v", err)
	}
}

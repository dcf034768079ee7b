package engine

// Fuzz tests of the position text form and move parsing. Under plain
// `go test` only the seed corpora run; explore with e.g.
//
//	go test ./internal/engine/ -run '^$' -fuzz FuzzParsePosition -fuzztime 30s

import (
	"errors"
	"testing"
)

func FuzzParsePosition(f *testing.F) {
	for _, s := range []string{
		xtStandardText,
		"B:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0",
		"R:RDh1,Df1,Dh3,Pe2,Pf3,Pg4:BDa8,Dc8,Da6,Pd7,Pc6,Pb5:0",
		"R:RDd3:BPe4,Pg4,Pg2,Pe2:17",
		"b:bde8:rdd7,pb5,pf7,df5",
		"R:R:B:0",
		"R:RPa8:BPh1:65535",
		" R:RMh1:BMa8:0 ",
		"",
		":::",
		"R:RMh1:BMa8:-1",
		"R:RMh1:BMa8:007",
		"R:RMa1:BMa8:0",
		"R:RPa6:BMa8:0",
		"R:RMh1,Mh1:BMa8:0",
		"R:RMh1,:BMa8:0",
		"R:RMh1:RMa8:0",
		"R:RMh1:BMa8:99999999999999999999",
		"R:RMH1:BMA8:+3",
		"R:RM\x00h1:BMa8:0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePosition(s)
		if err != nil {
			var pe *PositionError
			if !errors.As(err, &pe) {
				t.Fatalf("ParsePosition(%q): error %T %v is not a *PositionError", s, err, err)
			}
			return
		}
		if p.Hash() != p.computeHash() {
			t.Fatalf("ParsePosition(%q): hash %#x, computed %#x", s, p.Hash(), p.computeHash())
		}
		text := p.String()
		q, err := ParsePosition(text)
		if err != nil {
			t.Fatalf("ParsePosition(%q) -> %q does not parse back: %v", s, text, err)
		}
		if q != p {
			t.Fatalf("ParsePosition(%q) -> %q parses to a different position", s, text)
		}
		if again := q.String(); again != text {
			t.Fatalf("String is not a fixed point: %q -> %q", text, again)
		}
		// Every parsed position can be played on without panicking.
		for _, m := range p.LegalMoves() {
			c := p.After(&m)
			if c.Hash() != c.computeHash() {
				t.Fatalf("%q after %s: hash mismatch", text, m)
			}
		}
	})
}

// xtFuzzPositions are the positions FuzzParseMove parses moves on.
func xtFuzzPositions(t testing.TB) []Position {
	start, _ := StartPosition(SetupStandard, Red)
	startB, _ := StartPosition(SetupNoDamone, Black)
	return []Position{
		start,
		startB,
		xtPos(t, Red, "Dd3", "Pe4,Pg4,Pg2,Pe2"), // the duplicate loop
		xtPos(t, Red, "Pd1", "Pc2,Pc4,Pe2,Pe4,Pe6"),         // same ends, different sets
		xtPos(t, Red, "Mb1,Ma2", "Mc2,Me4,Pg6,Mb3,Db5,Db7"), // seed example 1
		xtPos(t, Red, "Pe4,Da2,Mh1", "Pd5"),                 // compulsory capture
		xtPos(t, Red, "Pe4", "Pd5,Pb7"),                     // sequence to a8
		xtPos(t, Black, "Pg4,Pg2", "Pf5"),                   // Black promotion at the end
		xtPos(t, Red, "Pa8", "Ph7"),                         // no legal move
	}
}

func FuzzParseMove(f *testing.F) {
	for i, s := range []string{
		"h1-g2", "a4-b3", "d3xf5xh3xf1xd3", "d3xf1xh3xf5xd3", "d1xf7", "d1xb3",
		"b1xd3xf5xh7", "a2xc4xa6xc8", "e4xc6", "a2-b3", "e4xc6xa8", "f5xh3xf1",
		"a8-b7", "", "x", "-", "e4-", "e4x", "xe4", "e4--d5", "e4xxc6", "E4-D5",
		"e4-d5xc6", "a1-b2", "i9-a1", "h1-g2 ", " d3xd3", "d3xd3xd3xd3xd3xd3xd3xd3xd3xd3xd3xd3xd3xd3xd3xd3xd3xd3xd3xd3",
	} {
		for pos := 0; pos < 9; pos++ {
			if pos == i%9 || pos == 0 {
				f.Add(uint8(pos), s)
			}
		}
	}
	f.Fuzz(func(t *testing.T, pos uint8, text string) {
		positions := xtFuzzPositions(t)
		p := positions[int(pos)%len(positions)]
		before := p
		m, err := p.ParseMove(text)
		if p != before {
			t.Fatalf("ParseMove(%q) changed the position", text)
		}
		if err != nil {
			var me *MoveError
			if !errors.As(err, &me) {
				t.Fatalf("ParseMove(%q): error %T %v is not a *MoveError", text, err, err)
			}
			if me.Code == 0 || me.Reason == "" {
				t.Fatalf("ParseMove(%q): error without code or reason: %+v", text, me)
			}
			if me.Code == MoveAmbiguous {
				if len(me.Candidates) < 2 {
					t.Fatalf("ParseMove(%q): ambiguous with %d candidates", text, len(me.Candidates))
				}
				for i := range me.Candidates {
					if !xtIsLegal(&p, &me.Candidates[i]) {
						t.Fatalf("ParseMove(%q): candidate %s is not legal", text, &me.Candidates[i])
					}
				}
			}
			return
		}
		if !xtIsLegal(&p, &m) {
			t.Fatalf("ParseMove(%q) = %s, not a legal move", text, m)
		}
		back, err := p.ParseMove(m.String())
		if err != nil || !back.Equivalent(&m) {
			t.Fatalf("ParseMove(%q) = %s; its String parses to %s, %v", text, m, back, err)
		}
	})
}

func xtIsLegal(p *Position, m *Move) bool {
	for _, l := range p.LegalMoves() {
		if l.Equivalent(m) && l.String() != "" {
			return true
		}
	}
	return false
}

package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// The fixed starts StartPosition returns are the ones built from their
// squares, hash included.
func TestStartPositionsCached(t *testing.T) {
	for _, setup := range []Setup{SetupStandard, SetupNoDamone} {
		for first := Red; first <= Black; first++ {
			got, err := StartPosition(setup, first)
			want, werr := buildStartPosition(setup, first)
			if err != nil || werr != nil || got != want || got.Hash() != got.computeHash() || got.Hash() == 0 {
				t.Errorf("setup %v, %v first: %v (%v), want %v (%v)", setup, first, got.String(), err, want.String(), werr)
			}
		}
	}
	if _, err := StartPosition(SetupStandard, 2); err == nil {
		t.Error("side 2 accepted")
	}
}

// referenceParseMove is ParseMove as it was before its fast paths (a
// fresh legal move list every call, splitMove for the text): the fast
// paths must give the very same answers.
func (p *Position) referenceParseMove(text string) (Move, error) {
	squares, capture, err := splitMove(text)
	if err != nil {
		return Move{}, err
	}
	legal := p.LegalMoves()
	from, to := squares[0], squares[len(squares)-1]
	if !capture {
		for i := range legal {
			if m := &legal[i]; m.n == 0 && m.from == from && m.to == to {
				return *m, nil
			}
		}
	} else {
		path := squares[1:]
		for i := range legal {
			if m := &legal[i]; m.n == uint8(len(path)) && m.from == from && samePath(m.path[:m.n], path) {
				return *m, nil
			}
		}
		if set, why := p.checkLeaps(from, path); why == "" {
			for i := range legal {
				if m := &legal[i]; m.from == from && m.to == to && m.captured == set {
					return *m, nil
				}
			}
		}
		if len(path) == 1 {
			var cands []Move
			for i := range legal {
				if legal[i].n > 0 && legal[i].from == from && legal[i].to == to {
					cands = append(cands, legal[i])
				}
			}
			switch len(cands) {
			case 1:
				return cands[0], nil
			case 0:
			default:
				return Move{}, &MoveError{text, MoveAmbiguous, fmt.Sprintf(
					"ambiguous: %d legal moves go from %s to %s: %s; give every landing square",
					len(cands), from, to, joinMoves(cands)), cands}
			}
		}
	}
	return Move{}, p.explain(text, squares, capture, legal)
}

// moveTexts returns texts to parse in p: every legal move in full, short
// and upper-case form and with white space, every one- and two-square
// diagonal from every square (legal or not), capture paths through random
// squares, and malformed text.
func moveTexts(p *Position, rng *rand.Rand) []string {
	var out []string
	for _, m := range p.LegalMoves() {
		s := m.String()
		out = append(out, s, strings.ToUpper(s), " "+s, s+"\t", strings.Replace(s, "x", "X", 1))
		if m.IsCapture() {
			out = append(out, m.From().String()+"x"+m.To().String())
		}
	}
	for _, from := range Squares {
		if _, occupied := p.PieceAt(from); !occupied && rng.IntN(4) != 0 {
			continue // every piece, and a quarter of the empty squares
		}
		for _, df := range []int{-2, -1, 1, 2} {
			for _, dr := range []int{-2, -1, 1, 2} {
				f, r := from.File()+df, from.Row()+dr
				if f < 0 || f > 7 || r < 0 || r > 7 {
					continue
				}
				to := NewSquare(f, r).String()
				out = append(out, from.String()+"-"+to, from.String()+"x"+to)
			}
		}
	}
	for range 40 {
		n := 1 + rng.IntN(4)
		var b strings.Builder
		b.WriteString(Squares[rng.IntN(len(Squares))].String())
		for range n {
			b.WriteByte('x')
			b.WriteString(Squares[rng.IntN(len(Squares))].String())
		}
		out = append(out, b.String())
	}
	out = append(out, "", " ", "e2", "e2-", "-d3", "e2-d3-c4", "e2xd3-c4", "a1-b2", "i1-h2", "e2d3", "e2--d3",
		"e2 - d3", "e2x", "xd3", "E2-D3", "e2—d3", "e2-d9", "a2-b3", strings.Repeat("a1x", 20)+"a1", "ｅ2-d3")
	return out
}

// TestParseMoveFastPathsAgree compares ParseMove, and the buffered
// parseMove games use, with the reference on positions from random
// games of both setups and the benchmark positions.
func TestParseMoveFastPathsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var positions []Position
	for _, text := range movegenPositions {
		p, err := ParsePosition(text)
		if err != nil {
			t.Fatal(err)
		}
		positions = append(positions, p)
	}
	for game := range 30 {
		setup := SetupStandard
		if game%3 == 2 {
			setup = SetupNoDamone
		}
		p, _ := StartPosition(setup, Side(game%2))
		for ply := 0; ply < 200; ply++ {
			legal := p.LegalMoves()
			if len(legal) == 0 {
				break
			}
			if ply%5 == 0 {
				positions = append(positions, p)
			}
			p.Play(&legal[rng.IntN(len(legal))])
		}
	}
	var buf []Move
	checked := 0
	for _, p := range positions {
		for _, text := range moveTexts(&p, rng) {
			want, werr := p.referenceParseMove(text)
			got, gerr := p.ParseMove(text)
			var bgot Move
			var berr error
			bgot, buf, berr = p.parseMove(text, buf)
			buf = buf[:0]
			for _, c := range []struct {
				name string
				m    Move
				err  error
			}{{"ParseMove", got, gerr}, {"parseMove", bgot, berr}} {
				if c.m != want || !sameError(c.err, werr) {
					t.Fatalf("%s: %s(%q) = %v, %v; want %v, %v", p.String(), c.name, text, c.m, c.err, want, werr)
				}
			}
			checked++
		}
	}
	t.Logf("%d texts on %d positions", checked, len(positions))
}

func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var ma, mb *MoveError
	if errors.As(a, &ma) != errors.As(b, &mb) {
		return false
	}
	if ma != nil && !reflect.DeepEqual(ma, mb) {
		return false
	}
	return a.Error() == b.Error()
}

// AppendNotation writes what String returns, for every legal move of the
// benchmark positions.
func TestAppendNotation(t *testing.T) {
	for _, text := range movegenPositions {
		p, err := ParsePosition(text)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range p.LegalMoves() {
			if got := string(m.AppendNotation([]byte("x"))); got != "x"+m.String() {
				t.Errorf("%s: AppendNotation %q, String %q", text, got, m.String())
			}
		}
	}
}

// A game Reset after another is the game NewGame starts, whatever its
// storage held.
func TestGameReset(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	g, _ := NewGame(DefaultVariant())
	for range 60 {
		pos := g.Position()
		legal := pos.LegalMoves()
		if len(legal) == 0 || g.Outcome().Over() {
			break
		}
		if err := g.Play(legal[rng.IntN(len(legal))]); err != nil {
			t.Fatal(err)
		}
	}
	v := DefaultVariant()
	v.Setup, v.WinCondition = SetupNoDamone, 0
	fresh, err := NewGame(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Reset(v); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g.Variant(), fresh.Variant()) || g.Ply() != 0 || g.Position() != fresh.Position() ||
		g.Outcome() != fresh.Outcome() || len(g.History()) != 0 {
		t.Errorf("after Reset: variant %+v, ply %d, position %s, outcome %v; want %+v, 0, %s, %v",
			g.Variant(), g.Ply(), g.Position().String(), g.Outcome(), fresh.Variant(), fresh.Position().String(), fresh.Outcome())
	}
	bad := DefaultVariant()
	bad.NoProgressLimit = -1
	if err := g.Reset(bad); err == nil || g.Variant() != fresh.Variant() {
		t.Errorf("Reset with a bad variant: %v, variant now %+v", err, g.Variant())
	}
}

// referenceString is Position.String as it was, on a strings.Builder.
func (p Position) referenceString() string {
	var b strings.Builder
	b.Grow(80)
	b.WriteByte(p.stm.Letter())
	for s := Red; s <= Black; s++ {
		b.WriteByte(':')
		b.WriteByte(s.Letter())
		first := true
		for r := Damone; ; r-- {
			for bb := p.pieces[s][r]; bb != 0; bb &= bb - 1 {
				if !first {
					b.WriteByte(',')
				}
				first = false
				b.WriteByte(r.Letter())
				b.WriteString(Square(trailingZeros(bb)).String())
			}
			if r == Pedine {
				break
			}
		}
	}
	b.WriteByte(':')
	b.WriteString(fmt.Sprint(int(p.noProgress)))
	return b.String()
}

// String and AppendText write the text the Builder-based String wrote,
// on positions of random games, a full board, an empty one and the
// largest counter.
func TestPositionTextUnchanged(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	var ps []Position
	var full Position
	for i, s := range Squares {
		full.put(Side(i/16), Rank(i%3), s)
	}
	full.noProgress = 65535
	ps = append(ps, Position{}, full)
	p, _ := StartPosition(SetupStandard, Red)
	for range 300 {
		ps = append(ps, p)
		legal := p.LegalMoves()
		if len(legal) == 0 {
			p, _ = StartPosition(SetupNoDamone, Black)
			continue
		}
		p.Play(&legal[rng.IntN(len(legal))])
	}
	for _, p := range ps {
		want := p.referenceString()
		if got := p.String(); got != want {
			t.Fatalf("String %q, want %q", got, want)
		}
		if got := string(p.AppendText([]byte("x"))); got != "x"+want {
			t.Fatalf("AppendText %q, want %q", got, "x"+want)
		}
	}
}

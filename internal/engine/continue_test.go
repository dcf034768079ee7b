package engine

import (
	"math/rand/v2"
	"testing"
)

// A game continued ply by ply from Recent and the current position must
// end exactly as the whole game does, repetitions included: random games
// from starts where Dama shuffles repeat positions often.
func TestContinueGameMatchesWholeGame(t *testing.T) {
	starts := []string{
		"R:RDh1,Dg2:BDa8,Db7:0",
		"R:RDh1,Pe2:BDa8,Pd7:0",
		"R:RMh1,Dg2,Pc2:BMa8,Db7,Pf7:0",
	}
	rng := rand.New(rand.NewPCG(14, 1))
	repetitions := 0
	for _, text := range starts {
		start, err := ParsePosition(text)
		if err != nil {
			t.Fatal(err)
		}
		for _, limit := range []int{0, 80} {
			v := Variant{Setup: SetupCustom, Start: start, RepetitionDraw: true, NoProgressLimit: limit}
			for range 200 {
				whole, err := NewGame(v)
				if err != nil {
					t.Fatal(err)
				}
				cont := whole
				for ply := 0; !whole.Outcome().Over() && ply < 300; ply++ {
					pos := whole.Position()
					legal := pos.LegalMoves()
					m := legal[rng.IntN(len(legal))]
					next, err := ContinueGame(v, cont.Recent(), cont.Position())
					if err != nil {
						t.Fatal(err)
					}
					if err := whole.Play(m); err != nil {
						t.Fatal(err)
					}
					if err := next.Play(m); err != nil {
						t.Fatal(err)
					}
					if next.Outcome() != whole.Outcome() {
						t.Fatalf("%s, limit %d, ply %d: continued game ends %v, whole game %v", text, limit, ply+1, next.Outcome(), whole.Outcome())
					}
					cont = next
				}
				if whole.Outcome().Reason == Repetition {
					repetitions++
				}
			}
		}
	}
	if repetitions < 100 {
		t.Fatalf("only %d games ended by repetition: the test does not exercise the rule", repetitions)
	}
}

// Recent holds only what the rule can still count: nothing without the
// rule, nothing from before a capture, at most the no-progress count.
func TestRecentWindow(t *testing.T) {
	start, err := ParsePosition("B:RDe2:BDa8,Pf3,Pd7:0")
	if err != nil {
		t.Fatal(err)
	}
	v := Variant{Setup: SetupCustom, Start: start, RepetitionDraw: true}
	g, _ := NewGame(v)
	for _, step := range []struct {
		move string
		want int
	}{
		{"a8-b7", 1},
		{"e2xg4", 0}, // the Dama takes f3: nothing before can come again
		{"b7-a8", 1},
		{"g4-h5", 2},
		{"d7-c6", 3}, // a sideways Pedine step can be undone: no progress
	} {
		if _, err := g.PlayText(step.move); err != nil {
			t.Fatal(err)
		}
		if got := len(g.Recent()); got != step.want {
			t.Fatalf("after %s Recent has %d positions, want %d", step.move, got, step.want)
		}
	}
	v.RepetitionDraw = false
	g, _ = NewGame(v)
	g.PlayText("a8-b7")
	if got := len(g.Recent()); got != 0 {
		t.Fatalf("without the repetition rule Recent has %d positions, want 0", got)
	}
}

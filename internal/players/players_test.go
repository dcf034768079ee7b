package players

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/search"
)

func state(t *testing.T, text string) State {
	t.Helper()
	p, err := engine.ParsePosition(text)
	if err != nil {
		t.Fatal(err)
	}
	return State{Position: p, Variant: engine.DefaultVariant()}
}

func start(t *testing.T) State {
	t.Helper()
	g, err := engine.NewGame(engine.DefaultVariant())
	if err != nil {
		t.Fatal(err)
	}
	return StateOf(g)
}

func isLegal(p engine.Position, m engine.Move) bool {
	for _, l := range p.LegalMoves() {
		if l == m {
			return true
		}
	}
	return false
}

// Red Pedine d7 can step to c8 (a promotion square: RULES.md, Promotion),
// e8 or c6. Only d7-c8 raises Red's material (a Pedine, 100, becomes a
// Dama, 300), so greedy plays it whatever its seed.
func TestGreedyPromotes(t *testing.T) {
	st := state(t, "R:RPd7:BPa4:0")
	if n := len(st.Position.LegalMoves()); n != 3 {
		t.Fatalf("%d legal moves, want 3 (d7-c8, d7-e8, d7-c6)", n)
	}
	g := NewGreedy()
	for seed := uint64(0); seed < 50; seed++ {
		g.NewGame(seed)
		m, err := g.Move(context.Background(), st)
		if err != nil || m.String() != "d7-c8" {
			t.Fatalf("seed %d: %v %v, want d7-c8", seed, m, err)
		}
	}
}

// From the standard start all 8 moves are steps that keep material equal:
// greedy breaks the tie at random, the same way for the same seed, and over
// 200 seeds every one of the 8 moves comes up (each is missed with
// probability (7/8)^200 < 3e-12).
func TestGreedyTieBreakIsSeeded(t *testing.T) {
	st := start(t)
	g := NewGreedy()
	seen := map[string]bool{}
	for seed := uint64(0); seed < 200; seed++ {
		g.NewGame(seed)
		a, _ := g.Move(context.Background(), st)
		g.NewGame(seed)
		b, _ := g.Move(context.Background(), st)
		if a != b {
			t.Fatalf("seed %d: %s then %s", seed, a, b)
		}
		seen[a.String()] = true
	}
	if len(seen) != 8 {
		t.Fatalf("greedy chose %d distinct opening moves over 200 seeds, want all 8: %v", len(seen), seen)
	}
}

func TestRandomIsLegalAndSeeded(t *testing.T) {
	r := NewRandom()
	for seed := uint64(1); seed <= 20; seed++ {
		g, _ := engine.NewGame(engine.DefaultVariant())
		r.NewGame(seed)
		var first []engine.Move
		for !g.Outcome().Over() && g.Ply() < 60 {
			m, err := r.Move(context.Background(), StateOf(g))
			if err != nil || !isLegal(g.Position(), m) {
				t.Fatalf("seed %d ply %d: %v %v", seed, g.Ply(), m, err)
			}
			first = append(first, m)
			if err := g.Play(m); err != nil {
				t.Fatal(err)
			}
		}
		// Replaying the seed gives the same game.
		g2, _ := engine.NewGame(engine.DefaultVariant())
		r.NewGame(seed)
		for i := range first {
			m, _ := r.Move(context.Background(), StateOf(g2))
			if m != first[i] {
				t.Fatalf("seed %d ply %d: replay %s, first %s", seed, i, m, first[i])
			}
			g2.Play(m)
		}
	}
}

// Red Dama e4 against a lone Black Pedine b1, whose only move is b1-c2.
// After e4-d3 Black must play b1-c2 and Red's capture d3xb1 is compulsory:
// every playout from e4-d3 ends with Black out of pieces, the best score a
// playout can have. After e4-d5, e4-f5 or e4-f3 Black's Pedine gets away
// from c2 in some playouts, so their averages are lower: the playout
// player must play e4-d3.
func TestPlayoutFindsTheForcedWin(t *testing.T) {
	st := state(t, "R:RDe4:BPb1:0")
	p := NewPlayout(0, 50, 20)
	for seed := uint64(1); seed <= 5; seed++ {
		p.NewGame(seed)
		m, err := p.Move(context.Background(), st)
		if err != nil || m.String() != "e4-d3" {
			t.Fatalf("seed %d: %v %v, want e4-d3", seed, m, err)
		}
	}
}

// The playout bias: Red Pedine e6 against a Black Dama c8. A step that
// leaves the opponent a capture weighs 1, a safe one safeWeight.
func TestPlayoutBiasAvoidsHangingMoves(t *testing.T) {
	st := state(t, "R:RPe6:BDc8:0")
	p := NewPlayout(0, 1, 20)
	moves := st.Position.LegalMoves()
	got := map[string]int{}
	pos := st.Position
	p.pick(&pos, moves)
	for i, m := range moves {
		got[m.String()] = p.weights[i]
	}
	// e6 (Red Pedine) moves NW d7, NE f7, SW d5. d7 stands next to c8
	// with e6 empty behind it after the move: c8xe6 is a capture. f7 and
	// d5 hang nothing. None promotes (Red Pedines promote on a6 and c8).
	want := map[string]int{"e6-d7": 1, "e6-f7": safeWeight, "e6-d5": safeWeight}
	if len(got) != len(want) {
		t.Fatalf("moves %v, want %v", got, want)
	}
	for m, w := range want {
		if got[m] != w {
			t.Fatalf("weight of %s = %d, want %d (all: %v)", m, got[m], w, got)
		}
	}
}

func TestEnginePlayer(t *testing.T) {
	// Node limit: the same move every time, and legal.
	st := start(t)
	spec, err := ParseSpec("engine:nodes=50000")
	if err != nil {
		t.Fatal(err)
	}
	var first engine.Move
	for i := 0; i < 2; i++ {
		e := spec.New()
		e.NewGame(0)
		m, err := e.Move(context.Background(), st)
		if err != nil || !isLegal(st.Position, m) {
			t.Fatalf("%v %v", m, err)
		}
		if i == 0 {
			first = m
		} else if m != first {
			t.Fatalf("node-limited engine played %s then %s", first, m)
		}
	}
	// The win in one is found.
	e := NewEngine(search0(), 1)
	m, err := e.Move(context.Background(), state(t, "R:RDd3:BPe4:0"))
	if err != nil || m.String() != "d3xf5" {
		t.Fatalf("%v %v, want d3xf5", m, err)
	}
	// No legal move: ErrNoMove from every player.
	stuck := state(t, "B:RDg2:BPh1:0")
	for _, p := range []Player{NewEngine(search0(), 1), NewRandom(), NewGreedy(), NewPlayout(time.Millisecond, 0, 0)} {
		if _, err := p.Move(context.Background(), stuck); !errors.Is(err, ErrNoMove) {
			t.Fatalf("%s: %v, want ErrNoMove", p.Name(), err)
		}
	}
}

func TestStateOfKeepsHistory(t *testing.T) {
	g, _ := engine.NewGame(engine.DefaultVariant())
	for _, m := range []string{"e2-d3", "d7-e6", "d3-c4"} {
		if _, err := g.PlayText(m); err != nil {
			t.Fatal(err)
		}
	}
	st := StateOf(g)
	if len(st.History) != 3 || st.History[0] != g.InitialPosition() || st.Position != g.Position() {
		t.Fatalf("history %d positions, want 3 starting with the initial position", len(st.History))
	}
}

func TestParseSpec(t *testing.T) {
	good := []struct {
		text string
		want Spec
		name string
	}{
		{"engine", Spec{Kind: "engine", MoveTime: 100 * time.Millisecond}, "engine(movetime=100ms)"},
		{"engine:movetime=50ms", Spec{Kind: "engine", MoveTime: 50 * time.Millisecond}, "engine(movetime=50ms)"},
		{"engine:nodes=2000,hash=4", Spec{Kind: "engine", Nodes: 2000, HashMB: 4}, "engine(nodes=2000)"},
		{"engine:depth=6", Spec{Kind: "engine", Depth: 6}, "engine(depth=6)"},
		{"engine:depth=6,egtb=on", Spec{Kind: "engine", Depth: 6, Tables: true}, "engine(depth=6)"},
		{"engine:depth=6,egtb=off", Spec{Kind: "engine", Depth: 6}, "engine(depth=6)"},
		{"engine:depth=6,contempt=100", Spec{Kind: "engine", Depth: 6, Contempt: 100}, "engine(depth=6,contempt=100)"},
		{"engine:depth=6,contempt=0", Spec{Kind: "engine", Depth: 6, Contempt: search.NoContempt}, "engine(depth=6,contempt=0)"},
		{"engine:depth=6,contempt=10000", Spec{Kind: "engine", Depth: 6, Contempt: 10000}, "engine(depth=6,contempt=10000)"},
		{"random", Spec{Kind: "random"}, "random"},
		{"greedy", Spec{Kind: "greedy"}, "greedy"},
		{"playout:movetime=20ms", Spec{Kind: "playout", MoveTime: 20 * time.Millisecond}, "playout(movetime=20ms,plies=20)"},
		{"playout:playouts=30,plies=10", Spec{Kind: "playout", Playouts: 30, Plies: 10}, "playout(playouts=30,plies=10)"},
	}
	for _, c := range good {
		s, err := ParseSpec(c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		c.want.text = c.text
		if s != c.want {
			t.Fatalf("%s: %+v, want %+v", c.text, s, c.want)
		}
		if n := s.New().Name(); n != c.name {
			t.Fatalf("%s: name %q, want %q", c.text, n, c.name)
		}
	}
	for _, bad := range []string{"", "stockfish", "engine:movetime", "engine:movetime=fast", "engine:nodes=-3",
		"engine:playouts=3", "random:movetime=1s", "playout:movetime=1s,playouts=3", "engine:depth=0", "engine:egtb=yes", "playout:egtb=on",
		"engine:contempt=-1", "engine:contempt=29000", "engine:contempt=28999", "engine:contempt=10001", "engine:contempt=", "engine:contempt=lots", "playout:contempt=10"} {
		if _, err := ParseSpec(bad); err == nil {
			t.Fatalf("%q: no error", bad)
		}
	}
}

func search0() search.Limits { return search.Limits{Depth: 4} }

package players

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/search"
)

// BenchmarkBudget50ms measures what 50 ms a move buys each player on one
// core: the engine's nodes a move and the playout player's playouts per
// root move, over 30 positions of a seeded random game from the standard
// start. These are the fixed budgets equal to 50 ms that the strength
// figures use (docs/BENCHMARKS.md, The engine with the tables), so run it
// on a quiet machine.
func BenchmarkBudget50ms(b *testing.B) {
	const budget = 50 * time.Millisecond
	rng := rand.New(rand.NewPCG(50, 50))
	p, _ := engine.StartPosition(engine.SetupStandard, engine.Red)
	var states []State
	for len(states) < 30 {
		moves := p.LegalMoves()
		if len(moves) == 0 {
			b.Fatalf("the seeded game ended after %d positions", len(states))
		}
		if len(moves) > 1 {
			states = append(states, State{Position: p, Variant: engine.DefaultVariant()})
		}
		p.Play(&moves[rng.IntN(len(moves))])
	}
	eng := NewEngine(search.Limits{MoveTime: budget}, DefaultHashMB)
	po := NewPlayout(budget, 0, 0)
	var nodes, playouts, moves int64
	for b.Loop() {
		for _, st := range states {
			eng.NewGame(0)
			if _, err := eng.Move(context.Background(), st); err != nil {
				b.Fatal(err)
			}
			if _, err := po.Move(context.Background(), st); err != nil {
				b.Fatal(err)
			}
			// Each player must search for its whole budget, and search
			// something in it: a move made at once is a regression.
			if last := &eng.Last; last.Info.Depth < 1 || last.Info.Elapsed < budget {
				b.Fatalf("%s: the engine completed depth %d in %v of its %v", st.Position, last.Info.Depth, last.Info.Elapsed, budget)
			}
			if po.rounds < 2 {
				b.Fatalf("%s: the playout player ran %d playouts a root move in %v", st.Position, po.rounds, budget)
			}
			nodes += eng.Last.Info.Nodes
			playouts += int64(po.rounds)
			moves++
		}
	}
	b.ReportMetric(float64(nodes)/float64(moves), "engine-nodes/move")
	b.ReportMetric(float64(playouts)/float64(moves), "playouts/move")
}

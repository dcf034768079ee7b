package search

import (
	"context"
	"testing"

	"github.com/damone-rules/damone/internal/engine"
)

// BenchmarkSearch searches the standard start to a fixed node count on
// one thread and reports the speed as nodes/s.
func BenchmarkSearch(b *testing.B) {
	p, _ := engine.StartPosition(engine.SetupStandard, engine.Red)
	s := NewSearcher(16)
	var nodes int64
	b.ReportAllocs()
	for b.Loop() {
		s.Clear()
		res := s.Search(context.Background(), p, Options{Variant: engine.DefaultVariant()}, Limits{Nodes: 2_000_000}, nil)
		// The standard start is not solved in 2,000,000 nodes: a search
		// that stopped short of its limit measured something else.
		if res.Info.Nodes < 2_000_000 || res.Info.Depth < 1 {
			b.Fatalf("the search stopped at %d nodes, depth %d; want the 2,000,000-node limit reached", res.Info.Nodes, res.Info.Depth)
		}
		nodes += res.Info.Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

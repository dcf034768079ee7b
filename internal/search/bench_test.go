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
		nodes += res.Info.Nodes
	}
	if nodes == 0 {
		b.Fatal("the searches visited no node")
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

package metrics

import (
	"context"
	"testing"
	"time"
)

// BenchmarkObserveMovegen measures what one ObserveMovegen costs, to check
// it stays below the engine work it times.
func BenchmarkObserveMovegen(b *testing.B) {
	m := New(func(context.Context) (int, error) { return 0, nil })
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		m.ObserveMovegen("list_legal_moves", time.Since(t0))
	}
}

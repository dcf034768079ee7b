package engine

import "testing"

// Perft benchmarks report leaf nodes per second as "nodes/s"; run with
//
//	go test ./internal/engine -run '^$' -bench Perft -benchtime 5x
func benchmarkPerft(b *testing.B, setup Setup, depth int, bulk bool) {
	p, _ := StartPosition(setup, Red)
	s := newPerftState(&p, depth)
	b.ReportAllocs()
	var nodes uint64
	for b.Loop() {
		if bulk {
			nodes += s.bulk(depth)
		} else {
			nodes += s.full(depth)
		}
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

func BenchmarkPerftBulkStandard8(b *testing.B)   { benchmarkPerft(b, SetupStandard, 8, true) }
func BenchmarkPerftNoBulkStandard7(b *testing.B) { benchmarkPerft(b, SetupStandard, 7, false) }
func BenchmarkPerftBulkNoDamone8(b *testing.B)   { benchmarkPerft(b, SetupNoDamone, 8, true) }

package egtb

import (
	"testing"

	"github.com/damone-rules/damone/internal/engine"
)

// BenchmarkBuildPairMMMvM solves the 4-piece pair {MMMvM, MvMMM} (287,680
// entries; its conversions reach only 3-piece tables, built once before the
// timer starts) and reports positions per second.
func BenchmarkBuildPairMMMvM(b *testing.B) {
	dir := b.TempDir()
	wc := engine.CaptureAllPieces
	if err := Build(dir, Options{Pieces: 3, Win: []engine.WinCondition{wc}, Threads: 2}); err != nil {
		b.Fatal(err)
	}
	sub := map[Material]*Table{}
	for _, m := range Materials(3, wc) {
		ts, ok := loadPair(dir, [2]Material{m, m}, wc, engine.DefaultNoProgressLimit)
		if !ok {
			b.Fatalf("%v: not loaded", m)
		}
		sub[m] = ts[0]
	}
	pr, err := ParseMaterial("MMMvM")
	if err != nil {
		b.Fatal(err)
	}
	pair := [2]Material{pr, pr.Swap()}
	var entries uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ts, err := buildPair(pair, wc, engine.DefaultNoProgressLimit, sub)
		if err != nil {
			b.Fatal(err)
		}
		entries = ts[0].Entries() + ts[1].Entries()
	}
	if entries == 0 {
		b.Fatal("nothing built")
	}
	b.ReportMetric(float64(entries)*float64(b.N)/b.Elapsed().Seconds(), "positions/s")
}

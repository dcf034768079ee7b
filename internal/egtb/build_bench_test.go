package egtb

import (
	"os"
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
	benchPair(b, dir, 3, "MMMvM", wc)
}

// BenchmarkBuildPairMMMvMM solves the 5-piece pair {MMMvMM, MMvMMM}
// (2 × 2,013,760 entries; Damones only, so its conversions reach only
// 4-piece tables) from the tables of the set in EGTB_BENCH_DIR (build one
// with damone egtb build --pieces 4 --out DIR).
func BenchmarkBuildPairMMMvMM(b *testing.B) {
	dir := os.Getenv("EGTB_BENCH_DIR")
	if dir == "" {
		b.Skip("set EGTB_BENCH_DIR to a built set with at least 4 pieces")
	}
	benchPair(b, dir, 4, "MMMvMM", engine.CaptureAllPieces)
}

func benchPair(b *testing.B, dir string, pieces int, name string, wc engine.WinCondition) {
	sub := map[Material]*Table{}
	for _, m := range Materials(pieces, wc) {
		ts, _, ok := loadPair(dir, [2]Material{m, m}, wc, engine.DefaultNoProgressLimit)
		if !ok {
			b.Fatalf("%v: not loaded from %s", m, dir)
		}
		sub[m] = ts[0]
	}
	pr, err := ParseMaterial(name)
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

package validation

import (
	"testing"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/validation/benchgames"
)

// benchGames are the games of the validation benchmarks: 64 random valid
// games of 100 plies under the standard rules (package benchgames, seed 1),
// the games `damone bench` sends by default.
func benchGames(b *testing.B) [][]string {
	games, err := benchgames.Games(1, 64, 100)
	if err != nil {
		b.Fatal(err)
	}
	return games
}

// BenchmarkValidateGame100 judges 100-ply games, one per op, cycling over
// benchGames; ns/ply is the engine's cost per ply (parsing the move,
// playing it, the endings and repetition).
func BenchmarkValidateGame100(b *testing.B) {
	benchmarkValidate(b, Options{})
}

// BenchmarkValidateGame100Positions is the same with the position after
// every ply kept (include_positions).
func BenchmarkValidateGame100Positions(b *testing.B) {
	benchmarkValidate(b, Options{Positions: true})
}

func benchmarkValidate(b *testing.B, opt Options) {
	games := benchGames(b)
	variant := engine.DefaultVariant()
	plies := 0
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		moves := games[i%len(games)]
		i++
		v, err := Game(variant, moves, opt)
		if err != nil || !v.Valid() || len(v.Moves) != len(moves) {
			b.Fatalf("game %d: %v, valid %v, %d plies", i-1, err, v.Valid(), len(v.Moves))
		}
		plies += len(moves)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(plies), "ns/ply")
}

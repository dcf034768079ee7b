// Package benchgames makes the games that the validation benchmarks and
// `damone bench`'s validate scenarios send: valid games of a fixed length
// under the standard rules, the same for the same seed.
package benchgames

import (
	"fmt"
	"math/rand/v2"

	"github.com/damone-rules/damone/internal/engine"
)

// maxTriesPerGame bounds the attempts at one game: about 4 in 10 random
// games from the standard start last 100 plies without ending.
const maxTriesPerGame = 1000

// Games returns n games of exactly plies moves each, in full notation,
// played from the standard start under the standard rules
// (engine.DefaultVariant: repetition and the 80-ply no-progress rule on).
// Each is a sequence of uniformly random legal moves that has not ended
// before its last ply (it may end on it); a game that ends earlier is
// thrown away and another one drawn. The games depend only on seed.
func Games(seed uint64, n, plies int) ([][]string, error) {
	rng := rand.New(rand.NewPCG(seed, 0xda3011e))
	out := make([][]string, 0, n)
	var buf []engine.Move
	for len(out) < n {
		var moves []string
		for try := 0; ; try++ {
			if try == maxTriesPerGame {
				return nil, fmt.Errorf("no random game of %d plies without an ending in %d tries", plies, maxTriesPerGame)
			}
			g, err := engine.NewGame(engine.DefaultVariant())
			if err != nil {
				return nil, err
			}
			moves = make([]string, 0, plies)
			for len(moves) < plies && !g.Outcome().Over() {
				pos := g.Position()
				buf = pos.GenerateMoves(buf)
				m := buf[rng.IntN(len(buf))]
				if err := g.Play(m); err != nil {
					return nil, err
				}
				moves = append(moves, m.String())
			}
			if len(moves) == plies {
				break
			}
		}
		out = append(out, moves)
	}
	return out, nil
}

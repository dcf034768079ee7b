package engine

import (
	"math/rand"
	"testing"
)

// Every legal move met in seeded random playouts is rebuilt exactly from
// its record (rank, origin, landings, promotion).
func TestMoveFromPathRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for game := 0; game < 200; game++ {
		p, _ := StartPosition(Setup(1+game%2), Side(game%2))
		for ply := 0; ply < 120; ply++ {
			moves := p.LegalMoves()
			if len(moves) == 0 {
				break
			}
			for _, m := range moves {
				_, promoted := m.Promotion()
				got, err := MoveFromPath(m.Rank(), m.From(), m.Landings(), promoted)
				if err != nil || got != m {
					t.Fatalf("%s: MoveFromPath(%v) = %v, %v; want %v", p, m, got, err, m)
				}
			}
			p.Play(&moves[rng.Intn(len(moves))])
		}
	}
	if _, err := MoveFromPath(Pedine, sq("e2"), []Square{sq("e4")}, false); err == nil {
		t.Error("e2 to e4 accepted as a move record")
	}
	if _, err := MoveFromPath(Damone, sq("e2"), []Square{sq("d3")}, true); err == nil {
		t.Error("a promoted Damone accepted")
	}
}

package benchgames

import (
	"slices"
	"testing"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/validation"
)

// The games are valid, exactly as long as asked, and the same for the
// same seed.
func TestGames(t *testing.T) {
	games, err := Games(1, 20, 100)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Games(1, 20, 100)
	other, _ := Games(2, 20, 100)
	if len(games) != 20 {
		t.Fatalf("%d games, want 20", len(games))
	}
	for i, moves := range games {
		if len(moves) != 100 {
			t.Fatalf("game %d: %d plies, want 100", i, len(moves))
		}
		v, err := validation.Game(engine.DefaultVariant(), moves, validation.Options{})
		if err != nil || !v.Valid() || len(v.Moves) != 100 {
			t.Fatalf("game %d: %v, valid %v, %d plies (%v)", i, err, v.Valid(), len(v.Moves), v.Err)
		}
		if !slices.Equal(moves, again[i]) {
			t.Fatalf("game %d differs for the same seed", i)
		}
	}
	if slices.Equal(games[0], other[0]) {
		t.Error("seeds 1 and 2 gave the same first game")
	}
}

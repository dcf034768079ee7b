package games_test

import (
	"testing"

	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/store/storetest"
)

func BenchmarkMakeMove(b *testing.B) {
	storetest.BenchMakeMove(b, games.NewMemoryStore(), func(bool) {})
}

func BenchmarkCreateGame(b *testing.B) {
	storetest.BenchCreateGame(b, func(*testing.B) games.Store { return games.NewMemoryStore() }, func(games.Store, bool) {})
}

package games_test

import (
	"fmt"
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

func BenchmarkConcurrentMoves(b *testing.B) {
	for _, n := range []int{1, 64} {
		b.Run(fmt.Sprintf("games=%d", n), func(b *testing.B) {
			storetest.BenchConcurrentMoves(b, games.NewMemoryStore(), n)
		})
	}
}

func BenchmarkList(b *testing.B) {
	storetest.BenchList(b, func(*testing.B) games.Store { return games.NewMemoryStore() }, nil)
}

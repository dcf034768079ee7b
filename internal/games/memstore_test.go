package games_test

import (
	"testing"

	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/store/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) games.Store { return games.NewMemoryStore() })
}

func TestMemoryStoreRequestIDs(t *testing.T) {
	storetest.RunRequestIDs(t, func(*testing.T) (games.Store, func() games.Store) {
		s := games.NewMemoryStore()
		return s, func() games.Store { return s }
	})
}

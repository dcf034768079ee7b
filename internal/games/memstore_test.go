package games_test

import (
	"testing"

	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/store/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) games.Store { return games.NewMemoryStore() })
}

package main

import (
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/server"
)

// loadTables opens the set in dir in the background: until it is read and
// checked, probes answer TABLEBASE_LOADING; a set that fails its checks is
// logged and not served (probes then answer NOT_IN_TABLEBASE).
func loadTables(dir string, logger *slog.Logger) server.Tables {
	var set atomic.Pointer[egtb.Set]
	var loading atomic.Bool
	loading.Store(true)
	go func() {
		defer loading.Store(false)
		start := time.Now()
		s, err := egtb.Open(dir)
		if err != nil {
			logger.Error("endgame tables not served", "dir", dir, "err", err)
			return
		}
		set.Store(s)
		logger.Info("endgame tables loaded", "dir", dir, "pieces", s.Pieces(), "tables", len(s.Manifest.Tables), "took", time.Since(start).Round(time.Millisecond))
	}()
	return func() (*egtb.Set, bool) {
		if s := set.Load(); s != nil {
			return s, false
		}
		return nil, loading.Load()
	}
}

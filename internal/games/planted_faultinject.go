//go:build faultinject

package games

// Bugs planted on purpose, for the fault test to prove it catches them
// (internal/faulttest, TestPlantedBugs). Only a binary built with
// -tags faultinject has them, and only the one named by the environment
// variable DAMONE_PLANTED_BUG is active:
//
//	skip-precondition     a move's etag or expected ply is not checked
//	ack-before-commit     a move is answered before it is stored (stored 300 ms later)
//	stale-cache           GetGame answers from a per-process copy up to 1 s old
//	replay-current-state  a replayed move's request id answers with the game as it is now
//	replay-action-current-state
//	                      a replayed resignation's, draw offer's or answer's request id
//	                      answers with the game as it is now

import (
	"os"
	"sync"
	"time"
)

var plantedBug = os.Getenv("DAMONE_PLANTED_BUG")

func planted(name string) bool { return plantedBug == name }

var staleCache = struct {
	sync.Mutex
	games map[string]staleEntry
}{games: map[string]staleEntry{}}

type staleEntry struct {
	g  Game
	at time.Time
}

func plantedStaleGet(id string) (*Game, bool) {
	if !planted("stale-cache") {
		return nil, false
	}
	staleCache.Lock()
	defer staleCache.Unlock()
	e, ok := staleCache.games[id]
	if !ok || time.Since(e.at) > time.Second {
		return nil, false
	}
	g := e.g
	g.Moves = nil
	return &g, true
}

func plantedStalePut(g *Game) {
	if !planted("stale-cache") {
		return
	}
	staleCache.Lock()
	defer staleCache.Unlock()
	if _, ok := staleCache.games[g.ID]; !ok || time.Since(staleCache.games[g.ID].at) > time.Second {
		c := *g
		c.Moves = nil
		staleCache.games[g.ID] = staleEntry{g: c, at: time.Now()}
	}
}

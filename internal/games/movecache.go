package games

import (
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
)

// The full view of a game lists every move, and a store keeps moves only
// in the event log, so reading them costs a scan of the log. Played moves
// never change, so a known prefix of a game's moves stays right forever,
// on every replica: the service keeps the moves of recently used games
// and reads from the log only what it has not seen (the moves after the
// prefix). A move played here is added as it is committed, so a client
// playing a game and asking for the full view costs the conversion of
// the moves, not a scan of the log.

// The cache holds the moves of at most movesCachedGames games and
// movesCachedMoves moves in all (a long game's list is large: 10,000
// plies is about a megabyte), the least recently used going first.
const (
	movesCachedGames = 4096
	movesCachedMoves = 200_000
)

type moveCache struct {
	mu    sync.Mutex // makes a read-extend-store of one entry one step
	games *lru.Cache[string, knownMoves]
	moves int // in all the entries
	limit int
}

// knownMoves is a prefix of a game's moves and the sequence number of the
// event of its last move (0 for none), where reading the log resumes.
type knownMoves struct {
	moves []PlayedMove
	seq   int64
}

func newMoveCache() *moveCache { return newMoveCacheOf(movesCachedGames, movesCachedMoves) }

func newMoveCacheOf(games, moves int) *moveCache {
	c := &moveCache{limit: moves}
	var err error
	c.games, err = lru.NewWithEvict(games, func(_ string, k knownMoves) { c.moves -= len(k.moves) })
	if err != nil {
		panic(err) // only for a size below 1
	}
	return c
}

// add stores k for id (c.mu held), then drops the least recently used
// entries until the moves are within the limit; a list longer than the
// whole limit is not kept.
func (c *moveCache) add(id string, k knownMoves) {
	if len(k.moves) > c.limit {
		c.games.Remove(id)
		return
	}
	c.games.Remove(id) // its moves leave the count through the eviction callback
	c.games.Add(id, k)
	c.moves += len(k.moves)
	for c.moves > c.limit {
		c.games.RemoveOldest()
	}
}

// get returns the known moves of a game; the slice may be shared, so its
// capacity is cut to its length: an append copies it.
func (c *moveCache) get(id string) knownMoves {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, _ := c.games.Get(id)
	k.moves = k.moves[:len(k.moves):len(k.moves)]
	return k
}

// put records known moves if they are more than those known already.
func (c *moveCache) put(id string, k knownMoves) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.games.Peek(id); ok && len(old.moves) >= len(k.moves) {
		return
	}
	c.add(id, k)
}

// played adds the move committed at ply with its event's sequence number,
// if the moves before it are known.
func (c *moveCache) played(id string, ply int, m PlayedMove, seq int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.games.Peek(id)
	if !ok || len(old.moves) != ply-1 {
		return
	}
	c.add(id, knownMoves{moves: append(old.moves[:len(old.moves):len(old.moves)], m), seq: seq})
}

package postgres

import (
	"context"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/damone-rules/damone/internal/games"
)

// The replica's copies of recently used games, decoded, so a move need
// not read its game before writing it (games.StaleGetter). A copy is the
// game as committed at its version, by this replica's writes or reads;
// another replica's change makes it stale, and then Update's version
// check refuses the write made on it (games.ErrConflict) and drops it.
// Every read other than GetStale still goes to the database.

// cachedGames bounds the copies (the least recently used go first): the
// games a replica plays at once, with room. A copy is at most about 7 KB
// (Recent: up to the no-progress limit's 80 positions of 80 bytes), so
// the cache stays under about 30 MB.
const cachedGames = 4096

type gameCache struct {
	mu  sync.Mutex
	lru *simplelru.LRU[string, *games.Game]
}

func newGameCache(n int) *gameCache {
	l, err := simplelru.NewLRU[string, *games.Game](n, nil)
	if err != nil {
		panic(err) // n > 0
	}
	return &gameCache{lru: l}
}

// get returns a copy of game id's cached state, or nil.
func (c *gameCache) get(id string) *games.Game {
	c.mu.Lock()
	g, ok := c.lru.Get(id)
	c.mu.Unlock()
	if !ok {
		return nil
	}
	return g.Clone()
}

// put keeps a copy of g, committed at g.Version, unless a later version
// of it is kept already (a read and a write of the game can finish in
// either order).
func (c *gameCache) put(g *games.Game) {
	h := g.Head()
	c.mu.Lock()
	if old, ok := c.lru.Peek(g.ID); !ok || old.Version < h.Version {
		c.lru.Add(g.ID, h)
	}
	c.mu.Unlock()
}

// drop forgets game id: a write on its copy was refused, or its outcome
// is unknown.
func (c *gameCache) drop(id string) {
	c.mu.Lock()
	c.lru.Remove(id)
	c.mu.Unlock()
}

var _ games.StaleGetter = (*Store)(nil)

// GetStale returns a copy of game id from this replica's cache, which may
// be older than the stored game (cached true), or else reads it as Get
// does (cached false). See games.StaleGetter.
func (s *Store) GetStale(ctx context.Context, id string) (*games.Game, bool, error) {
	if g := s.cache.get(id); g != nil {
		return g, true, nil
	}
	g, err := s.Get(ctx, id)
	return g, false, err
}

package search

import (
	"context"
	"sync"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

// Pool hands out Searchers so concurrent callers (analyses, engine
// players) each get their own without allocating a transposition table
// per call. A Searcher taken from the pool is cleared first, so a search
// never depends on what an earlier caller searched.
type Pool struct {
	pool   sync.Pool
	tables func() Tablebase
}

// WithTables makes BestMove (the engine's moves in games) use the endgame
// tables tables returns at each move (nil: none yet, or none served).
func (p *Pool) WithTables(tables func() Tablebase) *Pool {
	p.tables = tables
	return p
}

// NewPool returns a pool of searchers with ttMegabytes MiB tables each.
func NewPool(ttMegabytes int) *Pool {
	return &Pool{pool: sync.Pool{New: func() any { return NewSearcher(ttMegabytes) }}}
}

// Search runs one search on a pooled searcher (see Searcher.Search).
func (p *Pool) Search(ctx context.Context, pos engine.Position, opts Options, lim Limits, progress func(Info)) Result {
	s := p.pool.Get().(*Searcher)
	defer p.pool.Put(s)
	s.Clear()
	return s.Search(ctx, pos, opts, lim, progress)
}

// BestMove searches pos for at most moveTime and, if depth > 0, to at most
// that depth, and returns the move to play; false if there is none or ctx
// ended before any iteration finished. history holds the game's earlier
// positions for the repetition rule. It makes a Pool a games.EngineMover.
func (p *Pool) BestMove(ctx context.Context, pos engine.Position, history []engine.Position, v engine.Variant,
	moveTime time.Duration, depth int) (engine.Move, bool) {
	opts := Options{Variant: v, History: history}
	if p.tables != nil {
		opts.Tablebase = p.tables()
	}
	res := p.Search(ctx, pos, opts, Limits{Depth: depth, MoveTime: moveTime}, nil)
	if ctx.Err() != nil {
		return engine.Move{}, false
	}
	return res.Best, res.HasBest
}

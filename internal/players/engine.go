package players

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/search"
)

// Engine plays the search's best move within its limits. It owns one
// Searcher, so it must stay on one goroutine.
type Engine struct {
	Limits search.Limits
	// Tables, if set, are the endgame tables the search uses.
	Tables search.Tablebase
	// Contempt is search.Options.Contempt (0: the default).
	Contempt search.Score
	s        *search.Searcher
	// Last is the result of the latest search (for reporting).
	Last search.Result
}

// DefaultHashMB is the engine player's transposition table size.
const DefaultHashMB = 16

// NewEngine returns an engine player with a table of hashMB MiB.
func NewEngine(lim search.Limits, hashMB int) *Engine {
	if hashMB <= 0 {
		hashMB = DefaultHashMB
	}
	return &Engine{Limits: lim, s: search.NewSearcher(hashMB)}
}

// Name lists the budget, e.g. "engine(movetime=100ms)".
func (e *Engine) Name() string {
	s := limitsString(e.Limits)
	switch {
	case e.Contempt == search.NoContempt:
		s += ",contempt=0"
	case e.Contempt > 0:
		s += fmt.Sprintf(",contempt=%d", e.Contempt)
	}
	if e.Tables != nil {
		s += ",egtb"
	}
	return "engine(" + s + ")"
}

func limitsString(l search.Limits) string {
	var parts []string
	if l.MoveTime > 0 {
		parts = append(parts, "movetime="+l.MoveTime.String())
	}
	if l.Nodes > 0 {
		parts = append(parts, fmt.Sprintf("nodes=%d", l.Nodes))
	}
	if l.Depth > 0 {
		parts = append(parts, fmt.Sprintf("depth=%d", l.Depth))
	}
	return strings.Join(parts, ",")
}

// NewGame forgets the previous game (the table and history heuristics),
// so that with a node or depth limit a game's moves depend only on the
// game itself.
func (e *Engine) NewGame(uint64) { e.s.Clear() }

// Move searches st within the limits.
func (e *Engine) Move(ctx context.Context, st State) (engine.Move, error) {
	res := e.s.Search(ctx, st.Position, search.Options{Variant: st.Variant, History: st.History, Tablebase: e.Tables, Contempt: e.Contempt}, e.Limits, nil)
	e.Last = res
	if !res.HasBest {
		return engine.Move{}, ErrNoMove
	}
	if res.Info.Depth == 0 && ctx.Err() != nil {
		return engine.Move{}, ctx.Err()
	}
	return res.Best, nil
}

// defaultMoveTime is the budget of a time-limited player given none.
const defaultMoveTime = 100 * time.Millisecond

package games

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

// EngineMover chooses the engine's moves in games against it. It gets the
// position, the game's earlier positions (for the repetition rule), the
// rule settings and a budget: a time per move, a depth, or both (0 =
// unset). It returns false if it found no move (none is legal, or ctx
// ended first).
type EngineMover interface {
	BestMove(ctx context.Context, pos engine.Position, history []engine.Position, v engine.Variant,
		moveTime time.Duration, depth int) (engine.Move, bool)
}

// EngineObserver is the optional part of an Observer that times the
// engine's moves in games.
type EngineObserver interface {
	EngineMoved(thinking time.Duration)
}

// WithEngine lets games have the engine as a player: mover chooses its
// moves, each within maxMoveTime whatever the game asks, with at most
// thinkers searches at once (others wait their turn), so many games
// against the engine cannot take all the CPU and memory.
func WithEngine(mover EngineMover, maxMoveTime time.Duration, thinkers int) Option {
	return func(s *Service) {
		s.engine, s.maxEngineTime = mover, maxMoveTime
		s.engineSlots = make(chan struct{}, max(thinkers, 1))
	}
}

// CreateAgainstEngine starts a game of variant v in which the engine plays
// opp.Side; only the other side's token is returned. Errors as Create, and
// CodeInvalidArgument (field game.engine_opponent) when the service has no
// engine or the strength is out of range.
func (s *Service) CreateAgainstEngine(ctx context.Context, v engine.Variant, opp EngineOpponent) (*Game, Tokens, error) {
	switch {
	case s.engine == nil:
		return nil, Tokens{}, invalid("game.engine_opponent", "this server does not run the engine as a player")
	case opp.Side > engine.Black:
		return nil, Tokens{}, invalid("game.engine_opponent.side", "must be SIDE_RED or SIDE_BLACK")
	case opp.MoveTime <= 0 && opp.Depth <= 0:
		return nil, Tokens{}, invalid("game.engine_opponent", "give a strength: move_time above 0 or depth 1..64")
	case opp.MoveTime > s.maxEngineTime:
		return nil, Tokens{}, invalid("game.engine_opponent.move_time", "%v is above the server's cap of %v per move", opp.MoveTime, s.maxEngineTime)
	case opp.Depth < 0 || opp.Depth > 64:
		return nil, Tokens{}, invalid("game.engine_opponent.depth", "must be 1..64, got %d", opp.Depth)
	}
	g, tokens, err := s.create(ctx, v, &opp)
	if err != nil {
		return nil, Tokens{}, err
	}
	// The engine's token is never handed out.
	if opp.Side == engine.Red {
		tokens.Red = ""
	} else {
		tokens.Black = ""
	}
	s.afterChange(g)
	return g, tokens, nil
}

// afterChange starts the engine thinking if it is to move in g.
func (s *Service) afterChange(g *Game) {
	if s.engine != nil && g.EngineToMove() {
		s.startEngineMove(g.ID, g.Ply())
	}
}

// startEngineMove thinks and plays for the engine at ply in the
// background, once per game at a time.
func (s *Service) startEngineMove(id string, ply int) {
	s.mu.Lock()
	if s.thinking[id] {
		s.mu.Unlock()
		return
	}
	s.thinking[id] = true
	s.mu.Unlock()
	go func() {
		defer func() {
			s.mu.Lock()
			delete(s.thinking, id)
			s.mu.Unlock()
		}()
		if err := s.engineMove(id, ply); err != nil && !errors.Is(err, context.Canceled) {
			s.log.Warn("engine move failed", "game", id, "ply", ply, "err", err)
		}
	}()
}

func (s *Service) engineMove(id string, ply int) error {
	ctx := s.base
	g, err := s.store.Get(ctx, id)
	if err != nil {
		return err
	}
	if g.Ply() != ply || !g.EngineToMove() {
		return nil // someone else moved for it, or the game is over
	}
	eg, err := g.replay()
	if err != nil {
		return err
	}
	moveTime := g.Engine.MoveTime
	if moveTime <= 0 || moveTime > s.maxEngineTime {
		moveTime = s.maxEngineTime
	}
	select { // wait for a free search slot
	case s.engineSlots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	start := time.Now()
	m, ok := s.engine.BestMove(ctx, eg.Position(), eg.History(), g.Variant, moveTime, g.Engine.Depth)
	<-s.engineSlots
	if !ok {
		return ctx.Err()
	}
	if o, ok := s.observer.(EngineObserver); ok {
		o.EngineMoved(time.Since(start))
	}
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		if attempt > 1 {
			if g, err = s.store.Get(ctx, id); err != nil {
				return err
			}
		}
		if g.Ply() != ply || !g.EngineToMove() {
			return nil
		}
		_, events, err := s.play(g, g.Engine.Side, m.String())
		if err != nil {
			return fmt.Errorf("the engine's move %s: %w", m.String(), err)
		}
		err = s.store.Update(ctx, g, events, nil)
		switch {
		case err == nil:
			s.hub.publish(g.ID, events)
			s.observer.MovePlayed()
			return nil
		case errors.Is(err, ErrConflict):
			continue // a draw offer or similar changed the game: check again
		default:
			return err
		}
	}
	return nil
}

// engineSweepEvery is how often a service on a shared store looks for
// games whose engine move was lost with the process thinking it.
const engineSweepEvery = 10 * time.Second

// sweepEngineGames starts the engine in every game where it is to move
// and (unless all) has been for longer than its thinking time: games left
// waiting when a process stopped while thinking.
func (s *Service) sweepEngineGames(ctx context.Context, all bool) {
	after := ""
	for ctx.Err() == nil {
		gs, err := s.store.List(ctx, ListQuery{After: after, Limit: 200, Status: InProgress})
		if err != nil || len(gs) == 0 {
			return
		}
		for _, g := range gs {
			if !g.EngineToMove() {
				continue
			}
			stale := time.Since(g.UpdateTime) > 2*s.maxEngineTime+5*time.Second
			if all || stale {
				s.startEngineMove(g.ID, g.Ply())
			}
		}
		after = gs[len(gs)-1].ID
	}
}

package games

import (
	"context"
	"errors"
	"fmt"
	"strconv"
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

// EngineObserver is the optional part of an Observer that watches the
// engine's moves in games.
type EngineObserver interface {
	// EngineMoved records how long the engine thought before a move.
	EngineMoved(thinking time.Duration)
	// EngineQueueLength reports the engine moves now waiting for a search
	// slot, after each change (called under a lock: keep it cheap).
	EngineQueueLength(waiting int)
	// EngineWaited records how long one engine move waited for its
	// search slot, from the move that made the engine to move (or the
	// sweep that found it) to the start of its search (about 0 when a
	// slot was free).
	EngineWaited(wait time.Duration)
}

// DefaultEngineQueue is how many engine moves may wait for a search slot
// unless WithEngineQueue says otherwise.
const DefaultEngineQueue = 64

// WithEngine lets games have the engine as a player: mover chooses its
// moves, each within maxMoveTime whatever the game asks, with at most
// thinkers searches at once, so many games against the engine cannot take
// all the CPU and memory. Further moves wait in a queue, served in the
// order they arrive (see WithEngineQueue for its bound).
func WithEngine(mover EngineMover, maxMoveTime time.Duration, thinkers int) Option {
	return func(s *Service) {
		s.engine, s.maxEngineTime = mover, maxMoveTime
		s.engineQueue().thinkers = max(thinkers, 1)
	}
}

// WithEngineQueue bounds the engine moves waiting for a search slot at n
// (below 0 counts as 0: a move is accepted only when a slot is free);
// DefaultEngineQueue without it. A caller's move or CreateAgainstEngine
// that would make the engine move while the queue is full is refused
// before anything is stored: CodeResourceExhausted, limit
// "engine_queue". Moves the service finds waiting in the store (after a
// restart, or left by another replica) join the queue whatever its
// length: they are already played, and so counted against later callers.
func WithEngineQueue(n int) Option {
	return func(s *Service) { s.engineQueue().max = max(n, 0) }
}

// engineQueue holds the engine's moves in games: at most thinkers are
// searched at once (each by a runner goroutine that then takes the next
// waiting move), the others wait as plain data, first in first out. Its
// fields are guarded by Service.mu; Service.thinking holds the key of
// every move queued or running, so a move is never queued twice.
type engineQueue struct {
	thinkers int // search slots
	max      int // moves that may wait; a caller's move beyond is refused
	running  int // slots taken, each by a runner
	// reserved counts places held for callers' moves not yet queued:
	// being stored, or stored and about to be queued (pending, by key).
	reserved int
	pending  map[string]bool
	waiting  []engineTicket // in arrival order
}

// engineTicket is an engine move to make: game id at ply.
type engineTicket struct {
	id     string
	ply    int
	queued time.Time
}

func engineKey(id string, ply int) string { return id + "@" + strconv.Itoa(ply) }

func (s *Service) engineQueue() *engineQueue {
	if s.engineQ == nil {
		s.engineQ = &engineQueue{thinkers: 1, max: DefaultEngineQueue, pending: map[string]bool{}}
	}
	return s.engineQ
}

// reserveEngineMove holds a place in the engine's queue for g's next
// move if g, as a caller's change would leave it, has the engine to
// move. Call done once the change is stored (committed) or not: a stored
// change's place passes to the engine's move, which afterChange queues;
// otherwise it is freed. Errors: CodeResourceExhausted (limit
// engine_queue) when every search slot is taken and the queue is full.
func (s *Service) reserveEngineMove(g *Game) (done func(committed bool), err error) {
	if s.engine == nil || !s.engineToMove(g) {
		return func(bool) {}, nil
	}
	if err := s.reserveEngine(); err != nil {
		return nil, err
	}
	key := engineKey(g.ID, g.Ply())
	return func(committed bool) { s.settleEngineMove(key, committed) }, nil
}

// settleEngineMove passes a reserved place to the engine's move at key
// (a change stored) or frees it.
func (s *Service) settleEngineMove(key string, committed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if committed {
		s.engineQ.pending[key] = true
	} else {
		s.engineQ.reserved--
	}
}

// reserveEngine holds one place in the queue, or refuses.
func (s *Service) reserveEngine() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.engineQ
	if q.running+len(q.waiting)+q.reserved < q.thinkers+q.max {
		q.reserved++
		return nil
	}
	return &Error{Code: CodeResourceExhausted, Reason: ReasonLimitExceeded, Limit: "engine_queue",
		Message: fmt.Sprintf("the engine's queue holds its maximum of %d moves waiting for a search (limit engine_queue), "+
			"and this call would make the engine move: nothing was played or created; try again later", q.max),
		Metadata: map[string]string{"limit": "engine_queue", "maximum": strconv.Itoa(q.max)}}
}

// CreateAgainstEngine starts a game of variant v in which the engine plays
// opp.Side; only the other side's token is returned. Errors as Create,
// CodeInvalidArgument (field game.engine_opponent) when the service has no
// engine or the strength is out of range, and CodeResourceExhausted
// (limit engine_queue) when the engine would move first while its queue
// is full (no game is created).
func (s *Service) CreateAgainstEngine(ctx context.Context, v engine.Variant, opp EngineOpponent) (*Game, Tokens, error) {
	return s.CreateAgainstEngineTimed(ctx, v, opp, TimeControl{})
}

// CreateAgainstEngineTimed is CreateAgainstEngine with a time control, as
// CreateTimed.
func (s *Service) CreateAgainstEngineTimed(ctx context.Context, v engine.Variant, opp EngineOpponent, tc TimeControl) (*Game, Tokens, error) {
	return s.createAgainstEngine(ctx, v, opp, tc, nil)
}

// checkEngineOpponent checks an engine opponent's settings.
func (s *Service) checkEngineOpponent(opp EngineOpponent) error {
	switch {
	case s.engine == nil:
		return invalid("game.engine_opponent", "this server does not run the engine as a player")
	case opp.Side > engine.Black:
		return invalid("game.engine_opponent.side", "must be SIDE_RED or SIDE_BLACK")
	case opp.MoveTime <= 0 && opp.Depth <= 0:
		return invalid("game.engine_opponent", "give a strength: move_time above 0 or depth 1..64")
	case opp.MoveTime > s.maxEngineTime:
		return invalid("game.engine_opponent.move_time", "%v is above the server's cap of %v per move", opp.MoveTime, s.maxEngineTime)
	case opp.Depth < 0 || opp.Depth > 64:
		return invalid("game.engine_opponent.depth", "must be 1..64, got %d", opp.Depth)
	}
	return nil
}

func (s *Service) createAgainstEngine(ctx context.Context, v engine.Variant, opp EngineOpponent, tc TimeControl, ck *createKey) (*Game, Tokens, error) {
	if err := s.checkEngineOpponent(opp); err != nil {
		return nil, Tokens{}, err
	}
	// If the engine's side starts, hold its move's place in the queue
	// before the game exists (an invalid variant is create's error).
	reserved := false
	if eg, err := engine.NewGame(v); err == nil && (&Game{Engine: &opp, Position: eg.Position(), Outcome: eg.Outcome()}).EngineToMove() {
		if err := s.reserveEngine(); err != nil {
			return nil, Tokens{}, err
		}
		reserved = true
	}
	g, tokens, err := s.create(ctx, v, &opp, tc, ck)
	if reserved {
		key := ""
		if err == nil {
			key = engineKey(g.ID, g.Ply())
		}
		s.settleEngineMove(key, err == nil)
	}
	if err != nil {
		return nil, Tokens{}, err
	}
	s.afterChange(g)
	return g, tokens, nil
}

// afterChange starts the engine thinking if it is to move in g.
func (s *Service) afterChange(g *Game) {
	if s.engine != nil && s.engineToMove(g) {
		s.startEngineMove(g.ID, g.Ply())
	}
}

// startEngineMove queues the engine's move in game id at ply, once: it
// runs at once if a search slot is free, or else after every move queued
// before it. A place reserved for it (reserveEngineMove) becomes its
// place; a move without one (found by the sweep) is queued regardless of
// the bound.
func (s *Service) startEngineMove(id string, ply int) {
	key := engineKey(id, ply)
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.engineQ
	if q.pending[key] {
		delete(q.pending, key)
		q.reserved--
	}
	if s.thinking[key] {
		return
	}
	s.thinking[key] = true
	t := engineTicket{id: id, ply: ply, queued: time.Now()}
	if q.running < q.thinkers {
		q.running++
		go s.runEngineMoves(t)
		return
	}
	q.waiting = append(q.waiting, t)
	if o, ok := s.observer.(EngineObserver); ok {
		o.EngineQueueLength(len(q.waiting))
	}
}

// runEngineMoves holds a search slot: it makes the engine's move t, then
// each move at the head of the queue, until the queue is empty or the
// service drains (which drops the moves still waiting: the next process's
// sweep finds them).
func (s *Service) runEngineMoves(t engineTicket) {
	o, observed := s.observer.(EngineObserver)
	for {
		if observed {
			o.EngineWaited(time.Since(t.queued))
		}
		if err := s.engineMove(t.id, t.ply); err != nil && !errors.Is(err, context.Canceled) {
			s.log.Warn("engine move failed", "game", t.id, "ply", t.ply, "err", err)
		}
		s.mu.Lock()
		q := s.engineQ
		delete(s.thinking, engineKey(t.id, t.ply))
		if s.base.Err() != nil && len(q.waiting) > 0 {
			for _, w := range q.waiting {
				delete(s.thinking, engineKey(w.id, w.ply))
			}
			q.waiting = nil
			if observed {
				o.EngineQueueLength(0)
			}
		}
		if len(q.waiting) == 0 {
			q.running--
			s.mu.Unlock()
			return
		}
		t = q.waiting[0]
		q.waiting[0] = engineTicket{}
		q.waiting = q.waiting[1:]
		if observed {
			o.EngineQueueLength(len(q.waiting))
		}
		s.mu.Unlock()
	}
}

func (s *Service) engineMove(id string, ply int) error {
	ctx := s.base
	g, err := s.store.Get(ctx, id)
	if err != nil {
		return err
	}
	if g.Ply() != ply || !s.engineToMove(g) {
		return nil // someone else moved for it, or the game is over
	}
	eg, err := g.continued()
	if err != nil {
		return err
	}
	moveTime := g.Engine.MoveTime
	if moveTime <= 0 || moveTime > s.maxEngineTime {
		moveTime = s.maxEngineTime
	}
	moveTime = clockBudget(g, s.now(), moveTime)
	start := time.Now()
	m, ok := s.engine.BestMove(ctx, eg.Position(), eg.History(), g.Variant, moveTime, g.Engine.Depth)
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
		if g.Ply() != ply || !s.engineToMove(g) {
			return nil
		}
		if _, due := clockOutcome(g, s.now()); due {
			return s.expire(ctx, id) // thought too long: never, by clockBudget, unless it waited long for a slot
		}
		_, events, err := s.play(g, g.Engine.Side, m.String())
		if errors.Is(err, errClockDue) {
			return s.expire(ctx, id)
		}
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
			if !s.engineToMove(g) {
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

package games

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

// Clocks (docs/api.md, Clocks). The server alone measures time: a move's
// time runs from the event that gave its side the turn to the move's
// commit, both stamped by the server. Each side's first move is not
// timed against its clock, but must come within the first-move time, or
// the game is aborted; from then on the side to move's clock runs, and
// the game ends by timeout when it reaches zero (docs/RULES.md, Time).

// TimeControl is a game's time control, fixed at creation; the zero value
// is none.
type TimeControl struct {
	// Initial is each side's time for the game (Fischer), with Increment
	// added after each of its moves; or PerMove, a fixed time for every
	// move. Exactly one of Initial and PerMove is above 0.
	Initial, Increment, PerMove time.Duration
	// FirstMove is the time each side has for its first move before the
	// game is aborted: PerMove for a per-move control, else the service's
	// setting when the game was created (Limits.FirstMoveTime).
	FirstMove time.Duration
}

// On reports whether tc is a time control (not none).
func (tc TimeControl) On() bool { return tc.Initial > 0 || tc.PerMove > 0 }

// Clock is the state of a game's clocks after its latest event.
type Clock struct {
	// Remaining is each side's time left at Since.
	Remaining [2]time.Duration
	// Since is the time of the game's latest event.
	Since time.Time
	// Deadline is when the game ends if the side to move has not moved:
	// its flag falls (Running) or, before its first move, the game is
	// aborted. Zero once the game is over.
	Deadline time.Time
	// Running reports whether the side to move's clock runs (it has made
	// its first move and the game goes on).
	Running bool
}

func (c *Clock) clone() *Clock {
	if c == nil {
		return nil
	}
	d := *c
	return &d
}

// startClock sets the clocks of a new game created at now.
func startClock(g *Game, now time.Time) {
	tc := g.TimeControl
	if !tc.On() {
		g.Clock = nil
		return
	}
	per := tc.Initial
	if tc.PerMove > 0 {
		per = tc.PerMove
	}
	g.Clock = &Clock{Remaining: [2]time.Duration{per, per}, Since: now}
	settleClock(g, true, false)
}

// MaxRemaining bounds a side's time left: increments stop adding beyond
// it, so the clock's arithmetic cannot overflow and every deadline is one
// every store keeps (the embedded store's keys end in 2262).
const MaxRemaining = 87600 * time.Hour

// advanceClock charges the time from the clock's last event to now to the
// side whose clock runs; never below zero.
func advanceClock(g *Game, now time.Time) {
	c := g.Clock
	if c == nil {
		return
	}
	if c.Running && now.After(c.Since) {
		stm := g.Position.SideToMove()
		c.Remaining[stm] = max(0, c.Remaining[stm]-now.Sub(c.Since))
	}
	// Since is the event's time even if the server's clock stepped back
	// (nothing is charged then), so an event's clock reads the same live
	// and stored.
	c.Since = now
}

// clockMoved records a move of side, committed at now, on g's clocks:
// call it after advanceClock(g, now) and with g already after the move.
// The increment (or, per move, a fresh move time) is added after the
// move, the first one included.
func clockMoved(g *Game, side engine.Side) {
	c := g.Clock
	if c == nil {
		return
	}
	if g.TimeControl.PerMove > 0 {
		c.Remaining[side] = g.TimeControl.PerMove
	} else {
		c.Remaining[side] = min(MaxRemaining, c.Remaining[side]+g.TimeControl.Increment)
	}
}

// settleClock sets Running and Deadline from g's state, after a change:
// a side's clock runs once both sides have moved (a side to move at ply 0
// or 1 has not), while the game goes on. A first move's deadline counts
// from the event that gave the turn (turn: this change did), not from a
// draw offer since. At the ply limit no clock runs: no move can be made
// (stopped).
func settleClock(g *Game, turn, stopped bool) {
	c := g.Clock
	if c == nil {
		return
	}
	if g.Over() || stopped {
		c.Running, c.Deadline = false, time.Time{}
		return
	}
	c.Running = g.Plies >= 2
	switch {
	case c.Running:
		c.Deadline = c.Since.Add(c.Remaining[g.Position.SideToMove()])
	case turn || c.Deadline.IsZero():
		c.Deadline = c.Since.Add(g.TimeControl.FirstMove)
	}
}

// clockOutcome returns how g ends if its deadline has passed at now: a
// timeout win for the other side when the side to move's clock ran out,
// an abort when its first move did not come.
func clockOutcome(g *Game, now time.Time) (engine.Outcome, bool) {
	c := g.Clock
	if c == nil || g.Over() || c.Deadline.IsZero() || now.Before(c.Deadline) {
		return engine.Outcome{}, false
	}
	if c.Running {
		return engine.Outcome{Result: engine.WinFor(g.Position.SideToMove() ^ 1), Reason: engine.Timeout}, true
	}
	return engine.Outcome{Result: engine.NoResult, Reason: engine.Aborted}, true
}

// flagEvents ends g, whose deadline passed at now, by timeout or abort;
// the event is dated at the deadline, when the game ended, however late
// it is recorded (after a restart, say).
func flagEvents(g *Game, o engine.Outcome) []Event {
	at := g.Clock.Deadline
	advanceClock(g, at)
	g.Outcome, g.HasOffer = o, false
	settleClock(g, false, false)
	return []Event{{Kind: EventEnded, Outcome: o, Time: at}}
}

// expire ends game id by its clock if its deadline has passed: what a
// timer or a sweep does for a game whose side to move has not moved. It
// does nothing if the game is over, or the deadline moved on (a move came
// in time). Several replicas may try at once: the store's version check
// lets one win, and the others find the game over.
func (s *Service) expire(ctx context.Context, id string) error {
	_, err := s.expired(ctx, id)
	return err
}

// expired is expire, reporting whether this call ended the game.
func (s *Service) expired(ctx context.Context, id string) (bool, error) {
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		g, err := s.store.Get(ctx, id)
		if err != nil {
			return false, err
		}
		now := s.now()
		o, due := clockOutcome(g, now)
		if !due {
			return false, nil
		}
		deadline := g.Clock.Deadline
		events := flagEvents(g, o)
		g.Version++
		g.UpdateTime = deadline // the game changed then, however late this is
		s.stamp(g, events)
		switch err := s.store.Update(ctx, g, events, nil); {
		case err == nil:
			s.hub.publish(g.ID, events)
			s.observer.GameFlagged(o.Reason.String(), now.Sub(deadline))
			return true, nil
		case errors.Is(err, ErrConflict):
			continue
		default:
			return false, err
		}
	}
	return false, nil
}

// expireDue ends every game whose deadline is at or before now.
func (s *Service) expireDue(ctx context.Context) error {
	for {
		ids, err := s.store.Due(ctx, s.now(), dueBatch)
		if err != nil {
			return err
		}
		// One game that cannot be ended (a record that no longer reads)
		// must not hold up the others: its error is reported, and the
		// rest go on.
		// Several at once: a store that groups commits (the embedded one)
		// then ends a burst of due games in a few commits, not one each.
		var (
			mu    sync.Mutex
			first error
			ended int
			wg    sync.WaitGroup
			slots = make(chan struct{}, expireWorkers)
		)
		for _, id := range ids {
			slots <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-slots; wg.Done() }()
				ok, err := s.expired(ctx, id)
				mu.Lock()
				defer mu.Unlock()
				if ok {
					ended++
				}
				if err != nil && !errors.Is(err, ErrNotFound) && first == nil {
					first = fmt.Errorf("game %s: %w", id, err)
				}
			}()
		}
		wg.Wait()
		// A full batch asks for the next, unless it ended nothing: then the
		// same games would come back (another replica is ending them, or
		// they cannot be), and the next round tries again.
		if first != nil || len(ids) < dueBatch || ended == 0 {
			return first
		}
	}
}

// errClockDue is play's answer when the game's deadline has passed at the
// move's commit time: the caller ends the game by its clock (expire)
// instead of playing.
var errClockDue = errors.New("the game's deadline has passed")

const dueBatch = 100

// expireWorkers is how many due games one server ends at once.
const expireWorkers = 16

// clockPoll is how often runClocks asks the store for due games: a game
// ends at most about this long after its deadline (docs/api.md, Clocks).
const clockPoll = 100 * time.Millisecond

// clockErrorEvery spaces the reports of failing rounds.
const clockErrorEvery = 30 * time.Second

// runClocks ends games by their clocks until ctx ends: every interval it
// asks the store for the games whose deadline has passed, so a game ends
// on time whichever replica is up, and after a restart, games whose
// deadline passed while no server ran end at once (dated at their
// deadlines). Errors (a store outage) are reported to onError and the
// next round tries again.
func (s *Service) runClocks(ctx context.Context, interval time.Duration, onError func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	var reported time.Time
	for {
		// While the store is down every round fails: report the first
		// failure, then one every clockErrorEvery (the metrics count all).
		if err := s.expireDue(ctx); err != nil && ctx.Err() == nil && onError != nil && time.Since(reported) >= clockErrorEvery {
			reported = time.Now()
			onError(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// checkTimeControl checks a requested time control against the limits
// and fills in its first-move time.
func (s *Service) checkTimeControl(tc TimeControl) (TimeControl, error) {
	lo, hi := s.limits.MinClockTime, s.limits.MaxClockTime
	between := func(field string, d time.Duration) error {
		if d < lo || (hi > 0 && d > hi) {
			return invalid("game.time_control."+field, "%v is out of range: want %v to %v (settings min-clock-time and max-clock-time)", d, lo, hi)
		}
		return nil
	}
	switch {
	case tc == TimeControl{}:
		return tc, nil
	case tc.Initial != 0 && tc.PerMove != 0:
		return tc, invalid("game.time_control", "give either initial (with an optional increment) or per_move, not both")
	case tc.PerMove != 0:
		if tc.Increment != 0 {
			return tc, invalid("game.time_control.increment", "an increment goes with initial, not with per_move")
		}
		if err := between("per_move", tc.PerMove); err != nil {
			return tc, err
		}
		tc.FirstMove = tc.PerMove
	case tc.Initial != 0:
		if err := between("initial", tc.Initial); err != nil {
			return tc, err
		}
		if tc.Increment < 0 || (hi > 0 && tc.Increment > hi) {
			return tc, invalid("game.time_control.increment", "%v is out of range: want 0 to %v (setting max-clock-time)", tc.Increment, hi)
		}
		tc.FirstMove = cmp.Or(s.limits.FirstMoveTime, time.Minute)
	default:
		return tc, invalid("game.time_control", "an increment needs an initial time: give initial, or per_move")
	}
	return tc, nil
}

// clockBudget caps the engine's thinking time for its move in g at now,
// so that it never runs out of time: a tenth of the time left before its
// deadline (with an increment, a twentieth plus most of the increment;
// per move, half the move's time), and at least a millisecond.
func clockBudget(g *Game, now time.Time, moveTime time.Duration) time.Duration {
	c := g.Clock
	if c == nil || c.Deadline.IsZero() {
		return moveTime
	}
	left := c.Deadline.Sub(now)
	budget := left / 10
	switch tc := g.TimeControl; {
	case tc.PerMove > 0:
		budget = left / 2
	case tc.Increment > 0:
		budget = min(left/2, left/20+tc.Increment*3/4)
	}
	return max(time.Millisecond, min(moveTime, budget))
}

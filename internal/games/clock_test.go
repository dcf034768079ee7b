package games

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

var clockT0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) set(d time.Duration) {
	c.mu.Lock()
	c.t = clockT0.Add(d)
	c.mu.Unlock()
}

func newClockService(t *testing.T) (*Service, *fakeClock) {
	t.Helper()
	clk := &fakeClock{t: clockT0}
	lim := DefaultLimits
	lim.FirstMoveTime = 30 * time.Second
	return NewService(NewMemoryStore(), lim, WithClock(clk.now)), clk
}

// wantClock checks a clock against values worked out by hand, as offsets
// from clockT0 (a deadline of -1 means none).
func wantClock(t *testing.T, what string, c *Clock, red, black time.Duration, running bool, deadline time.Duration) {
	t.Helper()
	if c == nil {
		t.Fatalf("%s: no clock", what)
	}
	want := time.Time{}
	if deadline >= 0 {
		want = clockT0.Add(deadline)
	}
	if c.Remaining != [2]time.Duration{red, black} || c.Running != running || !c.Deadline.Equal(want) {
		t.Errorf("%s: clock %v/%v running %v deadline %v; want %v/%v running %v deadline %v", what,
			c.Remaining[0], c.Remaining[1], c.Running, c.Deadline, red, black, running, want)
	}
}

func mustMove(t *testing.T, s *Service, id, token, mv string) *MoveResult {
	t.Helper()
	res, err := s.MakeMove(context.Background(), MoveRequest{GameID: id, Token: token, Move: mv})
	if err != nil {
		t.Fatalf("%s: %v", mv, err)
	}
	return res
}

// TestFischerClock plays 60 s + 2 s by hand: the first move of each side
// is untimed (the increment is still added), then each move costs its
// side the time since the previous event, plus the increment.
func TestFischerClock(t *testing.T) {
	s, clk := newClockService(t)
	ctx := context.Background()
	g, tok, err := s.CreateTimed(ctx, engine.DefaultVariant(), TimeControl{Initial: time.Minute, Increment: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if g.TimeControl.FirstMove != 30*time.Second {
		t.Errorf("first-move time %v, want the service's 30s", g.TimeControl.FirstMove)
	}
	wantClock(t, "created", g.Clock, time.Minute, time.Minute, false, 30*time.Second)

	clk.set(10 * time.Second)
	res := mustMove(t, s, g.ID, tok.Red, "e2-d3")
	wantClock(t, "after Red's first move", res.Game.Clock, 62*time.Second, time.Minute, false, 40*time.Second)
	clk.set(15 * time.Second)
	res = mustMove(t, s, g.ID, tok.Black, "c6-d5")
	wantClock(t, "after Black's first move", res.Game.Clock, 62*time.Second, 62*time.Second, true, 77*time.Second)
	clk.set(25 * time.Second)
	res = mustMove(t, s, g.ID, tok.Red, "d3-c4")
	wantClock(t, "after Red's second move", res.Game.Clock, 54*time.Second, 62*time.Second, true, 87*time.Second)

	// The last millisecond is in time; Black keeps 1 ms, plus 2 s.
	clk.set(87*time.Second - time.Millisecond)
	res = mustMove(t, s, g.ID, tok.Black, "b5xd3")
	wantClock(t, "a move in the last millisecond", res.Game.Clock, 54*time.Second, 2*time.Second+time.Millisecond, true,
		87*time.Second-time.Millisecond+54*time.Second)

	// Every event carries the clock after it, as of its time.
	evs, err := s.store.Events(ctx, g.ID, 0, 100)
	if err != nil || len(evs) != 5 {
		t.Fatalf("events: %d, %v", len(evs), err)
	}
	wantClock(t, "event 3 (Black's first move)", evs[2].Clock, 62*time.Second, 62*time.Second, true, 77*time.Second)
	if !evs[2].Clock.Since.Equal(evs[2].Time) || !evs[2].Time.Equal(clockT0.Add(15*time.Second)) {
		t.Errorf("event 3 at %v, its clock since %v", evs[2].Time, evs[2].Clock.Since)
	}
}

// TestMoveAfterTheDeadline: a move at the deadline is too late, whether
// or not anything has ended the game yet: it is refused with the game's
// timeout outcome, and the game's end is dated at the deadline.
func TestMoveAfterTheDeadline(t *testing.T) {
	s, clk := newClockService(t)
	ctx := context.Background()
	g, tok, err := s.CreateTimed(ctx, engine.DefaultVariant(), TimeControl{Initial: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	mustMove(t, s, g.ID, tok.Red, "e2-d3")
	clk.set(time.Second)
	mustMove(t, s, g.ID, tok.Black, "c6-d5") // Red's clock runs: 10 s from 1 s
	clk.set(11 * time.Second)
	_, err = s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Red, Move: "d3-c4"})
	var e *Error
	if !errors.As(err, &e) || e.Reason != ReasonGameOver || e.Metadata["reason"] != "OUTCOME_REASON_TIMEOUT" ||
		e.Metadata["result"] != "OUTCOME_RESULT_BLACK_WINS" {
		t.Fatalf("a move at the deadline: %v (%+v), want GAME_OVER by timeout, Black wins", err, e)
	}
	g, _ = s.Get(ctx, g.ID)
	if g.Outcome != (engine.Outcome{Result: engine.BlackWins, Reason: engine.Timeout}) || g.Plies != 2 {
		t.Fatalf("game: %v at ply %d", g.Outcome, g.Plies)
	}
	wantClock(t, "flagged", g.Clock, 0, 10*time.Second, false, -1)
	if !g.Clock.Since.Equal(clockT0.Add(11*time.Second)) || !g.UpdateTime.Equal(clockT0.Add(11*time.Second)) {
		t.Errorf("the flagged clock is as of %v, the game updated at %v; want the deadline for both", g.Clock.Since, g.UpdateTime)
	}
	evs, _ := s.store.Events(ctx, g.ID, 3, 10)
	if len(evs) != 1 || evs[0].Kind != EventEnded || !evs[0].Time.Equal(clockT0.Add(11*time.Second)) {
		t.Fatalf("the end: %+v, want one game_ended dated at the deadline", evs)
	}
}

// TestFlagFallsWithNobodyThere: the service's sweep ends a game whose
// side to move ran out, with no call from anyone, dated at the deadline
// even when the sweep comes late (a restart).
func TestFlagFallsWithNobodyThere(t *testing.T) {
	s, clk := newClockService(t)
	ctx := context.Background()
	g, tok, err := s.CreateTimed(ctx, engine.DefaultVariant(), TimeControl{Initial: 5 * time.Second, Increment: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	mustMove(t, s, g.ID, tok.Red, "e2-d3")
	clk.set(2 * time.Second)
	mustMove(t, s, g.ID, tok.Black, "c6-d5") // Red: 6 s from 2 s
	clk.set(7999 * time.Millisecond)
	if err := s.expireDue(ctx); err != nil {
		t.Fatal(err)
	}
	if g, _ = s.Get(ctx, g.ID); g.Over() {
		t.Fatalf("ended before its deadline: %v", g.Outcome)
	}
	clk.set(time.Hour) // the server was down
	if err := s.expireDue(ctx); err != nil {
		t.Fatal(err)
	}
	g, _ = s.Get(ctx, g.ID)
	if g.Outcome != (engine.Outcome{Result: engine.BlackWins, Reason: engine.Timeout}) {
		t.Fatalf("outcome %v, want Black wins by timeout", g.Outcome)
	}
	evs, _ := s.store.Events(ctx, g.ID, 3, 10)
	if len(evs) != 1 || !evs[0].Time.Equal(clockT0.Add(8*time.Second)) {
		t.Fatalf("the end: %+v, want it dated 8 s", evs)
	}
	wantClock(t, "the end's clock", evs[0].Clock, 0, 6*time.Second, false, -1)
	// Once over, nothing is due.
	if ids, _ := s.store.Due(ctx, clk.now(), 10); len(ids) != 0 {
		t.Errorf("due after the end: %v", ids)
	}
}

// TestFirstMoveNeverComes: the game is aborted, no result, at the first
// move's deadline; for Black's first move too.
func TestFirstMoveNeverComes(t *testing.T) {
	s, clk := newClockService(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		moves   int
		tc      TimeControl
		abortAt time.Duration
	}{
		{"Red's first move, Fischer", 0, TimeControl{Initial: time.Minute}, 30 * time.Second},
		{"Black's first move, Fischer", 1, TimeControl{Initial: time.Minute}, 30 * time.Second},
		{"Red's first move, per move", 0, TimeControl{PerMove: 10 * time.Second}, 10 * time.Second},
	} {
		clk.set(0)
		g, tok, err := s.CreateTimed(ctx, engine.DefaultVariant(), tc.tc)
		if err != nil {
			t.Fatal(err)
		}
		if tc.moves == 1 {
			mustMove(t, s, g.ID, tok.Red, "e2-d3")
		}
		clk.set(tc.abortAt - time.Nanosecond)
		s.expireDue(ctx)
		if g, _ = s.Get(ctx, g.ID); g.Over() {
			t.Fatalf("%s: over before the deadline", tc.name)
		}
		clk.set(tc.abortAt)
		s.expireDue(ctx)
		g, _ = s.Get(ctx, g.ID)
		if g.Outcome != (engine.Outcome{Result: engine.NoResult, Reason: engine.Aborted}) {
			t.Errorf("%s: %v, want aborted with no result", tc.name, g.Outcome)
		}
	}
}

// TestPerMoveClock: every move has the same fixed time, not carried over.
func TestPerMoveClock(t *testing.T) {
	s, clk := newClockService(t)
	g, tok, err := s.CreateTimed(context.Background(), engine.DefaultVariant(), TimeControl{PerMove: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	wantClock(t, "created", g.Clock, 10*time.Second, 10*time.Second, false, 10*time.Second)
	clk.set(3 * time.Second)
	mustMove(t, s, g.ID, tok.Red, "e2-d3")
	clk.set(5 * time.Second)
	res := mustMove(t, s, g.ID, tok.Black, "c6-d5")
	wantClock(t, "both moved", res.Game.Clock, 10*time.Second, 10*time.Second, true, 15*time.Second)
	clk.set(14 * time.Second)
	res = mustMove(t, s, g.ID, tok.Red, "d3-c4")
	wantClock(t, "Red used 9 s", res.Game.Clock, 10*time.Second, 10*time.Second, true, 24*time.Second)
}

// TestResignStopsTheClock: the running side is charged up to the
// resignation, and no clock runs after it.
func TestResignStopsTheClock(t *testing.T) {
	s, clk := newClockService(t)
	ctx := context.Background()
	g, tok, _ := s.CreateTimed(ctx, engine.DefaultVariant(), TimeControl{Initial: time.Minute})
	mustMove(t, s, g.ID, tok.Red, "e2-d3")
	mustMove(t, s, g.ID, tok.Black, "c6-d5")
	clk.set(20 * time.Second)
	if _, err := s.OfferDraw(ctx, g.ID, tok.Black); err != nil { // Red's clock still runs
		t.Fatal(err)
	}
	clk.set(25 * time.Second)
	g, err := s.Resign(ctx, g.ID, tok.Red)
	if err != nil {
		t.Fatal(err)
	}
	wantClock(t, "after resigning", g.Clock, 35*time.Second, time.Minute, false, -1)
	evs, _ := s.store.Events(ctx, g.ID, 3, 10)
	if len(evs) != 2 {
		t.Fatalf("%d events", len(evs))
	}
	wantClock(t, "the draw offer's clock", evs[0].Clock, 40*time.Second, time.Minute, true, time.Minute)
}

func TestTimeControlBounds(t *testing.T) {
	s, _ := newClockService(t)
	for _, tc := range []struct {
		tc    TimeControl
		field string
	}{
		{TimeControl{Initial: time.Second - 1}, "game.time_control.initial"},
		{TimeControl{Initial: 30*24*time.Hour + 1}, "game.time_control.initial"},
		{TimeControl{PerMove: time.Millisecond}, "game.time_control.per_move"},
		{TimeControl{Initial: time.Minute, Increment: -time.Second}, "game.time_control.increment"},
		{TimeControl{Initial: time.Minute, PerMove: time.Minute}, "game.time_control"},
		{TimeControl{PerMove: time.Minute, Increment: time.Second}, "game.time_control.increment"},
		{TimeControl{Increment: time.Second}, "game.time_control"},
	} {
		_, _, err := s.CreateTimed(context.Background(), engine.DefaultVariant(), tc.tc)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeInvalidArgument || e.Field != tc.field {
			t.Errorf("%+v: %v, want INVALID_ARGUMENT on %s", tc.tc, err, tc.field)
		}
	}
}

// TestClockBudget: the engine's thinking time never reaches its deadline.
func TestClockBudget(t *testing.T) {
	now := clockT0
	for _, tc := range []struct {
		tc   TimeControl
		left time.Duration
		move time.Duration
		want time.Duration
	}{
		{TimeControl{Initial: time.Minute}, 30 * time.Second, 10 * time.Second, 3 * time.Second},
		{TimeControl{Initial: time.Minute}, 30 * time.Second, time.Second, time.Second},
		{TimeControl{Initial: time.Minute, Increment: 2 * time.Second}, 20 * time.Second, 10 * time.Second, 2500 * time.Millisecond},
		{TimeControl{PerMove: 4 * time.Second}, 4 * time.Second, 10 * time.Second, 2 * time.Second},
		{TimeControl{Initial: time.Minute}, 0, time.Second, time.Millisecond},
	} {
		g := &Game{TimeControl: tc.tc, Clock: &Clock{Deadline: now.Add(tc.left), Running: true}}
		if got := clockBudget(g, now, tc.move); got != tc.want {
			t.Errorf("%+v with %v left, asked %v: %v, want %v", tc.tc, tc.left, tc.move, got, tc.want)
		}
	}
}

// TestFirstMoveDeadlineKeepsThroughOffers: a draw offer, or its answer,
// before a side's first move does not move that move's deadline, which
// counts from the event that gave the turn.
func TestFirstMoveDeadlineKeepsThroughOffers(t *testing.T) {
	s, clk := newClockService(t)
	ctx := context.Background()
	g, tok, _ := s.CreateTimed(ctx, engine.DefaultVariant(), TimeControl{Initial: time.Minute})
	clk.set(20 * time.Second)
	if _, err := s.OfferDraw(ctx, g.ID, tok.Red); err != nil {
		t.Fatal(err)
	}
	clk.set(25 * time.Second)
	g, err := s.AnswerDrawOffer(ctx, g.ID, tok.Black, false)
	if err != nil {
		t.Fatal(err)
	}
	wantClock(t, "after an offer and its answer", g.Clock, time.Minute, time.Minute, false, 30*time.Second)
	clk.set(30 * time.Second)
	if _, err := s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3"}); err == nil {
		t.Fatal("a first move at its deadline (30 s from creation) was played")
	}
}

// TestIncrementCapped: a side's time never grows past MaxRemaining, so a
// long game with a large increment cannot overflow its clock.
func TestIncrementCapped(t *testing.T) {
	g := &Game{TimeControl: TimeControl{Initial: MaxRemaining - time.Second, Increment: time.Hour},
		Clock: &Clock{Remaining: [2]time.Duration{MaxRemaining - time.Second, 5}}}
	clockMoved(g, engine.Red)
	clockMoved(g, engine.Black)
	if g.Clock.Remaining != [2]time.Duration{MaxRemaining, 5 + time.Hour} {
		t.Errorf("remaining %v, want Red capped at %v and Black 1h5ns", g.Clock.Remaining, MaxRemaining)
	}
}

// TestClocksStopAtThePlyLimit: at --max-game-plies no move can be made,
// so no clock runs: nobody loses on time for it.
func TestClocksStopAtThePlyLimit(t *testing.T) {
	clk := &fakeClock{t: clockT0}
	lim := DefaultLimits
	lim.MaxPlies = 2
	s := NewService(NewMemoryStore(), lim, WithClock(clk.now))
	ctx := context.Background()
	g, tok, _ := s.CreateTimed(ctx, engine.DefaultVariant(), TimeControl{Initial: 5 * time.Second})
	mustMove(t, s, g.ID, tok.Red, "e2-d3")
	res := mustMove(t, s, g.ID, tok.Black, "c6-d5")
	wantClock(t, "at the ply limit", res.Game.Clock, 5*time.Second, 5*time.Second, false, -1)
	clk.set(time.Hour)
	s.expireDue(ctx)
	if g, _ = s.Get(ctx, g.ID); g.Over() {
		t.Errorf("ended at the ply limit: %v", g.Outcome)
	}
}

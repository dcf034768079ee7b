package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
)

// Clocks (issue 16): a store keeps a game's time control and clocks with
// the game and each event's clocks with the event, and finds the games
// whose deadline has passed (Due). Every expected value below is worked
// out from the clocks' rules by hand (internal/games/clock.go), not read
// from a store.

// control is the time control of the suite's timed games: 5 minutes each
// plus 2 seconds a move, a minute for each side's first move.
var control = games.TimeControl{Initial: 5 * time.Minute, Increment: 2 * time.Second, FirstMove: time.Minute}

// Zones other than UTC: a store may give times back in another zone (or
// without one), so times are compared as instants.
var (
	east = time.FixedZone("UTC+9", 9*3600)
	west = time.FixedZone("UTC-5", -5*3600)
)

// withClock returns c as a new Clock.
func withClock(c games.Clock) *games.Clock { return &c }

// timedGame is newGame with the time control and clock given (the
// created event carrying a copy of the clock).
func timedGame(t *testing.T, id string, c games.Clock) (*games.Game, []games.Event) {
	t.Helper()
	g, evs := newGame(t, id)
	g.TimeControl = control
	g.Clock = withClock(c)
	evs[0].Clock = withClock(c)
	return g, evs
}

// playTimed is play with the clocks after the move: c, its Since the
// move's time (event and game carry copies).
func playTimed(t *testing.T, g *games.Game, notation string, c games.Clock) (*games.Game, games.Event) {
	t.Helper()
	n, ev := play(t, g, notation)
	c.Since = ev.Time
	n.Clock, ev.Clock = withClock(c), withClock(c)
	return n, ev
}

// sameClock fails unless got is want, times compared as instants.
func sameClock(t *testing.T, what string, got, want *games.Clock) {
	t.Helper()
	switch {
	case got == nil && want == nil:
		return
	case got == nil || want == nil:
		t.Fatalf("%s: clock %+v, want %+v", what, got, want)
	case got.Remaining != want.Remaining || !got.Since.Equal(want.Since) || !got.Deadline.Equal(want.Deadline) || got.Running != want.Running:
		t.Fatalf("%s: clock\n got %+v\nwant %+v", what, *got, *want)
	}
}

// testClockRoundTrip plays a timed game to its end by timeout and reads
// back the game and its events at each step, and a game without a clock.
func testClockRoundTrip(t *testing.T, s games.Store) {
	ctx := context.Background()
	const five = 5 * time.Minute
	// A deadline that carries a monotonic clock reading (which no store
	// keeps), at the instant epoch + 1 minute.
	now := time.Now()
	firstDeadline := now.Add(epoch.Add(time.Minute).Sub(now))
	// Created at epoch: neither clock runs; red has a minute to move.
	created := games.Clock{Remaining: [2]time.Duration{five, five}, Since: epoch.In(west), Deadline: firstDeadline}
	g, evs := timedGame(t, "timed", created)
	if err := s.Create(ctx, g, evs); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, "timed")
	if err != nil {
		t.Fatal(err)
	}
	sameGame(t, got, g)
	if got.TimeControl != control {
		t.Fatalf("time control read back as %+v, want %+v", got.TimeControl, control)
	}
	sameClock(t, "created", got.Clock, &games.Clock{Remaining: [2]time.Duration{five, five}, Since: epoch, Deadline: epoch.Add(time.Minute)})

	// Red's first move at epoch+1s: untimed, then its increment; black
	// has a minute for its first move.
	after1 := games.Clock{Remaining: [2]time.Duration{five + 2*time.Second, five}, Deadline: epoch.Add(time.Second + time.Minute).In(east)}
	g1, ev1 := playTimed(t, g, "e2-d3", after1)
	// Black's first move at epoch+2s: untimed, its increment; now red's
	// clock runs: red's 5m2s from epoch+2s.
	after2 := games.Clock{Remaining: [2]time.Duration{five + 2*time.Second, five + 2*time.Second}, Running: true,
		Deadline: epoch.Add(2*time.Second + five + 2*time.Second)}
	g2, ev2 := playTimed(t, g1, "b5-c4", after2)
	// Red's second move at epoch+3s: 1s off red's clock, 2s on; black's
	// 5m2s from epoch+3s.
	after3 := games.Clock{Remaining: [2]time.Duration{five + 3*time.Second, five + 2*time.Second}, Running: true,
		Deadline: epoch.Add(3*time.Second + five + 2*time.Second).In(west)}
	g3, ev3 := playTimed(t, g2, "d3xb5", after3)
	for i, step := range []struct {
		g  *games.Game
		ev games.Event
	}{{g1, ev1}, {g2, ev2}, {g3, ev3}} {
		if err := s.Update(ctx, step.g, []games.Event{step.ev}, nil); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, "timed")
		if err != nil {
			t.Fatal(err)
		}
		sameGame(t, got, step.g)
		if !got.Clock.Deadline.Equal(step.g.Clock.Deadline) {
			t.Fatalf("after move %d: deadline %v, want %v", i+1, got.Clock.Deadline, step.g.Clock.Deadline)
		}
	}
	// Black's flag falls at its deadline, epoch+3s+5m2s: its clock at
	// zero, no deadline, no clock running; red wins on time.
	flag := epoch.Add(3*time.Second + five + 2*time.Second)
	ended := g3.Clone()
	ended.Moves = nil
	ended.Version++
	ended.LastEvent++
	ended.UpdateTime = flag.Add(40 * time.Millisecond) // recorded a little after
	ended.Outcome = engine.Outcome{Result: engine.RedWins, Reason: engine.Timeout}
	ended.Clock = &games.Clock{Remaining: [2]time.Duration{five + 3*time.Second, 0}, Since: flag}
	endEv := games.Event{GameID: "timed", Sequence: ended.LastEvent, Time: flag, Kind: games.EventEnded, Ply: 3,
		Position: ended.Position, Outcome: ended.Outcome, Clock: &games.Clock{Remaining: [2]time.Duration{five + 3*time.Second, 0}, Since: flag}}
	if err := s.Update(ctx, ended, []games.Event{endEv}, nil); err != nil {
		t.Fatal(err)
	}
	if got, err = s.Get(ctx, "timed"); err != nil {
		t.Fatal(err)
	}
	sameGame(t, got, ended)
	if !got.Clock.Deadline.IsZero() || got.Clock.Running {
		t.Fatalf("a game over keeps deadline %v, running %v; want none, stopped", got.Clock.Deadline, got.Clock.Running)
	}

	// Each event's clocks, Since at the event's time.
	want := []*games.Clock{
		{Remaining: [2]time.Duration{five, five}, Since: epoch, Deadline: epoch.Add(time.Minute)},
		{Remaining: [2]time.Duration{five + 2*time.Second, five}, Since: epoch.Add(time.Second), Deadline: epoch.Add(61 * time.Second)},
		{Remaining: [2]time.Duration{five + 2*time.Second, five + 2*time.Second}, Since: epoch.Add(2 * time.Second), Deadline: epoch.Add(5*time.Minute + 4*time.Second), Running: true},
		{Remaining: [2]time.Duration{five + 3*time.Second, five + 2*time.Second}, Since: epoch.Add(3 * time.Second), Deadline: epoch.Add(5*time.Minute + 5*time.Second), Running: true},
		{Remaining: [2]time.Duration{five + 3*time.Second, 0}, Since: epoch.Add(5*time.Minute + 5*time.Second)},
	}
	all, err := s.Events(ctx, "timed", 0, 100)
	if err != nil || len(all) != len(want) {
		t.Fatalf("Events = %d events, %v; want %d", len(all), err, len(want))
	}
	for i, e := range all {
		if !e.Clock.Since.Equal(e.Time) {
			t.Fatalf("event %d at %v: its clock's Since is %v, want the event's time", e.Sequence, e.Time, e.Clock.Since)
		}
		sameClock(t, "event "+e.Kind.String(), e.Clock, want[i])
	}
	if all[4].Kind != games.EventEnded || !all[4].Time.Equal(flag) || all[4].Outcome != ended.Outcome {
		t.Fatalf("the flag's event read back as %+v", all[4])
	}

	// A game without a time control has no clock, nor have its events.
	plain, pevs := newGame(t, "plain")
	if err := s.Create(ctx, plain, pevs); err != nil {
		t.Fatal(err)
	}
	plain1, pev := play(t, plain, "e2-d3")
	if err := s.Update(ctx, plain1, []games.Event{pev}, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, "plain"); err != nil || got.Clock != nil || got.TimeControl != (games.TimeControl{}) {
		t.Fatalf("Get(plain) = clock %+v, time control %+v, %v; want none", got.Clock, got.TimeControl, err)
	}
	if evs, err := s.Events(ctx, "plain", 0, 10); err != nil || len(evs) != 2 || evs[0].Clock != nil || evs[1].Clock != nil {
		t.Fatalf("events of a game without a clock: %+v, %v; want 2 without clocks", evs, err)
	}
}

// testDue moves deadlines by Create and Update and asks Due at instants
// around them.
func testDue(t *testing.T, s games.Store) {
	ctx := context.Background()
	at := func(d time.Duration) time.Time { return epoch.Add(d) }
	due := func(until time.Time, limit int, want ...string) {
		t.Helper()
		got, err := s.Due(ctx, until, limit)
		if err != nil {
			t.Fatalf("Due(%v, %d): %v", until, limit, err)
		}
		if len(got) == 0 && len(want) == 0 {
			return
		}
		if !slices.Equal(got, want) {
			t.Fatalf("Due(epoch%+v, %d) = %q, want %q", until.Sub(epoch), limit, got, want)
		}
	}
	deadlineClock := func(d time.Time) games.Clock {
		return games.Clock{Remaining: [2]time.Duration{5 * time.Minute, 5 * time.Minute}, Since: epoch, Deadline: d}
	}
	due(at(time.Hour), 10) // an empty store

	// Deadlines in several zones: in instants b < a < d < c, written
	// as text d < b < c < a (a store must order the instants).
	deadlines := map[string]time.Time{
		"b": at(5 * time.Minute),
		"a": at(10 * time.Minute).In(east),
		"d": at(15 * time.Minute).In(west),
		"c": at(20 * time.Minute),
	}
	stored := map[string]*games.Game{}
	for _, id := range []string{"a", "b", "c", "d"} {
		g, evs := timedGame(t, id, deadlineClock(deadlines[id]))
		if err := s.Create(ctx, g, evs); err != nil {
			t.Fatal(err)
		}
		stored[id] = g
	}
	// Neither a game without a clock nor one created over (its clocks
	// stopped, no deadline) is ever due.
	plain, pevs := newGame(t, "plain")
	if err := s.Create(ctx, plain, pevs); err != nil {
		t.Fatal(err)
	}
	over, oevs := timedGame(t, "over", games.Clock{Remaining: [2]time.Duration{5 * time.Minute, 5 * time.Minute}, Since: epoch})
	over.Outcome = engine.Outcome{Result: engine.NoResult, Reason: engine.Aborted}
	if err := s.Create(ctx, over, oevs); err != nil {
		t.Fatal(err)
	}

	due(at(5*time.Minute-time.Nanosecond), 10)
	due(at(5*time.Minute), 10, "b") // at the deadline: due
	due(at(15*time.Minute).In(east), 10, "b", "a", "d")
	due(at(time.Hour), 10, "b", "a", "d", "c")
	due(at(time.Hour), 2, "b", "a")
	due(at(time.Hour), 0)

	// c's deadline moves earlier, to epoch+1m: its old key must go.
	c1, cev := playTimed(t, stored["c"], "e2-d3", deadlineClock(at(time.Minute)))
	if err := s.Update(ctx, c1, []games.Event{cev}, nil); err != nil {
		t.Fatal(err)
	}
	stored["c"] = c1
	due(at(time.Minute), 10, "c")
	due(at(time.Hour), 10, "c", "b", "a", "d")
	// b's moves later, to epoch+30m.
	b1, bev := playTimed(t, stored["b"], "e2-d3", deadlineClock(at(30*time.Minute).In(west)))
	if err := s.Update(ctx, b1, []games.Event{bev}, nil); err != nil {
		t.Fatal(err)
	}
	stored["b"] = b1
	due(at(15*time.Minute), 10, "c", "a", "d")
	due(at(time.Hour), 10, "c", "a", "d", "b")
	// d moves, its deadline unchanged: still due once. Then a second
	// change from the same base, moving its deadline, is refused and
	// moves nothing.
	d1, dev := playTimed(t, stored["d"], "e2-d3", deadlineClock(deadlines["d"]))
	if err := s.Update(ctx, d1, []games.Event{dev}, nil); err != nil {
		t.Fatal(err)
	}
	due(at(time.Hour), 10, "c", "a", "d", "b")
	stale, sev := playTimed(t, stored["d"], "f3-e4", deadlineClock(at(0)))
	if err := s.Update(ctx, stale, []games.Event{sev}, nil); !errors.Is(err, games.ErrConflict) {
		t.Fatalf("stale Update = %v, want ErrConflict", err)
	}
	due(at(time.Minute), 10, "c")
	due(at(time.Hour), 10, "c", "a", "d", "b")
	// a ends (its flag fell): no deadline, never due again.
	a1, aev := playTimed(t, stored["a"], "e2-d3", games.Clock{Remaining: [2]time.Duration{0, 5 * time.Minute}})
	a1.Outcome = engine.Outcome{Result: engine.BlackWins, Reason: engine.Timeout}
	if err := s.Update(ctx, a1, []games.Event{aev}, nil); err != nil {
		t.Fatal(err)
	}
	due(at(time.Hour), 10, "c", "d", "b")
	// A game without a clock that changes stays out.
	plain1, pev := play(t, plain, "e2-d3")
	if err := s.Update(ctx, plain1, []games.Event{pev}, nil); err != nil {
		t.Fatal(err)
	}
	due(at(100*365*24*time.Hour), 10, "c", "d", "b")
	due(at(time.Hour), 1, "c")
}

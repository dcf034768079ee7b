// Package storetest is the conformance suite every games.Store must pass:
// the in-memory, embedded and PostgreSQL stores run the same tests, so
// they behave alike where the service depends on it.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
)

// Run runs the suite; newStore returns an empty store (cleaned up by t).
func Run(t *testing.T, newStore func(t *testing.T) games.Store) {
	tests := []struct {
		name string
		fn   func(*testing.T, games.Store)
	}{
		{"CreateGetRoundTrip", testCreateGet},
		{"UpdateChecksVersion", testUpdateVersion},
		{"RequestIDsAreOnce", testRequests},
		{"EventsInOrder", testEvents},
		{"ListPagesAndFilters", testList},
		{"ConcurrentUpdatesOneWins", testConcurrent},
		{"ClockRoundTrip", testClockRoundTrip},
		{"DueByDeadline", testDue},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &recordingStore{Store: newStore(t)}
			tc.fn(t, s)
			checkPDNRoundTrips(t, s)
		})
	}
}

var epoch = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// newGame builds a fresh standard game with its created event.
func newGame(t *testing.T, id string) (*games.Game, []games.Event) {
	t.Helper()
	v := engine.DefaultVariant()
	start, err := v.InitialPosition()
	if err != nil {
		t.Fatal(err)
	}
	g := &games.Game{ID: id, Variant: v, Initial: start, Position: start, Version: 1, LastEvent: 1,
		CreateTime: epoch, UpdateTime: epoch}
	g.TokenHash[0][0], g.TokenHash[1][0] = 1, 2
	ev := games.Event{GameID: id, Sequence: 1, Time: epoch, Kind: games.EventCreated, Position: start, Variant: v}
	return g, []games.Event{ev}
}

// play plays notation on a copy of g and returns it with the move's event.
func play(t *testing.T, g *games.Game, notation string) (*games.Game, games.Event) {
	t.Helper()
	n := g.Clone()
	before := n.Position
	m, err := before.ParseMove(notation)
	if err != nil {
		t.Fatal(err)
	}
	pm := games.PlayedMove{Move: m, Side: before.SideToMove(), Captured: before.CapturedPieces(&m)}
	// A store keeps no moves in the game (its event log has them), and
	// keeps the repetition window as given.
	n.Moves = nil
	n.Plies++
	n.Recent = append(n.Recent, before)
	n.Position = before.After(&m)
	n.Version++
	n.LastEvent++
	n.UpdateTime = n.UpdateTime.Add(time.Second)
	return n, games.Event{GameID: n.ID, Sequence: n.LastEvent, Time: n.UpdateTime, Kind: games.EventMovePlayed,
		Ply: n.Plies, Position: n.Position, Move: pm}
}

func sameGame(t *testing.T, got, want *games.Game) {
	t.Helper()
	if !reflect.DeepEqual(normal(got), normal(want)) {
		t.Fatalf("stored game differs:\n got %+v\nwant %+v", got, want)
	}
}

// normal drops what a store may legitimately change: the time zone and
// the monotonic clock reading.
func normal(g *games.Game) *games.Game {
	c := g.Clone()
	c.CreateTime, c.UpdateTime = c.CreateTime.UTC(), c.UpdateTime.UTC()
	if c.Clock != nil {
		c.Clock.Since, c.Clock.Deadline = c.Clock.Since.UTC(), c.Clock.Deadline.UTC()
	}
	if len(c.Recent) == 0 {
		c.Recent = nil
	}
	return c
}

func testCreateGet(t *testing.T, s games.Store) {
	ctx := context.Background()
	if _, err := s.Get(ctx, "missing"); !errors.Is(err, games.ErrNotFound) {
		t.Fatalf("Get(missing) = %v, want ErrNotFound", err)
	}
	g, evs := newGame(t, "g1")
	if err := s.Create(ctx, g, evs); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, g, evs); !errors.Is(err, games.ErrConflict) {
		t.Fatalf("second Create = %v, want ErrConflict", err)
	}
	got, err := s.Get(ctx, "g1")
	if err != nil {
		t.Fatal(err)
	}
	sameGame(t, got, g)
	// A game with a capture, a promotion and a pending draw offer.
	g2, _ := newGame(t, "g2")
	g2.Variant.Setup, g2.Variant.Start = engine.SetupCustom, mustPos(t, "R:RPc4:BPb5,Pb7:0")
	g2.Variant.WinCondition = engine.CaptureAllPieces
	g2.Initial, g2.Position = g2.Variant.Start, g2.Variant.Start
	g2.HasOffer, g2.DrawOffer = true, engine.Black
	if err := s.Create(ctx, g2, nil); err != nil {
		t.Fatal(err)
	}
	g2b, ev := play(t, g2, "c4xa6xc8")
	g2b.Outcome = engine.Outcome{Result: engine.RedWins, Reason: engine.AllPiecesCaptured}
	if err := s.Update(ctx, g2b, []games.Event{ev}, nil); err != nil {
		t.Fatal(err)
	}
	got, err = s.Get(ctx, "g2")
	if err != nil {
		t.Fatal(err)
	}
	sameGame(t, got, g2b)
	if got.Moves != nil {
		t.Fatalf("Get returned %d moves: a store keeps them in the event log only", len(got.Moves))
	}
	evs, err = s.Events(ctx, "g2", 0, 10)
	if err != nil || len(evs) != 1 {
		t.Fatalf("Events = %d events, %v; want the move's", len(evs), err)
	}
	if m := evs[0].Move; m.Move.String() != "c4xa6xc8" || len(m.Captured) != 2 {
		t.Fatalf("stored capture lost its path or captured pieces: %+v", m)
	} else if r, ok := m.Move.Promotion(); !ok || r != engine.Dama {
		t.Fatalf("stored capture lost its promotion: %+v", m)
	}
	if n, err := s.Count(ctx); err != nil || n != 2 {
		t.Fatalf("Count = %d, %v; want 2", n, err)
	}
}

func mustPos(t *testing.T, text string) engine.Position {
	t.Helper()
	p, err := engine.ParsePosition(text)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func testUpdateVersion(t *testing.T, s games.Store) {
	ctx := context.Background()
	g, evs := newGame(t, "g1")
	if err := s.Create(ctx, g, evs); err != nil {
		t.Fatal(err)
	}
	g2, ev := play(t, g, "e2-d3")
	if err := s.Update(ctx, g2, []games.Event{ev}, nil); err != nil {
		t.Fatal(err)
	}
	// A second change from the same base is stale and changes nothing.
	stale, staleEv := play(t, g, "f3-e4")
	if err := s.Update(ctx, stale, []games.Event{staleEv}, nil); !errors.Is(err, games.ErrConflict) {
		t.Fatalf("stale Update = %v, want ErrConflict", err)
	}
	got, _ := s.Get(ctx, "g1")
	sameGame(t, got, g2)
	if evs, _ := s.Events(ctx, "g1", 0, 10); len(evs) != 2 || evs[1].Move.Move.String() != "e2-d3" {
		t.Fatalf("events after a stale update: %d, want 2 ending with e2-d3", len(evs))
	}
	unknown, uev := play(t, g, "e2-d3")
	unknown.ID, uev.GameID = "nope", "nope"
	if err := s.Update(ctx, unknown, []games.Event{uev}, nil); !errors.Is(err, games.ErrNotFound) {
		t.Fatalf("Update(unknown) = %v, want ErrNotFound", err)
	}
}

func testRequests(t *testing.T, s games.Store) {
	ctx := context.Background()
	g, evs := newGame(t, "g1")
	if err := s.Create(ctx, g, evs); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Request(ctx, "g1", "r1"); !errors.Is(err, games.ErrNotFound) {
		t.Fatalf("Request(unknown) = %v, want ErrNotFound", err)
	}
	g2, ev := play(t, g, "e2-d3")
	req := &games.RequestRecord{RequestID: "r1", Move: "e2-d3", Ply: 1, Sequence: 2}
	if err := s.Update(ctx, g2, []games.Event{ev}, req); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Request(ctx, "g1", "r1"); err != nil || !reflect.DeepEqual(got, *req) {
		t.Fatalf("Request = %+v, %v; want %+v", got, err, *req)
	}
	g3, ev3 := play(t, g2, "b5-c4")
	again := &games.RequestRecord{RequestID: "r1", Move: "b5-c4", Ply: 2, Sequence: 3}
	if err := s.Update(ctx, g3, []games.Event{ev3}, again); !errors.Is(err, games.ErrDuplicateRequest) {
		t.Fatalf("reused request id = %v, want ErrDuplicateRequest", err)
	}
	got, _ := s.Get(ctx, "g1")
	sameGame(t, got, g2)
}

func testEvents(t *testing.T, s games.Store) {
	ctx := context.Background()
	g, evs := newGame(t, "g1")
	if err := s.Create(ctx, g, evs); err != nil {
		t.Fatal(err)
	}
	moves := []string{"e2-d3", "b5-c4", "d3xb5"}
	for _, m := range moves {
		var ev games.Event
		g, ev = play(t, g, m)
		if err := s.Update(ctx, g, []games.Event{ev}, nil); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.Events(ctx, "g1", 0, 100)
	if err != nil || len(all) != 4 {
		t.Fatalf("Events = %d, %v; want 4", len(all), err)
	}
	for i, e := range all {
		if e.Sequence != int64(i+1) {
			t.Fatalf("event %d has sequence %d", i, e.Sequence)
		}
	}
	if all[0].Kind != games.EventCreated || all[3].Move.Move.String() != "d3xb5" || all[3].Move.Captured[0].Square.String() != "c4" {
		t.Fatalf("events read back wrong: %+v", all)
	}
	page, _ := s.Events(ctx, "g1", 1, 2)
	if len(page) != 2 || page[0].Sequence != 2 || page[1].Sequence != 3 {
		t.Fatalf("Events(after 1, limit 2) = %+v", page)
	}
	if rest, _ := s.Events(ctx, "g1", 4, 10); len(rest) != 0 {
		t.Fatalf("Events after the last = %d, want 0", len(rest))
	}
	if _, err := s.Events(ctx, "nope", 0, 10); !errors.Is(err, games.ErrNotFound) {
		t.Fatalf("Events(unknown) = %v, want ErrNotFound", err)
	}
}

func testList(t *testing.T, s games.Store) {
	ctx := context.Background()
	for i := 1; i <= 5; i++ {
		g, evs := newGame(t, fmt.Sprintf("g%d", i))
		if i%2 == 0 {
			g.Outcome = engine.Outcome{Result: engine.Draw, Reason: engine.AgreedDraw}
		}
		if err := s.Create(ctx, g, evs); err != nil {
			t.Fatal(err)
		}
	}
	// g3 has two moves; g6 ends (by resignation) after one, so an update
	// moves it from the games going on to those over.
	g3, err := s.Get(ctx, "g3")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"e2-d3", "b5-c4"} {
		var ev games.Event
		g3, ev = play(t, g3, n)
		if err := s.Update(ctx, g3, []games.Event{ev}, nil); err != nil {
			t.Fatal(err)
		}
	}
	g6, evs := newGame(t, "g6")
	if err := s.Create(ctx, g6, evs); err != nil {
		t.Fatal(err)
	}
	g6, ev := play(t, g6, "e2-d3")
	if err := s.Update(ctx, g6, []games.Event{ev}, nil); err != nil {
		t.Fatal(err)
	}
	g6 = g6.Clone()
	g6.Version++
	g6.LastEvent++
	g6.Outcome = engine.Outcome{Result: engine.BlackWins, Reason: engine.Resignation}
	if err := s.Update(ctx, g6, []games.Event{{GameID: "g6", Sequence: g6.LastEvent, Time: epoch, Kind: games.EventEnded,
		Ply: 1, Position: g6.Position, Outcome: g6.Outcome}}, nil); err != nil {
		t.Fatal(err)
	}
	ids := func(gs []*games.Game) string {
		out := ""
		for _, g := range gs {
			out += g.ID + " "
		}
		return out
	}
	cases := []struct {
		q    games.ListQuery
		want string
	}{
		{games.ListQuery{Limit: 10}, "g1 g2 g3 g4 g5 g6 "},
		{games.ListQuery{Limit: 2}, "g1 g2 "},
		{games.ListQuery{Limit: 2, After: "g2"}, "g3 g4 "},
		{games.ListQuery{Limit: 10, Status: games.Finished}, "g2 g4 g6 "},
		{games.ListQuery{Limit: 10, Status: games.InProgress, After: "g1"}, "g3 g5 "},
		{games.ListQuery{Limit: 1, Status: games.Finished, After: "g2"}, "g4 "},
		{games.ListQuery{Limit: 10, Status: games.InProgress, After: "g5"}, ""},
	}
	for _, c := range cases {
		gs, err := s.List(ctx, c.q)
		if err != nil || ids(gs) != c.want {
			t.Errorf("List(%+v) = %q, %v; want %q", c.q, ids(gs), err, c.want)
		}
		for _, g := range gs {
			if len(g.Moves) != 0 {
				t.Errorf("List(%+v): game %s with %d moves, asked for none", c.q, g.ID, len(g.Moves))
			}
		}
	}
	// With their moves: g3's two, g6's one (its last event ended it), none
	// for the others.
	gs, err := s.List(ctx, games.ListQuery{Limit: 10, After: "g2", Moves: true})
	if err != nil || ids(gs) != "g3 g4 g5 g6 " {
		t.Fatalf("List with moves = %q, %v; want g3 g4 g5 g6", ids(gs), err)
	}
	want := map[string]string{"g3": "e2-d3 b5-c4", "g4": "", "g5": "", "g6": "e2-d3"}
	for _, g := range gs {
		var got []string
		for _, m := range g.Moves {
			got = append(got, m.Move.String())
		}
		if strings.Join(got, " ") != want[g.ID] || !g.HasMoves() {
			t.Errorf("List with moves: game %s has moves %q (plies %d), want %q", g.ID, got, g.Plies, want[g.ID])
		}
	}
}

func testConcurrent(t *testing.T, s games.Store) {
	ctx := context.Background()
	g, evs := newGame(t, "g1")
	if err := s.Create(ctx, g, evs); err != nil {
		t.Fatal(err)
	}
	opening := []string{"d1-c2", "e2-d3", "f1-g2", "f3-e4", "g4-f5", "h1-g2", "h3-g2", "h5-g6"}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for _, m := range opening {
		next, ev := play(t, g, m)
		wg.Go(func() {
			err := s.Update(ctx, next, []games.Event{ev}, nil)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, games.ErrConflict):
				t.Errorf("racing Update: %v", err)
			}
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d concurrent updates of version 1 succeeded, want exactly 1", wins)
	}
	if evs, _ := s.Events(ctx, "g1", 0, 100); len(evs) != 2 {
		t.Fatalf("%d events after the race, want 2", len(evs))
	}
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/store/postgres/pgtest"
)

// offered is the next version of g with a draw offer by red and its
// event, as a change of the game writes it.
func offered(g *games.Game) (*games.Game, []games.Event) {
	n := next(g)
	n.LastEvent++
	n.HasOffer = true
	return n, []games.Event{{GameID: n.ID, Sequence: n.LastEvent, Time: n.UpdateTime, Kind: games.EventDrawOffered}}
}

// batched runs the Updates of writes at once through s and makes them
// one batch: s's committers are replaced by this test, which takes every
// write and hands them to writeBatch together. It returns each Update's
// error and when it returned, in the order of writes.
func batched(t *testing.T, s *Store, writes []func() error) ([]error, []time.Time) {
	t.Helper()
	s.stopCommitters()
	s.commit = &committer{writes: make(chan *pendingWrite), quit: make(chan struct{})}
	errs, at := make([]error, len(writes)), make([]time.Time, len(writes))
	done := make(chan int)
	for i, w := range writes {
		go func() { errs[i] = w(); at[i] = time.Now(); done <- i }()
	}
	batch := make([]*pendingWrite, 0, len(writes))
	for range writes {
		select {
		case w := <-s.commit.writes:
			batch = append(batch, w)
		case <-time.After(5 * time.Second):
			t.Fatalf("%d of %d writes reached the committer", len(batch), len(writes))
		}
	}
	s.writeBatch(batch)
	for range writes {
		<-done
	}
	return errs, at
}

// TestBatchAnswersEachWrite: one batch of writes to five games answers
// each as Update alone would: written, a stale version (ErrConflict), an
// unknown game (ErrNotFound), and a game whose row another session holds
// (written once it is released, alone, not holding up the batch).
func TestBatchAnswersEachWrite(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	s := open(t, dsn)
	ctx := context.Background()
	var gs []*games.Game
	for i := range 4 {
		gs = append(gs, create(t, s, fmt.Sprintf("g%d", i), time.Time{}))
	}
	stale := next(gs[1])
	if err := s.Update(ctx, stale, nil, nil); err != nil {
		t.Fatal(err)
	}
	release := lockRow(t, dsn, "g3")
	released := make(chan time.Time, 1)
	go func() { time.Sleep(500 * time.Millisecond); released <- time.Now(); release() }()
	unknown, _ := clockGame(t, "nowhere", time.Time{})
	unknown.Version++
	upd := func(g *games.Game, evs []games.Event) func() error {
		return func() error { return s.Update(ctx, g, evs, nil) }
	}
	g0, ev0 := offered(gs[0])
	g3, ev3 := offered(gs[3])
	errs, at := batched(t, s, []func() error{upd(g0, ev0), upd(next(gs[1]), nil), upd(unknown, nil), upd(g3, ev3)})
	rel := <-released
	want := []error{nil, games.ErrConflict, games.ErrNotFound, nil}
	for i := range want {
		if !errors.Is(errs[i], want[i]) || (want[i] == nil && errs[i] != nil) {
			t.Errorf("write %d: %v, want %v", i, errs[i], want[i])
		}
	}
	if !at[3].After(rel) {
		t.Errorf("the locked game's write returned before its row was released")
	}
	for i := range 3 {
		if at[i].After(rel) {
			t.Errorf("write %d waited for the locked game's row", i)
		}
	}
	for _, id := range []string{"g0", "g3"} {
		g, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := s.Events(ctx, id, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if g.Version != 2 || !g.HasOffer || len(evs) != 2 || evs[1].Sequence != 2 || evs[1].Kind != games.EventDrawOffered {
			t.Errorf("game %s after its write: version %d, offer %v, events %+v; want version 2, the offer and its event 2", id, g.Version, g.HasOffer, evs)
		}
	}
}

// TestFailedBatchFailsOnlyTheWriteAtFault: a request id already recorded
// in one write, and a sequence number already used in another, make the
// database refuse the batch; each write then runs alone, so only those
// two fail, with their own errors, and the others are written.
func TestFailedBatchFailsOnlyTheWriteAtFault(t *testing.T) {
	s := open(t, pgtest.FreshDSN(t))
	ctx := context.Background()
	var gs []*games.Game
	for i := range 4 {
		gs = append(gs, create(t, s, fmt.Sprintf("g%d", i), time.Time{}))
	}
	req := func() *games.RequestRecord {
		return &games.RequestRecord{RequestID: "r1", Move: "e2-d3", Ply: 1, Sequence: 2}
	}
	g1, ev1 := offered(gs[1])
	if err := s.Update(ctx, g1, ev1, req()); err != nil {
		t.Fatal(err)
	}
	gs[1] = g1
	g0, ev0 := offered(gs[0])
	dup, dupEv := offered(gs[1])
	reused, reusedEv := offered(gs[2])
	reusedEv[0].Sequence = 1 // the created event's
	g3, ev3 := offered(gs[3])
	writes := []func() error{
		func() error { return s.Update(ctx, g0, ev0, nil) },
		func() error { return s.Update(ctx, dup, dupEv, req()) },
		func() error { return s.Update(ctx, reused, reusedEv, nil) },
		func() error { return s.Update(ctx, g3, ev3, nil) },
	}
	errs, _ := batched(t, s, writes)
	want := []error{nil, games.ErrDuplicateRequest, games.ErrConflict, nil}
	for i := range want {
		if !errors.Is(errs[i], want[i]) || (want[i] == nil && errs[i] != nil) {
			t.Errorf("write %d: %v, want %v", i, errs[i], want[i])
		}
	}
	for i, wantVersion := range []int64{2, 2, 1, 2} {
		g, err := s.Get(ctx, gs[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		if g.Version != wantVersion {
			t.Errorf("game %s at version %d, want %d", g.ID, g.Version, wantVersion)
		}
	}
}

// TestLoneLockedWriteHoldsUpNoBatch: writes alone in their batches, to
// games whose rows another session holds (one per committer), do not
// hold up the committers: another game's write made meanwhile returns at
// once.
func TestLoneLockedWriteHoldsUpNoBatch(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	s := open(t, dsn)
	ctx := context.Background()
	cold := create(t, s, "cold", time.Time{})
	hotDone := make(chan error, committers)
	var releases []func()
	for i := range committers {
		id := fmt.Sprintf("hot%d", i)
		hot := create(t, s, id, time.Time{})
		releases = append(releases, lockRow(t, dsn, id))
		go func() { hotDone <- s.Update(ctx, next(hot), nil, nil) }()
		time.Sleep(100 * time.Millisecond) // in (or past) its own batch
	}
	start := time.Now()
	err := s.Update(ctx, next(cold), nil, nil)
	took := time.Since(start)
	for _, release := range releases {
		release()
	}
	if err != nil {
		t.Fatalf("the other game's write: %v", err)
	}
	if took > time.Second {
		t.Errorf("the other game's write took %v while %d locked games' writes waited", took, committers)
	}
	for range committers {
		if err := <-hotDone; err != nil {
			t.Errorf("a locked game's write, once released: %v", err)
		}
	}
}

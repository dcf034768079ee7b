package bolt

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
)

// settle writes everything acknowledged into bbolt and waits until the
// overlay has dropped it: bbolt alone then holds the store.
func settle(t *testing.T, s *Store) {
	t.Helper()
	if err := s.checkpointNow(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if b, _ := s.ov.behind(); b == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the overlay still holds writes 10 s after a checkpoint")
		}
	}
}

// groups returns how many log groups the store has appended: one per
// fdatasync of the log.
func groups(s *Store) int64 { return s.wal.next }

// newGame returns game id as a new game, with its first event.
func newGame(t *testing.T, id string) (*games.Game, []games.Event) {
	t.Helper()
	v := engine.DefaultVariant()
	start, err := v.InitialPosition()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	g := &games.Game{ID: id, Variant: v, Initial: start, Position: start, Version: 1, LastEvent: 1, CreateTime: at, UpdateTime: at}
	return g, []games.Event{{GameID: id, Sequence: 1, Time: at, Kind: games.EventCreated, Position: start, Variant: v}}
}

// group holds the committer until the given writes are all waiting, then
// lets them go together, and returns their errors.
func group(t *testing.T, s *Store, fns ...func() error) []error {
	t.Helper()
	held, release := make(chan struct{}), make(chan struct{})
	s.hold = func() { close(held); <-release; s.hold = nil }
	g, evs := newGame(t, "holder")
	go s.Create(context.Background(), g, evs)
	<-held
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Go(func() { errs[i] = fn() })
	}
	// The writers are blocked handing their writes over; give them time
	// to get there (the committer is held, so none can be taken early).
	time.Sleep(200 * time.Millisecond)
	close(release)
	wg.Wait()
	return errs
}

func createFn(t *testing.T, s *Store, id string) func() error {
	return func() error {
		g, evs := newGame(t, id)
		return s.Create(context.Background(), g, evs)
	}
}

func TestWritesShareAnAppend(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := groups(s)
	errs := group(t, s, createFn(t, s, "a"), createFn(t, s, "b"), createFn(t, s, "a"), createFn(t, s, "c"))
	// Two creates of game a in one group: the second sees the first.
	conflicts := 0
	for i, err := range errs {
		switch {
		case errors.Is(err, games.ErrConflict) && (i == 0 || i == 2):
			conflicts++
		case err != nil:
			t.Errorf("write %d: %v", i, err)
		}
	}
	if conflicts != 1 {
		t.Fatalf("errors %v; want one of the creates of game a refused with ErrConflict", errs)
	}
	for _, id := range []string{"a", "b", "c"} {
		if _, err := s.Get(context.Background(), id); err != nil {
			t.Errorf("game %s: %v", id, err)
		}
	}
	// The holding write's append, then one for the four waiting writes.
	if got := groups(s) - before; got != 2 {
		t.Fatalf("%d log appends for two groups of writes; want 2", got)
	}
}

func TestWriteAfterCloseFails(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := createFn(t, s, "late")(); !errors.Is(err, errClosed) {
		t.Fatalf("write after Close = %v; want errClosed", err)
	}
}

// The count kept from the open is the number of games in the file.
func TestCountAfterReopen(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	svc := games.NewService(s, games.Limits{})
	for range 3 {
		if _, _, err := svc.Create(context.Background(), engine.DefaultVariant()); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if s, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, err := s.Count(context.Background()); err != nil || n != 3 {
		t.Fatalf("Count after reopening = %d, %v; want 3", n, err)
	}
}

func TestLingerFor(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		prev    int
		arrived int64
		took    time.Duration
		want    time.Duration
	}{
		{prev: 0, arrived: 0, took: 0, want: 0},                                           // the first commit
		{prev: 1, arrived: 0, took: 5 * ms, want: 0},                                      // a lone writer never waits
		{prev: 2, arrived: 0, took: 300 * time.Microsecond, want: 300 * time.Microsecond}, // no longer than a commit takes
		{prev: 28, arrived: 27, took: 5 * ms, want: 5 * ms},
		{prev: 28, arrived: 27, took: 50 * ms, want: 10 * ms}, // at most lingerMax
		{prev: 28, arrived: 28, took: 5 * ms, want: 0},        // all of the last commit's writers are back
		{prev: 28, arrived: 40, took: 5 * ms, want: 0},
	} {
		if got := lingerFor(c.prev, c.arrived, c.took); got != c.want {
			t.Errorf("lingerFor(%d, %d, %v) = %v; want %v", c.prev, c.arrived, c.took, got, c.want)
		}
	}
}

// The writers of a group that come back at once share the next group:
// eight writers writing one after another in step append in groups of
// about eight, not four (half of them, while the other half's append
// runs). Each group is held 2 ms, so a group takes longer than a writer
// needs to hand over its next write (microseconds), on any file system
// (a sync on tmpfs costs next to nothing).
func TestReturningWritersShareAGroup(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const writers, each = 8, 40
	slow := func() { time.Sleep(2 * time.Millisecond) }
	s.hold = slow
	before := groups(s)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := createFn(t, s, fmt.Sprint(w, "-", i))(); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	n := groups(s) - before
	t.Logf("%d writes in %d groups", writers*each, n)
	if limit := int64(writers * each / 5); n > limit {
		t.Errorf("%d writes in %d groups; want groups of at least 5 of the %d writers (at most %d groups)", writers*each, n, writers, limit)
	}
}

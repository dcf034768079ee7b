package games

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

// sharedStore is a memory store posing as one shared with other
// processes: Listen hands the test the notify callback, and Events calls
// are counted.
type sharedStore struct {
	*MemoryStore
	events   atomic.Int64
	listened chan func(string, int64)
}

func (s *sharedStore) Events(ctx context.Context, id string, after int64, limit int) ([]Event, error) {
	s.events.Add(1)
	return s.MemoryStore.Events(ctx, id, after, limit)
}

func (s *sharedStore) Listen(ctx context.Context, notify func(string, int64), _ func()) {
	s.listened <- notify
	<-ctx.Done()
}

// A commit by another replica, notified once, is read from the store once
// for all of a game's watchers here, and each of them receives it.
func TestNotifiedEventsAreReadOnceForAllWatchers(t *testing.T) {
	const watchers = 10
	store := &sharedStore{MemoryStore: NewMemoryStore(), listened: make(chan func(string, int64), 1)}
	svc := NewService(store, Limits{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go svc.Run(ctx)
	notify := <-store.listened
	// Another replica's service on the same store: its commits do not
	// reach this service's hub but by notify.
	other := NewService(store.MemoryStore, Limits{})
	g, tok, err := other.Create(ctx, engine.DefaultVariant())
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *Event, watchers)
	var wg sync.WaitGroup
	for range watchers {
		wg.Go(func() {
			_ = svc.Watch(ctx, g.ID, 1, func(e *Event) error { got <- e; return nil })
		})
	}
	for svc.hub.watchers() < watchers {
		time.Sleep(time.Millisecond)
	}
	before := store.events.Load()
	if _, err := other.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3"}); err != nil {
		t.Fatal(err)
	}
	notify(g.ID, 2)
	for i := range watchers {
		select {
		case e := <-got:
			if e.Sequence != 2 || e.Kind != EventMovePlayed || e.Move.Move.String() != "e2-d3" {
				t.Errorf("watcher %d received event %d (%v), want 2, the move e2-d3", i, e.Sequence, e.Kind)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%d of %d watchers received the move", i, watchers)
		}
	}
	if n := store.events.Load() - before; n != 1 {
		t.Errorf("the store's log was read %d times for %d watchers of one notified commit, want once", n, watchers)
	}
	cancel()
	wg.Wait()
}

// A commit whose notification was lost still reaches every watcher, by
// the poll of the log, and that poll reads the log once for all the
// game's watchers here, not once per watcher.
func TestLostNotificationIsPolledOnceForAllWatchers(t *testing.T) {
	const watchers = 10
	store := &sharedStore{MemoryStore: NewMemoryStore(), listened: make(chan func(string, int64), 1)}
	svc := NewService(store, Limits{})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	go svc.Run(ctx)
	notify := <-store.listened
	other := NewService(store.MemoryStore, Limits{})
	g, tok, err := other.Create(ctx, engine.DefaultVariant())
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *Event, 4*watchers)
	for range watchers {
		wg.Go(func() {
			_ = svc.Watch(ctx, g.ID, 0, func(e *Event) error { got <- e; return nil })
		})
	}
	receive := func(seq int64) {
		t.Helper()
		for i := range watchers {
			select {
			case e := <-got:
				if e.Sequence != seq {
					t.Fatalf("watcher %d received event %d, want %d", i, e.Sequence, seq)
				}
			case <-time.After(3 * sharedStorePoll):
				t.Fatalf("%d of %d watchers received event %d in %v", i, watchers, seq, 3*sharedStorePoll)
			}
		}
	}
	receive(1) // game_created, each watcher from its own read of the log
	// A move, notified: read once, as TestNotifiedEventsAreReadOnceForAllWatchers.
	if _, err := other.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3"}); err != nil {
		t.Fatal(err)
	}
	notify(g.ID, 2)
	receive(2)
	// A move whose notification is lost.
	before := store.events.Load()
	if _, err := other.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Black, Move: "d7-e6"}); err != nil {
		t.Fatal(err)
	}
	receive(3)
	if n := store.events.Load() - before; n != 1 {
		t.Errorf("the store's log was read %d times to bring %d watchers a commit whose notification was lost, want once", n, watchers)
	}
}

// The relay keeps where it read each watched game's log up to, and
// forgets a game once it has no watchers here, even if no notification
// of it comes again (a game over): its memory follows the games watched
// now, not every game ever watched.
func TestRelayForgetsUnwatchedGames(t *testing.T) {
	store := &sharedStore{MemoryStore: NewMemoryStore(), listened: make(chan func(string, int64), 1)}
	svc := NewService(store, Limits{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &relay{s: svc, ctx: ctx, read: map[string]int64{}}
	const period = 20 * time.Millisecond
	go r.poll(period)
	size := func() int { r.mu.Lock(); defer r.mu.Unlock(); return len(r.read) }
	const n = 5
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for range n {
		g, _, err := svc.Create(ctx, engine.DefaultVariant())
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { _ = svc.Watch(wctx, g.ID, 1, func(*Event) error { return nil }) })
	}
	deadline := time.Now().Add(5 * time.Second)
	for size() < n && time.Now().Before(deadline) {
		time.Sleep(period)
	}
	if got := size(); got != n {
		t.Fatalf("the relay holds %d games while %d are watched", got, n)
	}
	stop()
	wg.Wait()
	left := time.Now()
	for size() > 0 && time.Now().Before(deadline) {
		time.Sleep(period)
	}
	if got := size(); got != 0 {
		t.Errorf("the relay still holds %d games %v after their watchers left (polled every %v)", got, time.Since(left), period)
	}
}

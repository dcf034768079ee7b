package games

// The queue of engine moves in games (issue 14): at most WithEngine's
// thinkers search at once, the others wait in arrival order, at most
// WithEngineQueue of them (DefaultEngineQueue, 64, without it); a call
// that would make the engine move beyond that is refused unplayed.

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

// blockingMover is an engine whose every search waits for the test: it
// sends the game's tag (its variant's no-progress limit, distinct per
// game) on started when a search starts, and plays the first legal move
// when release is received (or gives up when the service drains).
type blockingMover struct {
	started chan int
	release chan struct{}
}

func newBlockingMover() *blockingMover {
	return &blockingMover{started: make(chan int, 1024), release: make(chan struct{})}
}

func (m *blockingMover) BestMove(ctx context.Context, pos engine.Position, _ []engine.Position, v engine.Variant,
	_ time.Duration, _ int) (engine.Move, bool) {
	m.started <- v.NoProgressLimit
	select {
	case <-m.release:
	case <-ctx.Done():
		return engine.Move{}, false
	}
	return pos.LegalMoves()[0], true
}

// next waits for the next search to start and returns its game's tag.
func (m *blockingMover) next(t *testing.T) int {
	t.Helper()
	select {
	case tag := <-m.started:
		return tag
	case <-time.After(10 * time.Second):
		t.Fatal("no engine search started within 10s")
		return 0
	}
}

// tagged is the standard variant with the tag as its no-progress limit
// (tags are 100 or more: far from ending a game).
func tagged(tag int) engine.Variant {
	v := engine.DefaultVariant()
	v.NoProgressLimit = tag
	return v
}

// engineFirst creates a game in which the engine plays Red, so it is to
// move at once.
func engineFirst(s *Service, tag int) (*Game, error) {
	g, _, err := s.CreateAgainstEngine(context.Background(), tagged(tag), EngineOpponent{Side: engine.Red, Depth: 1})
	return g, err
}

// engineSecond creates a game in which the engine plays Black: it is to
// move once Red (the returned token) has moved.
func engineSecond(t *testing.T, s *Service, tag int) (*Game, string) {
	t.Helper()
	g, tok, err := s.CreateAgainstEngine(context.Background(), tagged(tag), EngineOpponent{Side: engine.Black, Depth: 1})
	if err != nil {
		t.Fatalf("CreateAgainstEngine (engine Black, tag %d): %v", tag, err)
	}
	return g, tok.Red
}

// wantEngineQueueFull checks the refusal docs/api.md gives for a full
// queue of engine moves of the given maximum.
func wantEngineQueueFull(t *testing.T, err error, maximum string) {
	t.Helper()
	e := wantErr(t, err, CodeResourceExhausted, ReasonLimitExceeded)
	if e.Limit != "engine_queue" || len(e.Metadata) != 2 || e.Metadata["limit"] != "engine_queue" || e.Metadata["maximum"] != maximum {
		t.Fatalf("limit %q metadata %v; want limit engine_queue, metadata {limit: engine_queue, maximum: %s}", e.Limit, e.Metadata, maximum)
	}
}

// waitPly waits until game id has n moves (the engine's move is stored
// after its search, in the background).
func waitPly(t *testing.T, s *Service, id string, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if get(t, s, id).Ply() == n {
			return
		}
	}
	t.Fatalf("game %s did not reach ply %d within 10s (at %d)", id, n, get(t, s, id).Ply())
}

// The engine's moves are searched in the order they arrive: with one
// search at a time, 30 moves queued behind a running search, alternately
// by CreateGame (the engine opens) and by a player's move (the engine
// replies), start their searches in exactly that order.
func TestEngineMovesServedInArrivalOrder(t *testing.T) {
	m := newBlockingMover()
	s := NewService(NewMemoryStore(), Limits{}, WithEngine(m, time.Minute, 1))
	t.Cleanup(s.Drain)
	if _, err := engineFirst(s, 100); err != nil {
		t.Fatal(err)
	}
	if tag := m.next(t); tag != 100 {
		t.Fatalf("first search for tag %d, want 100", tag)
	}
	var want []int
	ids := map[int]string{}
	for tag := 101; tag <= 130; tag++ {
		if tag%2 == 1 {
			g, err := engineFirst(s, tag)
			if err != nil {
				t.Fatal(err)
			}
			ids[tag] = g.ID
		} else {
			g, red := engineSecond(t, s, tag)
			move(t, s, g.ID, red, "e2-d3")
			ids[tag] = g.ID
		}
		want = append(want, tag)
	}
	var got []int
	for range want {
		m.release <- struct{}{} // the running search ends...
		got = append(got, m.next(t))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("searches started for tags %v; want the order of arrival %v", got, want)
	}
	m.release <- struct{}{}
	// A search started for a game only after the one before it was
	// stored: each game has its engine move.
	for tag, id := range ids {
		n := 1
		if tag%2 == 0 {
			n = 2
		}
		waitPly(t, s, id, n)
	}
}

// With the default bound, 64 moves wait behind the one searching; a call
// that would make the engine move once more is refused with
// RESOURCE_EXHAUSTED, limit engine_queue, maximum 64, and changes
// nothing; calls that do not make the engine move go on; once a move
// leaves the queue, the refused call succeeds when retried.
func TestEngineQueueBound(t *testing.T) {
	ctx := context.Background()
	m := newBlockingMover()
	st := NewMemoryStore()
	s := NewService(st, Limits{}, WithEngine(m, time.Minute, 1))
	t.Cleanup(s.Drain)
	if _, err := engineFirst(s, 100); err != nil {
		t.Fatal(err)
	}
	if tag := m.next(t); tag != 100 {
		t.Fatalf("first search for tag %d, want 100", tag)
	}
	h, red := engineSecond(t, s, 200) // the engine does not move yet
	for tag := 101; tag <= 164; tag++ {
		if _, err := engineFirst(s, tag); err != nil {
			t.Fatalf("engine move %d of 64 waiting: %v", tag-100, err)
		}
	}
	before := snap(t, s, st, h.ID)
	games, _ := st.Count(ctx)

	// A player's move the engine would answer: refused, not played.
	_, err := s.MakeMove(ctx, MoveRequest{GameID: h.ID, Token: red, Move: "e2-d3"})
	wantEngineQueueFull(t, err, "64")
	if after := snap(t, s, st, h.ID); after != before {
		t.Fatalf("the refused move changed the game: %+v, was %+v", after, before)
	}
	// A game the engine would open: refused, not created.
	if _, err := engineFirst(s, 300); err == nil {
		t.Fatal("a 66th engine move was accepted")
	} else {
		wantEngineQueueFull(t, err, "64")
	}
	if n, _ := st.Count(ctx); n != games {
		t.Fatalf("%d games after the refused create, want %d", n, games)
	}
	// Calls that do not make the engine move are served.
	if _, _, err := s.CreateAgainstEngine(ctx, tagged(301), EngineOpponent{Side: engine.Black, Depth: 1}); err != nil {
		t.Fatalf("a game the player opens: %v", err)
	}
	g, tok := create(t, s)
	move(t, s, g.ID, tok.Red, "e2-d3")

	// The search ends: 101 searches, 63 wait, and the retry is played.
	m.release <- struct{}{}
	if tag := m.next(t); tag != 101 {
		t.Fatalf("next search for tag %d, want 101", tag)
	}
	if res, err := s.MakeMove(ctx, MoveRequest{GameID: h.ID, Token: red, Move: "e2-d3"}); err != nil || res.Game.Ply() != 1 {
		t.Fatalf("the retried move: %v; want it played", err)
	}
	// ... which filled the queue again.
	_, err = engineFirst(s, 302)
	wantEngineQueueFull(t, err, "64")
}

// engineObserver records the queue's lengths and waits.
type engineObserver struct {
	nopObserver
	mu      sync.Mutex
	lengths []int
	waits   []time.Duration
}

func (o *engineObserver) EngineMoved(time.Duration) {}

func (o *engineObserver) EngineQueueLength(n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lengths = append(o.lengths, n)
}

func (o *engineObserver) EngineWaited(d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.waits = append(o.waits, d)
}

func (o *engineObserver) seen() ([]int, []time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.lengths), slices.Clone(o.waits)
}

// Each engine move's wait, from the call that queued it to the start of
// its search, is observed: for a move queued behind another, at least the
// time from its call's return to the release of the search before it,
// at most the time from its call's start to its own search's start (both
// measured here); and the queue's length as it changes, 1 then 0.
func TestEngineQueueWaitObserved(t *testing.T) {
	m := newBlockingMover()
	o := &engineObserver{}
	s := NewService(NewMemoryStore(), Limits{}, WithEngine(m, time.Minute, 1), WithObserver(o))
	t.Cleanup(s.Drain)
	aCall := time.Now()
	if _, err := engineFirst(s, 100); err != nil {
		t.Fatal(err)
	}
	m.next(t)
	aStarted := time.Now()

	bCall := time.Now()
	b, err := engineFirst(s, 101)
	if err != nil {
		t.Fatal(err)
	}
	bQueued := time.Now()
	if ply := get(t, s, b.ID).Ply(); ply != 0 { // some time passes, B still waits
		t.Fatalf("B at ply %d while A searches", ply)
	}
	if lengths, waits := o.seen(); !slices.Equal(lengths, []int{1}) || len(waits) != 1 || waits[0] > aStarted.Sub(aCall) {
		t.Fatalf("before B's search: lengths %v, waits %v; want [1], and A's wait at most %v", lengths, waits, aStarted.Sub(aCall))
	}
	released := time.Now()
	m.release <- struct{}{}
	m.next(t)
	bStarted := time.Now()
	lengths, waits := o.seen()
	if !slices.Equal(lengths, []int{1, 0}) {
		t.Errorf("queue lengths %v, want [1 0]", lengths)
	}
	if len(waits) != 2 {
		t.Fatalf("%d waits observed, want 2 (A and B)", len(waits))
	}
	if lo, hi := released.Sub(bQueued), bStarted.Sub(bCall); waits[1] < lo || waits[1] > hi {
		t.Errorf("B's wait %v, want between %v (its queueing to A's release) and %v (its call to its search)", waits[1], lo, hi)
	}
}

// --max-engine-queue 0: no move waits; a second engine move while one
// searches is refused with maximum 0.
func TestEngineQueueZero(t *testing.T) {
	m := newBlockingMover()
	s := NewService(NewMemoryStore(), Limits{}, WithEngine(m, time.Minute, 1), WithEngineQueue(0))
	t.Cleanup(s.Drain)
	if _, err := engineFirst(s, 100); err != nil {
		t.Fatal(err)
	}
	_, err := engineFirst(s, 101)
	wantEngineQueueFull(t, err, "0")
	m.next(t)
	m.release <- struct{}{}
	// Once the search is over, a slot is free again.
	var g *Game
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if g, err = engineFirst(s, 102); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("after the search ended: %v", err)
	}
	if tag := m.next(t); tag != 102 {
		t.Fatalf("search for tag %d, want 102 (game %s)", tag, g.ID)
	}
}

// failingStore fails the next Update with err, once.
type failingStore struct {
	*MemoryStore
	mu   sync.Mutex
	err  error
	hook func() // run before the failing Update, if set
}

func (s *failingStore) Update(ctx context.Context, g *Game, events []Event, req *RequestRecord) error {
	s.mu.Lock()
	err, hook := s.err, s.hook
	s.err, s.hook = nil, nil
	s.mu.Unlock()
	if hook != nil {
		hook()
	}
	if err != nil {
		return err
	}
	return s.MemoryStore.Update(ctx, g, events, req)
}

// A place held for a move that is then not stored (the store fails, or a
// concurrent change wins and the move is tried again) is given back: with
// no waiting allowed and no search running, the next engine move is
// accepted.
func TestEngineQueuePlaceFreedWhenNotStored(t *testing.T) {
	ctx := context.Background()
	m := newBlockingMover()
	st := &failingStore{MemoryStore: NewMemoryStore()}
	s := NewService(st, Limits{}, WithEngine(m, time.Minute, 1), WithEngineQueue(0))
	t.Cleanup(s.Drain)

	g, red := engineSecond(t, s, 100)
	st.err = errors.New("disk on fire")
	_, err := s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: red, Move: "e2-d3"})
	wantErr(t, err, CodeUnavailable, "")
	// A lost race, then the move is played on the new state (the place
	// of the first attempt, if kept, would leave none for the second).
	st.hook = func() {
		if _, err := s.OfferDraw(ctx, g.ID, red); err != nil {
			t.Errorf("OfferDraw in between: %v", err)
		}
	}
	if _, err := s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: red, Move: "e2-d3"}); err != nil {
		t.Fatalf("the move after a lost race: %v", err)
	}
	if tag := m.next(t); tag != 100 {
		t.Fatalf("search for tag %d, want 100", tag)
	}
	m.release <- struct{}{}
	waitPly(t, s, g.ID, 2)
	// No place is held: the engine may open a game.
	var err2 error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if _, err2 = engineFirst(s, 101); err2 == nil {
			break
		}
	}
	if err2 != nil {
		t.Fatalf("a place was kept: %v", err2)
	}
}

// Moves found waiting in the store when a service starts (its process
// stopped while they waited) are queued whatever the bound: they are
// already played. They count against later callers.
func TestEngineSweepQueuesBeyondTheBound(t *testing.T) {
	st := NewMemoryStore()
	first := newBlockingMover()
	s1 := NewService(st, Limits{}, WithEngine(first, time.Minute, 1))
	var ids []string
	for tag := 100; tag < 103; tag++ {
		g, err := engineFirst(s1, tag)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, g.ID)
	}
	first.next(t)
	s1.Drain() // the process stops: three games wait for the engine's move

	m := newBlockingMover()
	o := &engineObserver{}
	s2 := NewService(st, Limits{}, WithEngine(m, time.Minute, 1), WithEngineQueue(1), WithObserver(o))
	t.Cleanup(s2.Drain)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s2.Run(ctx)
	m.next(t)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if l, _ := o.seen(); len(l) > 0 && l[len(l)-1] == 2 {
			break
		}
		if time.Now().After(deadline) {
			l, _ := o.seen()
			t.Fatalf("queue lengths %v; want 2 waiting behind the search, above the bound of 1", l)
		}
	}
	_, err := engineFirst(s2, 200)
	wantEngineQueueFull(t, err, "1")
	for range 2 {
		m.release <- struct{}{}
		m.next(t)
	}
	m.release <- struct{}{}
	for _, id := range ids {
		waitPly(t, s2, id, 1)
	}
}

// hookObserver runs hook, once armed, at the next move played.
type hookObserver struct {
	nopObserver
	hook atomic.Pointer[func()]
}

func (o *hookObserver) MovePlayed() {
	if h := o.hook.Swap(nil); h != nil {
		(*h)()
	}
}

// A player who answers the engine's move at once, before the engine's
// work on it has quite finished (here: while its move is being counted,
// after it was stored and sent to watchers), still gets the engine's
// reply: the engine's moves are told apart by ply, not only by game.
func TestEngineRepliesToAnInstantAnswer(t *testing.T) {
	ctx := context.Background()
	m := newBlockingMover()
	o := &hookObserver{}
	s := NewService(NewMemoryStore(), Limits{}, WithEngine(m, time.Minute, 1), WithObserver(o))
	t.Cleanup(s.Drain)
	g, red := engineSecond(t, s, 100)
	move(t, s, g.ID, red, "e2-d3")
	m.next(t)
	answered := make(chan error, 1)
	hook := func() {
		now, err := s.Get(ctx, g.ID)
		if err == nil {
			_, err = s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: red, Move: now.Position.LegalMoves()[0].String()})
		}
		answered <- err
	}
	o.hook.Store(&hook)
	m.release <- struct{}{} // the engine's reply is stored, then counted: Red answers
	if err := <-answered; err != nil {
		t.Fatalf("Red's answer: %v", err)
	}
	m.next(t) // the engine searches its second reply
	m.release <- struct{}{}
	waitPly(t, s, g.ID, 4)
}

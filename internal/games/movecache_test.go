package games

import (
	"context"
	"strings"
	"testing"
)

// eventsCounter counts the event log reads of a store.
type eventsCounter struct {
	*MemoryStore
	reads int
}

func (s *eventsCounter) Events(ctx context.Context, id string, after int64, limit int) ([]Event, error) {
	s.reads++
	return s.MemoryStore.Events(ctx, id, after, limit)
}

func notationOf(g *Game) string {
	var out []string
	for _, m := range g.Moves {
		out = append(out, m.Move.String())
	}
	return strings.Join(out, " ")
}

// Two services on one store, as two replicas: each one's full view has
// the moves the other played (read from the log after what it knows),
// draw events in between included, and a move played here needs no read
// of the log at all.
func TestWithMovesKnownPrefixAndTail(t *testing.T) {
	ctx := context.Background()
	store := &eventsCounter{MemoryStore: NewMemoryStore()}
	a, b := NewService(store, Limits{}), NewService(store, Limits{})
	g, tok := create(t, a)
	move(t, a, g.ID, tok.Red, "e2-d3")
	full := func(s *Service) *Game {
		t.Helper()
		g, err := s.Get(ctx, g.ID)
		if err == nil {
			err = s.WithMoves(ctx, g)
		}
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	if got := notationOf(full(a)); got != "e2-d3" {
		t.Fatalf("a's full view: %q", got)
	}
	// b plays on; a's black draw offer, declined by Red's move, puts
	// events that are not moves in between.
	move(t, b, g.ID, tok.Black, "a4-b3")
	if _, err := b.OfferDraw(ctx, g.ID, tok.Black); err != nil {
		t.Fatal(err)
	}
	move(t, b, g.ID, tok.Red, "d3-c4")
	if got := notationOf(full(a)); got != "e2-d3 a4-b3 d3-c4" {
		t.Fatalf("a's full view after b's moves: %q", got)
	}
	// A move played through a: its full view reads nothing more.
	move(t, a, g.ID, tok.Black, "b5xd3")
	before := store.reads
	if got := notationOf(full(a)); got != "e2-d3 a4-b3 d3-c4 b5xd3" {
		t.Fatalf("a's full view after its own move: %q", got)
	}
	if store.reads != before {
		t.Errorf("the full view after a move played here read the event log %d times; want 0", store.reads-before)
	}
	// A view of an older state (a game read before the last move) has
	// only the moves up to its ply.
	old := full(b)
	old.Plies, old.Moves = 2, nil
	if err := b.WithMoves(ctx, old); err != nil || notationOf(old) != "e2-d3 a4-b3" {
		t.Fatalf("the moves of the game at ply 2: %q, %v", notationOf(old), err)
	}
	// The known moves are never changed by a caller appending to its copy.
	g1 := full(a)
	g1.Moves = append(g1.Moves, g1.Moves[0])
	if got := notationOf(full(a)); got != "e2-d3 a4-b3 d3-c4 b5xd3" {
		t.Fatalf("a caller's append changed the known moves: %q", got)
	}
}

// The cache keeps at most its limit of moves in all, dropping the least
// recently used games first, and never a list longer than the limit.
func TestMoveCacheBoundsItsMoves(t *testing.T) {
	c := newMoveCacheOf(10, 5)
	moves := func(n int) knownMoves { return knownMoves{moves: make([]PlayedMove, n), seq: int64(n)} }
	c.put("a", moves(2))
	c.put("b", moves(2))
	c.get("a") // a is now the most recently used
	c.put("c", moves(2))
	if c.moves != 4 || len(c.get("b").moves) != 0 || len(c.get("a").moves) != 2 || len(c.get("c").moves) != 2 {
		t.Fatalf("after a 6th move: %d moves kept, a %d, b %d, c %d; want b (least recently used) dropped",
			c.moves, len(c.get("a").moves), len(c.get("b").moves), len(c.get("c").moves))
	}
	c.played("c", 3, PlayedMove{}, 3)
	c.played("c", 4, PlayedMove{}, 4)
	if c.moves > 5 || len(c.get("c").moves) != 4 {
		t.Fatalf("%d moves kept, c has %d; want at most 5, c with 4", c.moves, len(c.get("c").moves))
	}
	c.put("d", moves(6))
	if len(c.get("d").moves) != 0 || c.moves > 5 {
		t.Fatalf("a list of 6 moves was kept under a limit of 5 (%d in all)", c.moves)
	}
}

package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/store/postgres/pgtest"
)

// staleReplica sets up two replicas (services on two stores on one
// database) and a game created on a, where red played e2-d3 on a and then
// black played b5-c4 on b: a's copy of the game is stale (ply 1, black to
// move), the database's is at ply 2, red to move. It returns a's service
// and store, b's store, the game's tokens and its fresh state.
func staleReplica(t *testing.T) (a *games.Service, sa, sb *Store, id string, tok games.Tokens, fresh *games.Game) {
	t.Helper()
	dsn := pgtest.FreshDSN(t)
	sa, sb, a, b := replicaPair(t, dsn)
	ctx := context.Background()
	g, tok, err := a.Create(ctx, engine.DefaultVariant())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: tok.Black, Move: "b5-c4"}); err != nil {
		t.Fatal(err)
	}
	if c, cached, err := sa.GetStale(ctx, g.ID); err != nil || !cached || c.Ply() != 1 {
		t.Fatalf("replica a's copy: cached %v, ply %d, %v; want a cached copy at ply 1", cached, c.Ply(), err)
	}
	if fresh, err = b.Get(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	return a, sa, sb, g.ID, tok, fresh
}

// redMove is a legal move of red's in g (red to move).
func redMove(t *testing.T, g *games.Game) string {
	t.Helper()
	ms := g.Position.LegalMoves()
	if len(ms) == 0 || g.Position.SideToMove() != engine.Red {
		t.Fatalf("red has no move at ply %d", g.Ply())
	}
	return ms[0].String()
}

// checkPlayed checks that the move was answered as played at ply 3 and
// that the database has it: the game at ply 3 and its event.
func checkPlayed(t *testing.T, sb *Store, id string, res *games.MoveResult, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("red's legal move on the replica with a stale copy: %v", err)
	}
	if res.Game.Ply() != 3 || res.Sequence != 4 {
		t.Errorf("the move answered at ply %d, sequence %d; want ply 3, sequence 4 (created, three moves)", res.Game.Ply(), res.Sequence)
	}
	g, err := sb.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := sb.Events(context.Background(), id, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if g.Ply() != 3 || len(evs) != 4 || evs[3].Kind != games.EventMovePlayed || evs[3].Ply != 3 {
		t.Errorf("stored: ply %d, %d events; want ply 3 and 4 events, the last red's move at ply 3", g.Ply(), len(evs))
	}
}

// TestStaleCopyRefusesNoLegalMove: on its stale copy it is black's turn,
// but red's move is legal on the game as stored, so it is played, not
// refused NOT_YOUR_TURN.
func TestStaleCopyRefusesNoLegalMove(t *testing.T) {
	a, _, sb, id, tok, fresh := staleReplica(t)
	res, err := a.MakeMove(context.Background(), games.MoveRequest{GameID: id, Token: tok.Red, Move: redMove(t, fresh)})
	checkPlayed(t, sb, id, res, err)
}

// TestStaleCopyGivesNoFalseMismatch: a client that read the game fresh
// (on b) plays with the etag or ply it read, on the replica whose copy is
// older: no ETAG_MISMATCH or PLY_MISMATCH.
func TestStaleCopyGivesNoFalseMismatch(t *testing.T) {
	for _, by := range []string{"etag", "ply"} {
		t.Run(by, func(t *testing.T) {
			a, _, sb, id, tok, fresh := staleReplica(t)
			r := games.MoveRequest{GameID: id, Token: tok.Red, Move: redMove(t, fresh)}
			if by == "etag" {
				r.ExpectedEtag = fresh.Etag()
			} else {
				ply := 2
				r.ExpectedPly = &ply
			}
			res, err := a.MakeMove(context.Background(), r)
			checkPlayed(t, sb, id, res, err)
		})
	}
}

// TestStaleCopyLosesNoMove: red plays on a, then offers a draw on b, so
// a's copy (no offer, black to move) is stale but black's move is legal
// on it. The write made on it is refused as stale, and the move is played
// on the game as stored (declining the offer, as playing on does), not
// lost or refused.
func TestStaleCopyLosesNoMove(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	sa, sb, a, b := replicaPair(t, dsn)
	ctx := context.Background()
	g, tok, err := a.Create(ctx, engine.DefaultVariant())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.OfferDraw(ctx, g.ID, tok.Red); err != nil {
		t.Fatal(err)
	}
	if c, cached, err := sa.GetStale(ctx, g.ID); err != nil || !cached || c.HasOffer {
		t.Fatalf("replica a's copy: cached %v, offer %v, %v; want a cached copy without the offer", cached, c.HasOffer, err)
	}
	res, err := a.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: tok.Black, Move: "b5-c4"})
	if err != nil {
		t.Fatalf("black's move on the replica with a stale copy: %v", err)
	}
	// Events: created 1, red's move 2, the offer 3, declined by the move
	// 4, black's move 5.
	if res.Game.Ply() != 2 || res.Sequence != 5 || res.Game.HasOffer {
		t.Errorf("answered ply %d, sequence %d, offer %v; want ply 2, sequence 5, no offer", res.Game.Ply(), res.Sequence, res.Game.HasOffer)
	}
	evs, err := sb.Events(ctx, g.ID, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []games.EventKind
	for _, e := range evs {
		kinds = append(kinds, e.Kind)
	}
	want := []games.EventKind{games.EventCreated, games.EventMovePlayed, games.EventDrawOffered, games.EventDrawDeclined, games.EventMovePlayed}
	if len(kinds) != len(want) {
		t.Fatalf("stored events %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("stored events %v, want %v", kinds, want)
		}
	}
}

// TestGameCacheKeepsTheLatestCopy: a copy older than the one kept does
// not replace it (a read and a write of the game finish in either
// order), a copy handed out is the caller's to change, and a dropped game
// is gone.
func TestGameCacheKeepsTheLatestCopy(t *testing.T) {
	c := newGameCache(2)
	g, _ := clockGame(t, "g", time.Time{})
	v3 := g.Clone()
	v3.Version, v3.Plies = 3, 2
	c.put(v3)
	c.put(g) // version 1, read before v3 was written
	got := c.get("g")
	if got == nil || got.Version != 3 || got.Plies != 2 {
		t.Fatalf("cached copy %+v, want version 3 at ply 2", got)
	}
	got.Version, got.Recent = 99, append(got.Recent, got.Position)
	if again := c.get("g"); again.Version != 3 || len(again.Recent) != 0 {
		t.Errorf("a change to a handed-out copy reached the cache: version %d, %d recent", again.Version, len(again.Recent))
	}
	c.drop("g")
	if got := c.get("g"); got != nil {
		t.Errorf("dropped game still cached at version %d", got.Version)
	}
}

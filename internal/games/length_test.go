package games

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

// A game at Limits.MaxPlies refuses a further move with the documented
// error and is left as it was; it can still be resigned.
func TestMaxPliesRefusesTheNextMove(t *testing.T) {
	s := NewService(NewMemoryStore(), Limits{MaxPlies: 4})
	g, tok := createCustom(t, s, "R:RDh1:BDa8:0")
	for i, mv := range []string{"h1-g2", "a8-b7", "g2-h1", "b7-a8"} {
		token := tok.Red
		if i%2 == 1 {
			token = tok.Black
		}
		move(t, s, g.ID, token, mv)
	}
	before := get(t, s, g.ID)
	_, err := s.MakeMove(context.Background(), MoveRequest{GameID: g.ID, Token: tok.Red, Move: "h1-g2"})
	e := wantErr(t, err, CodeResourceExhausted, ReasonLimitExceeded)
	if e.Limit != "game_plies" || e.Metadata["limit"] != "game_plies" || e.Metadata["maximum"] != "4" {
		t.Errorf("limit %q, metadata %v; want game_plies, maximum 4", e.Limit, e.Metadata)
	}
	if after := get(t, s, g.ID); after.Etag() != before.Etag() || after.Ply() != 4 {
		t.Errorf("the refused move changed the game: etag %s -> %s, ply %d", before.Etag(), after.Etag(), after.Ply())
	}
	if _, err := s.Resign(context.Background(), g.ID, tok.Black); err != nil {
		t.Errorf("Resign at the length limit: %v", err)
	}
}

// A version 1 record (every move inline, no ply count or repetition
// window) reads as the same game, its window worked out by replaying it,
// and a move on it goes on exactly: here the move that repeats the start
// for the third time draws.
func TestVersion1RecordsGoOn(t *testing.T) {
	s := NewService(NewMemoryStore(), Limits{})
	g, tok := createCustom(t, s, "R:RDh1:BDa8:0")
	moves := []string{"h1-g2", "a8-b7", "g2-h1", "b7-a8", "h1-g2", "a8-b7", "g2-h1"}
	for i, mv := range moves {
		token := tok.Red
		if i%2 == 1 {
			token = tok.Black
		}
		move(t, s, g.ID, token, mv)
	}
	full := get(t, s, g.ID)
	b, err := EncodeGame(full)
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	// Rewrite it as version 1 wrote it.
	r["v"] = 1
	delete(r, "plies")
	delete(r, "recent")
	inline := make([]moveRecord, len(full.Moves))
	for i, m := range full.Moves {
		inline[i] = encodeMove(m)
	}
	r["moves"] = inline
	v1, _ := json.Marshal(r)
	old, err := DecodeGame(v1)
	if err != nil {
		t.Fatalf("DecodeGame(version 1): %v", err)
	}
	if old.Ply() != 7 || len(old.Moves) != 7 || len(old.Recent) != 7 {
		t.Fatalf("version 1 record read as ply %d, %d moves, %d recent positions; want 7, 7, 7", old.Ply(), len(old.Moves), len(old.Recent))
	}
	for i := range old.Recent {
		if old.Recent[i].String() != full.Recent[i].String() {
			t.Fatalf("recent position %d: %s from the version 1 record, %s kept move by move", i, old.Recent[i].String(), full.Recent[i].String())
		}
	}
	// The eighth move, b7-a8, brings back the start's position (Black's
	// Dama home, Red to move) for the third time.
	res, _, err := s.play(old, engine.Black, "b7-a8")
	if err != nil {
		t.Fatal(err)
	}
	if res.Game.Outcome != (engine.Outcome{Result: engine.Draw, Reason: engine.Repetition}) {
		t.Fatalf("after the third repetition the game is %v; want a draw by repetition", res.Game.Outcome)
	}
}

// In a game against the engine, a move that brings the game to its length
// limit leaves the engine unable to reply: it does not try, and it takes
// a draw its opponent offers, so the game can end other than by the
// player's resignation.
func TestEngineAtMaxPliesTakesADraw(t *testing.T) {
	ctx := context.Background()
	m := newBlockingMover()
	s := NewService(NewMemoryStore(), Limits{MaxPlies: 1}, WithEngine(m, time.Second, 1))
	defer s.Drain()
	g, tok, err := s.CreateAgainstEngine(ctx, engine.DefaultVariant(), EngineOpponent{Side: engine.Black, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	move(t, s, g.ID, tok.Red, "e2-d3")
	select {
	case <-m.started:
		t.Fatal("the engine searched a move in a game at its length limit")
	case <-time.After(300 * time.Millisecond):
	}
	ended, err := s.OfferDraw(ctx, g.ID, tok.Red)
	if err != nil {
		t.Fatal(err)
	}
	if want := (engine.Outcome{Result: engine.Draw, Reason: engine.AgreedDraw}); ended.Outcome != want || ended.HasOffer {
		t.Fatalf("after the offer: outcome %v, offer pending %v; want %v and none", ended.Outcome, ended.HasOffer, want)
	}
	evs, err := s.store.Events(ctx, g.ID, 2, 10)
	if err != nil || len(evs) != 2 || evs[0].Kind != EventDrawOffered || evs[1].Kind != EventEnded {
		t.Fatalf("events after the move: %+v, %v; want draw offered, then ended", evs, err)
	}
	// Before the limit the engine plays on and an offer stays pending.
	s2 := NewService(NewMemoryStore(), Limits{MaxPlies: 10}, WithEngine(newBlockingMover(), time.Second, 1))
	defer s2.Drain()
	g2, tok2, _ := s2.CreateAgainstEngine(ctx, engine.DefaultVariant(), EngineOpponent{Side: engine.Black, Depth: 1})
	if got, err := s2.OfferDraw(ctx, g2.ID, tok2.Red); err != nil || got.Over() || !got.HasOffer {
		t.Fatalf("an offer before the limit: over %v, pending %v, %v; want pending", got.Over(), got.HasOffer, err)
	}
}

package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
)

// Opener returns an empty store and a function that opens it again as a
// restarted server (or another replica) would: the memory store returns
// itself, a file store is closed and reopened, a database store is a new
// connection to the same database.
type Opener func(t *testing.T) (s games.Store, reopen func() games.Store)

// RunRequestIDs runs the request id suite: on every store, each change
// (CreateGame, MakeMove, Resign, OfferDraw, AnswerDrawOffer) repeated
// with its request id returns its first answer, also after a restart and
// after the game changed; an id reused for another request is
// INVALID_ARGUMENT on request_id, with a message that never shows the id.
func RunRequestIDs(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(*testing.T, games.Store, func() games.Store)
	}{
		{"CreateGameReplay", testCreateReplay},
		{"CreateGameMismatch", testCreateMismatch},
		{"ResignReplay", testResignReplay},
		{"DrawOfferAndAnswerReplay", testDrawReplay},
		{"OneNamespacePerSide", testRequestNamespace},
		{"TimedMoveReplayKeepsClocks", testTimedMoveReplay},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, reopen := open(t)
			tc.fn(t, s, reopen)
		})
	}
}

// fixedClock is a clock tests move by hand.
type fixedClock struct{ now time.Time }

func (c *fixedClock) Now() time.Time { return c.now }

func service(s games.Store, c *fixedClock) *games.Service {
	return games.NewService(s, games.DefaultLimits, games.WithClock(c.Now))
}

// The ids: a UUID, as the API asks for.
const (
	createID = "4c1e0f7a-2b9d-4e5f-8a6c-3d7b1e9f0a25"
	changeID = "0b8f1c52-6a4e-4c1b-9d2e-7f3a5c9e1d20"
)

// wantInvalidRequestID checks that err is INVALID_ARGUMENT on request_id
// and that its message does not show the id.
func wantInvalidRequestID(t *testing.T, what string, err error, id string) {
	t.Helper()
	var e *games.Error
	if !errors.As(err, &e) || e.Code != games.CodeInvalidArgument || e.Field != "request_id" {
		t.Fatalf("%s: %v, want INVALID_ARGUMENT on request_id", what, err)
	}
	if strings.Contains(e.Message, id) {
		t.Errorf("%s: the message shows the request id: %q", what, e.Message)
	}
}

func wantCode(t *testing.T, what string, err error, code games.Code, reason string) {
	t.Helper()
	var e *games.Error
	if !errors.As(err, &e) || e.Code != code || e.Reason != reason {
		t.Fatalf("%s: %v, want code %v reason %s", what, err, code, reason)
	}
}

func testCreateReplay(t *testing.T, s games.Store, reopen func() games.Store) {
	ctx := context.Background()
	clk := &fixedClock{epoch}
	svc := service(s, clk)
	req := games.CreateRequest{Variant: engine.DefaultVariant(), RequestID: createID}
	g1, tok1, err := svc.CreateGame(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if tok1.Red == "" || tok1.Black == "" || tok1.Red == tok1.Black {
		t.Fatalf("tokens %q, %q: want two different tokens", tok1.Red, tok1.Black)
	}
	// The game moves on; then the retry comes, after a restart.
	clk.now = epoch.Add(time.Minute)
	if _, err := svc.MakeMove(ctx, games.MoveRequest{GameID: g1.ID, Token: tok1.Red, Move: "e2-d3"}); err != nil {
		t.Fatal(err)
	}
	s = reopen()
	svc = service(s, clk)
	g2, tok2, err := svc.CreateGame(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if tok2 != tok1 {
		t.Errorf("replayed tokens differ from the first response's")
	}
	// The game as created: ply 0, version 1, one event, at the first
	// call's time, not the game as it is now.
	if g2.ID != g1.ID || g2.Ply() != 0 || g2.Version != 1 || g2.LastEvent != 1 || !g2.CreateTime.Equal(epoch) || !g2.UpdateTime.Equal(epoch) {
		t.Errorf("replay: game %s ply %d version %d event %d created %v updated %v; want %s ply 0 version 1 event 1 at %v",
			g2.ID, g2.Ply(), g2.Version, g2.LastEvent, g2.CreateTime, g2.UpdateTime, g1.ID, epoch)
	}
	if g2.Position.String() != g1.Position.String() {
		t.Errorf("replay: position %s, want the start %s", g2.Position.String(), g1.Position.String())
	}
	if n, err := s.Count(ctx); err != nil || n != 1 {
		t.Errorf("Count = %d, %v after a replayed create; want 1", n, err)
	}
	// The replayed tokens act for their sides.
	if _, err := svc.MakeMove(ctx, games.MoveRequest{GameID: g1.ID, Token: tok2.Black, Move: "b5-c4"}); err != nil {
		t.Errorf("a move with the replayed Black token: %v", err)
	}
	// The store holds neither the id nor the tokens.
	rec, err := s.CreateRequest(ctx, games.LookupKey(createID))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{createID, tok1.Red, tok1.Black} {
		if strings.Contains(rec.Key+string(rec.Game)+string(rec.Sealed), secret) {
			t.Errorf("the create record holds a secret in the clear")
		}
	}
	// Another id is another game.
	g3, _, err := svc.CreateGame(ctx, games.CreateRequest{Variant: engine.DefaultVariant(), RequestID: changeID})
	if err != nil || g3.ID == g1.ID {
		t.Fatalf("a new id: game %v, %v; want a new game", g3, err)
	}
}

func testCreateMismatch(t *testing.T, s games.Store, _ func() games.Store) {
	ctx := context.Background()
	svc := service(s, &fixedClock{epoch})
	if _, _, err := svc.CreateGame(ctx, games.CreateRequest{Variant: engine.DefaultVariant(), RequestID: createID}); err != nil {
		t.Fatal(err)
	}
	other := engine.DefaultVariant()
	other.RepetitionDraw = !other.RepetitionDraw
	_, _, err := svc.CreateGame(ctx, games.CreateRequest{Variant: other, RequestID: createID})
	wantInvalidRequestID(t, "the id with other settings", err, createID)
	_, _, err = svc.CreateGame(ctx, games.CreateRequest{Variant: engine.DefaultVariant(), TimeControl: games.TimeControl{Initial: time.Minute},
		RequestID: createID})
	wantInvalidRequestID(t, "the id with a time control", err, createID)
	_, _, err = svc.CreateGame(ctx, games.CreateRequest{Variant: engine.DefaultVariant(), RequestID: "short-id"})
	wantInvalidRequestID(t, "an 8-byte id", err, "short-id")
	if n, _ := s.Count(ctx); n != 1 {
		t.Errorf("Count = %d, want 1: a refused create made a game", n)
	}
}

// newTwoSided creates a game without a request id.
func newTwoSided(t *testing.T, svc *games.Service) (*games.Game, games.Tokens) {
	t.Helper()
	g, tok, err := svc.Create(context.Background(), engine.DefaultVariant())
	if err != nil {
		t.Fatal(err)
	}
	return g, tok
}

func testResignReplay(t *testing.T, s games.Store, reopen func() games.Store) {
	ctx := context.Background()
	clk := &fixedClock{epoch}
	svc := service(s, clk)
	g, tok := newTwoSided(t, svc)
	clk.now = epoch.Add(time.Second)
	resign := games.Action{GameID: g.ID, Token: tok.Red, Call: games.CallResign, RequestID: changeID}
	first, err := svc.Act(ctx, resign)
	if err != nil {
		t.Fatal(err)
	}
	// Red resigned: Black wins; the game's second change and event.
	if first.Outcome != (engine.Outcome{Result: engine.WinFor(engine.Black), Reason: engine.Resignation}) || first.Version != 2 || first.LastEvent != 2 {
		t.Fatalf("resign: outcome %v version %d event %d; want Black wins by resignation, version 2, event 2", first.Outcome, first.Version, first.LastEvent)
	}
	clk.now = epoch.Add(time.Hour)
	s = reopen()
	svc = service(s, clk)
	again, err := svc.Act(ctx, resign)
	if err != nil {
		t.Fatalf("replayed resign: %v; want the first response, not GAME_OVER", err)
	}
	if again.Outcome != first.Outcome || again.Version != 2 || again.LastEvent != 2 || !again.UpdateTime.Equal(epoch.Add(time.Second)) {
		t.Errorf("replay: outcome %v version %d event %d updated %v; want %v, 2, 2, %v", again.Outcome, again.Version, again.LastEvent,
			again.UpdateTime, first.Outcome, epoch.Add(time.Second))
	}
	if evs, err := s.Events(ctx, g.ID, 0, 10); err != nil || len(evs) != 2 {
		t.Errorf("events after a replayed resign: %d, %v; want 2", len(evs), err)
	}
	// Without the id, or with Black's token (Black's own namespace), it is
	// a new request: the game is over.
	_, err = svc.Resign(ctx, g.ID, tok.Red)
	wantCode(t, "resign again without the id", err, games.CodeFailedPrecondition, games.ReasonGameOver)
	_, err = svc.Act(ctx, games.Action{GameID: g.ID, Token: tok.Black, Call: games.CallResign, RequestID: changeID})
	wantCode(t, "Black's resign with Red's id", err, games.CodeFailedPrecondition, games.ReasonGameOver)
	// The id cannot be reused for another call.
	_, err = svc.Act(ctx, games.Action{GameID: g.ID, Token: tok.Red, Call: games.CallOfferDraw, RequestID: changeID})
	wantInvalidRequestID(t, "the resign's id on OfferDraw", err, changeID)
}

func testDrawReplay(t *testing.T, s games.Store, reopen func() games.Store) {
	ctx := context.Background()
	clk := &fixedClock{epoch}
	svc := service(s, clk)
	g, tok := newTwoSided(t, svc)
	offer := games.Action{GameID: g.ID, Token: tok.Red, Call: games.CallOfferDraw, RequestID: "offer-1"}
	o1, err := svc.Act(ctx, offer)
	if err != nil {
		t.Fatal(err)
	}
	if !o1.HasOffer || o1.DrawOffer != engine.Red || o1.Version != 2 {
		t.Fatalf("offer: pending %v by %v version %d; want Red's offer at version 2", o1.HasOffer, o1.DrawOffer, o1.Version)
	}
	decline := games.Action{GameID: g.ID, Token: tok.Black, Call: games.CallDeclineDraw, RequestID: "answer-1"}
	d1, err := svc.Act(ctx, decline)
	if err != nil {
		t.Fatal(err)
	}
	if d1.HasOffer || d1.Version != 3 || d1.Over() {
		t.Fatalf("decline: pending %v version %d over %v; want no offer, version 3, going on", d1.HasOffer, d1.Version, d1.Over())
	}
	s = reopen()
	svc = service(s, clk)
	// The offer's replay shows the offer pending, as the first response
	// did, though it was declined since; not DRAW_ALREADY_OFFERED.
	o2, err := svc.Act(ctx, offer)
	if err != nil {
		t.Fatalf("replayed offer: %v", err)
	}
	if !o2.HasOffer || o2.DrawOffer != engine.Red || o2.Version != 2 || o2.LastEvent != 2 {
		t.Errorf("replayed offer: pending %v by %v version %d event %d; want Red's offer, version 2, event 2", o2.HasOffer, o2.DrawOffer, o2.Version, o2.LastEvent)
	}
	// The answer's replay: not NO_DRAW_OFFER.
	d2, err := svc.Act(ctx, decline)
	if err != nil {
		t.Fatalf("replayed decline: %v", err)
	}
	if d2.HasOffer || d2.Version != 3 || d2.LastEvent != 3 {
		t.Errorf("replayed decline: pending %v version %d event %d; want none, 3, 3", d2.HasOffer, d2.Version, d2.LastEvent)
	}
	// Accepting with the decline's id is another request.
	_, err = svc.Act(ctx, games.Action{GameID: g.ID, Token: tok.Black, Call: games.CallAcceptDraw, RequestID: "answer-1"})
	wantInvalidRequestID(t, "accept with the decline's id", err, "answer-1")
	// A second offer and its acceptance end the game; the acceptance's
	// replay answers as it did, not GAME_OVER.
	if _, err := svc.OfferDraw(ctx, g.ID, tok.Red); err != nil {
		t.Fatal(err)
	}
	accept := games.Action{GameID: g.ID, Token: tok.Black, Call: games.CallAcceptDraw, RequestID: "answer-2"}
	a1, err := svc.Act(ctx, accept)
	if err != nil {
		t.Fatal(err)
	}
	s = reopen()
	a2, err := service(s, clk).Act(ctx, accept)
	if err != nil {
		t.Fatalf("replayed accept: %v", err)
	}
	draw := engine.Outcome{Result: engine.Draw, Reason: engine.AgreedDraw}
	if a1.Outcome != draw || a2.Outcome != draw || a2.Version != 5 || a2.LastEvent != 5 {
		t.Errorf("accept %v, replay %v version %d event %d; want agreed draws, version 5, event 5", a1.Outcome, a2.Outcome, a2.Version, a2.LastEvent)
	}
	if evs, _ := s.Events(ctx, g.ID, 0, 10); len(evs) != 5 {
		t.Errorf("%d events, want 5 (created, offer, decline, offer, ended)", len(evs))
	}
}

func testRequestNamespace(t *testing.T, s games.Store, _ func() games.Store) {
	ctx := context.Background()
	svc := service(s, &fixedClock{epoch})
	g, tok := newTwoSided(t, svc)
	if _, err := svc.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3", RequestID: changeID}); err != nil {
		t.Fatal(err)
	}
	_, err := svc.Act(ctx, games.Action{GameID: g.ID, Token: tok.Red, Call: games.CallResign, RequestID: changeID})
	wantInvalidRequestID(t, "the move's id on Resign", err, changeID)
	if _, err := svc.Act(ctx, games.Action{GameID: g.ID, Token: tok.Red, Call: games.CallOfferDraw, RequestID: "offer"}); err != nil {
		t.Fatal(err)
	}
	_, err = svc.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3", RequestID: "offer"})
	wantInvalidRequestID(t, "the offer's id on MakeMove", err, "offer")
	_, err = svc.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: tok.Red, Move: "c2-b3", RequestID: changeID})
	wantInvalidRequestID(t, "the move's id on another move", err, changeID)
	// Black's own namespace: the same id is Black's own, new request.
	if _, err := svc.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: tok.Black, Move: "b5-c4", RequestID: changeID}); err != nil {
		t.Errorf("Black's move with Red's id: %v", err)
	}
	got, _ := s.Get(ctx, g.ID)
	if got.Over() || got.Ply() != 2 {
		t.Errorf("after the refused reuses: ply %d over %v; want ply 2, going on", got.Ply(), got.Over())
	}
}

// testTimedMoveReplay: a replayed move of a timed game shows the clocks
// as the first response did, not as they are now.
func testTimedMoveReplay(t *testing.T, s games.Store, reopen func() games.Store) {
	ctx := context.Background()
	clk := &fixedClock{epoch}
	svc := service(s, clk)
	// 5 minutes each; Red's first move after 2 s, Black's after 7 s more.
	g, tok, err := svc.CreateTimed(ctx, engine.DefaultVariant(), games.TimeControl{Initial: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	clk.now = epoch.Add(2 * time.Second)
	mv := games.MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3", RequestID: changeID}
	first, err := svc.MakeMove(ctx, mv)
	if err != nil {
		t.Fatal(err)
	}
	clk.now = epoch.Add(9 * time.Second)
	if _, err := svc.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: tok.Black, Move: "b5-c4"}); err != nil {
		t.Fatal(err)
	}
	again, err := service(reopen(), clk).MakeMove(ctx, mv)
	if err != nil {
		t.Fatal(err)
	}
	// After Red's move, Black's clock runs from 2 s on: Black to move,
	// nobody's time yet spent on Black's side.
	c1, c2 := first.Game.Clock, again.Game.Clock
	if c1 == nil || c2 == nil {
		t.Fatalf("clocks %v, %v; want both", c1, c2)
	}
	if c2.Remaining != c1.Remaining || !c2.Since.Equal(epoch.Add(2*time.Second)) || !c2.Deadline.Equal(c1.Deadline) {
		t.Errorf("replayed clock %+v, want the first response's %+v (since %v)", *c2, *c1, epoch.Add(2*time.Second))
	}
	if again.Game.Version != first.Game.Version || again.Game.Ply() != 1 {
		t.Errorf("replay: version %d ply %d; want %d, 1", again.Game.Version, again.Game.Ply(), first.Game.Version)
	}
}

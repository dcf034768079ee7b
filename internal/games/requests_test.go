package games

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

// tickingClock returns a clock a second later at each reading, so every
// change of a game has its own update time.
func tickingClock() func() time.Time {
	var n atomic.Int64
	base := time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)
	return func() time.Time { return base.Add(time.Duration(n.Add(1)) * time.Second) }
}

// sameResponse checks that got is want again: the same move, event
// sequence and game in every field a MakeMoveResponse shows.
func sameResponse(t *testing.T, got, want *MoveResult) {
	t.Helper()
	if got.Move.Move.String() != want.Move.Move.String() || got.Move.Side != want.Move.Side || got.Sequence != want.Sequence {
		t.Errorf("move %s by %v, sequence %d; want %s by %v, sequence %d", got.Move.Move.String(), got.Move.Side, got.Sequence,
			want.Move.Move.String(), want.Move.Side, want.Sequence)
	}
	g, w := got.Game, want.Game
	// Responses carry no moves (the server adds them from the event
	// log); the positions the repetition rule counts must be the same
	// whether worked out move by move or by replaying the game.
	recent := func(g *Game) string {
		var out []string
		for _, p := range g.Recent {
			out = append(out, p.String())
		}
		return strings.Join(out, " ")
	}
	type view struct {
		id, etag, pos, initial, recent string
		ply                            int
		version, last                  int64
		outcome                        engine.Outcome
		offer                          bool
		offerBy                        engine.Side
	}
	vg := view{g.ID, g.Etag(), g.Position.String(), g.Initial.String(), recent(g), g.Ply(), g.Version, g.LastEvent, g.Outcome, g.HasOffer, g.DrawOffer}
	vw := view{w.ID, w.Etag(), w.Position.String(), w.Initial.String(), recent(w), w.Ply(), w.Version, w.LastEvent, w.Outcome, w.HasOffer, w.DrawOffer}
	if !vg.offer {
		vg.offerBy = 0
	}
	if !vw.offer {
		vw.offerBy = 0
	}
	if vg != vw {
		t.Errorf("game %+v\nwant the first response's %+v", vg, vw)
	}
	if !g.UpdateTime.Equal(w.UpdateTime) || !g.CreateTime.Equal(w.CreateTime) {
		t.Errorf("times %v %v, want the first response's %v %v", g.CreateTime, g.UpdateTime, w.CreateTime, w.UpdateTime)
	}
}

// Request ids belong to a side: Black may use the id Red used, each plays
// its own move, and a retry answers each side with its own first result.
func TestRequestIDsArePerSide(t *testing.T) {
	ctx := context.Background()
	s := NewService(NewMemoryStore(), Limits{}, WithClock(tickingClock()))
	g, tok := create(t, s)
	red, err := s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3", RequestID: "1"})
	if err != nil {
		t.Fatal(err)
	}
	black, err := s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Black, Move: "b5-c4", RequestID: "1"})
	if err != nil {
		t.Fatalf("Black reusing Red's request id: %v", err)
	}
	if black.Move.Move.String() != "b5-c4" || black.Game.Ply() != 2 {
		t.Fatalf("Black's move %s at ply %d, want b5-c4 at ply 2", black.Move.Move.String(), black.Game.Ply())
	}
	// d3xb5 is compulsory for Red now, but Red's retry is a replay.
	again, err := s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3", RequestID: "1"})
	if err != nil {
		t.Fatalf("Red's retry: %v", err)
	}
	sameResponse(t, again, red)
	againBlack, err := s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Black, Move: "b5-c4", RequestID: "1"})
	if err != nil {
		t.Fatalf("Black's retry: %v", err)
	}
	sameResponse(t, againBlack, black)
	if n := get(t, s, g.ID); n.Ply() != 2 {
		t.Fatalf("ply %d after the retries, want 2", n.Ply())
	}
}

// The repro: Red's d3-c4 with a request id; both sides move on
// until d3 holds Black's Damone; Red's retry answers with the first
// response (docs/api.md: the replay comes before every check on the
// game's current state), not with an error about the piece on d3.
func TestRetryAfterReplyAnswersFirstResponse(t *testing.T) {
	ctx := context.Background()
	s := NewService(NewMemoryStore(), Limits{}, WithClock(tickingClock()))
	g, tok := createCustom(t, s, "R:RMd3:BMf5:0")
	req := MoveRequest{GameID: g.ID, Token: tok.Red, Move: "d3-c4", RequestID: "X"}
	first, err := s.MakeMove(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	// Worked out: a Damone step is no progress; events created, move.
	if first.Game.Position.String() != "B:RMc4:BMf5:1" || first.Sequence != 2 || first.Game.LastEvent != 2 || first.Game.Version != 2 {
		t.Fatalf("first response: position %s sequence %d last event %d version %d", first.Game.Position.String(),
			first.Sequence, first.Game.LastEvent, first.Game.Version)
	}
	move(t, s, g.ID, tok.Black, "f5-e4")
	move(t, s, g.ID, tok.Red, "c4-b5")
	move(t, s, g.ID, tok.Black, "e4-d3")
	now := get(t, s, g.ID)
	stale := req
	stale.ExpectedEtag = g.Etag() // and a precondition that no longer holds
	for _, r := range []MoveRequest{req, stale} {
		again, err := s.MakeMove(ctx, r)
		if err != nil {
			t.Fatalf("retry after the opponent replied: %v, want the first response", err)
		}
		sameResponse(t, again, first)
	}
	if after := get(t, s, g.ID); after.Version != now.Version || after.Position.String() != "R:RMb5:BMd3:4" {
		t.Errorf("the retries changed the game: version %d position %s", after.Version, after.Position.String())
	}
	// Neither side's token, or none, never reaches the replay.
	r := req
	r.Token = "not-a-token"
	_, err = s.MakeMove(ctx, r)
	wantErr(t, err, CodePermissionDenied, ReasonWrongToken)
	r.Token = ""
	_, err = s.MakeMove(ctx, r)
	wantErr(t, err, CodeUnauthenticated, ReasonMissingToken)
}

// The first response keeps what the move left: the mover's own pending
// offer, and the end of the game when the move ended it. A reused id with
// another move is INVALID_ARGUMENT even once the game is over (the replay
// step comes before GAME_OVER).
func TestReplayAnswersTheStateAfterTheMove(t *testing.T) {
	ctx := context.Background()
	t.Run("own offer pending", func(t *testing.T) {
		s := NewService(NewMemoryStore(), Limits{}, WithClock(tickingClock()))
		g, tok := create(t, s)
		if _, err := s.OfferDraw(ctx, g.ID, tok.Red); err != nil {
			t.Fatal(err)
		}
		req := MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3", RequestID: "offer-stands"}
		first, err := s.MakeMove(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if !first.Game.HasOffer || first.Game.DrawOffer != engine.Red {
			t.Fatalf("first response: offer %v by %v, want Red's offer standing", first.Game.HasOffer, first.Game.DrawOffer)
		}
		if _, err := s.AnswerDrawOffer(ctx, g.ID, tok.Black, false); err != nil {
			t.Fatal(err)
		}
		again, err := s.MakeMove(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		sameResponse(t, again, first)
	})
	t.Run("the move ended the game", func(t *testing.T) {
		s := NewService(NewMemoryStore(), Limits{}, WithClock(tickingClock()))
		g, tok := createCustom(t, s, oneMoveWin)
		if _, err := s.OfferDraw(ctx, g.ID, tok.Black); err != nil {
			t.Fatal(err)
		}
		req := MoveRequest{GameID: g.ID, Token: tok.Red, Move: "c4xa6", RequestID: "the-end"}
		first, err := s.MakeMove(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		// created 1, offered 2, declined 3, move 4, ended 5.
		if first.Sequence != 4 || first.Game.LastEvent != 5 || first.Game.HasOffer ||
			first.Game.Outcome != (engine.Outcome{Result: engine.RedWins, Reason: engine.AllPiecesCaptured}) {
			t.Fatalf("first response: sequence %d last event %d offer %v outcome %v", first.Sequence, first.Game.LastEvent, first.Game.HasOffer, first.Game.Outcome)
		}
		again, err := s.MakeMove(ctx, req)
		if err != nil {
			t.Fatalf("retry of the move that ended the game: %v", err)
		}
		sameResponse(t, again, first)
		other := req
		other.Move = "c4-d5"
		_, err = s.MakeMove(ctx, other)
		// The message names the field and both moves, never the id: it
		// reaches the log and the traces.
		if e := wantErr(t, err, CodeInvalidArgument, ReasonInvalidRequest); e.Field != "request_id" ||
			e.Message != `this side already used this request_id on this game for the move "c4xa6", not "c4-d5"; use a new request_id for a new move` {
			t.Errorf("Field %q message %q, want request_id and a message naming both moves, not the id", e.Field, e.Message)
		}
	})
}

// legacyStore keeps request records as the service wrote them before
// they held the state after the move: the id, move, ply and sequence.
type legacyStore struct{ *MemoryStore }

func (s legacyStore) Update(ctx context.Context, g *Game, events []Event, req *RequestRecord) error {
	if req != nil {
		req = &RequestRecord{RequestID: req.RequestID, Move: req.Move, Ply: req.Ply, Sequence: req.Sequence}
	}
	return s.MemoryStore.Update(ctx, g, events, req)
}

// A record written before records kept the state after the move still
// answers with the first move and its sequence, with the game as it is
// now (what such a record was written to answer: never an etag of one
// state with the position of another), and never plays twice.
func TestReplayOfLegacyRecord(t *testing.T) {
	ctx := context.Background()
	s := NewService(legacyStore{NewMemoryStore()}, Limits{}, WithClock(tickingClock()))
	g, tok := createCustom(t, s, "R:RMd3:BMf5:0")
	req := MoveRequest{GameID: g.ID, Token: tok.Red, Move: "d3-c4", RequestID: "old"}
	if _, err := s.MakeMove(ctx, req); err != nil {
		t.Fatal(err)
	}
	move(t, s, g.ID, tok.Black, "f5-e4")
	again, err := s.MakeMove(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if again.Move.Move.String() != "d3-c4" || again.Sequence != 2 {
		t.Errorf("legacy replay: move %s sequence %d, want d3-c4 and 2", again.Move.Move.String(), again.Sequence)
	}
	now := get(t, s, g.ID)
	if now.Ply() != 2 || again.Game.Ply() != 2 || again.Game.Etag() != now.Etag() || again.Game.Position.String() != "R:RMc4:BMe4:2" {
		t.Errorf("legacy replay: game at ply %d etag %s position %s; stored ply %d etag %s; want the game as it is now",
			again.Game.Ply(), again.Game.Etag(), again.Game.Position.String(), now.Ply(), now.Etag())
	}
}

// docs/api.md and game_service.proto: a request id is at most 64 bytes of
// UTF-8 without U+0000; longer, not UTF-8 or with U+0000, is INVALID_ARGUMENT on request_id, before
// any other check, and nothing is played.
func TestRequestIDBounds(t *testing.T) {
	ctx := context.Background()
	s, st := newTestService(t, Limits{})
	for _, id := range []string{strings.Repeat("a", 64), strings.Repeat("é", 32)} { // 64 bytes each
		g, tok := create(t, s)
		if _, err := s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3", RequestID: id}); err != nil {
			t.Errorf("request id of %d bytes: %v, want it accepted", len(id), err)
		}
	}
	g, tok := create(t, s)
	before := snap(t, s, st, g.ID)
	cases := map[string]MoveRequest{
		"65 bytes":                     {Token: tok.Red, RequestID: strings.Repeat("a", 65)},
		"33 characters, 66 bytes":      {Token: tok.Red, RequestID: strings.Repeat("é", 33)},
		"not UTF-8":                    {Token: tok.Red, RequestID: "r\xff\xfe"},
		"a cut UTF-8 sequence":         {Token: tok.Red, RequestID: "é"[:1]},
		"U+0000 (no PostgreSQL text)":  {Token: tok.Red, RequestID: "r\x00s"},
		"not UTF-8, before no token":   {RequestID: "r\xff"},
		"too long, before wrong token": {Token: "not-a-token", RequestID: strings.Repeat("a", 65)},
	}
	for name, r := range cases {
		t.Run(name, func(t *testing.T) {
			r.GameID, r.Move = g.ID, "e2-d3"
			_, err := s.MakeMove(ctx, r)
			e := wantErr(t, err, CodeInvalidArgument, ReasonInvalidRequest)
			if e.Field != "request_id" || !strings.HasPrefix(e.Message, "request_id") {
				t.Errorf("Field %q message %q, want both naming request_id", e.Field, e.Message)
			}
		})
	}
	if after := snap(t, s, st, g.ID); after != before {
		t.Errorf("refused request ids changed the game: %+v -> %+v", before, after)
	}
}

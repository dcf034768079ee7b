package games

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

// openingMoves are Red's legal moves in the standard setup, worked out by
// hand from RULES.md (Red: Damone h1, Damas f1 h3, Pedines d1 e2 f3 g4 h5;
// Pedines go NW, NE or SW, never SE; Damas and Damones any diagonal; no
// capture is possible at the start):
//
//	h1: only g2 is on the board and empty     -> h1-g2
//	f1: e2 is taken, g2 is empty               -> f1-g2
//	h3: g4 is taken, g2 is empty               -> h3-g2
//	d1: NW c2 empty, NE e2 taken               -> d1-c2
//	e2: NW d3 empty, NE f3 taken, SW d1 taken  -> e2-d3
//	f3: NW e4 empty, NE g4 taken, SW e2 taken  -> f3-e4
//	g4: NW f5 empty, NE h5 taken, SW f3 taken  -> g4-f5
//	h5: NW g6 empty, SW g4 taken               -> h5-g6
var openingMoves = []string{"d1-c2", "e2-d3", "f1-g2", "f3-e4", "g4-f5", "h1-g2", "h3-g2", "h5-g6"}

// Black's opening moves, by the same reasoning mirrored (forward = SE).
var blackOpeningMoves = []string{"a4-b3", "a6-b7", "a8-b7", "b5-c4", "c6-d5", "c8-b7", "d7-e6", "e8-f7"}

// oneMoveWin is a custom start where Red's only legal move, the
// compulsory capture c4xa6, takes Black's last piece: Red wins.
const oneMoveWin = "R:RPc4:BPb5:0"

func newTestService(t *testing.T, limits Limits) (*Service, *MemoryStore) {
	t.Helper()
	st := NewMemoryStore()
	return NewService(st, limits), st
}

func create(t *testing.T, s *Service) (*Game, Tokens) {
	t.Helper()
	g, tok, err := s.Create(context.Background(), engine.DefaultVariant())
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return g, tok
}

func createCustom(t *testing.T, s *Service, text string) (*Game, Tokens) {
	t.Helper()
	pos, err := engine.ParsePosition(text)
	if err != nil {
		t.Fatalf("ParsePosition(%q): %v", text, err)
	}
	v := engine.DefaultVariant()
	v.Setup, v.Start = engine.SetupCustom, pos
	g, tok, err := s.Create(context.Background(), v)
	if err != nil {
		t.Fatalf("Create(custom %q): %v", text, err)
	}
	return g, tok
}

func get(t *testing.T, s *Service, id string) *Game {
	t.Helper()
	g, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if err := s.WithMoves(context.Background(), g); err != nil {
		t.Fatalf("WithMoves: %v", err)
	}
	return g
}

func move(t *testing.T, s *Service, id, token, mv string) *MoveResult {
	t.Helper()
	res, err := s.MakeMove(context.Background(), MoveRequest{GameID: id, Token: token, Move: mv})
	if err != nil {
		t.Fatalf("MakeMove(%s): %v", mv, err)
	}
	return res
}

func storedEvents(t *testing.T, st *MemoryStore, id string) []Event {
	t.Helper()
	evs, err := st.Events(context.Background(), id, 0, 1<<20)
	if err != nil {
		t.Fatalf("Events: %v", err)
	}
	return evs
}

// wantErr checks that err is an *Error with the code and reason.
func wantErr(t *testing.T, err error, code Code, reason string) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want *games.Error code %d reason %s", err, err, code, reason)
	}
	if e.Code != code || e.Reason != reason {
		t.Fatalf("error code/reason = %d/%q, want %d/%q (message %q)", e.Code, e.Reason, code, reason, e.Message)
	}
	return e
}

// snapshot is what an error must leave unchanged.
type snapshot struct {
	version, last int64
	ply           int
	pos           string
	events        int
	offer         bool
}

func snap(t *testing.T, s *Service, st *MemoryStore, id string) snapshot {
	t.Helper()
	g := get(t, s, id)
	return snapshot{g.Version, g.LastEvent, g.Ply(), g.Position.String(), len(storedEvents(t, st, id)), g.HasOffer}
}

func TestCreateTokens(t *testing.T) {
	s, st := newTestService(t, Limits{})
	g, tok := create(t, s)
	if tok.Red == "" || tok.Black == "" || tok.Red == tok.Black {
		t.Fatalf("tokens %q and %q: want two different non-empty tokens", tok.Red, tok.Black)
	}
	g2, tok2 := create(t, s)
	if g2.ID == g.ID || tok2.Red == tok.Red || tok2.Black == tok.Black || tok2.Red == tok.Black {
		t.Fatalf("a second game reuses an id or a token")
	}
	stored := get(t, s, g.ID)
	if stored.TokenHash[engine.Red] != sha256.Sum256([]byte(tok.Red)) {
		t.Errorf("TokenHash[Red] is not SHA-256 of the red token")
	}
	if stored.TokenHash[engine.Black] != sha256.Sum256([]byte(tok.Black)) {
		t.Errorf("TokenHash[Black] is not SHA-256 of the black token")
	}
	// The token in clear appears nowhere in what is stored.
	dump := fmt.Sprintf("%#v %+v", *stored, storedEvents(t, st, g.ID))
	for _, tk := range []string{tok.Red, tok.Black} {
		if strings.Contains(dump, tk) {
			t.Errorf("a token is stored in clear")
		}
	}
	if stored.Version != 1 || stored.LastEvent != 1 || stored.Ply() != 0 || stored.Over() {
		t.Errorf("new game: version %d, last event %d, ply %d, over %v; want 1, 1, 0, false",
			stored.Version, stored.LastEvent, stored.Ply(), stored.Over())
	}
	const start = "R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0"
	if got := stored.Position.String(); got != start {
		t.Errorf("start position %s, want %s", got, start)
	}
	evs := storedEvents(t, st, g.ID)
	if len(evs) != 1 || evs[0].Kind != EventCreated || evs[0].Sequence != 1 || evs[0].GameID != g.ID {
		t.Errorf("events of a new game: %+v, want one created event with sequence 1", evs)
	}
}

func TestMakeMoveErrors(t *testing.T) {
	ctx := context.Background()
	s, st := newTestService(t, Limits{})
	g, tok := create(t, s)
	before := snap(t, s, st, g.ID)

	type tc struct {
		name   string
		req    MoveRequest
		code   Code
		reason string
		check  func(t *testing.T, e *Error)
	}
	cases := []tc{
		{name: "missing token", req: MoveRequest{Move: "e2-d3"}, code: CodeUnauthenticated, reason: ReasonMissingToken},
		{name: "unknown token", req: MoveRequest{Token: "not-a-token", Move: "e2-d3"}, code: CodePermissionDenied, reason: ReasonWrongToken},
		// A side's own token is never WRONG_TOKEN (docs/api.md): on the
		// opponent's piece it is NOT_YOUR_TURN off turn, and on its turn what
		// RulesService.ApplyMove answers, ILLEGAL_MOVE with the opponent's
		// piece as the cause.
		{name: "black token on a red piece", req: MoveRequest{Token: tok.Black, Move: "e2-d3"}, code: CodeFailedPrecondition, reason: ReasonNotYourTurn},
		{name: "red token on a black piece", req: MoveRequest{Token: tok.Red, Move: "a4-b3"}, code: CodeFailedPrecondition, reason: ReasonIllegalMove,
			check: func(t *testing.T, e *Error) {
				var me *engine.MoveError
				if !errors.As(e, &me) || me.Code != engine.MoveWrongSide {
					t.Errorf("underlying error %v, want the engine's MoveWrongSide", e.Err)
				}
			}},
		{name: "black out of turn", req: MoveRequest{Token: tok.Black, Move: "a4-b3"}, code: CodeFailedPrecondition, reason: ReasonNotYourTurn,
			check: func(t *testing.T, e *Error) {
				if e.Metadata["side"] != "SIDE_BLACK" || e.Metadata["side_to_move"] != "SIDE_RED" {
					t.Errorf("metadata %v, want side SIDE_BLACK, side_to_move SIDE_RED", e.Metadata)
				}
			}},
		{name: "backward pedine step", req: MoveRequest{Token: tok.Red, Move: "f3-g2"}, code: CodeFailedPrecondition, reason: ReasonIllegalMove},
		{name: "no piece on origin", req: MoveRequest{Token: tok.Red, Move: "c2-b3"}, code: CodeFailedPrecondition, reason: ReasonIllegalMove},
		{name: "step onto own piece", req: MoveRequest{Token: tok.Red, Move: "d1-e2"}, code: CodeFailedPrecondition, reason: ReasonIllegalMove},
		{name: "light square", req: MoveRequest{Token: tok.Red, Move: "e2-e3"}, code: CodeInvalidArgument, reason: ReasonInvalidRequest},
		{name: "off board", req: MoveRequest{Token: tok.Red, Move: "e2-i3"}, code: CodeInvalidArgument, reason: ReasonInvalidRequest},
		{name: "no separator", req: MoveRequest{Token: tok.Red, Move: "e2d3"}, code: CodeInvalidArgument, reason: ReasonInvalidRequest},
		{name: "garbage", req: MoveRequest{Token: tok.Red, Move: "hello"}, code: CodeInvalidArgument, reason: ReasonInvalidRequest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.req.GameID = g.ID
			res, err := s.MakeMove(ctx, c.req)
			if err == nil {
				t.Fatalf("MakeMove(%+v) = %+v, want an error", c.req, res.Move.Move.String())
			}
			e := wantErr(t, err, c.code, c.reason)
			if c.code == CodeInvalidArgument && e.Field != "move" {
				t.Errorf("Field = %q, want \"move\"", e.Field)
			}
			if c.reason == ReasonIllegalMove {
				got := slices.Sorted(slices.Values(e.Legal))
				if !slices.Equal(got, openingMoves) {
					t.Errorf("Legal = %v, want the 8 opening moves %v", got, openingMoves)
				}
			}
			if c.check != nil {
				c.check(t, e)
			}
			if after := snap(t, s, st, g.ID); after != before {
				t.Errorf("a refused move changed the game: %+v -> %+v", before, after)
			}
		})
	}

	t.Run("unknown game", func(t *testing.T) {
		_, err := s.MakeMove(ctx, MoveRequest{GameID: "no-such-game", Token: tok.Red, Move: "e2-d3"})
		wantErr(t, err, CodeNotFound, ReasonGameNotFound)
	})

	t.Run("black's opening moves after a red move", func(t *testing.T) {
		s, _ := newTestService(t, Limits{})
		g, tok := create(t, s)
		move(t, s, g.ID, tok.Red, "e2-d3")
		_, err := s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Black, Move: "b5-a4"}) // a4 is taken
		e := wantErr(t, err, CodeFailedPrecondition, ReasonIllegalMove)
		if got := slices.Sorted(slices.Values(e.Legal)); !slices.Equal(got, blackOpeningMoves) {
			t.Errorf("Legal = %v, want %v", got, blackOpeningMoves)
		}
	})
}

func TestMoveEndsGameAndGameOver(t *testing.T) {
	ctx := context.Background()
	s, st := newTestService(t, Limits{})
	g, tok := createCustom(t, s, oneMoveWin)
	res := move(t, s, g.ID, tok.Red, "c4xa6")
	if res.Game.Outcome != (engine.Outcome{Result: engine.RedWins, Reason: engine.AllPiecesCaptured}) {
		t.Fatalf("outcome %v, want red wins, all pieces captured", res.Game.Outcome)
	}
	if res.Sequence != 2 {
		t.Errorf("move event sequence %d, want 2", res.Sequence)
	}
	evs := storedEvents(t, st, g.ID)
	if len(evs) != 3 || evs[1].Kind != EventMovePlayed || evs[2].Kind != EventEnded || evs[2].Sequence != 3 {
		t.Fatalf("events %+v: want created, move played, ended", evs)
	}
	// The Pedine lands on a6 (a Red promotion square): it is a Dama now.
	if got := evs[2].Position.String(); got != "B:RDa6:B:0" {
		t.Errorf("final position %s, want B:RDa6:B:0", got)
	}
	before := snap(t, s, st, g.ID)
	for _, r := range []MoveRequest{
		{Token: tok.Red, Move: "a6-b7"},
		{Token: tok.Black, Move: "b5-c4"},
	} {
		r.GameID = g.ID
		_, err := s.MakeMove(ctx, r)
		e := wantErr(t, err, CodeFailedPrecondition, ReasonGameOver)
		if e.Metadata["result"] != "OUTCOME_RESULT_RED_WINS" || e.Metadata["reason"] != "OUTCOME_REASON_ALL_PIECES_CAPTURED" {
			t.Errorf("GAME_OVER metadata %v", e.Metadata)
		}
	}
	_, err := s.Resign(ctx, g.ID, tok.Black)
	wantErr(t, err, CodeFailedPrecondition, ReasonGameOver)
	_, err = s.OfferDraw(ctx, g.ID, tok.Black)
	wantErr(t, err, CodeFailedPrecondition, ReasonGameOver)
	if after := snap(t, s, st, g.ID); after != before {
		t.Errorf("calls on a finished game changed it: %+v -> %+v", before, after)
	}
}

func TestStalePreconditionsChangeNothing(t *testing.T) {
	ctx := context.Background()
	s, st := newTestService(t, Limits{})
	g, tok := create(t, s)
	etag0 := get(t, s, g.ID).Etag()
	move(t, s, g.ID, tok.Red, "e2-d3")
	g1 := get(t, s, g.ID)
	if g1.Etag() == etag0 {
		t.Fatalf("etag did not change with a move")
	}
	before := snap(t, s, st, g.ID)

	_, err := s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Black, Move: "a4-b3", ExpectedEtag: etag0})
	e := wantErr(t, err, CodeAborted, ReasonEtagMismatch)
	if e.Metadata["etag"] != g1.Etag() || e.Metadata["ply"] != "1" {
		t.Errorf("ETAG_MISMATCH metadata %v, want etag %s ply 1", e.Metadata, g1.Etag())
	}
	if after := snap(t, s, st, g.ID); after != before {
		t.Errorf("stale etag changed the game: %+v -> %+v", before, after)
	}

	zero := 0
	_, err = s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Black, Move: "a4-b3", ExpectedPly: &zero})
	e = wantErr(t, err, CodeAborted, ReasonPlyMismatch)
	if e.Metadata["ply"] != "1" || e.Metadata["etag"] != g1.Etag() {
		t.Errorf("PLY_MISMATCH metadata %v, want ply 1 etag %s", e.Metadata, g1.Etag())
	}
	if after := snap(t, s, st, g.ID); after != before {
		t.Errorf("stale ply changed the game: %+v -> %+v", before, after)
	}

	// The current etag and ply are accepted.
	res, err := s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Black, Move: "a4-b3", ExpectedEtag: g1.Etag()})
	if err != nil {
		t.Fatalf("move with the current etag: %v", err)
	}
	one := 2
	if _, err := s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Red, Move: "h5-g6", ExpectedPly: &one}); err != nil {
		t.Fatalf("move with the current ply: %v", err)
	}
	if res.Game.Ply() != 2 {
		t.Errorf("ply %d after two moves", res.Game.Ply())
	}
}

// interferingStore runs hook once, just before the first Update it sees,
// so a change can land between a call's read and its write.
type interferingStore struct {
	*MemoryStore
	fired atomic.Bool
	hook  func()
}

func (s *interferingStore) Update(ctx context.Context, g *Game, events []Event, req *RequestRecord) error {
	if s.hook != nil && s.fired.CompareAndSwap(false, true) {
		s.hook() // its own Update passes straight through
	}
	return s.MemoryStore.Update(ctx, g, events, req)
}

// A move whose etag was current when it was read but not when it is
// written lost the etag precondition: ABORTED ETAG_MISMATCH with the
// current etag and ply (error_reason.proto), and nothing of it is played.
func TestEtagLostAtCommit(t *testing.T) {
	ctx := context.Background()
	ist := &interferingStore{MemoryStore: NewMemoryStore()}
	s := NewService(ist, Limits{})
	g, tok := create(t, s)
	etag := g.Etag()
	ist.hook = func() {
		// Black offers a draw in between (an Update of its own).
		if _, err := s.OfferDraw(ctx, g.ID, tok.Black); err != nil {
			t.Errorf("OfferDraw in between: %v", err)
		}
	}
	_, err := s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3", ExpectedEtag: etag})
	now := get(t, s, g.ID)
	e := wantErr(t, err, CodeAborted, ReasonEtagMismatch)
	if e.Metadata["etag"] != now.Etag() || e.Metadata["ply"] != "0" {
		t.Errorf("metadata %v, want etag %s ply 0", e.Metadata, now.Etag())
	}
	if now.Ply() != 0 || !now.HasOffer {
		t.Errorf("ply %d offer %v: want the draw offer only", now.Ply(), now.HasOffer)
	}
}

// A move whose expected ply was current when read but not when written:
// ABORTED PLY_MISMATCH with the current ply and etag.
func TestPlyLostAtCommit(t *testing.T) {
	ctx := context.Background()
	ist := &interferingStore{MemoryStore: NewMemoryStore()}
	s := NewService(ist, Limits{})
	g, tok := create(t, s)
	ist.hook = func() {
		if _, err := s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Red, Move: "h5-g6"}); err != nil {
			t.Errorf("move in between: %v", err)
		}
	}
	zero := 0
	_, err := s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3", ExpectedPly: &zero})
	now := get(t, s, g.ID)
	e := wantErr(t, err, CodeAborted, ReasonPlyMismatch)
	if e.Metadata["ply"] != "1" || e.Metadata["etag"] != now.Etag() {
		t.Errorf("metadata %v, want ply 1 etag %s", e.Metadata, now.Etag())
	}
	if now.Ply() != 1 || now.Moves[0].Move.String() != "h5-g6" {
		t.Errorf("moves %v: want only h5-g6", now.Moves)
	}
}

// A move whose expected ply still holds at commit is played, even if
// another change (a draw offer) landed between its read and its write:
// the contract refuses it only when the ply differs (game_service.proto,
// MakeMoveRequest.expected_ply). Found by the fault test (make
// test-faults): the move was refused PLY_MISMATCH at the same ply.
func TestPlyHeldThroughConcurrentOffer(t *testing.T) {
	ctx := context.Background()
	ist := &interferingStore{MemoryStore: NewMemoryStore()}
	s := NewService(ist, Limits{})
	g, tok := create(t, s)
	ist.hook = func() {
		if _, err := s.OfferDraw(ctx, g.ID, tok.Black); err != nil {
			t.Errorf("OfferDraw in between: %v", err)
		}
	}
	zero := 0
	res, err := s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3", ExpectedPly: &zero})
	if err != nil {
		t.Fatalf("MakeMove at ply 0 with the game still at ply 0: %v", err)
	}
	now := get(t, s, g.ID)
	// Events: 1 created, 2 Black's offer, 3 declined by the move, 4 the move.
	if now.Ply() != 1 || now.HasOffer || res.Sequence != 4 || now.LastEvent != 4 {
		t.Errorf("ply %d offer %v move event %d last event %d: want ply 1, the offer declined, move event 4 of 4",
			now.Ply(), now.HasOffer, res.Sequence, now.LastEvent)
	}
}

func TestConcurrentMovesOneWins(t *testing.T) {
	ctx := context.Background()
	for _, withPly := range []bool{false, true} {
		t.Run(fmt.Sprintf("expected_ply=%v", withPly), func(t *testing.T) {
			for round := 0; round < 20; round++ {
				s, st := newTestService(t, Limits{})
				g, tok := create(t, s)
				const n = 16
				var wg sync.WaitGroup
				start := make(chan struct{})
				errs := make([]error, n)
				for i := 0; i < n; i++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						r := MoveRequest{GameID: g.ID, Token: tok.Red, Move: openingMoves[i%len(openingMoves)]}
						if withPly {
							zero := 0
							r.ExpectedPly = &zero
						}
						<-start
						_, errs[i] = s.MakeMove(ctx, r)
					}()
				}
				close(start)
				wg.Wait()
				ok := 0
				for i, err := range errs {
					if err == nil {
						ok++
						continue
					}
					var e *Error
					if !errors.As(err, &e) {
						t.Fatalf("goroutine %d: %v", i, err)
					}
					// Without a precondition the loser is checked again on the
					// new state, where Black is to move; with one, the ply moved on.
					want := &Error{Code: CodeFailedPrecondition, Reason: ReasonNotYourTurn}
					if withPly {
						want = &Error{Code: CodeAborted, Reason: ReasonPlyMismatch}
					}
					if e.Code != want.Code || e.Reason != want.Reason {
						t.Fatalf("loser %d: %d/%s (%s), want %d/%s", i, e.Code, e.Reason, e.Message, want.Code, want.Reason)
					}
				}
				if ok != 1 {
					t.Fatalf("%d of %d racing moves succeeded, want exactly 1", ok, n)
				}
				now := get(t, s, g.ID)
				if now.Ply() != 1 || now.Version != 2 || now.LastEvent != 2 || len(storedEvents(t, st, g.ID)) != 2 {
					t.Fatalf("after the race: ply %d version %d last event %d: want 1, 2, 2", now.Ply(), now.Version, now.LastEvent)
				}
			}
		})
	}
}

func TestIdempotentRetry(t *testing.T) {
	ctx := context.Background()
	s, st := newTestService(t, Limits{})
	g, tok := create(t, s)
	req := MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3", RequestID: "req-1"}
	first, err := s.MakeMove(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if first.Sequence != 2 || first.Move.Move.String() != "e2-d3" {
		t.Fatalf("first: sequence %d move %s", first.Sequence, first.Move.Move.String())
	}
	again, err := s.MakeMove(ctx, req)
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	if again.Sequence != 2 || again.Move.Move.String() != "e2-d3" || again.Game.Ply() != 1 {
		t.Fatalf("retry: sequence %d move %s ply %d, want 2 e2-d3 1", again.Sequence, again.Move.Move.String(), again.Game.Ply())
	}
	// The game moves on; a late retry, even with a now stale ply, still
	// answers as the first time and plays nothing.
	move(t, s, g.ID, tok.Black, "a4-b3")
	zero := 0
	late := req
	late.ExpectedPly = &zero
	res, err := s.MakeMove(ctx, late)
	if err != nil {
		t.Fatalf("late retry: %v", err)
	}
	if res.Sequence != 2 || res.Move.Move.String() != "e2-d3" {
		t.Errorf("late retry: sequence %d move %s", res.Sequence, res.Move.Move.String())
	}
	if n := get(t, s, g.ID); n.Ply() != 2 || n.LastEvent != 3 || len(storedEvents(t, st, g.ID)) != 3 {
		t.Errorf("retries played something: ply %d last event %d", n.Ply(), n.LastEvent)
	}
	// The same id with another move.
	other := req
	other.Move = "h5-g6"
	_, err = s.MakeMove(ctx, other)
	e := wantErr(t, err, CodeInvalidArgument, ReasonInvalidRequest)
	if e.Field != "request_id" {
		t.Errorf("Field %q, want request_id", e.Field)
	}
	if n := get(t, s, g.ID); n.Ply() != 2 {
		t.Errorf("a reused request id played a move")
	}

	// Concurrent retries of one request: one move, one sequence for all.
	s2, st2 := newTestService(t, Limits{})
	g2, tok2 := create(t, s2)
	var wg sync.WaitGroup
	seqs := make([]int64, 32)
	errs := make([]error, 32)
	for i := range seqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					errs[i] = fmt.Errorf("MakeMove panicked: %v", p)
				}
			}()
			r, err := s2.MakeMove(ctx, MoveRequest{GameID: g2.ID, Token: tok2.Red, Move: "g4-f5", RequestID: "same"})
			errs[i] = err
			if err == nil {
				seqs[i] = r.Sequence
			}
		}()
	}
	wg.Wait()
	for i := range seqs {
		if errs[i] != nil || seqs[i] != 2 {
			t.Errorf("concurrent retry %d: sequence %d err %v, want 2, nil", i, seqs[i], errs[i])
		}
	}
	if n := get(t, s2, g2.ID); n.Ply() != 1 || len(storedEvents(t, st2, g2.ID)) != 2 {
		t.Errorf("concurrent retries played %d moves", n.Ply())
	}
}

// requestRaceStore runs hook once, on the first Request lookup: the
// moment between a MakeMove's read of the game and its request-id lookup.
type requestRaceStore struct {
	*MemoryStore
	fired atomic.Bool
	hook  func()
}

func (s *requestRaceStore) Request(ctx context.Context, id, requestID string) (RequestRecord, error) {
	if s.hook != nil && s.fired.CompareAndSwap(false, true) {
		s.hook()
	}
	return s.MemoryStore.Request(ctx, id, requestID)
}

// A retry that read the game just before the first attempt committed must
// still answer with the first attempt's move and sequence (it used to
// index the stale game's moves with the new record's ply and panic).
func TestRetryOverlappingFirstAttempt(t *testing.T) {
	ctx := context.Background()
	rst := &requestRaceStore{MemoryStore: NewMemoryStore()}
	s := NewService(rst, Limits{})
	g, tok := create(t, s)
	req := MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3", RequestID: "r"}
	var first *MoveResult
	rst.hook = func() {
		var err error
		if first, err = s.MakeMove(ctx, req); err != nil {
			t.Errorf("first attempt: %v", err)
		}
	}
	var res *MoveResult
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("MakeMove panicked: %v", p)
			}
		}()
		res, err = s.MakeMove(ctx, req)
	}()
	if err != nil {
		t.Fatalf("retry overlapping the first attempt: %v", err)
	}
	if first == nil || res.Sequence != first.Sequence || res.Move.Move.String() != "e2-d3" {
		t.Errorf("retry: sequence %d move %s; first %+v", res.Sequence, res.Move.Move.String(), first)
	}
	if n := get(t, s, g.ID); n.Ply() != 1 {
		t.Errorf("ply %d, want 1", n.Ply())
	}
}

func TestDrawOffers(t *testing.T) {
	ctx := context.Background()
	s, st := newTestService(t, Limits{})
	g, tok := create(t, s)

	g1, err := s.OfferDraw(ctx, g.ID, tok.Red)
	if err != nil {
		t.Fatal(err)
	}
	if !g1.HasOffer || g1.DrawOffer != engine.Red || g1.LastEvent != 2 {
		t.Fatalf("after red's offer: offer %v by %v, last event %d", g1.HasOffer, g1.DrawOffer, g1.LastEvent)
	}
	before := snap(t, s, st, g.ID)
	// error_reason.proto: DRAW_ALREADY_OFFERED has metadata draw_offer (the
	// side whose offer is pending); NO_DRAW_OFFER has side (the caller's).
	for _, tk := range []string{tok.Red, tok.Black} {
		_, err = s.OfferDraw(ctx, g.ID, tk)
		e := wantErr(t, err, CodeFailedPrecondition, ReasonDrawAlreadyOffered)
		if e.Metadata["draw_offer"] != "SIDE_RED" {
			t.Errorf("DRAW_ALREADY_OFFERED metadata %v, want draw_offer SIDE_RED", e.Metadata)
		}
	}
	_, err = s.AnswerDrawOffer(ctx, g.ID, tok.Red, true) // one's own offer
	e := wantErr(t, err, CodeFailedPrecondition, ReasonNoDrawOffer)
	if e.Metadata["side"] != "SIDE_RED" {
		t.Errorf("NO_DRAW_OFFER metadata %v, want side SIDE_RED", e.Metadata)
	}
	_, err = s.OfferDraw(ctx, g.ID, "")
	wantErr(t, err, CodeUnauthenticated, ReasonMissingToken)
	_, err = s.AnswerDrawOffer(ctx, g.ID, "bogus", true)
	wantErr(t, err, CodePermissionDenied, ReasonWrongToken)
	if after := snap(t, s, st, g.ID); after != before {
		t.Fatalf("refused draw calls changed the game: %+v -> %+v", before, after)
	}

	// Black declines.
	g2, err := s.AnswerDrawOffer(ctx, g.ID, tok.Black, false)
	if err != nil {
		t.Fatal(err)
	}
	if g2.HasOffer || g2.Over() {
		t.Fatalf("after decline: offer %v over %v", g2.HasOffer, g2.Over())
	}
	_, err = s.AnswerDrawOffer(ctx, g.ID, tok.Black, true)
	wantErr(t, err, CodeFailedPrecondition, ReasonNoDrawOffer)

	// Red offers and moves on its own turn: the offer stands.
	if _, err := s.OfferDraw(ctx, g.ID, tok.Red); err != nil {
		t.Fatal(err)
	}
	res := move(t, s, g.ID, tok.Red, "e2-d3")
	if !res.Game.HasOffer || res.Game.DrawOffer != engine.Red {
		t.Fatalf("the offerer's own move withdrew its offer")
	}
	// Black plays on: that declines Red's offer, with a by-move decline.
	res = move(t, s, g.ID, tok.Black, "a4-b3")
	if res.Game.HasOffer {
		t.Fatalf("black's move did not decline the offer")
	}

	// Black offers, Red accepts: an agreed draw.
	if _, err := s.OfferDraw(ctx, g.ID, tok.Black); err != nil {
		t.Fatal(err)
	}
	g3, err := s.AnswerDrawOffer(ctx, g.ID, tok.Red, true)
	if err != nil {
		t.Fatal(err)
	}
	if g3.Outcome != (engine.Outcome{Result: engine.Draw, Reason: engine.AgreedDraw}) || g3.HasOffer {
		t.Fatalf("after accept: outcome %v offer %v", g3.Outcome, g3.HasOffer)
	}

	type ev struct {
		kind   EventKind
		side   engine.Side
		byMove bool
	}
	var got []ev
	evs := storedEvents(t, st, g.ID)
	for i, e := range evs {
		if e.Sequence != int64(i+1) {
			t.Fatalf("event %d has sequence %d", i, e.Sequence)
		}
		got = append(got, ev{e.Kind, e.Side, e.ByMove})
	}
	want := []ev{
		{EventCreated, 0, false},
		{EventDrawOffered, engine.Red, false},
		{EventDrawDeclined, engine.Black, false},
		{EventDrawOffered, engine.Red, false},
		{EventMovePlayed, 0, false}, // e2-d3
		// docs/api.md: "A draw offer declined by a move gives draw_declined
		// (with by_move: true) just before that move's move_played."
		{EventDrawDeclined, engine.Black, true},
		{EventMovePlayed, 0, false}, // a4-b3
		{EventDrawOffered, engine.Black, false},
		{EventEnded, 0, false},
	}
	if len(got) != len(want) {
		t.Fatalf("events %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: %+v, want %+v", i+1, got[i], want[i])
		}
	}
	if res.Sequence != 7 {
		t.Errorf("a4-b3's MakeMove sequence %d, want 7 (its move_played event)", res.Sequence)
	}
	if evs[len(evs)-1].Outcome != (engine.Outcome{Result: engine.Draw, Reason: engine.AgreedDraw}) {
		t.Errorf("ended event outcome %v", evs[len(evs)-1].Outcome)
	}
}

func TestResign(t *testing.T) {
	ctx := context.Background()
	s, st := newTestService(t, Limits{})
	g, tok := create(t, s)
	_, err := s.Resign(ctx, g.ID, "")
	wantErr(t, err, CodeUnauthenticated, ReasonMissingToken)
	_, err = s.Resign(ctx, g.ID, tok.Red+"x")
	wantErr(t, err, CodePermissionDenied, ReasonWrongToken)
	_, err = s.Resign(ctx, "nope", tok.Red)
	wantErr(t, err, CodeNotFound, ReasonGameNotFound)
	if _, err := s.OfferDraw(ctx, g.ID, tok.Red); err != nil {
		t.Fatal(err)
	}
	// Black resigns while it is Red's turn (any time is fine).
	g1, err := s.Resign(ctx, g.ID, tok.Black)
	if err != nil {
		t.Fatal(err)
	}
	if g1.Outcome != (engine.Outcome{Result: engine.RedWins, Reason: engine.Resignation}) || g1.HasOffer {
		t.Fatalf("outcome %v offer %v, want red wins by resignation, no offer", g1.Outcome, g1.HasOffer)
	}
	evs := storedEvents(t, st, g.ID)
	last := evs[len(evs)-1]
	if len(evs) != 3 || last.Kind != EventEnded || last.Outcome != g1.Outcome || last.Ply != 0 {
		t.Fatalf("events %+v: want created, draw offered, ended", evs)
	}
	_, err = s.Resign(ctx, g.ID, tok.Red)
	wantErr(t, err, CodeFailedPrecondition, ReasonGameOver)
}

// recorder collects watched events; its send can be made to block.
type recorder struct {
	mu     sync.Mutex
	events []Event
	got    chan int64 // each delivered sequence (buffered)
}

func newRecorder() *recorder { return &recorder{got: make(chan int64, 1<<16)} }

func (r *recorder) send(e *Event) error {
	r.mu.Lock()
	r.events = append(r.events, *e)
	r.mu.Unlock()
	r.got <- e.Sequence
	return nil
}

func (r *recorder) seqs() []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]int64, len(r.events))
	for i, e := range r.events {
		out[i] = e.Sequence
	}
	return out
}

// waitSeq waits until the recorder has delivered sequence n.
func (r *recorder) waitSeq(t *testing.T, n int64) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		k := len(r.events)
		var last int64
		if k > 0 {
			last = r.events[k-1].Sequence
		}
		r.mu.Unlock()
		if last >= n {
			return
		}
		select {
		case <-r.got:
		case <-timeout:
			t.Fatalf("watcher stuck at sequence %d, waiting for %d", last, n)
		}
	}
}

func watchAsync(s *Service, ctx context.Context, id string, since int64, send func(*Event) error) chan error {
	done := make(chan error, 1)
	go func() { done <- s.Watch(ctx, id, since, send) }()
	return done
}

func waitDone(t *testing.T, done chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("Watch did not return")
		return nil
	}
}

func contiguous(seqs []int64, from, to int64) bool {
	if int64(len(seqs)) != to-from+1 {
		return false
	}
	for i, s := range seqs {
		if s != from+int64(i) {
			return false
		}
	}
	return true
}

func TestWatchReplayLiveAndEnd(t *testing.T) {
	ctx := context.Background()
	s, st := newTestService(t, Limits{})
	g, tok := create(t, s)
	move(t, s, g.ID, tok.Red, "e2-d3")
	move(t, s, g.ID, tok.Black, "a4-b3")

	rec := newRecorder()
	done := watchAsync(s, ctx, g.ID, 0, rec.send)
	rec.waitSeq(t, 3) // the stored events first
	move(t, s, g.ID, tok.Red, "h5-g6")
	move(t, s, g.ID, tok.Black, "e8-f7")
	if _, err := s.Resign(ctx, g.ID, tok.Red); err != nil {
		t.Fatal(err)
	}
	if err := waitDone(t, done); err != nil {
		t.Fatalf("Watch after the game ended: %v, want nil", err)
	}
	if seqs := rec.seqs(); !contiguous(seqs, 1, 6) {
		t.Fatalf("sequences %v, want 1..6", seqs)
	}
	// Each event's position matches an independent replay.
	eg, _ := engine.NewGame(engine.DefaultVariant())
	moves := []string{"e2-d3", "a4-b3", "h5-g6", "e8-f7"}
	mi := 0
	for _, e := range rec.events {
		if e.Kind == EventMovePlayed {
			if got := e.Move.Move.String(); got != moves[mi] {
				t.Fatalf("event %d move %s, want %s", e.Sequence, got, moves[mi])
			}
			if _, err := eg.PlayText(moves[mi]); err != nil {
				t.Fatal(err)
			}
			mi++
		}
		if e.Position.String() != eg.Position().String() || e.Ply != eg.Ply() {
			t.Errorf("event %d: position %s ply %d, want %s ply %d", e.Sequence, e.Position.String(), e.Ply, eg.Position().String(), eg.Ply())
		}
	}
	if k := rec.events[5].Kind; k != EventEnded {
		t.Errorf("last event kind %v", k)
	}

	// Resume from a middle sequence: exactly the rest.
	rest := newRecorder()
	if err := s.Watch(ctx, g.ID, 3, rest.send); err != nil {
		t.Fatalf("resume: %v", err)
	}
	if seqs := rest.seqs(); !contiguous(seqs, 4, 6) {
		t.Errorf("resume from 3: %v, want 4..6", seqs)
	}
	// From the last event of a finished game: no event, and the stream
	// closes at once (docs/api.md, The event stream).
	none := newRecorder()
	endCtx, cancelEnd := context.WithCancel(ctx)
	endDone := watchAsync(s, endCtx, g.ID, 6, none.send)
	select {
	case err := <-endDone:
		if err != nil || len(none.seqs()) != 0 {
			t.Errorf("watch from the end: %v, events %v; want nil, none", err, none.seqs())
		}
	case <-time.After(3 * time.Second):
		t.Errorf("Watch of a finished game from its last sequence (6) did not return: it waits for events that can never come")
		cancelEnd()
		<-endDone
	}
	cancelEnd()
	// Past the end.
	err := s.Watch(ctx, g.ID, 7, none.send)
	e := wantErr(t, err, CodeOutOfRange, ReasonSequenceOutOfRange)
	if e.Metadata["last_event_sequence"] != "6" {
		t.Errorf("metadata %v", e.Metadata)
	}
	e = wantErr(t, s.Watch(ctx, g.ID, -1, none.send), CodeInvalidArgument, ReasonInvalidRequest)
	if e.Field != "since_sequence" {
		t.Errorf("Field %q", e.Field)
	}
	wantErr(t, s.Watch(ctx, "nope", 0, none.send), CodeNotFound, ReasonGameNotFound)
	if n := len(storedEvents(t, st, g.ID)); n != 6 {
		t.Errorf("%d stored events", n)
	}
	if s.Watchers() != 0 {
		t.Errorf("%d watchers left open", s.Watchers())
	}
}

func TestWatchSendErrorAndCancel(t *testing.T) {
	s, _ := newTestService(t, Limits{})
	g, tok := create(t, s)
	boom := errors.New("client went away")
	if err := s.Watch(context.Background(), g.ID, 0, func(*Event) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("Watch with a failing send: %v, want the send's error", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rec := newRecorder()
	done := watchAsync(s, ctx, g.ID, 1, rec.send)
	move(t, s, g.ID, tok.Red, "e2-d3")
	rec.waitSeq(t, 2)
	cancel()
	if err := waitDone(t, done); !errors.Is(err, context.Canceled) {
		t.Errorf("Watch after cancel: %v", err)
	}
	if s.Watchers() != 0 {
		t.Errorf("%d watchers after cancel", s.Watchers())
	}
}

func TestSlowWatcherCutOff(t *testing.T) {
	ctx := context.Background()
	const buffer = 4
	s, _ := newTestService(t, Limits{WatchBuffer: buffer})
	g, tok := create(t, s)

	// The slow watcher blocks in its first send until released.
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	var slowMu sync.Mutex
	var slowSeqs []int64
	slowSend := func(e *Event) error {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-release
		slowMu.Lock()
		slowSeqs = append(slowSeqs, e.Sequence)
		slowMu.Unlock()
		return nil
	}
	slowDone := watchAsync(s, ctx, g.ID, 0, slowSend)
	<-entered // subscribed and stuck on event 1

	fast := newRecorder()
	fastDone := watchAsync(s, ctx, g.ID, 0, fast.send)
	fast.waitSeq(t, 1)

	// The mover plays on; every call returns although the slow watcher
	// never reads. The fast watcher is waited for after each change.
	var last int64 = 1
	for i := 0; i < 10; i++ {
		gr, err := s.OfferDraw(ctx, g.ID, tok.Red)
		if err != nil {
			t.Fatal(err)
		}
		fast.waitSeq(t, gr.LastEvent)
		gr, err = s.AnswerDrawOffer(ctx, g.ID, tok.Black, false)
		if err != nil {
			t.Fatal(err)
		}
		fast.waitSeq(t, gr.LastEvent)
		last = gr.LastEvent
	}
	// 20 events against a buffer of 4: the slow watcher is unsubscribed
	// while it is still blocked.
	if n := s.Watchers(); n != 1 {
		t.Fatalf("%d watchers while the slow one is blocked, want 1 (the fast one)", n)
	}
	close(release)
	err := waitDone(t, slowDone)
	e := wantErr(t, err, CodeResourceExhausted, ReasonLimitExceeded)
	if e.Limit != "watch_buffer" || e.Metadata["limit"] != "watch_buffer" {
		t.Errorf("Limit %q metadata %v, want watch_buffer", e.Limit, e.Metadata)
	}
	slowMu.Lock()
	got := append([]int64(nil), slowSeqs...)
	slowMu.Unlock()
	// Whatever it got is a gapless prefix 1..k (once released it may
	// still read the stored log before it notices the cut).
	if len(got) == 0 || !contiguous(got, 1, int64(len(got))) || int64(len(got)) > last {
		t.Fatalf("slow watcher got %v, want 1..k with k <= %d", got, last)
	}
	// Resuming from its last sequence gives exactly the rest.
	resumed := newRecorder()
	if _, err := s.Resign(ctx, g.ID, tok.Black); err != nil {
		t.Fatal(err)
	}
	if err := s.Watch(ctx, g.ID, got[len(got)-1], resumed.send); err != nil {
		t.Fatalf("resume: %v", err)
	}
	if seqs := resumed.seqs(); !contiguous(seqs, got[len(got)-1]+1, last+1) {
		t.Errorf("resumed: %v, want %d..%d", seqs, got[len(got)-1]+1, last+1)
	}
	if err := waitDone(t, fastDone); err != nil {
		t.Fatalf("fast watcher: %v", err)
	}
	if seqs := fast.seqs(); !contiguous(seqs, 1, last+1) {
		t.Errorf("fast watcher got %v, want 1..%d", seqs, last+1)
	}
}

func TestDrainEndsWatches(t *testing.T) {
	ctx := context.Background()
	s, _ := newTestService(t, Limits{})
	g, tok := create(t, s)
	rec := newRecorder()
	done := watchAsync(s, ctx, g.ID, 0, rec.send)
	rec.waitSeq(t, 1)
	s.Drain()
	wantErr(t, waitDone(t, done), CodeUnavailable, "")
	s.Drain() // twice is fine
	// A watch opened after Drain ends the same way, after the stored events.
	later := newRecorder()
	wantErr(t, s.Watch(ctx, g.ID, 0, later.send), CodeUnavailable, "")
	if !contiguous(later.seqs(), 1, 1) {
		t.Errorf("watch after drain got %v", later.seqs())
	}
	// Moves still work (draining ends streams only).
	move(t, s, g.ID, tok.Red, "e2-d3")
}

// countBarrierStore holds each Count until two Counts have arrived (or a
// short wait passed, for an implementation that serializes creates).
type countBarrierStore struct {
	*MemoryStore
	arrived chan struct{}
}

func (s *countBarrierStore) Count(ctx context.Context) (int, error) {
	n, err := s.MemoryStore.Count(ctx)
	s.arrived <- struct{}{}
	deadline := time.After(300 * time.Millisecond)
	for len(s.arrived) < cap(s.arrived) {
		select {
		case <-deadline:
			return n, err
		case <-time.After(time.Millisecond):
		}
	}
	return n, err
}

// createBarrierStore records how many creates are inside Create at once,
// waiting up to a second for a second one to join the first.
type createBarrierStore struct {
	*MemoryStore
	inside, most atomic.Int32
}

func (s *createBarrierStore) Create(ctx context.Context, g *Game, events []Event) error {
	n := s.inside.Add(1)
	defer s.inside.Add(-1)
	for s.most.Load() < n {
		s.most.CompareAndSwap(s.most.Load(), n)
	}
	for deadline := time.Now().Add(time.Second); s.most.Load() < 2 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	return s.MemoryStore.Create(ctx, g, events)
}

func TestLimits(t *testing.T) {
	ctx := context.Background()
	t.Run("MaxGames", func(t *testing.T) {
		s, _ := newTestService(t, Limits{MaxGames: 2})
		create(t, s)
		create(t, s)
		_, tok, err := s.Create(ctx, engine.DefaultVariant())
		e := wantErr(t, err, CodeResourceExhausted, ReasonLimitExceeded)
		if e.Limit != "games" || e.Metadata["limit"] != "games" || e.Metadata["maximum"] != "2" {
			t.Errorf("Limit %q metadata %v", e.Limit, e.Metadata)
		}
		if tok != (Tokens{}) {
			t.Errorf("tokens returned with an error")
		}
	})
	t.Run("MaxGames under concurrent creates", func(t *testing.T) {
		// Two creates both count the games before either stores its game:
		// the limit must still hold (check and insert as one step).
		bst := &countBarrierStore{MemoryStore: NewMemoryStore(), arrived: make(chan struct{}, 2)}
		s := NewService(bst, Limits{MaxGames: 1})
		var wg sync.WaitGroup
		var ok atomic.Int32
		for i := 0; i < 2; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, _, err := s.Create(ctx, engine.DefaultVariant()); err == nil {
					ok.Add(1)
				}
			}()
		}
		wg.Wait()
		n, _ := bst.MemoryStore.Count(ctx)
		if ok.Load() != 1 || n != 1 {
			t.Errorf("%d creates succeeded, the store holds %d games: want 1 with max-games 1", ok.Load(), n)
		}
	})
	t.Run("MaxGames lets creates write at once", func(t *testing.T) {
		// The check must not hold a lock across the store's write, or
		// creates could never share a durable store's commit.
		bst := &createBarrierStore{MemoryStore: NewMemoryStore()}
		s := NewService(bst, Limits{MaxGames: 10})
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() { create(t, s) })
		}
		wg.Wait()
		if bst.most.Load() < 2 {
			t.Errorf("at most %d create(s) were writing at once; want both", bst.most.Load())
		}
	})
	t.Run("MaxWatchersPerGame", func(t *testing.T) {
		s, _ := newTestService(t, Limits{MaxWatchersPerGame: 1})
		a, _ := create(t, s)
		b, _ := create(t, s)
		ctx1, cancel1 := context.WithCancel(ctx)
		defer cancel1()
		r1 := newRecorder()
		d1 := watchAsync(s, ctx1, a.ID, 0, r1.send)
		r1.waitSeq(t, 1)
		err := s.Watch(ctx, a.ID, 0, newRecorder().send)
		e := wantErr(t, err, CodeResourceExhausted, ReasonLimitExceeded)
		if e.Limit != "watchers_per_game" || e.Metadata["maximum"] != "1" {
			t.Errorf("Limit %q metadata %v", e.Limit, e.Metadata)
		}
		// Another game is not affected.
		ctx2, cancel2 := context.WithCancel(ctx)
		r2 := newRecorder()
		d2 := watchAsync(s, ctx2, b.ID, 0, r2.send)
		r2.waitSeq(t, 1)
		cancel2()
		waitDone(t, d2)
		// Once the first watcher leaves, there is room again.
		cancel1()
		waitDone(t, d1)
		ctx3, cancel3 := context.WithCancel(ctx)
		r3 := newRecorder()
		d3 := watchAsync(s, ctx3, a.ID, 0, r3.send)
		r3.waitSeq(t, 1)
		cancel3()
		if err := waitDone(t, d3); !errors.Is(err, context.Canceled) {
			t.Errorf("third watch: %v", err)
		}
	})
	t.Run("MaxWatchers", func(t *testing.T) {
		s, _ := newTestService(t, Limits{MaxWatchers: 1})
		a, _ := create(t, s)
		b, _ := create(t, s)
		ctx1, cancel1 := context.WithCancel(ctx)
		r1 := newRecorder()
		d1 := watchAsync(s, ctx1, a.ID, 0, r1.send)
		r1.waitSeq(t, 1)
		e := wantErr(t, s.Watch(ctx, b.ID, 0, newRecorder().send), CodeResourceExhausted, ReasonLimitExceeded)
		if e.Limit != "watchers" {
			t.Errorf("Limit %q", e.Limit)
		}
		cancel1()
		waitDone(t, d1)
	})
}

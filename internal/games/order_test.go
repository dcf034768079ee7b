package games

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/damone-rules/damone/internal/engine"
)

// TestMoveCheckOrder: MakeMove's checks run in the order of docs/api.md
// (Error model): INVALID_ARGUMENT, UNAUTHENTICATED, NOT_FOUND,
// PERMISSION_DENIED, a request id replay, ABORTED, then
// FAILED_PRECONDITION (GAME_OVER, NOT_YOUR_TURN, the move itself). A
// side's own token is never PERMISSION_DENIED, whoever's piece the move
// names: that is for a token that is neither side's.
func TestMoveCheckOrder(t *testing.T) {
	ctx := context.Background()
	s, st := newTestService(t, Limits{})

	fresh, freshTok := create(t, s) // Red to move
	moved, movedTok := create(t, s)
	movedEtag0 := moved.Etag()
	move(t, s, moved.ID, movedTok.Red, "e2-d3") // Black to move; d3 holds Red's Pedine
	over, overTok := createCustom(t, s, oneMoveWin)
	overEtag0 := over.Etag()
	move(t, s, over.ID, overTok.Red, "c4xa6") // Red wins; a6 holds Red's new Dama
	zero := 0

	type tc struct {
		name   string
		game   *Game
		req    MoveRequest
		code   Code
		reason string
		field  string
		cause  engine.MoveErrorCode // for ILLEGAL_MOVE
		legal  []string             // for ILLEGAL_MOVE
		md     map[string]string
	}
	cases := []tc{
		{name: "own token, own turn, opponent's piece", game: fresh, req: MoveRequest{Token: freshTok.Red, Move: "a4-b3"},
			code: CodeFailedPrecondition, reason: ReasonIllegalMove, cause: engine.MoveWrongSide, legal: openingMoves},
		{name: "own token, own turn (Black), opponent's piece", game: moved, req: MoveRequest{Token: movedTok.Black, Move: "d3-c4"},
			code: CodeFailedPrecondition, reason: ReasonIllegalMove, cause: engine.MoveWrongSide, legal: blackOpeningMoves},
		{name: "own token off turn, opponent's piece", game: fresh, req: MoveRequest{Token: freshTok.Black, Move: "e2-d3"},
			code: CodeFailedPrecondition, reason: ReasonNotYourTurn, md: map[string]string{"side": "SIDE_BLACK", "side_to_move": "SIDE_RED"}},
		{name: "own token off turn (Red), opponent's piece", game: moved, req: MoveRequest{Token: movedTok.Red, Move: "a4-b3"},
			code: CodeFailedPrecondition, reason: ReasonNotYourTurn, md: map[string]string{"side": "SIDE_RED", "side_to_move": "SIDE_BLACK"}},
		{name: "stale etag before the opponent's piece", game: moved, req: MoveRequest{Token: movedTok.Black, Move: "d3-c4", ExpectedEtag: movedEtag0},
			code: CodeAborted, reason: ReasonEtagMismatch, md: map[string]string{"ply": "1"}},
		{name: "stale etag before not your turn", game: moved, req: MoveRequest{Token: movedTok.Red, Move: "a4-b3", ExpectedEtag: movedEtag0},
			code: CodeAborted, reason: ReasonEtagMismatch, md: map[string]string{"ply": "1"}},
		{name: "stale ply before the opponent's piece", game: moved, req: MoveRequest{Token: movedTok.Black, Move: "d3-c4", ExpectedPly: &zero},
			code: CodeAborted, reason: ReasonPlyMismatch, md: map[string]string{"ply": "1"}},
		{name: "neither side's token before a stale etag", game: moved, req: MoveRequest{Token: "not-a-token", Move: "a4-b3", ExpectedEtag: movedEtag0},
			code: CodePermissionDenied, reason: ReasonWrongToken},
		{name: "game over before the opponent's piece", game: over, req: MoveRequest{Token: overTok.Black, Move: "a6-b7"},
			code: CodeFailedPrecondition, reason: ReasonGameOver, md: map[string]string{"result": "OUTCOME_RESULT_RED_WINS"}},
		{name: "game over before not your turn", game: over, req: MoveRequest{Token: overTok.Red, Move: "a6-b7"},
			code: CodeFailedPrecondition, reason: ReasonGameOver, md: map[string]string{"result": "OUTCOME_RESULT_RED_WINS"}},
		{name: "stale etag before game over", game: over, req: MoveRequest{Token: overTok.Red, Move: "a6-b7", ExpectedEtag: overEtag0},
			code: CodeAborted, reason: ReasonEtagMismatch, md: map[string]string{"ply": "1"}},
		{name: "neither side's token on a finished game", game: over, req: MoveRequest{Token: freshTok.Red, Move: "a6-b7"},
			code: CodePermissionDenied, reason: ReasonWrongToken},
		{name: "malformed move before neither side's token", game: fresh, req: MoveRequest{Token: "not-a-token", Move: "e2-e3"},
			code: CodeInvalidArgument, reason: ReasonInvalidRequest, field: "move"},
		{name: "missing token before an unknown game", req: MoveRequest{GameID: "no-such-game", Move: "e2-d3"},
			code: CodeUnauthenticated, reason: ReasonMissingToken},
		{name: "unknown game before neither side's token", req: MoveRequest{GameID: "no-such-game", Token: "not-a-token", Move: "e2-d3"},
			code: CodeNotFound, reason: ReasonGameNotFound},
	}
	before := map[string]snapshot{}
	for _, g := range []*Game{fresh, moved, over} {
		before[g.ID] = snap(t, s, st, g.ID)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.game != nil {
				c.req.GameID = c.game.ID
			}
			res, err := s.MakeMove(ctx, c.req)
			if err == nil {
				t.Fatalf("played %s, want %d/%s", res.Move.Move.String(), c.code, c.reason)
			}
			e := wantErr(t, err, c.code, c.reason)
			if c.field != "" && e.Field != c.field {
				t.Errorf("Field %q, want %q", e.Field, c.field)
			}
			for k, v := range c.md {
				if e.Metadata[k] != v {
					t.Errorf("metadata %q = %q, want %q (all %v)", k, e.Metadata[k], v, e.Metadata)
				}
			}
			if c.reason == ReasonIllegalMove {
				var me *engine.MoveError
				if !errors.As(err, &me) || me.Code != c.cause {
					t.Errorf("cause %v, want engine code %d", e.Err, c.cause)
				}
				if got := slices.Sorted(slices.Values(e.Legal)); !slices.Equal(got, c.legal) {
					t.Errorf("Legal %v, want %v", got, c.legal)
				}
			}
			if c.code == CodeAborted {
				if now := get(t, s, c.game.ID); e.Metadata["etag"] != now.Etag() {
					t.Errorf("metadata etag %q, want the current %q", e.Metadata["etag"], now.Etag())
				}
			}
		})
	}
	for id, b := range before {
		if after := snap(t, s, st, id); after != b {
			t.Errorf("game %s changed: %+v -> %+v", id, b, after)
		}
	}
}

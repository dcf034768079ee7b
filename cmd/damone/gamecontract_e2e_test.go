package main

// End-to-end tests of GameService against its contract (game.proto,
// game_service.proto, docs/api.md): the order of MakeMove's checks. Over
// gRPC and REST, on the real binary; expected values are worked out from
// the contract and RULES.md.

import (
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// gcRESTError is the plain status JSON of a refused REST call.
type gcRESTError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Details []struct {
		Type            string            `json:"@type"`
		Reason          string            `json:"reason"`
		Domain          string            `json:"domain"`
		Metadata        map[string]string `json:"metadata"`
		FieldViolations []struct {
			Field string `json:"field"`
		} `json:"field_violations"`
	} `json:"details"`
}

// gcWantREST checks a REST error: the HTTP status, the gRPC code in the
// body, the ErrorInfo reason and metadata entries, and for 400
// INVALID_ARGUMENT a field violation on field.
func gcWantREST(t *testing.T, status int, body []byte, wantStatus int, code codes.Code, reason, field string, md map[string]string) {
	t.Helper()
	if status != wantStatus {
		t.Fatalf("HTTP %d, want %d: %s", status, wantStatus, body)
	}
	var e gcRESTError
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("error body %s: %v", body, err)
	}
	if e.Code != int(code) {
		t.Errorf("body code %d, want %d (%v): %s", e.Code, code, code, body)
	}
	var fields []string
	found := false
	for _, d := range e.Details {
		switch d.Type {
		case "type.googleapis.com/google.rpc.ErrorInfo":
			if d.Reason != reason || d.Domain != "damone.v1" {
				t.Errorf("ErrorInfo %s/%s, want %s/damone.v1: %s", d.Reason, d.Domain, reason, body)
			}
			found = true
			for k, v := range md {
				if d.Metadata[k] != v {
					t.Errorf("metadata %q = %q, want %q: %s", k, d.Metadata[k], v, body)
				}
			}
		case "type.googleapis.com/google.rpc.BadRequest":
			for _, v := range d.FieldViolations {
				fields = append(fields, v.Field)
			}
		}
	}
	if !found {
		t.Errorf("no ErrorInfo in %s", body)
	}
	if code == codes.InvalidArgument && !strings.Contains(strings.Join(fields, " "), field) {
		t.Errorf("field violations %v, want %q: %s", fields, field, body)
	}
}

// gcMoveREST sends MakeMove over REST with the body fields given.
func gcMoveREST(t *testing.T, s *svServer, name, token string, body map[string]any) (int, []byte) {
	t.Helper()
	return svHTTP(t, "POST", s.url("/v1/"+name+":move"), token, body)
}

// TestServeMoveCheckOrder: a valid side token, either side's, is never
// PERMISSION_DENIED; that is only for a token that is neither side's.
// Moving the opponent's piece with one's own token is the answer
// RulesService.ApplyMove gives (ILLEGAL_MOVE, cause OPPONENT_PIECE) on
// one's turn, NOT_YOUR_TURN off it, and the checks run in the documented
// order (docs/api.md, Error model): INVALID_ARGUMENT, UNAUTHENTICATED,
// NOT_FOUND, PERMISSION_DENIED, request_id replay, ABORTED,
// FAILED_PRECONDITION (GAME_OVER, NOT_YOUR_TURN, the move).
func TestServeMoveCheckOrder(t *testing.T) {
	s := svStart(t)
	ctx := svCtx(t)
	fresh := svNewGame(t, ctx, s, "")
	moved := svNewGame(t, ctx, s, "")
	movedEtag0 := moved.GetGame().GetEtag()
	afterMove := svMove(t, ctx, s, moved.GetGame().GetName(), moved.GetRedToken(), "e2-d3").GetGame()
	over := svNewGame(t, ctx, s, svOneMoveWin)
	overEtag0 := over.GetGame().GetEtag()
	ended := svMove(t, ctx, s, over.GetGame().GetName(), over.GetRedToken(), "c4xa6").GetGame()

	// Black's legal moves after e2-d3 are its opening moves (RULES.md:
	// nothing of Red's is within reach), sorted.
	const blackOpening = "a4-b3,a6-b7,a8-b7,b5-c4,c6-d5,c8-b7,d7-e6,e8-f7"
	gameOver := map[string]string{"result": "OUTCOME_RESULT_RED_WINS", "reason": "OUTCOME_REASON_ALL_PIECES_CAPTURED"}
	type mv struct {
		game  *damonev1.CreateGameResponse
		token string // "red", "black", "" (none) or another string (neither side's)
		move  string
		etag  string
		ply   *int32
	}
	zero := int32(0)
	cases := []struct {
		name   string
		req    mv
		code   codes.Code
		http   int
		reason string
		field  string
		md     map[string]string
	}{
		{"own token, own turn, opponent's piece", mv{game: fresh, token: "red", move: "a4-b3"},
			codes.FailedPrecondition, 400, "ILLEGAL_MOVE", "", map[string]string{"move": "a4-b3", "cause": "OPPONENT_PIECE", "legal_moves": svOpening}},
		{"own token, own turn (Black), opponent's piece", mv{game: moved, token: "black", move: "d3-c4"},
			codes.FailedPrecondition, 400, "ILLEGAL_MOVE", "", map[string]string{"move": "d3-c4", "cause": "OPPONENT_PIECE", "legal_moves": blackOpening}},
		{"own token off turn, opponent's piece", mv{game: fresh, token: "black", move: "e2-d3"},
			codes.FailedPrecondition, 400, "NOT_YOUR_TURN", "", map[string]string{"side": "SIDE_BLACK", "side_to_move": "SIDE_RED"}},
		{"own token off turn (Red), opponent's piece", mv{game: moved, token: "red", move: "a4-b3"},
			codes.FailedPrecondition, 400, "NOT_YOUR_TURN", "", map[string]string{"side": "SIDE_RED", "side_to_move": "SIDE_BLACK"}},
		{"stale etag before the opponent's piece", mv{game: moved, token: "black", move: "d3-c4", etag: movedEtag0},
			codes.Aborted, 412, "ETAG_MISMATCH", "", map[string]string{"etag": afterMove.GetEtag(), "ply": "1"}},
		{"stale etag before not your turn", mv{game: moved, token: "red", move: "a4-b3", etag: movedEtag0},
			codes.Aborted, 412, "ETAG_MISMATCH", "", map[string]string{"etag": afterMove.GetEtag(), "ply": "1"}},
		{"stale ply before the opponent's piece", mv{game: moved, token: "black", move: "d3-c4", ply: &zero},
			codes.Aborted, 412, "PLY_MISMATCH", "", map[string]string{"etag": afterMove.GetEtag(), "ply": "1"}},
		{"neither side's token before a stale etag", mv{game: moved, token: "not-a-token", move: "a4-b3", etag: movedEtag0},
			codes.PermissionDenied, 403, "WRONG_TOKEN", "", nil},
		{"game over before the opponent's piece", mv{game: over, token: "black", move: "a6-b7"},
			codes.FailedPrecondition, 400, "GAME_OVER", "", gameOver},
		{"game over before not your turn", mv{game: over, token: "red", move: "a6-b7"},
			codes.FailedPrecondition, 400, "GAME_OVER", "", gameOver},
		{"stale etag before game over", mv{game: over, token: "red", move: "a6-b7", etag: overEtag0},
			codes.Aborted, 412, "ETAG_MISMATCH", "", map[string]string{"etag": ended.GetEtag(), "ply": "1"}},
		{"neither side's token on a finished game", mv{game: over, token: fresh.GetRedToken(), move: "a6-b7"},
			codes.PermissionDenied, 403, "WRONG_TOKEN", "", nil},
		{"malformed move before neither side's token", mv{game: fresh, token: "not-a-token", move: "e2-e3"},
			codes.InvalidArgument, 400, "INVALID_REQUEST", "move", nil},
		{"missing token before an unknown game", mv{token: "", move: "e2-d3"},
			codes.Unauthenticated, 401, "MISSING_TOKEN", "", nil},
		{"unknown game before neither side's token", mv{token: "not-a-token", move: "e2-d3"},
			codes.NotFound, 404, "GAME_NOT_FOUND", "", map[string]string{"name": "games/no-such-game"}},
	}
	for _, c := range cases {
		name, token := "games/no-such-game", c.req.token
		if g := c.req.game; g != nil {
			name = g.GetGame().GetName()
			switch token {
			case "red":
				token = g.GetRedToken()
			case "black":
				token = g.GetBlackToken()
			}
		}
		t.Run("grpc/"+c.name, func(t *testing.T) {
			r := &damonev1.MakeMoveRequest{Name: name, Move: c.req.move}
			if c.req.etag != "" {
				r.Precondition = &damonev1.MakeMoveRequest_Etag{Etag: c.req.etag}
			}
			if c.req.ply != nil {
				r.Precondition = &damonev1.MakeMoveRequest_ExpectedPly{ExpectedPly: *c.req.ply}
			}
			cctx := ctx
			if token != "" {
				cctx = svAuth(ctx, token)
			}
			_, err := s.games.MakeMove(cctx, r)
			svWantStatus(t, err, c.code, c.reason, c.field, c.md)
		})
		t.Run("rest/"+c.name, func(t *testing.T) {
			body := map[string]any{"move": c.req.move}
			if c.req.etag != "" {
				body["etag"] = c.req.etag
			}
			if c.req.ply != nil {
				body["expected_ply"] = *c.req.ply
			}
			status, out := gcMoveREST(t, s, name, token, body)
			gcWantREST(t, status, out, c.http, c.code, c.reason, c.field, c.md)
		})
	}
	// None of it changed a game.
	for _, c := range []struct {
		g    *damonev1.CreateGameResponse
		want *damonev1.Game
	}{{fresh, fresh.GetGame()}, {moved, afterMove}, {over, ended}} {
		g, err := s.games.GetGame(ctx, &damonev1.GetGameRequest{Name: c.g.GetGame().GetName()})
		if err != nil {
			t.Fatal(err)
		}
		if g.GetEtag() != c.want.GetEtag() || g.GetPly() != c.want.GetPly() || g.GetLastEventSequence() != c.want.GetLastEventSequence() {
			t.Errorf("%s changed: etag %s ply %d last event %d, want %s %d %d", g.GetName(), g.GetEtag(), g.GetPly(),
				g.GetLastEventSequence(), c.want.GetEtag(), c.want.GetPly(), c.want.GetLastEventSequence())
		}
	}
}

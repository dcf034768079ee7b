package main

// End-to-end tests of GameService against its contract (game.proto,
// game_service.proto, docs/api.md): the order of MakeMove's checks, what
// a replayed request id answers (also after restarts), and the bounds of
// request ids. Over gRPC and REST, on the real binary; expected values are
// worked out from the contract and RULES.md.

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

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

// gcReplyStart is the repro: a Damone each, far apart, so each
// side's Damone steps where the other's stood two plies before.
const gcReplyStart = "R:RMd3:BMf5:0"

// TestServeRetryAfterReplyAnswersFirstResponse: a request id that already
// succeeded answers with the first response again, even after the
// opponent replied and the origin of the move now holds the opponent's
// piece, and with a precondition that no longer holds (docs/api.md:
// the replay comes before ABORTED and FAILED_PRECONDITION).
func TestServeRetryAfterReplyAnswersFirstResponse(t *testing.T) {
	s := svStart(t)
	ctx := svCtx(t)
	t.Run("grpc", func(t *testing.T) {
		cr := svNewGame(t, ctx, s, gcReplyStart)
		name, red, black := cr.GetGame().GetName(), cr.GetRedToken(), cr.GetBlackToken()
		req := &damonev1.MakeMoveRequest{Name: name, Move: "d3-c4", RequestId: "0b8f1c52-6a4e-4c1b-9d2e-7f3a5c9e1d20",
			Precondition: &damonev1.MakeMoveRequest_ExpectedPly{ExpectedPly: 0}}
		first, err := s.games.MakeMove(svAuth(ctx, red), req)
		if err != nil {
			t.Fatal(err)
		}
		// The first response, worked out: a Damone step is no progress.
		if first.GetMove().GetNotation() != "d3-c4" || first.GetEventSequence() != 2 || first.GetGame().GetPly() != 1 ||
			first.GetGame().GetPosition().GetText() != "B:RMc4:BMf5:1" || first.GetGame().GetLastEventSequence() != 2 {
			t.Fatalf("first response %v", first)
		}
		svMove(t, ctx, s, name, black, "f5-e4")
		svMove(t, ctx, s, name, red, "c4-b5")
		now := svMove(t, ctx, s, name, black, "e4-d3").GetGame() // d3 now holds Black's Damone
		again, err := s.games.MakeMove(svAuth(ctx, red), req)
		if err != nil {
			t.Fatalf("retry after the opponent replied: %v, want the first response", err)
		}
		if !proto.Equal(again, first) {
			t.Errorf("retry answered\n%v\nwant the first response\n%v", again, first)
		}
		g, err := s.games.GetGame(ctx, &damonev1.GetGameRequest{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(g, now) || g.GetPosition().GetText() != "R:RMb5:BMd3:4" {
			t.Errorf("the retry changed the game: %v, want %v", g, now)
		}
		// The same id for another move is refused, now as then.
		other := proto.Clone(req).(*damonev1.MakeMoveRequest)
		other.Move = "b5-a6"
		_, err = s.games.MakeMove(svAuth(ctx, red), other)
		svWantStatus(t, err, codes.InvalidArgument, "INVALID_REQUEST", "request_id", nil)
		// Neither side's token never reaches the replay.
		_, err = s.games.MakeMove(svAuth(ctx, "not-a-token"), req)
		svWantStatus(t, err, codes.PermissionDenied, "WRONG_TOKEN", "", nil)
	})
	t.Run("rest", func(t *testing.T) {
		cr := svNewGame(t, ctx, s, gcReplyStart)
		name, red, black := cr.GetGame().GetName(), cr.GetRedToken(), cr.GetBlackToken()
		body := map[string]any{"move": "d3-c4", "request_id": "retry-after-reply", "expected_ply": 0}
		code, first := gcMoveREST(t, s, name, red, body)
		if code != 200 {
			t.Fatalf("first: %d %s", code, first)
		}
		for _, m := range []struct{ tok, mv string }{{black, "f5-e4"}, {red, "c4-b5"}, {black, "e4-d3"}} {
			if code, out := gcMoveREST(t, s, name, m.tok, map[string]any{"move": m.mv}); code != 200 {
				t.Fatalf("%s: %d %s", m.mv, code, out)
			}
		}
		code, again := gcMoveREST(t, s, name, red, body)
		if code != 200 {
			t.Fatalf("retry after the opponent replied: %d %s, want 200 and the first response", code, again)
		}
		var a, b any
		if err := json.Unmarshal(first, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(again, &b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("retry answered\n%s\nwant the first response\n%s", again, first)
		}
	})
}

// TestServeRetryOfGameEndingMove: the request that ended the game,
// retried, answers with its first response (the finished game), not
// GAME_OVER; and Black's use of Red's id is a request of its own (ids are
// per side).
func TestServeRetryOfGameEndingMove(t *testing.T) {
	s := svStart(t)
	ctx := svCtx(t)
	cr := svNewGame(t, ctx, s, svOneMoveWin)
	name := cr.GetGame().GetName()
	req := &damonev1.MakeMoveRequest{Name: name, Move: "c4xa6", RequestId: "end"}
	first, err := s.games.MakeMove(svAuth(ctx, cr.GetRedToken()), req)
	if err != nil {
		t.Fatal(err)
	}
	if first.GetGame().GetStatus() != damonev1.GameStatus_GAME_STATUS_FINISHED || first.GetGame().GetLastEventSequence() != 3 {
		t.Fatalf("c4xa6: %v, want the game finished with events created, move_played, game_ended", first.GetGame())
	}
	again, err := s.games.MakeMove(svAuth(ctx, cr.GetRedToken()), req)
	if err != nil || !proto.Equal(again, first) {
		t.Fatalf("retry: %v, %v; want the first response %v", again, err, first)
	}
	_, err = s.games.MakeMove(svAuth(ctx, cr.GetBlackToken()), &damonev1.MakeMoveRequest{Name: name, Move: "b5-c4", RequestId: "end"})
	svWantStatus(t, err, codes.FailedPrecondition, "GAME_OVER", "", map[string]string{"result": "OUTCOME_RESULT_RED_WINS"})
}

// gcRawCodec sends a request's bytes as they are, so a test can send what
// the Go protobuf library refuses to marshal (a string that is not UTF-8).
type gcRawCodec struct{}

func (gcRawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}

func (gcRawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

func (gcRawCodec) Name() string { return "proto" }

// TestServeRequestIDBounds: a request id is at most 64 bytes of UTF-8
// (game_service.proto, MakeMoveRequest.request_id); longer, or not UTF-8,
// is INVALID_ARGUMENT naming request_id, over gRPC and REST, and nothing
// is played.
func TestServeRequestIDBounds(t *testing.T) {
	s := svStart(t)
	ctx := svCtx(t)
	long64, long65 := strings.Repeat("a", 64), strings.Repeat("a", 65)
	e32, e33 := strings.Repeat("é", 32), strings.Repeat("é", 33) // 64 and 66 bytes
	t.Run("grpc", func(t *testing.T) {
		for _, id := range []string{long64, e32} {
			cr := svNewGame(t, ctx, s, "")
			if _, err := s.games.MakeMove(svAuth(ctx, cr.GetRedToken()), &damonev1.MakeMoveRequest{
				Name: cr.GetGame().GetName(), Move: "e2-d3", RequestId: id}); err != nil {
				t.Errorf("request id of %d bytes: %v, want it accepted", len(id), err)
			}
		}
		cr := svNewGame(t, ctx, s, "")
		name := cr.GetGame().GetName()
		for _, id := range []string{long65, e33} {
			_, err := s.games.MakeMove(svAuth(ctx, cr.GetRedToken()), &damonev1.MakeMoveRequest{Name: name, Move: "e2-d3", RequestId: id})
			svWantStatus(t, err, codes.InvalidArgument, "INVALID_REQUEST", "request_id", nil)
		}
		// Not UTF-8: built by hand, as the Go library will not send it.
		var b []byte
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, name)
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendString(b, "e2-d3")
		b = protowire.AppendTag(b, 5, protowire.BytesType)
		b = protowire.AppendBytes(b, []byte{'r', 0xff, 0xfe})
		var out []byte
		err := s.conn.Invoke(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+cr.GetRedToken()),
			"/damone.v1.GameService/MakeMove", &b, &out, grpc.ForceCodecV2(gcRawCodec{}))
		svWantStatus(t, err, codes.InvalidArgument, "INVALID_REQUEST", "request_id", nil)
		g, err := s.games.GetGame(ctx, &damonev1.GetGameRequest{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		if g.GetPly() != 0 || g.GetLastEventSequence() != 1 {
			t.Errorf("a refused request id played: ply %d, last event %d", g.GetPly(), g.GetLastEventSequence())
		}
	})
	t.Run("rest", func(t *testing.T) {
		cr := svNewGame(t, ctx, s, "")
		name := cr.GetGame().GetName()
		for _, id := range []string{long65, e33} {
			code, out := gcMoveREST(t, s, name, cr.GetRedToken(), map[string]any{"move": "e2-d3", "request_id": id})
			gcWantREST(t, code, out, 400, codes.InvalidArgument, "INVALID_REQUEST", "request_id", nil)
		}
		if code, out := gcMoveREST(t, s, name, cr.GetRedToken(), map[string]any{"move": "e2-d3", "request_id": e32}); code != 200 {
			t.Errorf("request id of 64 bytes: %d %s, want 200", code, out)
		}
	})
}

// TestServeReplaySurvivesRestart: request ids and the first responses
// they answer with are stored with the game, so a retry after a restart
// of every process still gets the first response: on the embedded store
// (killed with SIGKILL) and on PostgreSQL.
func TestServeReplaySurvivesRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	stores := map[string]func(t *testing.T) []string{
		"embedded": func(t *testing.T) []string { return []string{"--store", "embedded", "--data-dir", t.TempDir()} },
		"postgres": func(t *testing.T) []string { return []string{"--store", "postgres", "--postgres-dsn", postgresDSN(t)} },
	}
	for _, store := range []string{"embedded", "postgres"} {
		t.Run(store, func(t *testing.T) {
			flags := stores[store](t)
			ctx := svCtx(t)
			r := startReplica(t, flags...)
			cr, err := r.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{Variant: &damonev1.Variant{
				Start: &damonev1.Variant_StartPosition{StartPosition: &damonev1.Position{Text: gcReplyStart}}}}})
			if err != nil {
				t.Fatal(err)
			}
			name, red, black := cr.GetGame().GetName(), cr.GetRedToken(), cr.GetBlackToken()
			req := &damonev1.MakeMoveRequest{Name: name, Move: "d3-c4", RequestId: "survives-restart"}
			// Red's own offer stands through its move: part of the first response.
			if _, err := r.games.OfferDraw(svAuth(ctx, red), &damonev1.OfferDrawRequest{Name: name}); err != nil {
				t.Fatal(err)
			}
			first, err := r.games.MakeMove(svAuth(ctx, red), req)
			if err != nil {
				t.Fatal(err)
			}
			if first.GetGame().GetDrawOffer() != gcRed || first.GetEventSequence() != 3 {
				t.Fatalf("first response %v: want Red's offer pending, event 3", first)
			}
			r.kill()
			r = startReplica(t, flags...)
			for _, m := range []struct{ tok, mv string }{{black, "f5-e4"}, {red, "c4-b5"}, {black, "e4-d3"}} {
				if _, err := r.games.MakeMove(svAuth(ctx, m.tok), &damonev1.MakeMoveRequest{Name: name, Move: m.mv}); err != nil {
					t.Fatalf("%s: %v", m.mv, err)
				}
			}
			r.kill()
			r = startReplica(t, flags...)
			again, err := r.games.MakeMove(svAuth(ctx, red), req)
			if err != nil {
				t.Fatalf("retry after restarts: %v", err)
			}
			if !proto.Equal(again, first) {
				t.Errorf("retry after restarts answered\n%v\nwant the first response\n%v", again, first)
			}
			g, err := r.games.GetGame(ctx, &damonev1.GetGameRequest{Name: name})
			if err != nil || g.GetPly() != 4 || g.GetDrawOffer() != damonev1.Side_SIDE_UNSPECIFIED {
				t.Errorf("game after the retry: %v, %v; want ply 4 and Red's offer declined by Black's move", g, err)
			}
		})
	}
}

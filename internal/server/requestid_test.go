package server

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/games"
)

func asSide(token string) context.Context {
	return metadata.NewIncomingContext(context.Background(), metadata.Pairs("authorization", "Bearer "+token))
}

// sameBytes reports whether two responses encode to the same bytes.
func sameBytes(t *testing.T, a, b proto.Message) bool {
	t.Helper()
	ab, err := proto.MarshalOptions{Deterministic: true}.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := proto.MarshalOptions{Deterministic: true}.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ab) == string(bb)
}

// wantRequestIDError checks an INVALID_ARGUMENT naming request_id whose
// message and details never show the id.
func wantRequestIDError(t *testing.T, what string, err error, id string) {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != codes.InvalidArgument {
		t.Fatalf("%s: %v, want INVALID_ARGUMENT", what, err)
	}
	if strings.Contains(st.Message(), id) {
		t.Errorf("%s: the message shows the request id: %q", what, st.Message())
	}
	field := ""
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.BadRequest:
			for _, v := range d.GetFieldViolations() {
				field = v.GetField()
				if strings.Contains(v.GetDescription(), id) {
					t.Errorf("%s: the field violation shows the request id: %q", what, v.GetDescription())
				}
			}
		case *errdetails.ErrorInfo:
			for k, v := range d.GetMetadata() {
				if strings.Contains(v, id) {
					t.Errorf("%s: metadata %s shows the request id", what, k)
				}
			}
		}
	}
	if field != "request_id" {
		t.Errorf("%s: field violation on %q, want request_id", what, field)
	}
}

func TestWritesReplayTheFirstResponse(t *testing.T) {
	s := NewGameServer(games.NewService(games.NewMemoryStore(), games.DefaultLimits))
	const createID = "9a0e6c3b-1f2d-4b7a-8e5c-6d4f2a1b0c93"
	create := &damonev1.CreateGameRequest{Game: &damonev1.Game{}, RequestId: createID}
	c1, err := s.CreateGame(context.Background(), create)
	if err != nil {
		t.Fatal(err)
	}
	name := c1.GetGame().GetName()
	red, black := c1.GetRedToken(), c1.GetBlackToken()

	offer := &damonev1.OfferDrawRequest{Name: name, RequestId: "offer-1"}
	o1, err := s.OfferDraw(asSide(red), offer)
	if err != nil {
		t.Fatal(err)
	}
	decline := &damonev1.AnswerDrawOfferRequest{Name: name, Accept: false, RequestId: "answer-1"}
	a1, err := s.AnswerDrawOffer(asSide(black), decline)
	if err != nil {
		t.Fatal(err)
	}
	move := &damonev1.MakeMoveRequest{Name: name, Move: "e2-d3", RequestId: "move-1"}
	m1, err := s.MakeMove(asSide(red), move)
	if err != nil {
		t.Fatal(err)
	}
	resign := &damonev1.ResignRequest{Name: name, RequestId: "resign-1"}
	r1, err := s.Resign(asSide(black), resign)
	if err != nil {
		t.Fatal(err)
	}
	if r1.GetGame().GetStatus() != damonev1.GameStatus_GAME_STATUS_FINISHED {
		t.Fatalf("after Black resigned: status %v, want finished", r1.GetGame().GetStatus())
	}

	// Every replay, after the game is over, answers byte for byte as the
	// first call did: not GAME_OVER, DRAW_ALREADY_OFFERED or NO_DRAW_OFFER.
	c2, err := s.CreateGame(context.Background(), create)
	if err != nil || !sameBytes(t, c1, c2) {
		t.Errorf("CreateGame replay: %v, %v; want the first response", c2, err)
	}
	o2, err := s.OfferDraw(asSide(red), offer)
	if err != nil || !sameBytes(t, o1, o2) {
		t.Errorf("OfferDraw replay: %v, %v; want the first response", o2, err)
	}
	a2, err := s.AnswerDrawOffer(asSide(black), decline)
	if err != nil || !sameBytes(t, a1, a2) {
		t.Errorf("AnswerDrawOffer replay: %v, %v; want the first response", a2, err)
	}
	m2, err := s.MakeMove(asSide(red), move)
	if err != nil || !sameBytes(t, m1, m2) {
		t.Errorf("MakeMove replay: %v, %v; want the first response", m2, err)
	}
	r2, err := s.Resign(asSide(black), resign)
	if err != nil || !sameBytes(t, r1, r2) {
		t.Errorf("Resign replay: %v, %v; want the first response", r2, err)
	}
	// The first responses differ from each other: the replays are not the
	// game as it is now (ply 0 with an offer; ply 0 without; ply 1 going on).
	if o1.GetGame().GetDrawOffer() != damonev1.Side_SIDE_RED || a1.GetGame().GetDrawOffer() != damonev1.Side_SIDE_UNSPECIFIED ||
		m1.GetGame().GetPly() != 1 || m1.GetGame().GetStatus() != damonev1.GameStatus_GAME_STATUS_IN_PROGRESS {
		t.Errorf("first responses: offer %v, after the answer %v, move ply %d status %v", o1.GetGame().GetDrawOffer(),
			a1.GetGame().GetDrawOffer(), m1.GetGame().GetPly(), m1.GetGame().GetStatus())
	}

	// The same id for another request: INVALID_ARGUMENT on request_id,
	// never showing the id.
	_, err = s.CreateGame(context.Background(), &damonev1.CreateGameRequest{
		Game: &damonev1.Game{Variant: &damonev1.Variant{FirstPlayer: damonev1.Side_SIDE_BLACK}}, RequestId: createID})
	wantRequestIDError(t, "CreateGame with other settings", err, createID)
	_, err = s.AnswerDrawOffer(asSide(black), &damonev1.AnswerDrawOfferRequest{Name: name, Accept: true, RequestId: "answer-1"})
	wantRequestIDError(t, "AnswerDrawOffer accepting with a decline's id", err, "answer-1")
	_, err = s.OfferDraw(asSide(red), &damonev1.OfferDrawRequest{Name: name, RequestId: "move-1"})
	wantRequestIDError(t, "OfferDraw with a move's id", err, "move-1")
	_, err = s.MakeMove(asSide(red), &damonev1.MakeMoveRequest{Name: name, Move: "c2-b3", RequestId: "move-1"})
	wantRequestIDError(t, "MakeMove with another move", err, "move-1")
	_, err = s.Resign(asSide(red), &damonev1.ResignRequest{Name: name, RequestId: "\xff"})
	wantRequestIDError(t, "Resign with an id not UTF-8", err, "\xff")
	_, err = s.CreateGame(context.Background(), &damonev1.CreateGameRequest{RequestId: "0123456789abcde"})
	wantRequestIDError(t, "CreateGame with a 15-byte id", err, "0123456789abcde")
}

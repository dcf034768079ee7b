package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/pdn"
	"github.com/damone-rules/damone/internal/refgames"
)

// pdnMovetext writes moves as PDN movetext with move numbers, the first
// mover's colour taken from the side to move at the start.
func pdnMovetext(moves []string, blackFirst bool) string {
	var b strings.Builder
	n, red := 1, !blackFirst
	if blackFirst {
		b.WriteString("1... ")
	}
	for _, m := range moves {
		if red {
			fmt.Fprintf(&b, "%d. ", n)
		}
		b.WriteString(m + " ")
		if !red {
			n++
		}
		red = !red
	}
	return b.String() + "*\n"
}

// TestValidateGamePDNAgreesWithMoves: every reference game whose moves are
// PDN move tokens gets the same verdict from ValidateGame whether given as
// `moves` or as `pdn` movetext under the same variant.
func TestValidateGamePDNAgreesWithMoves(t *testing.T) {
	games, err := refgames.Load()
	if err != nil {
		t.Fatal(err)
	}
	s := NewRulesServer(8, DefaultMaxGamePlies, noObserver{})
	compared := 0
	for _, g := range games {
		v := &damonev1.Variant{}
		if err := protojson.Unmarshal(g.Variant, v); err != nil {
			t.Fatal(err)
		}
		byMoves, err := s.ValidateGame(context.Background(), &damonev1.ValidateGameRequest{Variant: v, Moves: g.Moves})
		if err != nil {
			t.Fatalf("%s: %v", g.ID, err)
		}
		blackFirst := strings.HasPrefix(byMoves.GetFinalPosition().GetText(), "B") == (byMoves.GetPly()%2 == 0)
		text := pdnMovetext(g.Moves, blackFirst)
		if parsed, err := pdn.ParseGame(text); err != nil || len(parsed.Moves) != len(g.Moves) {
			// Garbage notation is a PDN syntax error, not a move, and an
			// empty move cannot be written at all.
			continue
		}
		byPDN, err := s.ValidateGame(context.Background(), &damonev1.ValidateGameRequest{Variant: v, Pdn: &text})
		if err != nil {
			t.Fatalf("%s: %v\n%s", g.ID, err, text)
		}
		if !proto.Equal(byMoves, byPDN) {
			t.Errorf("%s: by moves %v\nby PDN %v", g.ID, byMoves, byPDN)
		}
		compared++
	}
	if compared < 500 {
		t.Errorf("only %d of %d games compared", compared, len(games))
	}
}

// TestValidateGamePDNStarts: a PDN start (SetUp/FEN) and the request's
// variant: the tags alone, a matching start, and each contradiction.
func TestValidateGamePDNStarts(t *testing.T) {
	s := NewRulesServer(8, DefaultMaxGamePlies, noObserver{})
	// RULES.md, Promotion: c4xa6xc8 takes both Black pieces: Red wins.
	game := "[SetUp \"1\"]\n[FEN \"R:RPc4:BPb5,Pb7:0\"]\n\n1. c4xa6xc8 1-0\n"
	ctx := context.Background()
	got, err := s.ValidateGame(ctx, &damonev1.ValidateGameRequest{Pdn: &game})
	if err != nil || !got.GetValid() || got.GetOutcome().GetReason() != damonev1.OutcomeReason_OUTCOME_REASON_ALL_PIECES_CAPTURED ||
		got.GetEndPly() != 1 || got.GetFinalPosition().GetText() != "B:RDc8:B:0" {
		t.Errorf("PDN with FEN, no variant: %v, %v; want valid, all pieces captured at ply 1, final B:RDc8:B:0", got, err)
	}
	same := &damonev1.Variant{Start: &damonev1.Variant_StartPosition{StartPosition: &damonev1.Position{Text: "R:RPc4:BPb5,Pb7:0"}}, NoProgressLimit: proto.Int32(4)}
	if got, err := s.ValidateGame(ctx, &damonev1.ValidateGameRequest{Pdn: &game, Variant: same}); err != nil || !got.GetValid() {
		t.Errorf("PDN FEN equal to the variant's start: %v, %v", got, err)
	}
	bad := []struct {
		what  string
		req   *damonev1.ValidateGameRequest
		field string
	}{
		{"another start", &damonev1.ValidateGameRequest{Pdn: &game, Variant: &damonev1.Variant{
			Start: &damonev1.Variant_StartPosition{StartPosition: &damonev1.Position{Text: "R:RPc4:BPb5:0"}}}}, "pdn"},
		{"a setup", &damonev1.ValidateGameRequest{Pdn: &game, Variant: &damonev1.Variant{
			Start: &damonev1.Variant_Setup{Setup: damonev1.Setup_SETUP_NO_DAMONE}}}, "pdn"},
		{"first player", &damonev1.ValidateGameRequest{Pdn: &game, Variant: &damonev1.Variant{FirstPlayer: damonev1.Side_SIDE_BLACK}}, "variant.first_player"},
		{"moves and pdn", &damonev1.ValidateGameRequest{Pdn: &game, Moves: []string{"c4xa6xc8"}}, "pdn"},
		{"not PDN", &damonev1.ValidateGameRequest{Pdn: proto.String("1. c4xa6xc8 {never closed")}, "pdn"},
		{"another game's GameType", &damonev1.ValidateGameRequest{Pdn: proto.String("[GameType \"20\"]\n1. e2-d3 *\n")}, "pdn"},
	}
	for _, c := range bad {
		_, err := s.ValidateGame(ctx, c.req)
		st := status.Convert(err)
		field := ""
		for _, d := range st.Details() {
			if br, ok := d.(*errdetails.BadRequest); ok {
				field = br.GetFieldViolations()[0].GetField()
			}
		}
		if st.Code() != codes.InvalidArgument || field != c.field {
			t.Errorf("%s: %v (field %q), want INVALID_ARGUMENT on %s", c.what, err, field, c.field)
		}
	}
}

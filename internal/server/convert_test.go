package server

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
)

// The contract (board.proto, Position.pieces) lists pieces by square, a1
// to h8 row by row; for the standard start that order is worked out from
// RULES.md's setup table.
func TestPositionPiecesBySquare(t *testing.T) {
	p, _ := engine.StartPosition(engine.SetupStandard, engine.Red)
	var got []string
	for _, pc := range positionToProto(&p).GetPieces() {
		got = append(got, pc.GetSquare())
	}
	want := "d1 f1 h1 e2 f3 h3 a4 g4 b5 h5 a6 c6 d7 a8 c8 e8"
	if strings.Join(got, " ") != want {
		t.Fatalf("pieces in order %v, want %s", got, want)
	}
}

// movesToProto describes every move exactly as playedToProto does, on
// positions with steps, captures, promotions and several capturers.
func TestMovesToProtoMatchesPlayedToProto(t *testing.T) {
	for _, text := range []string{
		"R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0",
		"R:RPc4:BPb5,Pb7:0",
		"R:RDd3:BPe4,Pg4,Pg2,Pe2:0",
		"R:RDa2,Dc2,De2,Dg2:BPb3,Pd3,Pf3,Pb5,Pd5,Pf5:0",
		"B:RDd3,Df3,Ph3,Pc4,Pe4,Pg4:BMe6,Dd5,Df5:0",
	} {
		p, err := engine.ParsePosition(text)
		if err != nil {
			t.Fatal(err)
		}
		moves := p.LegalMoves()
		got := movesToProto(&p, moves)
		for i := range moves {
			// The general path: the engine's own landings and captured pieces.
			want := playedToProto(games.PlayedMove{Move: moves[i], Side: p.SideToMove(), Captured: p.CapturedPieces(&moves[i])})
			if !proto.Equal(got[i], want) {
				t.Fatalf("%s: move %d:\n got %v\nwant %v", text, i, got[i], want)
			}
		}
	}
}

// A malformed structured position names the very field at fault.
func TestStructuredPositionErrorsNameTheField(t *testing.T) {
	piece := func(sq string, side damonev1.Side, rank damonev1.Rank) *damonev1.Piece {
		return &damonev1.Piece{Square: sq, Side: side, Rank: rank}
	}
	red, black := damonev1.Side_SIDE_RED, damonev1.Side_SIDE_BLACK
	cases := []struct {
		pos   *damonev1.Position
		field string
	}{
		{&damonev1.Position{SideToMove: red, Pieces: []*damonev1.Piece{
			piece("h1", red, damonev1.Rank_RANK_DAMONE), piece("a8", black, damonev1.Rank_RANK_DAMONE), piece("h1", black, damonev1.Rank_RANK_PEDINE)}},
			"position.pieces[2].square"},
		{&damonev1.Position{SideToMove: red, NoProgressPlies: -1}, "position.no_progress_plies"},
		// RULES.md, Promotion: a Red Pedine on c8 would have become a Dama.
		{&damonev1.Position{SideToMove: red, Pieces: []*damonev1.Piece{
			piece("h1", red, damonev1.Rank_RANK_DAMONE), piece("c8", red, damonev1.Rank_RANK_PEDINE)}},
			"position.pieces[1]"},
		{&damonev1.Position{SideToMove: red, Pieces: []*damonev1.Piece{piece("d4", red, damonev1.Rank_RANK_DAMA)}},
			"position.pieces[0].square"},
	}
	for _, c := range cases {
		_, err := positionFromProto("position", c.pos)
		fe, ok := err.(*fieldError)
		if !ok || fe.field != c.field {
			t.Errorf("%v: error %v, want one on field %s", c.pos, err, c.field)
		}
	}
}

// variant.proto: with a start_position, first_player must be unspecified
// or equal to the position's side to move; anything else names the field.
func TestFirstPlayerWithStartPosition(t *testing.T) {
	start := &damonev1.Variant_StartPosition{StartPosition: &damonev1.Position{Text: "B:RMc2:BMc6:0"}}
	for _, c := range []struct {
		first damonev1.Side
		ok    bool
	}{
		{damonev1.Side_SIDE_UNSPECIFIED, true},
		{damonev1.Side_SIDE_BLACK, true},
		{damonev1.Side_SIDE_RED, false},
	} {
		v, err := variantFromProto("variant", &damonev1.Variant{Start: start, FirstPlayer: c.first})
		switch {
		case c.ok && err != nil:
			t.Errorf("first_player %v with Black to move: %v", c.first, err)
		case c.ok && v.Start.SideToMove() != engine.Black:
			t.Errorf("first_player %v: side to move %v, want Black", c.first, v.Start.SideToMove())
		case !c.ok && (err == nil || !strings.HasPrefix(err.Error(), "variant.first_player: ")):
			t.Errorf("first_player %v with Black to move: %v, want an error on variant.first_player", c.first, err)
		}
	}
}

package server

import (
	"strings"
	"testing"

	"github.com/damone-rules/damone/internal/engine"
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

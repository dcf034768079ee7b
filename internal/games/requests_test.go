package games

import (
	"context"
	"testing"
)

// Request ids belong to a side: Black may use the id Red used, each plays
// its own move, and a retry answers each side with its own first result.
func TestRequestIDsArePerSide(t *testing.T) {
	ctx := context.Background()
	s := NewService(NewMemoryStore(), Limits{})
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
	again, err := s.MakeMove(ctx, MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3", RequestID: "1"})
	if err != nil || again.Sequence != red.Sequence || again.Move.Move.String() != "e2-d3" {
		t.Fatalf("Red's retry: %+v, %v; want its own first result (sequence %d)", again, err, red.Sequence)
	}
	if n := get(t, s, g.ID); n.Ply() != 2 {
		t.Fatalf("ply %d after the retries, want 2", n.Ply())
	}
}

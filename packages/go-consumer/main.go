// Command damone-consumer is a first damone client in Go, in a module of its
// own that imports the generated package as any other project would:
//
//	go get github.com/damone-rules/damone@vX.Y.Z
//	go run . 127.0.0.1:9090
//
// It creates a game, reads an illegal move's ErrorInfo, plays Red's first
// legal move with a request id (send a write that failed with UNAVAILABLE or
// DEADLINE_EXCEEDED again with the same id: the server replays the first
// answer), watches the game until Black resigns, and validates a short game.
// It exits non-zero if an answer is not the one the rules give.
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

func main() {
	addr := "127.0.0.1:9090"
	if len(os.Args) > 1 {
		addr = os.Args[1]
	}
	if err := run(addr); err != nil {
		log.Fatal(err)
	}
}

// requestID is a fresh id for one write (any unique string of up to 128
// characters; docs/api.md, Consistency and retries).
func requestID() string { return rand.Text() }

// as acts for the side whose token it is.
func as(ctx context.Context, token string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
}

func run(addr string) error {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	games := damonev1.NewGameServiceClient(conn)
	rules := damonev1.NewRulesServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	created, err := games.CreateGame(ctx, &damonev1.CreateGameRequest{RequestId: requestID()})
	if err != nil {
		return err
	}
	game := created.GetGame()
	if !strings.HasPrefix(game.GetName(), "games/") {
		return fmt.Errorf("CreateGame returned %q", game.GetName())
	}
	fmt.Printf("created %s: %s\n", game.GetName(), game.GetPosition().GetText())

	stream, err := games.WatchGame(ctx, &damonev1.WatchGameRequest{Name: game.GetName()})
	if err != nil {
		return err
	}
	watched := make(chan []string, 1)
	go func() {
		var kinds []string
		for {
			ev, err := stream.Recv()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					kinds = append(kinds, "error: "+err.Error())
				}
				watched <- kinds
				return
			}
			kinds = append(kinds, fmt.Sprintf("%T", ev.GetEvent()))
		}
	}()

	// A Pedine steps one square, so e2-e4 is never legal (RULES.md, Moves).
	_, err = games.MakeMove(as(ctx, created.GetRedToken()), &damonev1.MakeMoveRequest{Name: game.GetName(), Move: "e2-e4", RequestId: requestID()})
	var info *errdetails.ErrorInfo
	for _, d := range status.Convert(err).Details() {
		if i, ok := d.(*errdetails.ErrorInfo); ok {
			info = i
		}
	}
	if status.Code(err) != codes.FailedPrecondition || info.GetReason() != "ILLEGAL_MOVE" {
		return fmt.Errorf("e2-e4: want FAILED_PRECONDITION ILLEGAL_MOVE, got %v (%v)", err, info)
	}
	fmt.Printf("e2-e4 refused: %s %s\n", status.Code(err), info.GetReason())

	// Red moves first by default (RULES.md, Sides and setup).
	legal, err := rules.ListLegalMoves(ctx, &damonev1.ListLegalMovesRequest{
		Position: &damonev1.Position{Text: game.GetPosition().GetText()}, Variant: game.GetVariant(),
	})
	if err != nil {
		return err
	}
	if game.GetPosition().GetSideToMove() != damonev1.Side_SIDE_RED || len(legal.GetMoves()) == 0 {
		return fmt.Errorf("start: %s to move, %d legal moves", game.GetPosition().GetSideToMove(), len(legal.GetMoves()))
	}
	move := legal.GetMoves()[0].GetNotation()
	played, err := games.MakeMove(as(ctx, created.GetRedToken()), &damonev1.MakeMoveRequest{Name: game.GetName(), Move: move, RequestId: requestID()})
	if err != nil {
		return err
	}
	if played.GetGame().GetPly() != 1 || played.GetGame().GetPosition().GetSideToMove() != damonev1.Side_SIDE_BLACK {
		return fmt.Errorf("after %s: ply %d", move, played.GetGame().GetPly())
	}
	fmt.Printf("played %s: ply %d\n", move, played.GetGame().GetPly())

	resigned, err := games.Resign(as(ctx, created.GetBlackToken()), &damonev1.ResignRequest{Name: game.GetName(), RequestId: requestID()})
	if err != nil {
		return err
	}
	if r := resigned.GetGame().GetOutcome().GetReason(); r != damonev1.OutcomeReason_OUTCOME_REASON_RESIGNATION {
		return fmt.Errorf("outcome reason %s", r)
	}
	kinds := <-watched
	if last := fmt.Sprintf("%T", (*damonev1.GameEvent_GameEnded_)(nil)); len(kinds) == 0 || kinds[len(kinds)-1] != last {
		return fmt.Errorf("watched %v: want the stream to end with game_ended", kinds)
	}
	fmt.Printf("watched %d events, the last %s\n", len(kinds), kinds[len(kinds)-1])

	// At ply 3 Red must capture d3xb5, so f3-e4 is illegal (RULES.md, Captures).
	verdict, err := rules.ValidateGame(ctx, &damonev1.ValidateGameRequest{Moves: []string{"e2-d3", "b5-c4", "f3-e4"}})
	if err != nil {
		return err
	}
	if verdict.GetValid() || verdict.GetFirstIllegalPly() != 3 {
		return fmt.Errorf("verdict %v", verdict)
	}
	fmt.Printf("validated: ply %d %s is illegal\n", verdict.GetFirstIllegalPly(), verdict.GetIllegalMove())
	return nil
}

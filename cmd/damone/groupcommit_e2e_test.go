package main

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// shuffleGame is a game that never ends: a Dama each stepping back and
// forth, both draw rules off.
var shuffleGame = &damonev1.Game{Variant: &damonev1.Variant{
	Start:          &damonev1.Variant_StartPosition{StartPosition: &damonev1.Position{Text: "R:RDh1:BDa8:0"}},
	RepetitionDraw: proto.Bool(false), NoProgressLimit: proto.Int32(0),
}}

var shuffleMoves = [4]string{"h1-g2", "a8-b7", "g2-h1", "b7-a8"}

// Group commit acknowledges a move only once the transaction it shares
// with other games' moves is on disk: a kill -9 while many games move at
// once loses no acknowledged move (a move committed but not yet
// acknowledged may be there too).
func TestEmbeddedStoreSurvivesKillUnderConcurrentMoves(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	flags := []string{"--store", "embedded", "--data-dir", t.TempDir()}
	for round := range 3 {
		t.Run(fmt.Sprintf("round=%d", round), func(t *testing.T) {
			r := startReplica(t, flags...)
			ctx := context.Background()
			const players = 32
			names := make([]string, players)
			acked := make([]int, players)
			var wg sync.WaitGroup
			for i := range players {
				created, err := r.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: shuffleGame})
				if err != nil {
					t.Fatal(err)
				}
				names[i] = created.GetGame().GetName()
				wg.Go(func() {
					for ply := 0; ; ply++ {
						tok := created.GetRedToken()
						if ply%2 == 1 {
							tok = created.GetBlackToken()
						}
						_, err := r.games.MakeMove(svAuth(ctx, tok), &damonev1.MakeMoveRequest{
							Name: names[i], Move: shuffleMoves[ply%4], View: damonev1.GameView_GAME_VIEW_BASIC})
						if err != nil {
							return // the kill
						}
						acked[i] = ply + 1
					}
				})
			}
			time.Sleep(700 * time.Millisecond)
			r.kill()
			wg.Wait()
			r = startReplica(t, flags...)
			defer r.kill()
			total := 0
			for i, name := range names {
				g, err := r.games.GetGame(ctx, &damonev1.GetGameRequest{Name: name, View: damonev1.GameView_GAME_VIEW_BASIC})
				if err != nil {
					t.Fatal(err)
				}
				if got := int(g.GetPly()); got < acked[i] || got > acked[i]+1 {
					t.Errorf("%s: ply %d after the restart; %d moves were acknowledged", name, got, acked[i])
				}
				total += acked[i]
			}
			if total < players {
				t.Fatalf("only %d moves acknowledged before the kill: the test did not load the store", total)
			}
			t.Logf("%d games, %d acknowledged moves, all there after kill -9", players, total)
		})
	}
}

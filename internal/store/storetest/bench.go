package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
)

// shuffle is a game that can go on for ever: a Dama each, far apart,
// stepping back and forth with both draw rules off, so a benchmark can
// play it to any ply and keep playing the same moves there.
var shuffle = [4]string{"h1-g2", "a8-b7", "g2-h1", "b7-a8"}

func shuffleVariant(tb testing.TB) engine.Variant {
	start, err := engine.ParsePosition("R:RDh1:BDa8:0")
	if err != nil {
		tb.Fatal(err)
	}
	return engine.Variant{Setup: engine.SetupCustom, Start: start, WinCondition: engine.CaptureAllPieces}
}

// BenchMakeMove measures games.Service.MakeMove on store in a game at ply
// 100 and at ply 5,000: the move's work must not grow with the game
// (issue 14: within 1.2x). prepare(true) is called before the game is
// played to its starting ply and prepare(false) after, so a durable store
// can skip its fsyncs while setting up.
func BenchMakeMove(b *testing.B, store games.Store, prepare func(fast bool)) {
	for _, ply := range []int{100, 5000} {
		b.Run(fmt.Sprintf("ply=%d", ply), func(b *testing.B) {
			ctx := context.Background()
			svc := games.NewService(store, games.Limits{})
			g, tok, err := svc.Create(ctx, shuffleVariant(b))
			if err != nil {
				b.Fatal(err)
			}
			token := func(i int) string {
				if i%2 == 0 {
					return tok.Red
				}
				return tok.Black
			}
			prepare(true)
			for i := range ply {
				if _, err := svc.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: token(i), Move: shuffle[i%4]}); err != nil {
					b.Fatal(err)
				}
			}
			prepare(false)
			b.ResetTimer()
			for i := ply; i < ply+b.N; i++ {
				if _, err := svc.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: token(i), Move: shuffle[i%4]}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchCreateGame measures games.Service.Create (with the games limit
// on, so the count is taken) on an empty store and on ones holding 10,000
// and 50,000 games: creating must not slow as the store fills (issue 14:
// within 1.2x). prepare is as for BenchMakeMove.
func BenchCreateGame(b *testing.B, newStore func(b *testing.B) games.Store, prepare func(s games.Store, fast bool)) {
	for _, held := range []int{0, 10_000, 50_000} {
		b.Run(fmt.Sprintf("games=%d", held), func(b *testing.B) {
			ctx := context.Background()
			store := newStore(b)
			svc := games.NewService(store, games.Limits{MaxGames: 1 << 30})
			prepare(store, true)
			for range held {
				if _, _, err := svc.Create(ctx, engine.DefaultVariant()); err != nil {
					b.Fatal(err)
				}
			}
			prepare(store, false)
			b.ResetTimer()
			for range b.N {
				if _, _, err := svc.Create(ctx, engine.DefaultVariant()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchConcurrentMoves measures games.Service.MakeMove on store with
// games played at once, each by its own goroutine (b.N moves in all), and
// reports moves/s: with 64 games a durable store should keep most of the
// memory store's rate (issue 14: the embedded store at least 60 %).
func BenchConcurrentMoves(b *testing.B, store games.Store, concurrent int) {
	ctx := context.Background()
	svc := games.NewService(store, games.Limits{})
	type player struct {
		id   string
		tok  games.Tokens
		next int
	}
	players := make([]*player, concurrent)
	for i := range players {
		g, tok, err := svc.Create(ctx, shuffleVariant(b))
		if err != nil {
			b.Fatal(err)
		}
		players[i] = &player{id: g.ID, tok: tok}
	}
	b.ResetTimer()
	var wg sync.WaitGroup
	for i, p := range players {
		n := b.N / concurrent
		if i < b.N%concurrent {
			n++
		}
		wg.Go(func() {
			for range n {
				token := p.tok.Red
				if p.next%2 == 1 {
					token = p.tok.Black
				}
				if _, err := svc.MakeMove(ctx, games.MoveRequest{GameID: p.id, Token: token, Move: shuffle[p.next%4]}); err != nil {
					b.Error(err)
					return
				}
				p.next++
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "moves/s")
}

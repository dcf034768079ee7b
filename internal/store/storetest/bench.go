package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

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

// BenchDue measures Due on a store of 10,000 games going on with a clock,
// 10 of them due: the call every replica makes about every 100 ms
// (games.Service's clock loop), so it must cost what the games due cost,
// not what the store holds. prepare is as for BenchMakeMove.
func BenchDue(b *testing.B, store games.Store, prepare func(fast bool)) {
	const held, dueN = 10_000, 10
	ctx := context.Background()
	v := engine.DefaultVariant()
	start, err := v.InitialPosition()
	if err != nil {
		b.Fatal(err)
	}
	prepare(true)
	// Game i's deadline is i seconds after epoch: games 0 to 9 are due at
	// epoch+9s; created in a shuffled order, so no store gets them in
	// deadline order for free.
	var want []string
	for n := range held {
		i := (n * 7919) % held // 7919 is prime, so n -> i is a permutation
		id := fmt.Sprintf("due-%05d", i)
		if i < dueN {
			want = append(want, id)
		}
		c := &games.Clock{Remaining: [2]time.Duration{5 * time.Minute, 5 * time.Minute}, Since: epoch, Deadline: epoch.Add(time.Duration(i) * time.Second)}
		g := &games.Game{ID: id, Variant: v, Initial: start, Position: start, Version: 1, LastEvent: 1,
			CreateTime: epoch, UpdateTime: epoch, TimeControl: control, Clock: c}
		g.TokenHash[0][0], g.TokenHash[1][0] = 1, 2
		ev := games.Event{GameID: id, Sequence: 1, Time: epoch, Kind: games.EventCreated, Position: start, Variant: g.Variant, Clock: c}
		if err := store.Create(ctx, g, []games.Event{ev}); err != nil {
			b.Fatal(err)
		}
	}
	prepare(false)
	slices.Sort(want) // ids in deadline order
	until := epoch.Add((dueN - 1) * time.Second)
	if got, err := store.Due(ctx, until, 100); err != nil || !slices.Equal(got, want) {
		b.Fatalf("Due = %q, %v; want %q", got, err, want)
	}
	for b.Loop() {
		if got, err := store.Due(ctx, until, 100); err != nil || len(got) != dueN {
			b.Fatalf("Due = %d ids, %v; want %d", len(got), err, dueN)
		}
	}
}

// ListPage and ListPlies are the page BenchList reads: ListPage games
// going on, each ListPlies moves into its game.
const (
	ListPage  = 50
	ListPlies = 10
)

// ListGame returns game number i of BenchList's store and its events:
// the ListPage last games are going on, ListPlies moves played; every
// game before them is over, with only its created event.
func ListGame(tb testing.TB, held, i int) (*games.Game, []games.Event) {
	v := shuffleVariant(tb)
	start := v.Start
	id := fmt.Sprintf("list-%07d", i)
	g := &games.Game{ID: id, Variant: v, Initial: start, Position: start, Version: 1, LastEvent: 1,
		CreateTime: epoch, UpdateTime: epoch}
	g.TokenHash[0][0], g.TokenHash[1][0] = 1, 2
	evs := []games.Event{{GameID: id, Sequence: 1, Time: epoch, Kind: games.EventCreated, Position: start, Variant: v}}
	if i < held-ListPage {
		g.Outcome = engine.Outcome{Result: engine.Draw, Reason: engine.AgreedDraw}
		return g, evs
	}
	for p := range ListPlies {
		m, err := g.Position.ParseMove(shuffle[p%4])
		if err != nil {
			tb.Fatal(err)
		}
		pm := games.PlayedMove{Move: m, Side: g.Position.SideToMove()}
		g.Position = g.Position.After(&m)
		g.Plies++
		g.LastEvent++
		g.Version++
		evs = append(evs, games.Event{GameID: id, Sequence: g.LastEvent, Time: epoch, Kind: games.EventMovePlayed,
			Ply: g.Plies, Position: g.Position, Move: pm})
	}
	return g, evs
}

// BenchList measures a page of List with the games' moves (what a
// ListGames page in the full view asks of its store) on stores holding
// 100 and 100,000 games: the page must cost the same at both sizes. It
// reads the ListPage games going on that were created last, past every
// game over: "status" filters by status from the first game, "after"
// lists every game from the page's start. newStore returns an empty
// store; load fills it with held games made by ListGame (nil: one Create
// each).
func BenchList(b *testing.B, newStore func(b *testing.B) games.Store, load func(b *testing.B, s games.Store, held int)) {
	for _, held := range []int{100, 100_000} {
		ctx := context.Background()
		store := newStore(b)
		if load != nil {
			load(b, store, held)
		} else {
			for i := range held {
				g, evs := ListGame(b, held, i)
				if err := store.Create(ctx, g, evs); err != nil {
					b.Fatal(err)
				}
			}
		}
		first, _ := ListGame(b, held, held-ListPage)
		before, _ := ListGame(b, held, held-ListPage-1)
		for _, c := range []struct {
			name string
			q    games.ListQuery
		}{
			{"status", games.ListQuery{Limit: ListPage, Status: games.InProgress, Moves: true}},
			{"after", games.ListQuery{Limit: ListPage, After: before.ID, Moves: true}},
		} {
			b.Run(fmt.Sprintf("%s/games=%d", c.name, held), func(b *testing.B) {
				for b.Loop() {
					gs, err := store.List(ctx, c.q)
					if err != nil || len(gs) != ListPage || gs[0].ID != first.ID {
						b.Fatalf("List(%+v) = %d games, %v; want %d from %s", c.q, len(gs), err, ListPage, first.ID)
					}
					for _, g := range gs {
						if len(g.Moves) != ListPlies {
							b.Fatalf("List: game %s with %d moves, want %d", g.ID, len(g.Moves), ListPlies)
						}
					}
				}
			})
		}
	}
}

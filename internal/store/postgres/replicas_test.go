package postgres

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/store/postgres/pgtest"
)

// Group commit and the cache of games under two replicas on one
// database: what must hold whatever the interleaving.

// sideToken is the token of the side to move in g.
func sideToken(g *games.Game, tok games.Tokens) string {
	if g.Position.SideToMove() == engine.Red {
		return tok.Red
	}
	return tok.Black
}

// TestReplicasRaceOnOneGame: two replicas play the same games at once,
// each move on a game read fresh and conditioned on its ply, so that at
// most one move can be acknowledged at each ply. Every ply must have
// exactly one acknowledged move, and the stored game and its log must be
// those moves and nothing else (no move lost after its acknowledgement,
// none written twice).
func TestReplicasRaceOnOneGame(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	sa, _, a, b := replicaPair(t, dsn)
	svcs := []*games.Service{a, b}
	ctx := context.Background()
	const nGames, plies = 12, 10
	type ack struct {
		ply  int
		move string
		seq  int64
	}
	var (
		mu   sync.Mutex
		acks = map[string][]ack{}
	)
	ids, toks := createGames(ctx, t, svcs[0], nGames)
	var wg sync.WaitGroup
	for i := range nGames {
		for r, svc := range svcs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; ; n++ {
					g, err := svc.Get(ctx, ids[i])
					if err != nil {
						t.Error(err)
						return
					}
					if g.Ply() >= plies || g.Over() {
						return
					}
					ms := g.Position.LegalMoves()
					move := ms[(r+n)%len(ms)].String() // the replicas mostly disagree on the move
					ply := g.Ply()
					res, err := svc.MakeMove(ctx, games.MoveRequest{GameID: ids[i], Token: sideToken(g, toks[i]), Move: move,
						ExpectedPly: &ply, RequestID: fmt.Sprintf("r%d-%d", r, n)})
					var ge *games.Error
					switch {
					case err == nil:
						mu.Lock()
						acks[ids[i]] = append(acks[ids[i]], ack{ply: res.Game.Ply(), move: res.Move.Move.String(), seq: res.Sequence})
						mu.Unlock()
					case errors.As(err, &ge) && (ge.Reason == games.ReasonPlyMismatch || ge.Reason == games.ReasonNotYourTurn):
						// lost the race to the other replica
					default:
						t.Errorf("game %s, replica %d: move %s at ply %d: %v", ids[i], r, move, ply, err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	for _, id := range ids {
		as := acks[id]
		byPly := map[int]ack{}
		for _, a := range as {
			if old, dup := byPly[a.ply]; dup {
				t.Errorf("game %s: two moves acknowledged at ply %d: %s (event %d) and %s (event %d)", id, a.ply, old.move, old.seq, a.move, a.seq)
			}
			byPly[a.ply] = a
		}
		g, err := sa.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := sa.Events(ctx, id, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		// Created, then one event per move (no offers, no captures that
		// end the game in 10 plies of the opening).
		if g.Ply() != plies || len(as) != plies || len(evs) != plies+1 || g.Version != int64(plies+1) {
			t.Errorf("game %s: stored ply %d, version %d, %d events; %d moves acknowledged; want ply %d, version %d, %d events, %d acknowledged",
				id, g.Ply(), g.Version, len(evs), len(as), plies, plies+1, plies+1, plies)
			continue
		}
		for p := 1; p <= plies; p++ {
			a, ok := byPly[p]
			e := evs[p]
			if !ok || e.Sequence != int64(p+1) || e.Kind != games.EventMovePlayed || e.Ply != p || a.seq != e.Sequence || a.move != e.Move.Move.String() {
				t.Errorf("game %s, ply %d: acknowledged %+v (%v), stored event %d %v ply %d %s", id, p, a, ok, e.Sequence, e.Kind, e.Ply, e.Move.Move)
			}
		}
	}
}

// TestRequestReplaysAcrossReplicas: the same request (side, id and
// move) sent to both replicas at once, on many games: both answer it as
// played, with the same move event, and the move is stored once.
func TestRequestReplaysAcrossReplicas(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	_, sb, a, b := replicaPair(t, dsn)
	ctx := context.Background()
	const nGames = 24
	for i := range nGames {
		g, tok, err := a.Create(ctx, engine.DefaultVariant())
		if err != nil {
			t.Fatal(err)
		}
		// Both replicas hold the game at version 1: b's copy from a read.
		if _, err := b.Get(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
		r := games.MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3", RequestID: "once-" + strconv.Itoa(i)}
		var (
			wg   sync.WaitGroup
			res  [2]*games.MoveResult
			errs [2]error
		)
		for k, svc := range []*games.Service{a, b} {
			wg.Add(1)
			go func() { defer wg.Done(); res[k], errs[k] = svc.MakeMove(ctx, r) }()
		}
		wg.Wait()
		for k := range 2 {
			if errs[k] != nil {
				t.Fatalf("game %d: replica %d answered the request with %v", i, k, errs[k])
			}
			if res[k].Sequence != 2 || res[k].Game.Ply() != 1 || res[k].Move.Move.String() != "e2-d3" {
				t.Errorf("game %d: replica %d answered event %d, ply %d, move %s; want event 2, ply 1, e2-d3", i, k, res[k].Sequence, res[k].Game.Ply(), res[k].Move.Move)
			}
		}
		stored, err := sb.Get(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if stored.Ply() != 1 || stored.Version != 2 || stored.LastEvent != 2 {
			t.Errorf("game %d stored at ply %d, version %d, last event %d; want the move once: ply 1, version 2, event 2", i, stored.Ply(), stored.Version, stored.LastEvent)
		}
	}
}

// slowEvents makes every insert of an event of game id take d in the
// database (a trigger in the test's schema), so a batch holding a write of
// it is in the database for that long.
func slowEvents(t *testing.T, dsn, id string, d time.Duration) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	sql := fmt.Sprintf(`CREATE FUNCTION slow_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.game_id = '%s' THEN PERFORM pg_sleep(%f); END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER slow_event BEFORE INSERT ON game_events FOR EACH ROW EXECUTE FUNCTION slow_event();`, id, d.Seconds())
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatal(err)
	}
}

// TestCallerLeavesMidBatch: a client's call ends while its move's batch
// is in the database. The call fails (no acknowledgement), the batch
// commits anyway, and the client's retry with the same request id,
// made at once on the same replica or on the other, is answered as the
// first call's move, which is stored once.
func TestCallerLeavesMidBatch(t *testing.T) {
	for _, where := range []string{"same replica", "other replica"} {
		t.Run(where, func(t *testing.T) {
			dsn := pgtest.FreshDSN(t)
			_, sb, a, b := replicaPair(t, dsn)
			ctx := context.Background()
			g, tok, err := a.Create(ctx, engine.DefaultVariant())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.Get(ctx, g.ID); err != nil { // b's copy at version 1
				t.Fatal(err)
			}
			slowEvents(t, dsn, g.ID, 1500*time.Millisecond)
			r := games.MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3", RequestID: "left"}
			short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			start := time.Now()
			_, err = a.MakeMove(short, r)
			cancel()
			if err == nil {
				t.Fatal("the move was acknowledged to a call that ended before its commit")
			}
			if took := time.Since(start); took > time.Second {
				t.Errorf("the call whose context ended after 300 ms returned after %v", took)
			}
			retry := a
			if where == "other replica" {
				retry = b
			}
			res, err := retry.MakeMove(ctx, r)
			if err != nil {
				t.Fatalf("the retry: %v", err)
			}
			if res.Sequence != 2 || res.Game.Ply() != 1 {
				t.Errorf("the retry answered event %d at ply %d; want the first call's move: event 2, ply 1", res.Sequence, res.Game.Ply())
			}
			stored, err := sb.Get(ctx, g.ID)
			if err != nil {
				t.Fatal(err)
			}
			evs, err := sb.Events(ctx, g.ID, 0, 10)
			if err != nil {
				t.Fatal(err)
			}
			if stored.Ply() != 1 || stored.Version != 2 || len(evs) != 2 {
				t.Errorf("stored: ply %d, version %d, %d events; want the move once (ply 1, version 2, 2 events)", stored.Ply(), stored.Version, len(evs))
			}
		})
	}
}

// TestCloseWhileWritesWait: Close while many writers are writing. Close
// returns, every Update returns (none hangs), each acknowledged write is
// stored, later Updates fail, and the store's goroutines are gone.
func TestCloseWhileWritesWait(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	setup := open(t, dsn)
	const writers = 48
	gs := make([]*games.Game, writers)
	for i := range writers {
		gs[i] = create(t, setup, fmt.Sprintf("c%d", i), time.Time{})
	}
	setup.Close()
	time.Sleep(100 * time.Millisecond)
	before := runtime.NumGoroutine()
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	acked := make([]int64, writers) // the last version acknowledged
	tried := make([]int64, writers) // the last version tried
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := range writers {
		acked[i] = 1
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := gs[i]
			for {
				n, evs := offered(g)
				n.HasOffer = false
				tried[i] = n.Version
				err := s.Update(context.Background(), n, evs, nil)
				if err != nil {
					<-stop
					return
				}
				acked[i], g = n.Version, n
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return within 10 s while writes waited")
	}
	close(stop)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("writers still in Update 10 s after Close")
	}
	if err := s.Update(context.Background(), next(gs[0]), nil, nil); err == nil {
		t.Error("an Update after Close succeeded")
	}
	check := open(t, dsn)
	total := int64(0)
	for i := range writers {
		g, err := check.Get(context.Background(), gs[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		total += acked[i] - 1
		// The write that failed may or may not have committed; every one
		// acknowledged has.
		if g.Version < acked[i] || g.Version > tried[i] {
			t.Errorf("game %s stored at version %d; acknowledged up to %d, tried up to %d", g.ID, g.Version, acked[i], tried[i])
		}
	}
	if total == 0 {
		t.Fatal("no write was acknowledged before Close: the test tried nothing")
	}
	check.Close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		buf = buf[:runtime.Stack(buf, true)]
		t.Errorf("%d goroutines after Close, %d before Open:\n%s", n, before, buf)
	}
}

// TestNotifyInCommitOrder: many games' moves through both replicas'
// batches at once; a listener on the channel hears each game's
// notifications in the order of its events, ending with its last.
func TestNotifyInCommitOrder(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	_, _, a, b := replicaPair(t, dsn)
	svcs := []*games.Service{a, b}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
		t.Fatal(err)
	}
	const nGames, plies = 16, 8
	ids, toks := createGames(ctx, t, svcs[0], nGames)
	var wg sync.WaitGroup
	for i := range nGames {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range plies {
				svc := svcs[p%2] // alternate replicas: each move on the other's stale copy
				g, err := svc.Get(ctx, ids[i])
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := svc.MakeMove(ctx, games.MoveRequest{GameID: ids[i], Token: sideToken(g, toks[i]), Move: g.Position.LegalMoves()[0].String()}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	heard := map[string][]int64{}
	want := nGames * (plies + 1) // created and each move
	for n := 0; n < want; n++ {
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		note, err := conn.WaitForNotification(wctx)
		cancel()
		if err != nil {
			t.Fatalf("after %d of %d notifications: %v", n, want, err)
		}
		id, seq, ok := strings.Cut(note.Payload, " ")
		q, err := strconv.ParseInt(seq, 10, 64)
		if !ok || err != nil {
			t.Fatalf("payload %q", note.Payload)
		}
		heard[id] = append(heard[id], q)
	}
	for _, id := range ids {
		h := heard[id]
		if len(h) != plies+1 {
			t.Errorf("game %s: heard %v, want events 1 to %d once each", id, h, plies+1)
			continue
		}
		for k, q := range h {
			if q != int64(k+1) {
				t.Errorf("game %s: heard %v, want 1 to %d in order", id, h, plies+1)
				break
			}
		}
	}
}

// TestBatchVersionCheckIsExact: in a batch and alone, a write is stored
// only if it is the next version of the stored one: a write that skips
// a version, or repeats the stored one, is refused as stale and leaves
// the game as it was.
func TestBatchVersionCheckIsExact(t *testing.T) {
	s := open(t, pgtest.FreshDSN(t))
	ctx := context.Background()
	var gs []*games.Game
	for i := range 4 {
		gs = append(gs, create(t, s, fmt.Sprintf("v%d", i), time.Time{}))
	}
	skip := func(g *games.Game) *games.Game { n := next(next(g)); n.Version = g.Version + 2; return n }
	same := func(g *games.Game) *games.Game {
		n := g.Clone()
		n.UpdateTime = n.UpdateTime.Add(time.Second)
		return n
	}
	upd := func(g *games.Game) func() error { return func() error { return s.Update(ctx, g, nil, nil) } }
	errs, _ := batched(t, s, []func() error{upd(skip(gs[0])), upd(same(gs[1])), upd(next(gs[2]))})
	for i, want := range []error{games.ErrConflict, games.ErrConflict, nil} {
		if !errors.Is(errs[i], want) || (want == nil && errs[i] != nil) {
			t.Errorf("batched write %d: %v, want %v", i, errs[i], want)
		}
	}
	// Alone in its batch (the one-write statement).
	s2 := open(t, s.dsn)
	for _, w := range []*games.Game{skip(gs[3]), same(gs[3])} {
		if err := s2.Update(ctx, w, nil, nil); !errors.Is(err, games.ErrConflict) {
			t.Errorf("lone write at version %d over version 1: %v, want ErrConflict", w.Version, err)
		}
	}
	for i, want := range []int64{1, 1, 2, 1} {
		g, err := s.Get(ctx, gs[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		if g.Version != want {
			t.Errorf("game %s at version %d, want %d", g.ID, g.Version, want)
		}
	}
}

// replicaPair opens two stores on one database, as two replicas would,
// and a game service on each.
func replicaPair(t *testing.T, dsn string) (sa, sb *Store, a, b *games.Service) {
	t.Helper()
	sa, sb = open(t, dsn), open(t, dsn)
	return sa, sb, games.NewService(sa, games.DefaultLimits), games.NewService(sb, games.DefaultLimits)
}

// createGames creates n games of the default variant on svc.
func createGames(ctx context.Context, t *testing.T, svc *games.Service, n int) ([]string, []games.Tokens) {
	t.Helper()
	ids, toks := make([]string, n), make([]games.Tokens, n)
	for i := range n {
		g, tok, err := svc.Create(ctx, engine.DefaultVariant())
		if err != nil {
			t.Fatal(err)
		}
		ids[i], toks[i] = g.ID, tok
	}
	return ids, toks
}

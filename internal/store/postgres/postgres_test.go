package postgres

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/store/postgres/pgtest"
	"github.com/damone-rules/damone/internal/store/storetest"
)

func open(t testing.TB, dsn string) *Store {
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	pgtest.DSN(t)
	storetest.Run(t, func(t *testing.T) games.Store { return open(t, pgtest.FreshDSN(t)) })
}

func TestRequestIDs(t *testing.T) {
	pgtest.DSN(t)
	storetest.RunRequestIDs(t, func(t *testing.T) (games.Store, func() games.Store) {
		dsn := pgtest.FreshDSN(t)
		return open(t, dsn), func() games.Store { return open(t, dsn) } // another replica, or a restart
	})
}

func TestMigrationsAreIdempotent(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	open(t, dsn)
	open(t, dsn) // a second replica starting applies nothing and fails nothing
}

// Two stores on one database stand for two replicas: a move through one
// is seen by the other, and a notification reaches the other's listener.
func TestReplicasShareGamesAndNotify(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	a, b := open(t, dsn), open(t, dsn)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var got []string
	listening := make(chan struct{})
	var once sync.Once
	go b.Listen(ctx, func(id string, seq int64) {
		mu.Lock()
		got = append(got, fmt.Sprintf("%s %d", id, seq))
		mu.Unlock()
	}, func() {})
	// Listen has no ready signal; wait until a probe notification arrives.
	go func() {
		for ctx.Err() == nil {
			a.pool.Exec(ctx, "SELECT pg_notify($1, 'probe 0')", Channel)
			mu.Lock()
			n := len(got)
			mu.Unlock()
			if n > 0 {
				once.Do(func() { close(listening) })
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	select {
	case <-listening:
	case <-time.After(10 * time.Second):
		t.Fatal("the listener never received a notification")
	}

	svcA := games.NewService(a, games.DefaultLimits)
	svcB := games.NewService(b, games.DefaultLimits)
	g, tok, err := svcA.Create(ctx, engine.DefaultVariant())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svcB.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3", RequestID: "r1"}); err != nil {
		t.Fatal(err)
	}
	// The same request id through the other replica plays nothing twice.
	res, err := svcA.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3", RequestID: "r1"})
	if err != nil || res.Sequence != 2 || res.Game.Ply() != 1 {
		t.Fatalf("retry through the other replica: %+v, %v; want the first result (sequence 2, ply 1)", res, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		found := false
		for _, n := range got {
			found = found || n == g.ID+" 1" || n == g.ID+" 2"
		}
		mu.Unlock()
		if found {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no notification for game %s; got %v", g.ID, got)
}

func TestUnreachableDatabaseFailsFast(t *testing.T) {
	start := time.Now()
	_, err := Open(context.Background(), "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
	if err == nil {
		t.Fatal("Open succeeded against a closed port")
	}
	if time.Since(start) > 20*time.Second {
		t.Fatalf("Open took %v to fail", time.Since(start))
	}
}

// TestMigrationAddsCreateRequests upgrades a database of schema 3 (games
// already in it) and then creates and replays a game under a request id.
func TestMigrationAddsCreateRequests(t *testing.T) {
	pgtest.DSN(t)
	dsn := pgtest.FreshDSN(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	sqldb := stdlib.OpenDBFromPool(pool)
	p, err := goose.NewProvider(goose.DialectPostgres, sqldb, mustSub(migrations, "migrations"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 3); err != nil {
		t.Fatal(err)
	}
	var exists bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('create_requests') IS NOT NULL`).Scan(&exists); err != nil || exists {
		t.Fatalf("create_requests at schema 3: %v, %v; want none", exists, err)
	}
	sqldb.Close()
	pool.Close()
	s := open(t, dsn)
	svc := games.NewService(s, games.DefaultLimits)
	req := games.CreateRequest{Variant: engine.DefaultVariant(), RequestID: "5e2b9c41-7a0d-4f3e-b6a8-1c9d0e2f4a67"}
	g1, t1, err := svc.CreateGame(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	g2, t2, err := games.NewService(open(t, dsn), games.DefaultLimits).CreateGame(ctx, req)
	if err != nil || g2.ID != g1.ID || t2 != t1 {
		t.Fatalf("replay on another replica: %v, %v; want game %s and its tokens", g2, err, g1.ID)
	}
}

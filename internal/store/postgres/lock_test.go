package postgres

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/store/postgres/pgtest"
)

// lockRow holds game id's row locked (SELECT ... FOR UPDATE in an open
// transaction on a connection of its own) until the returned func runs.
func lockRow(t *testing.T, dsn, id string) func() {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM games WHERE id = $1 FOR UPDATE`, id); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release := func() {
		once.Do(func() {
			tx.Rollback(ctx)
			conn.Close(ctx)
		})
	}
	t.Cleanup(release)
	return release
}

// next is g's next version, as a change to it would store it.
func next(g *games.Game) *games.Game {
	n := g.Clone()
	n.Version++
	n.UpdateTime = n.UpdateTime.Add(time.Second)
	return n
}

// TestLockedGameHoldsUpNoOtherGame: while one game's row is locked, more
// changes of it wait than the pool has connections, and a read of another
// game must still be answered at once, not when the waiters give up.
func TestLockedGameHoldsUpNoOtherGame(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	s := open(t, dsn+"&pool_max_conns=4")
	hot := create(t, s, "hot", time.Time{})
	create(t, s, "cold", time.Time{})
	release := lockRow(t, dsn, "hot")

	const waiters = 8 // twice the pool
	var wg sync.WaitGroup
	errs := make([]error, waiters)
	for i := range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			errs[i] = s.Update(ctx, next(hot), nil, nil)
		}()
	}
	time.Sleep(300 * time.Millisecond) // the waiters are all in

	// Far under the waiters' 3 s: a read that has to wait for one of
	// them to give up its connection fails.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	g, err := s.Get(ctx, "cold")
	cancel()
	if err != nil {
		t.Fatalf("GetGame of another game while %d changes wait on a locked game: %v", waiters, err)
	}
	if g.ID != "cold" {
		t.Fatalf("got game %s, want cold", g.ID)
	}

	release()
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, games.ErrConflict):
		default:
			t.Errorf("a waiting change, once the lock was released: %v (want nil or ErrConflict)", err)
		}
	}
	if ok != 1 {
		t.Errorf("%d changes of the same version were stored once the lock was released, want 1", ok)
	}
}

// TestLockTimeout: a change waiting on a row lock gives up after the
// session's lock_timeout (here from the DSN), with lock_not_available,
// rolled back, and its connection stays usable.
func TestLockTimeout(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	s := open(t, dsn+"&lock_timeout=300ms&pool_max_conns=1")
	hot := create(t, s, "hot", time.Time{})
	lockRow(t, dsn, "hot")
	start := time.Now()
	err := s.Update(context.Background(), next(hot), nil, nil)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "55P03" {
		t.Fatalf("Update of a locked game: %v, want lock_not_available (55P03)", err)
	}
	if took := time.Since(start); took > OpTimeout-time.Second {
		t.Fatalf("Update of a locked game gave up after %v, want about the 300 ms lock_timeout", took)
	}
	// The one pooled connection was not closed by a cancelled query.
	if _, err := s.Get(context.Background(), "hot"); err != nil {
		t.Fatal(err)
	}
}

// TestSessionSettings: without them in the DSN, each session gets the
// store's lock_timeout and idle_in_transaction_session_timeout; a DSN's
// own values win.
func TestSessionSettings(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	show := func(s *Store, name string) string {
		var v string
		if err := s.pool.QueryRow(context.Background(), "SHOW "+name).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	s := open(t, dsn)
	if got := show(s, "lock_timeout"); got != "4s" {
		t.Errorf("lock_timeout %s, want 4s (OpTimeout - 1 s)", got)
	}
	if got := show(s, "idle_in_transaction_session_timeout"); got != "10s" {
		t.Errorf("idle_in_transaction_session_timeout %s, want 10s (twice OpTimeout)", got)
	}
	o := open(t, dsn+"&lock_timeout=250ms")
	if got := show(o, "lock_timeout"); got != "250ms" {
		t.Errorf("with lock_timeout=250ms in the DSN: %s", got)
	}
}

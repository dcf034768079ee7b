package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/store/postgres/pgtest"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// clockGame is a new game (version 1, its created event) with a 5-minute
// time control whose clock runs out at deadline; the zero deadline makes
// a game without a time control.
func clockGame(t *testing.T, id string, deadline time.Time) (*games.Game, []games.Event) {
	t.Helper()
	v := engine.DefaultVariant()
	start, err := v.InitialPosition()
	if err != nil {
		t.Fatal(err)
	}
	g := &games.Game{ID: id, Variant: v, Initial: start, Position: start, Version: 1, LastEvent: 1,
		CreateTime: t0, UpdateTime: t0}
	g.TokenHash[0][0], g.TokenHash[1][0] = 1, 2
	if !deadline.IsZero() {
		g.TimeControl = games.TimeControl{Initial: 5 * time.Minute, FirstMove: time.Minute}
		g.Clock = &games.Clock{Remaining: [2]time.Duration{5 * time.Minute, 5 * time.Minute}, Since: t0, Deadline: deadline}
	}
	return g, []games.Event{{GameID: id, Sequence: 1, Time: t0, Kind: games.EventCreated, Position: start, Variant: v}}
}

// ended returns the next version of g ended by timeout at its deadline,
// with its ended event, as a replica that found it due writes it.
func ended(g *games.Game) (*games.Game, []games.Event) {
	n := g.Clone()
	at := n.Clock.Deadline
	n.Outcome = engine.Outcome{Result: engine.WinFor(n.Position.SideToMove() ^ 1), Reason: engine.Timeout}
	n.Clock.Since, n.Clock.Deadline, n.Clock.Running = at, time.Time{}, false
	n.Version++
	n.LastEvent++
	n.UpdateTime = at
	return n, []games.Event{{GameID: n.ID, Sequence: n.LastEvent, Time: at, Kind: games.EventEnded, Outcome: n.Outcome}}
}

func create(t *testing.T, s *Store, id string, deadline time.Time) *games.Game {
	t.Helper()
	g, ev := clockGame(t, id, deadline)
	if err := s.Create(context.Background(), g, ev); err != nil {
		t.Fatal(err)
	}
	return g
}

// column reads game id's deadline column; nil for NULL.
func column(t *testing.T, s *Store, id string) *time.Time {
	t.Helper()
	var d *time.Time
	if err := s.pool.QueryRow(context.Background(), `SELECT deadline FROM games WHERE id = $1`, id).Scan(&d); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDeadlineColumn(t *testing.T) {
	s := open(t, pgtest.FreshDSN(t))
	ctx := context.Background()
	east := time.FixedZone("UTC+2", 2*60*60)
	tests := []struct {
		id       string
		deadline time.Time
		want     string // the column in UTC, RFC 3339; "" for NULL
	}{
		{"none", time.Time{}, ""},
		{"whole", t0.Add(5*time.Second + 3*time.Microsecond), "2026-11-29T12:00:05.000003Z"},
		{"1ns-over", t0.Add(5*time.Second + time.Microsecond + time.Nanosecond), "2026-11-29T12:00:05.000002Z"},
		{"999ns-over", t0.Add(5*time.Second + 999*time.Nanosecond), "2026-11-29T12:00:05.000001Z"},
		{"zone", time.Date(2026, 11, 29, 14, 0, 5, 1, east), "2026-11-29T12:00:05.000001Z"},
	}
	for _, tc := range tests {
		g := create(t, s, tc.id, tc.deadline)
		got := ""
		if d := column(t, s, tc.id); d != nil {
			got = d.UTC().Format(time.RFC3339Nano)
		}
		if got != tc.want {
			t.Errorf("%s: deadline column %q, want %q", tc.id, got, tc.want)
		}
		// The record keeps the deadline to the nanosecond.
		back, err := s.Get(ctx, tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if (back.Clock == nil) != (g.Clock == nil) || (g.Clock != nil && !back.Clock.Deadline.Equal(tc.deadline)) {
			t.Errorf("%s: stored clock %+v, want deadline %v", tc.id, back.Clock, tc.deadline)
		}
	}

	// Update moves the column with the record, and clears it when the game
	// ends.
	g, err := s.Get(ctx, "whole")
	if err != nil {
		t.Fatal(err)
	}
	g.Version++
	g.Clock.Deadline = t0.Add(time.Hour + 500*time.Nanosecond)
	if err := s.Update(ctx, g, nil, nil); err != nil {
		t.Fatal(err)
	}
	if d := column(t, s, "whole"); d == nil || !d.Equal(time.Date(2026, 11, 29, 13, 0, 0, 1000, time.UTC)) {
		t.Errorf("after an update to 13:00:00.0000005: deadline column %v, want 13:00:00.000001", d)
	}
	over, ev := ended(g)
	if err := s.Update(ctx, over, ev, nil); err != nil {
		t.Fatal(err)
	}
	if d := column(t, s, "whole"); d != nil {
		t.Errorf("after the game ended: deadline column %v, want NULL", d)
	}
	// A game over keeps no deadline in the column even if its record had
	// one (the service clears it; the store does not rely on that).
	g2, err := s.Get(ctx, "zone")
	if err != nil {
		t.Fatal(err)
	}
	g2.Version++
	g2.Outcome = engine.Outcome{Result: engine.RedWins, Reason: engine.Resignation}
	if err := s.Update(ctx, g2, nil, nil); err != nil {
		t.Fatal(err)
	}
	if d := column(t, s, "zone"); d != nil {
		t.Errorf("a resigned game: deadline column %v, want NULL", d)
	}
}

func TestDueBoundariesAndOrder(t *testing.T) {
	s := open(t, pgtest.FreshDSN(t))
	ctx := context.Background()
	create(t, s, "late", t0.Add(3*time.Second))
	create(t, s, "odd", t0.Add(time.Microsecond+time.Nanosecond)) // column t0+2µs
	create(t, s, "first", t0)
	create(t, s, "none", time.Time{})
	g := create(t, s, "over", t0.Add(-time.Hour))
	over, ev := ended(g)
	if err := s.Update(ctx, over, ev, nil); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		until time.Time
		limit int
		want  []string
	}{
		{t0.Add(-time.Nanosecond), 10, nil},
		{t0, 10, []string{"first"}},
		// odd's deadline is t0+1.001µs; its column rounds up to t0+2µs, so
		// it is reported from then on: never early, at most 1µs late.
		{t0.Add(time.Microsecond + time.Nanosecond), 10, []string{"first"}},
		{t0.Add(2*time.Microsecond - time.Nanosecond), 10, []string{"first"}},
		{t0.Add(2 * time.Microsecond), 10, []string{"first", "odd"}},
		{t0.Add(3*time.Second - time.Nanosecond), 10, []string{"first", "odd"}},
		{t0.Add(3 * time.Second), 10, []string{"first", "odd", "late"}},
		{t0.Add(24 * time.Hour), 10, []string{"first", "odd", "late"}},
		{t0.Add(24 * time.Hour), 2, []string{"first", "odd"}},
		{t0.Add(24 * time.Hour), 1, []string{"first"}},
		{t0.Add(24 * time.Hour), 0, nil},
	}
	for _, tc := range tests {
		got, err := s.Due(ctx, tc.until, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Due(t0+%v, %d) = %q, want %q", tc.until.Sub(t0), tc.limit, got, tc.want)
		}
	}
	if _, err := s.Due(ctx, t0, -1); err == nil || !strings.Contains(err.Error(), "limit -1 is negative") {
		t.Errorf("Due with limit -1: %v, want an error naming the negative limit", err)
	}
}

// The migration fills the column of games that existed before it from
// their records, rounding up as the store does.
func TestMigrationFillsDeadlines(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	ctx := context.Background()
	db, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	// The schema as it was before migration 00003.
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	sqldb := stdlib.OpenDBFromPool(pool)
	p, err := goose.NewProvider(goose.DialectPostgres, sqldb, mustSub(migrations, "migrations"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 2); err != nil {
		t.Fatal(err)
	}
	sqldb.Close()
	pool.Close()
	east := time.FixedZone("UTC+2", 2*60*60)
	old := []struct {
		id       string
		deadline time.Time
		over     bool
		want     string // "" for NULL
	}{
		{"none", time.Time{}, false, ""},
		{"whole", t0.Add(7 * time.Second), false, "2026-11-29T12:00:07Z"},
		{"ns", t0.Add(7*time.Second + 4*time.Microsecond + 1), false, "2026-11-29T12:00:07.000005Z"},
		{"frac9", t0.Add(999_999_999), false, "2026-11-29T12:00:01Z"},
		{"zone", time.Date(2026, 11, 29, 14, 0, 0, 120_000_000, east), false, "2026-11-29T12:00:00.12Z"},
		{"over", t0.Add(time.Minute), true, ""},
	}
	for _, o := range old {
		g, _ := clockGame(t, o.id, o.deadline)
		if o.over {
			g.Outcome = engine.Outcome{Result: engine.RedWins, Reason: engine.Resignation}
		}
		data, err := games.EncodeGame(g)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(ctx, `INSERT INTO games (id, version, last_event, finished, record, created_at, updated_at)
			VALUES ($1, 1, 1, $2, $3, $4, $4)`, o.id, o.over, data, t0); err != nil {
			t.Fatal(err)
		}
	}

	s := open(t, dsn) // applies 00003
	for _, o := range old {
		got := ""
		if d := column(t, s, o.id); d != nil {
			got = d.UTC().Format(time.RFC3339Nano)
		}
		if got != o.want {
			t.Errorf("%s (record deadline %v): column after the migration %q, want %q", o.id, o.deadline, got, o.want)
		}
		// The same as the store itself writes.
		g, _ := clockGame(t, o.id, o.deadline)
		if o.over {
			g.Outcome = engine.Outcome{Result: engine.RedWins, Reason: engine.Resignation}
		}
		want := ""
		if d := deadline(g); d != nil {
			want = d.UTC().Format(time.RFC3339Nano)
		}
		if got != want {
			t.Errorf("%s: the migration wrote %q, the store writes %q", o.id, got, want)
		}
	}
}

// Due is one scan of the partial index, with the parameters bound (the
// plan pgx gets for the first executions) and as a generic plan (what
// PostgreSQL may switch to after five), on a table where most games are
// over: with few games due, and with all live games due (after an outage).
func TestDuePlanUsesIndex(t *testing.T) {
	s := open(t, pgtest.FreshDSN(t))
	ctx := context.Background()
	// 20,000 games, one in ten going on with a deadline t0 + i ms; the
	// store does not read the records, so they are placeholders. (The
	// game count's row trigger would make the insert take seconds.)
	if _, err := s.pool.Exec(ctx, `ALTER TABLE games DISABLE TRIGGER games_counted`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO games (id, version, last_event, finished, record, created_at, updated_at, deadline)
		SELECT 'g' || i, 1, 1, i % 10 <> 0, '{}', $1, $1, CASE WHEN i % 10 = 0 THEN $1::timestamptz + i * interval '1 millisecond' END
		FROM generate_series(1, 20000) AS i`, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE games`); err != nil {
		t.Fatal(err)
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `PREPARE due_plan AS `+dueQuery); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(ctx, `DEALLOCATE due_plan; RESET plan_cache_mode`)
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		for _, until := range []time.Time{t0.Add(100 * time.Millisecond), t0.Add(time.Hour)} {
			if _, err := conn.Exec(ctx, `SET plan_cache_mode = `+mode); err != nil {
				t.Fatal(err)
			}
			// EXPLAIN takes no bound parameters: the values are literals.
			rows, err := conn.Query(ctx, `EXPLAIN EXECUTE due_plan('`+until.Format(time.RFC3339Nano)+`', 100)`)
			if err != nil {
				t.Fatal(err)
			}
			lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			plan := strings.Join(lines, "\n")
			t.Logf("%s, until t0+%v:\n%s", mode, until.Sub(t0), plan)
			if !strings.Contains(plan, "Index Scan using games_deadline on games") || strings.Contains(plan, "Sort") {
				t.Errorf("%s, until t0+%v: the plan is not one ordered scan of games_deadline:\n%s", mode, until.Sub(t0), plan)
			}
		}
	}
	// And the query answers: the first due games, earliest first.
	got, err := s.Due(ctx, t0.Add(35*time.Millisecond), 100)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"g10", "g20", "g30"}; !slices.Equal(got, want) {
		t.Errorf("Due(t0+35ms) = %q, want %q", got, want)
	}
}

// Two stores on one database stand for two replicas: each finds the same
// games due and tries to end them with a version-checked Update; for each
// game exactly one succeeds, the other gets ErrConflict, and the game has
// one ended event.
func TestReplicasEndEachDueGameOnce(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	replicas := [2]*Store{open(t, dsn), open(t, dsn)}
	ctx := context.Background()
	const n = 20
	var want []string
	for i := range n {
		id := fmt.Sprintf("c%02d", i)
		create(t, replicas[0], id, t0.Add(time.Duration(i)*time.Second))
		want = append(want, id)
	}
	create(t, replicas[0], "future", t0.Add(time.Hour))
	now := t0.Add(time.Minute)

	// Each replica reads its due games and their heads before either
	// writes, so every Update below races one from the other replica.
	var due [2][]*games.Game
	for r, s := range replicas {
		ids, err := s.Due(ctx, now, 100)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids, want) {
			t.Fatalf("replica %d: Due = %q, want %q", r, ids, want)
		}
		for _, id := range ids {
			g, err := s.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			due[r] = append(due[r], g)
		}
	}
	var results [2][n]error
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		for r, s := range replicas {
			g := due[r][i]
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				next, ev := ended(g)
				results[r][i] = s.Update(ctx, next, ev, nil)
			}()
		}
	}
	close(start)
	wg.Wait()
	wins := [2]int{}
	for i, id := range want {
		a, b := results[0][i], results[1][i]
		switch {
		case a == nil && errors.Is(b, games.ErrConflict):
			wins[0]++
		case b == nil && errors.Is(a, games.ErrConflict):
			wins[1]++
		default:
			t.Errorf("%s: replica 0 got %v, replica 1 got %v; want one nil and one ErrConflict", id, a, b)
		}
		evs, err := replicas[1].Events(ctx, id, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 2 || evs[1].Kind != games.EventEnded || evs[1].Sequence != 2 {
			t.Errorf("%s: events %+v, want created then one ended (sequence 2)", id, evs)
		}
		g, err := replicas[1].Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if g.Version != 2 || g.Outcome.Reason != engine.Timeout {
			t.Errorf("%s: version %d, outcome %v; want version 2 ended by timeout", id, g.Version, g.Outcome)
		}
	}
	t.Logf("wins per replica: %v", wins)
	for r, s := range replicas {
		ids, err := s.Due(ctx, now, 100)
		if err != nil || len(ids) != 0 {
			t.Errorf("replica %d: after the games ended, Due = %q, %v; want none", r, ids, err)
		}
	}
}

// flagCounter counts the games a service ended by their clocks.
type flagCounter struct {
	mu      sync.Mutex
	reasons map[string]int
}

func (*flagCounter) MovePlayed()               {}
func (*flagCounter) MoveRejected(string)       {}
func (*flagCounter) WatchersChanged(int)       {}
func (*flagCounter) MoveChecked(time.Duration) {}
func (f *flagCounter) GameFlagged(reason string, _ time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reasons[reason]++
}

// Two services on two stores on one database, both running their clocks
// on the same (injected) time: every game past its deadline ends once,
// by whichever replica gets there first, with one ended event dated at
// its deadline.
func TestReplicaServicesEndEachGameOnce(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	var mu sync.Mutex
	now := t0
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	set := func(t time.Time) { mu.Lock(); now = t; mu.Unlock() }
	var counters [2]*flagCounter
	var svcs [2]*games.Service
	for r := range svcs {
		counters[r] = &flagCounter{reasons: map[string]int{}}
		svcs[r] = games.NewService(open(t, dsn), games.DefaultLimits, games.WithClock(clock), games.WithObserver(counters[r]))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tc := games.TimeControl{Initial: 5 * time.Minute, Increment: 2 * time.Second}
	// Ten games nobody moves in: each is aborted a minute (the default
	// first-move time) after its creation at t0.
	var idle []string
	for range 10 {
		g, _, err := svcs[0].CreateTimed(ctx, engine.DefaultVariant(), tc)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, g.ID)
	}
	// One game where both sides move (t0+1s, t0+2s): then red's clock
	// runs, 5m + 2s from t0+2s, so red's flag falls at t0+5m4s.
	g, tok, err := svcs[1].CreateTimed(ctx, engine.DefaultVariant(), tc)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range []struct{ tok, move string }{{tok.Red, "e2-d3"}, {tok.Black, "b5-c4"}} {
		set(t0.Add(time.Duration(i+1) * time.Second))
		if _, err := svcs[i].MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: m.tok, Move: m.move}); err != nil {
			t.Fatal(err)
		}
	}
	set(t0.Add(10 * time.Minute))
	for _, s := range svcs {
		go s.Run(ctx)
	}
	want := map[string]struct {
		at      time.Time
		outcome engine.Outcome
	}{g.ID: {t0.Add(5*time.Minute + 4*time.Second), engine.Outcome{Result: engine.BlackWins, Reason: engine.Timeout}}}
	for _, id := range idle {
		want[id] = struct {
			at      time.Time
			outcome engine.Outcome
		}{t0.Add(time.Minute), engine.Outcome{Result: engine.NoResult, Reason: engine.Aborted}}
	}
	store := open(t, dsn)
	for id, w := range want {
		var evs []games.Event
		for wait := time.Now().Add(20 * time.Second); ; {
			if evs, err = store.Events(ctx, id, 0, 100); err != nil {
				t.Fatal(err)
			}
			if evs[len(evs)-1].Kind == games.EventEnded || time.Now().After(wait) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		var ends []games.Event
		for _, e := range evs {
			if e.Kind == games.EventEnded {
				ends = append(ends, e)
			}
		}
		if len(ends) != 1 || ends[0].Outcome != w.outcome || !ends[0].Time.Equal(w.at) {
			t.Errorf("game %s: ended events %+v; want one, %v at t0+%v", id, ends, w.outcome, w.at.Sub(t0))
		}
	}
	// Both replicas keep polling; give them a few more rounds to end
	// anything twice, then count who ended what.
	time.Sleep(300 * time.Millisecond)
	cancel()
	total := map[string]int{}
	for r, c := range counters {
		c.mu.Lock()
		t.Logf("replica %d ended %v", r, c.reasons)
		for k, v := range c.reasons {
			total[k] += v
		}
		c.mu.Unlock()
	}
	if total["timeout"] != 1 || total["aborted"] != 10 || len(total) != 2 {
		t.Errorf("games ended by the replicas together: %v; want timeout 1, aborted 10", total)
	}
	if ids, err := store.Due(context.Background(), t0.Add(10*time.Minute), 100); err != nil || len(ids) != 0 {
		t.Errorf("Due after the games ended = %q, %v; want none", ids, err)
	}
}

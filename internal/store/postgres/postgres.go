// Package postgres is the cluster game store: PostgreSQL through pgx,
// shared by every replica. Each change is written only at the version it
// was made on, so two replicas can never both play the same ply (a
// replica writes the changes waiting at once in one transaction:
// commit.go); request ids are rows, so a retry on any replica changes
// nothing twice.
// Events are rows with a per-game sequence, and every commit sends a
// NOTIFY so the other replicas wake their watchers, who always read the
// events from the table: a lost notification delays nothing for long and
// loses nothing. A game's clock deadline is also a column, indexed, so
// every replica can ask which games are due to end by their clocks.
// Schema migrations are embedded and applied at Open.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/damone-rules/damone/internal/games"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Channel is the NOTIFY channel; the payload is "<game id> <sequence>".
const Channel = "damone_events"

// OpTimeout bounds every store call, so an unreachable database makes
// calls fail (UNAVAILABLE) instead of hanging.
const OpTimeout = 5 * time.Second

// Session settings every connection gets unless the DSN sets them
// (docs/deploy.md). A change waiting on a game's row lock gives up with
// lock_not_available (the store's error, UNAVAILABLE) before OpTimeout
// would cancel it, which would also close its connection; a session left
// idle in a transaction for longer than any live call (its replica
// paused or cut off mid-transaction) is ended by the server, so the row
// locks it holds are released.
const (
	LockTimeout                     = OpTimeout - time.Second
	IdleInTransactionSessionTimeout = 2 * OpTimeout
)

// Store is a games.Store on PostgreSQL.
type Store struct {
	pool   *pgxpool.Pool
	dsn    string
	gates  gates
	cache  *gameCache // cache.go
	commit *committer // commit.go
}

var _ games.Store = (*Store)(nil)

// Open connects, applies the embedded migrations and returns the store.
// The DSN is a PostgreSQL URL or keyword/value string.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, badDSN(err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = OpTimeout
	}
	for name, d := range map[string]time.Duration{
		"lock_timeout":                        LockTimeout,
		"idle_in_transaction_session_timeout": IdleInTransactionSessionTimeout,
	} {
		if _, set := cfg.ConnConfig.RuntimeParams[name]; !set {
			cfg.ConnConfig.RuntimeParams[name] = strconv.FormatInt(d.Milliseconds(), 10)
		}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres store: %w", err)
	}
	s := &Store{pool: pool, dsn: dsn, gates: gates{m: map[string]*gate{}}, cache: newGameCache(cachedGames)}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	s.startCommitters()
	return s, nil
}

func (s *Store) migrate(ctx context.Context) error {
	db := stdlib.OpenDBFromPool(s.pool)
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, mustSub(migrations, "migrations"))
	if err != nil {
		return fmt.Errorf("postgres store: migrations: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("postgres store: applying migrations: %w", err)
	}
	return nil
}

// Close ends the committers, once their batches under way are done, and
// closes the pool.
func (s *Store) Close() error {
	s.stopCommitters()
	s.pool.Close()
	return nil
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	return s.pool.Ping(ctx)
}

func (s *Store) Create(ctx context.Context, g *games.Game, events []games.Event) error {
	return s.CreateRequested(ctx, g, events, nil)
}

func (s *Store) CreateRequested(ctx context.Context, g *games.Game, events []games.Event, req *games.CreateRecord) error {
	data, err := games.EncodeGame(g)
	if err != nil {
		return err
	}
	var rdata []byte
	if req != nil {
		if rdata, err = games.EncodeCreateRequest(req); err != nil {
			return err
		}
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO games (id, version, last_event, finished, record, created_at, updated_at, deadline)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, g.ID, g.Version, g.LastEvent, g.Over(), data, g.CreateTime, g.UpdateTime, deadline(g))
		if isUniqueViolation(err) {
			return games.ErrConflict
		}
		if err != nil {
			return err
		}
		if req != nil {
			// A concurrent create with the same key waits here for the
			// other's commit, then inserts nothing: this one rolls back.
			tag, err := tx.Exec(ctx, `INSERT INTO create_requests (request_key, game_id, record) VALUES ($1, $2, $3)
				ON CONFLICT DO NOTHING`, req.Key, g.ID, rdata)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return games.ErrDuplicateRequest
			}
		}
		return insertEvents(ctx, tx, g.ID, events)
	})
	if err == nil {
		s.cache.put(g)
	}
	return err
}

func (s *Store) CreateRequest(ctx context.Context, key string) (games.CreateRecord, error) {
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	var data []byte
	err := s.pool.QueryRow(ctx, `SELECT record FROM create_requests WHERE request_key = $1`, key).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return games.CreateRecord{}, games.ErrNotFound
	}
	if err != nil {
		return games.CreateRecord{}, err
	}
	return games.DecodeCreateRequest(key, data)
}

func insertEvents(ctx context.Context, tx pgx.Tx, id string, events []games.Event) error {
	if len(events) == 0 {
		return nil
	}
	batch := &pgx.Batch{}
	for i := range events {
		data, err := games.EncodeEvent(&events[i])
		if err != nil {
			return err
		}
		batch.Queue(`INSERT INTO game_events (game_id, seq, record) VALUES ($1, $2, $3)`, id, events[i].Sequence, data)
	}
	last := events[len(events)-1].Sequence
	batch.Queue(`SELECT pg_notify($1, $2)`, Channel, id+" "+strconv.FormatInt(last, 10))
	if err := tx.SendBatch(ctx, batch).Close(); err != nil {
		if isUniqueViolation(err) {
			return games.ErrConflict
		}
		return err
	}
	return nil
}

func (s *Store) Get(ctx context.Context, id string) (*games.Game, error) {
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	var data []byte
	err := s.pool.QueryRow(ctx, `SELECT record FROM games WHERE id = $1`, id).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, games.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	g, err := games.DecodeGame(data)
	if err == nil {
		s.cache.put(g)
	}
	return g, err
}

// listMoves is the column of List's query that reads a page's moves with
// it (one statement, so one snapshot): each game's events up to its last,
// in order.
const listMoves = `, (SELECT array_agg(e.record::text ORDER BY e.seq) FROM game_events e
		WHERE e.game_id = games.id AND e.seq <= games.last_event)`

func (s *Store) List(ctx context.Context, q games.ListQuery) ([]*games.Game, error) {
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	cols := "record"
	if q.Moves {
		cols += listMoves
	}
	// A filter is its own statement so that the plan walks games_status
	// (finished, id) from the page's start.
	var (
		rows pgx.Rows
		err  error
	)
	switch q.Status {
	case games.InProgress, games.Finished:
		rows, err = s.pool.Query(ctx, `SELECT `+cols+` FROM games
			WHERE finished = $1 AND id > $2 ORDER BY finished, id LIMIT $3`, q.Status == games.Finished, q.After, q.Limit)
	default:
		rows, err = s.pool.Query(ctx, `SELECT `+cols+` FROM games
			WHERE id > $1 ORDER BY id LIMIT $2`, q.After, q.Limit)
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*games.Game
	for rows.Next() {
		var (
			data   []byte
			events []string
		)
		dest := []any{&data}
		if q.Moves {
			dest = append(dest, &events)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		g, err := games.DecodeGame(data)
		if err != nil {
			return nil, err
		}
		if q.Moves {
			evs := make([]games.Event, len(events))
			for i, e := range events {
				if evs[i], err = games.DecodeEvent([]byte(e)); err != nil {
					return nil, fmt.Errorf("game %s: %w", g.ID, err)
				}
			}
			if err := games.SetMoves(g, evs); err != nil {
				return nil, err
			}
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// updateGame is the statement of a change written alone (updateAlone),
// so one round trip and its own (implicit) transaction: PostgreSQL commits it before it answers, and a
// failing part rolls all of it back. The game's row is written only at
// the version the caller read ($7); the request id ($9, NULL: none) and
// the events (seqs $11, records $12) go in only with it; a request id
// already recorded, or an event's sequence number already used, is a
// unique violation that undoes the statement. NOTIFY ($13: the payload,
// NULL without events) is sent at the commit, in commit order. The row
// tells whether the game was written, and whether it exists.
const updateGame = `WITH u AS (
	UPDATE games SET version = $2, last_event = $3, finished = $4, record = $5, updated_at = $6, deadline = $8
	WHERE id = $1 AND version = $7
	RETURNING id
), ` + updateParts + `,
	EXISTS (SELECT 1 FROM games WHERE id = $1)`

// updateParts is what a one-game statement writes with the game's row u
// (updateGame, updateSkipLocked): the request id, the events, the NOTIFY;
// then the answer's first columns, written and the parts' count (the
// counts make the database run n).
const updateParts = `r AS (
	INSERT INTO move_requests (game_id, request_id, record)
	SELECT id, $9, $10::jsonb FROM u WHERE $9::text IS NOT NULL
	RETURNING 1
), e AS (
	INSERT INTO game_events (game_id, seq, record)
	SELECT u.id, x.seq, x.rec::jsonb FROM u, unnest($11::bigint[], $12::text[]) AS x(seq, rec)
	RETURNING 1
), n AS (
	SELECT pg_notify('` + Channel + `', $13) FROM u WHERE $13::text IS NOT NULL
)
SELECT (SELECT count(*) FROM u) > 0, (SELECT count(*) FROM r) + (SELECT count(*) FROM e) + (SELECT count(*) FROM n)`

// Update writes g as a batch's part (commit.go), or alone when its batch
// could not (updateAlone), and keeps the committed g as this replica's
// copy of the game (cache.go).
func (s *Store) Update(ctx context.Context, g *games.Game, events []games.Event, req *games.RequestRecord) error {
	p, err := encodeWrite(g, events, req)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	// One change of a game at a time per replica: they would queue on its
	// row lock anyway, and each waiting there holds a pooled connection,
	// so one locked game would starve the replica's other games. A batch
	// holds at most one write of a game (commit.go).
	leave, err := s.gates.enter(ctx, g.ID)
	if err != nil {
		return err
	}
	// The gate is left once the write's outcome is known, even when ctx
	// ends first.
	detached, err := s.submit(&pendingWrite{ctx: ctx, g: g, p: p, done: make(chan error, 1)}, leave)
	if detached {
		return err
	}
	defer leave()
	if !errors.Is(err, errAlone) {
		return err
	}
	err = s.updateAlone(ctx, p)
	switch {
	case err == nil:
		s.cache.put(g)
	case errors.Is(err, games.ErrNotFound), errors.Is(err, games.ErrDuplicateRequest):
	default:
		s.cache.drop(g.ID) // refused as stale, or the outcome is unknown
	}
	return err
}

// encodeWrite encodes Update's change.
func encodeWrite(g *games.Game, events []games.Event, req *games.RequestRecord) (*writeParams, error) {
	data, err := games.EncodeGame(g)
	if err != nil {
		return nil, err
	}
	p := &writeParams{id: g.ID, version: g.Version, lastEvent: g.LastEvent, finished: g.Over(), record: string(data),
		updated: g.UpdateTime, deadline: deadline(g)}
	if req != nil {
		rdata, err := games.EncodeRequest(req)
		if err != nil {
			return nil, err
		}
		id, rec := req.RequestID, string(rdata)
		p.reqID, p.reqRecord = &id, &rec
	}
	p.seqs, p.recs = make([]int64, len(events)), make([]string, len(events))
	for i := range events {
		data, err := games.EncodeEvent(&events[i])
		if err != nil {
			return nil, err
		}
		p.seqs[i], p.recs[i] = events[i].Sequence, string(data)
	}
	if len(events) > 0 {
		payload := g.ID + " " + strconv.FormatInt(events[len(events)-1].Sequence, 10)
		p.payload = &payload
	}
	return p, nil
}

// updateAlone writes one change in its own statement (updateGame), which
// waits on the game's row lock as long as lock_timeout allows.
func (s *Store) updateAlone(ctx context.Context, p *writeParams) error {
	var (
		written, exists bool
		parts           int64
	)
	err := s.pool.QueryRow(ctx, updateGame, p.id, p.version, p.lastEvent, p.finished, p.record, p.updated, p.version-1, p.deadline,
		p.reqID, p.reqRecord, p.seqs, p.recs, p.payload).Scan(&written, &parts, &exists)
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe) && pe.Code == "23505" && pe.TableName == "move_requests":
		return games.ErrDuplicateRequest
	case errors.As(err, &pe) && pe.Code == "23505":
		return games.ErrConflict
	case err != nil:
		return err
	case !exists:
		return games.ErrNotFound
	case !written:
		return games.ErrConflict
	}
	return nil
}

func (s *Store) Events(ctx context.Context, id string, after int64, limit int) ([]games.Event, error) {
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	rows, err := s.pool.Query(ctx, `SELECT record FROM game_events WHERE game_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, id, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []games.Event
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return nil, err
		}
		e, err := games.DecodeEvent(data)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		var exists bool
		if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM games WHERE id = $1)`, id).Scan(&exists); err != nil {
			return nil, err
		}
		if !exists {
			return nil, games.ErrNotFound
		}
	}
	return out, nil
}

func (s *Store) Request(ctx context.Context, id, requestID string) (games.RequestRecord, error) {
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	var data []byte
	err := s.pool.QueryRow(ctx, `SELECT record FROM move_requests WHERE game_id = $1 AND request_id = $2`, id, requestID).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return games.RequestRecord{}, games.ErrNotFound
	}
	if err != nil {
		return games.RequestRecord{}, err
	}
	return games.DecodeRequest(data)
}

func (s *Store) Count(ctx context.Context) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	var n int
	err := s.pool.QueryRow(ctx, `SELECT n FROM game_count`).Scan(&n) // kept by a trigger (migration 00002)
	return n, err
}

// Due returns up to limit ids of games going on whose deadline is at or
// before until, earliest first: one scan of the partial index on the
// deadline column (migration 00003). The column is the deadline rounded
// up to the microsecond and until is rounded down, so a game is never
// reported before its deadline, and at most 1 µs after it. A negative
// limit is an error; 0 returns none.
func (s *Store) Due(ctx context.Context, until time.Time, limit int) ([]string, error) {
	if limit < 0 {
		return nil, fmt.Errorf("postgres store: Due: limit %d is negative", limit)
	}
	if limit == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	rows, err := s.pool.Query(ctx, dueQuery, until.Truncate(time.Microsecond), limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// dueQuery is Due's query; its plan is checked in the tests.
const dueQuery = `SELECT id FROM games WHERE deadline <= $1 ORDER BY deadline LIMIT $2`

// deadline is g's deadline column: its clock's deadline rounded up to the
// microsecond (the column's precision; Due), or nil (NULL) when it has
// none or is over.
func deadline(g *games.Game) *time.Time {
	if g.Clock == nil || g.Clock.Deadline.IsZero() || g.Over() {
		return nil
	}
	d := ceilMicro(g.Clock.Deadline)
	return &d
}

// ceilMicro rounds t up to a whole microsecond (Truncate counts from the
// zero time, which is on a whole second) and drops its monotonic reading.
func ceilMicro(t time.Time) time.Time {
	d := t.Truncate(time.Microsecond)
	if d.Before(t) {
		d = d.Add(time.Microsecond)
	}
	return d
}

// inTx runs fn in a transaction, committing if it returns nil.
func (s *Store) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	return pgx.BeginFunc(ctx, s.pool, fn)
}

// gates lets one caller at a time through per game id.
type gates struct {
	mu sync.Mutex
	m  map[string]*gate
}

type gate struct {
	ch    chan struct{} // holds a value while someone is through
	users int           // through or waiting: the entry goes with the last
}

// enter waits until no other caller is through id's gate, or ctx ends
// (its error); leave lets the next one in.
func (gs *gates) enter(ctx context.Context, id string) (leave func(), err error) {
	gs.mu.Lock()
	g := gs.m[id]
	if g == nil {
		g = &gate{ch: make(chan struct{}, 1)}
		gs.m[id] = g
	}
	g.users++
	gs.mu.Unlock()
	done := func() {
		gs.mu.Lock()
		if g.users--; g.users == 0 {
			delete(gs.m, id)
		}
		gs.mu.Unlock()
	}
	select {
	case g.ch <- struct{}{}:
		return func() { <-g.ch; done() }, nil
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
}

func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// Listen calls notify(gameID, sequence) for every event committed by any
// replica, until ctx ends. It keeps one connection LISTENing and
// reconnects with backoff when it drops; after a reconnect it calls
// resync, because notifications sent meanwhile are lost (watchers then
// read the table, so no event is).
func (s *Store) Listen(ctx context.Context, notify func(gameID string, seq int64), resync func()) {
	first := true
	for ctx.Err() == nil {
		_, _ = backoff.Retry(ctx, func() (struct{}, error) {
			err := s.listenOnce(ctx, notify, func() {
				if !first {
					resync()
				}
				first = false
			})
			if ctx.Err() != nil {
				return struct{}{}, backoff.Permanent(ctx.Err())
			}
			return struct{}{}, err
		}, backoff.WithBackOff(&backoff.ExponentialBackOff{
			InitialInterval: 100 * time.Millisecond, RandomizationFactor: 0.5, Multiplier: 2, MaxInterval: 5 * time.Second,
		}), backoff.WithMaxElapsedTime(0))
	}
}

func (s *Store) listenOnce(ctx context.Context, notify func(string, int64), connected func()) error {
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// A LISTENing connection must not go back to the pool.
	conn := pc.Hijack()
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{Channel}.Sanitize()); err != nil {
		return err
	}
	connected()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		id, seq, ok := strings.Cut(n.Payload, " ")
		if v, err := strconv.ParseInt(seq, 10, 64); ok && err == nil {
			notify(id, v)
		}
	}
}

func mustSub(f embed.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err)
	}
	return sub
}

// badDSN is the error of a DSN pgx cannot parse, without the DSN: pgx
// masks the password only where it can tell which part is one, and a
// malformed DSN (password = x, an open quote) can defeat that.
func badDSN(err error) error {
	why := "unreadable"
	var pe *pgconn.ParseConfigError
	// pgx's text is "cannot parse `DSN`: why"; keep the why. Cutting at
	// the last "`: " can only drop more, never keep a part of the DSN.
	if msg := err.Error(); errors.As(err, &pe) && strings.LastIndex(msg, "`: ") >= 0 {
		why = msg[strings.LastIndex(msg, "`: ")+len("`: "):]
	}
	return fmt.Errorf("postgres store: bad DSN (not shown: it can hold the password): %s", why)
}

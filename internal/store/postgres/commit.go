package postgres

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/damone-rules/damone/internal/games"
)

// Group commit. A move is one small transaction, and with fsync on each
// commit is a WAL flush; a statement per move also costs the replica a
// round trip, a parse of the results and the statement's fixed work per
// move. Here committers write every Update waiting when one of them is
// free in one statement (one implicit transaction: batchUpdate), and
// acknowledge each only once it has committed. Writes that arrive while a
// batch is in the database form the next one, so a lone writer waits for
// nothing but its own commit, and many writers share one.
//
// A batch never waits on a row lock: it skips the games whose rows another
// session holds (FOR UPDATE SKIP LOCKED), and those writes run alone, each
// its own statement on its own connection (updateGame), where they wait
// as before (lock_timeout). A batch that fails in the database (a unique
// violation: a request id already recorded, a sequence number already
// used) wrote nothing, so each of its writes runs alone too, and only the
// one at fault gets its error (ErrDuplicateRequest, ErrConflict). Any
// other failure of a batch is each of its writes' (the outcome unknown).
//
// Each replica lets one change of a game at a time through (gates), and a
// change leaves its gate only once its write's outcome is known, so a
// batch has at most one write of a game, and a game's writes, events and
// NOTIFYs are in its changes' order.

// committers is how many batches one replica has in the database at once:
// while one commits (its WAL flush), the next is written.
const committers = 2

// maxBatch bounds the writes of one batch, so its statement's size and
// the wait of its first writer stay bounded.
const maxBatch = 128

// errAlone tells a writer that its batch did not write it, and why it
// could not say: it runs alone.
var errAlone = errors.New("postgres store: write alone")

var errClosed = errors.New("postgres store: closed")

// pendingWrite is one Update waiting for a committer.
type pendingWrite struct {
	ctx  context.Context // the caller's: a write whose caller left before its batch is not written
	g    *games.Game
	p    *writeParams
	done chan error // buffered: a committer never waits for the caller
}

// writeParams is an Update's encoded change.
type writeParams struct {
	id        string
	version   int64 // after the change; the stored one must be version-1
	lastEvent int64
	finished  bool
	record    string
	updated   time.Time
	deadline  *time.Time
	reqID     *string
	reqRecord *string
	seqs      []int64
	recs      []string
	payload   *string // the NOTIFY payload; nil without events
}

type committer struct {
	writes chan *pendingWrite
	quit   chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
}

func (s *Store) startCommitters() {
	s.commit = &committer{writes: make(chan *pendingWrite), quit: make(chan struct{})}
	for range committers {
		s.commit.wg.Add(1)
		go s.commitLoop()
	}
}

// stopCommitters ends the committers once their batches under way are
// done.
func (s *Store) stopCommitters() {
	s.commit.once.Do(func() { close(s.commit.quit) })
	s.commit.wg.Wait()
}

// submit hands w to a committer and returns its outcome: nil once
// committed, a refusal, errAlone, or a failure (the outcome unknown). If
// ctx ends while a batch has w, it returns detached and ctx's error: then
// it calls settled once w's outcome is known, never otherwise.
func (s *Store) submit(w *pendingWrite, settled func()) (detached bool, err error) {
	select {
	case s.commit.writes <- w:
	case <-w.ctx.Done():
		return false, w.ctx.Err()
	case <-s.commit.quit:
		return false, errClosed
	}
	select {
	case err := <-w.done:
		return false, err
	case <-w.ctx.Done():
		go func() { <-w.done; settled() }()
		return true, w.ctx.Err()
	}
}

func (s *Store) commitLoop() {
	defer s.commit.wg.Done()
	batch := make([]*pendingWrite, 0, maxBatch)
	for {
		select {
		case w := <-s.commit.writes:
			batch = append(batch[:0], w)
		case <-s.commit.quit:
			return
		}
	more:
		for len(batch) < maxBatch {
			select {
			case w := <-s.commit.writes:
				batch = append(batch, w)
			default:
				break more
			}
		}
		s.writeBatch(batch)
		clear(batch) // let the games go
	}
}

// batchUpdate is a batch's one statement: updateGame (postgres.go) for
// several games at once. The writes are rows of b (their arrays, $1 to
// $10, one element per write; i counts from 1), their events rows of x
// ($11: the write's i, $12: sequence numbers, $13: records). l locks the
// rows still at the version each write was made on, skipping rows another
// session holds; only those are written, with their request ids, events
// and NOTIFYs. One row per write answers: written, whether the game
// exists, and whether it was at the write's version when the statement
// began (the counts of r, e and n make the database run n).
const batchUpdate = `WITH b AS (
	SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::boolean[], $5::text[], $6::timestamptz[],
		$7::timestamptz[], $8::text[], $9::text[], $10::text[])
		WITH ORDINALITY AS b(id, version, last_event, finished, record, updated_at, deadline, request_id, request, payload, i)
), l AS (
	SELECT g.id FROM games g JOIN b ON g.id = b.id AND g.version = b.version - 1
	FOR UPDATE OF g SKIP LOCKED
), u AS (
	UPDATE games g SET version = b.version, last_event = b.last_event, finished = b.finished, record = b.record::jsonb,
		updated_at = b.updated_at, deadline = b.deadline
	FROM b JOIN l ON l.id = b.id
	WHERE g.id = b.id AND g.version = b.version - 1
	RETURNING g.id
), r AS (
	INSERT INTO move_requests (game_id, request_id, record)
	SELECT b.id, b.request_id, b.request::jsonb FROM b JOIN u ON u.id = b.id WHERE b.request_id IS NOT NULL
	RETURNING 1
), e AS (
	INSERT INTO game_events (game_id, seq, record)
	SELECT b.id, x.seq, x.rec::jsonb FROM unnest($11::bigint[], $12::bigint[], $13::text[]) AS x(i, seq, rec)
		JOIN b ON b.i = x.i JOIN u ON u.id = b.id
	RETURNING 1
), n AS (
	SELECT pg_notify('` + Channel + `', b.payload) FROM b JOIN u ON u.id = b.id WHERE b.payload IS NOT NULL
)
SELECT b.i, b.id IN (SELECT id FROM u), EXISTS (SELECT 1 FROM games g WHERE g.id = b.id),
	EXISTS (SELECT 1 FROM games g WHERE g.id = b.id AND g.version = b.version - 1),
	(SELECT count(*) FROM r) + (SELECT count(*) FROM e) + (SELECT count(*) FROM n)
FROM b`

// writeBatch writes batch in one statement and answers each write.
func (s *Store) writeBatch(batch []*pendingWrite) {
	live := make([]*pendingWrite, 0, len(batch))
	seen := make(map[string]bool, len(batch))
	for _, w := range batch {
		switch {
		case w.ctx.Err() != nil:
			w.done <- w.ctx.Err() // its caller left: not written
		case seen[w.p.id]:
			w.done <- errAlone // never with the gates; alone it waits for the other's row lock
		default:
			seen[w.p.id] = true
			live = append(live, w)
		}
	}
	if len(live) == 0 {
		return
	}
	results, err := s.runBatch(live)
	switch {
	case refusedBatch(err):
		for _, w := range live {
			w.done <- errAlone
		}
	case err != nil:
		for _, w := range live {
			s.cache.drop(w.p.id) // written or not: unknown
			w.done <- err
		}
	default:
		for i, w := range live {
			switch r := results[i]; {
			case r.written:
				s.cache.put(w.g)
				w.done <- nil
			case !r.exists:
				w.done <- games.ErrNotFound
			case !r.matched:
				s.cache.drop(w.p.id)
				w.done <- games.ErrConflict
			default:
				w.done <- errAlone // its row was locked, or changed meanwhile
			}
		}
	}
}

// batchResult is a batch's answer for one write: written, whether the
// game exists, and whether it was at the write's version when the
// statement began.
type batchResult struct{ written, exists, matched bool }

// updateSkipLocked is batchUpdate for one write, in updateGame's shape
// (postgres.go), which costs the database less: l locks the game's row
// if it is at the version the write was made on and no other session
// holds it.
const updateSkipLocked = `WITH l AS (
	SELECT id FROM games WHERE id = $1 AND version = $7 FOR UPDATE SKIP LOCKED
), u AS (
	UPDATE games SET version = $2, last_event = $3, finished = $4, record = $5, updated_at = $6, deadline = $8
	WHERE id = (SELECT id FROM l) AND version = $7
	RETURNING id
), ` + updateParts + `,
	EXISTS (SELECT 1 FROM games WHERE id = $1), EXISTS (SELECT 1 FROM games WHERE id = $1 AND version = $7)`

// runBatch runs live's writes in one statement and returns their answers.
func (s *Store) runBatch(live []*pendingWrite) ([]batchResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), OpTimeout)
	defer cancel()
	if len(live) == 1 {
		p := live[0].p
		var (
			r     batchResult
			parts int64
		)
		err := s.pool.QueryRow(ctx, updateSkipLocked, p.id, p.version, p.lastEvent, p.finished, p.record, p.updated, p.version-1, p.deadline,
			p.reqID, p.reqRecord, p.seqs, p.recs, p.payload).Scan(&r.written, &parts, &r.exists, &r.matched)
		return []batchResult{r}, err
	}
	n := len(live)
	var (
		ids                          = make([]string, n)
		versions, lasts              = make([]int64, n), make([]int64, n)
		finished                     = make([]bool, n)
		records                      = make([]string, n)
		updated, deadlines           = make([]pgtype.Timestamptz, n), make([]pgtype.Timestamptz, n)
		reqIDs, reqRecords, payloads = make([]pgtype.Text, n), make([]pgtype.Text, n), make([]pgtype.Text, n)
		evIdx, evSeqs                []int64
		evRecs                       []string
	)
	for i, w := range live {
		p := w.p
		ids[i], versions[i], lasts[i], finished[i], records[i] = p.id, p.version, p.lastEvent, p.finished, p.record
		updated[i] = pgtype.Timestamptz{Time: p.updated, Valid: true}
		if p.deadline != nil {
			deadlines[i] = pgtype.Timestamptz{Time: *p.deadline, Valid: true}
		}
		reqIDs[i], reqRecords[i], payloads[i] = text(p.reqID), text(p.reqRecord), text(p.payload)
		for j := range p.seqs {
			evIdx = append(evIdx, int64(i+1))
			evSeqs = append(evSeqs, p.seqs[j])
			evRecs = append(evRecs, p.recs[j])
		}
	}
	results := make([]batchResult, n)
	answered := 0
	rows, err := s.pool.Query(ctx, batchUpdate, ids, versions, lasts, finished, records, updated, deadlines,
		reqIDs, reqRecords, payloads, evIdx, evSeqs, evRecs)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var (
			i     int64
			r     batchResult
			parts int64
		)
		if err = rows.Scan(&i, &r.written, &r.exists, &r.matched, &parts); err != nil {
			break
		}
		if i >= 1 && i <= int64(n) {
			results[i-1] = r
			answered++
		}
	}
	rows.Close()
	if err == nil {
		err = rows.Err()
	}
	if err == nil && answered != n {
		err = errors.New("postgres store: a batch answered for fewer writes than it had")
	}
	return results, err
}

// refusedBatch reports whether err is the database's refusal of a
// batch's statement while it ran (a unique violation, or another
// integrity or data error of one of its writes): then nothing of it was
// committed, and each write can run alone. Any other error (the
// connection lost, the session ended, the call cancelled) may have come
// after the commit, so its writes' outcome is unknown.
func refusedBatch(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || len(pe.Code) != 5 {
		return false
	}
	class := pe.Code[:2]
	return class == "22" || class == "23"
}

func text(s *string) pgtype.Text {
	if s == nil {
		return pgtype.Text{}
	}
	return pgtype.Text{String: *s, Valid: true}
}

package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
	bbolt "go.etcd.io/bbolt"
)

// The records check: every record decoded and matched to its key and
// game, each game's event log a chain of legal moves; games are checked
// on GOMAXPROCS workers.

// checkRecords checks the store's content: exactly the known buckets, a
// known schema marker, every record decoded by the games codec and
// matching its key and its game (events numbered 1 to the game's last
// event, with the game's moves; request records of known games), and the
// deadline index agreeing with the games' records (schema damone-2 on; a
// damone-1 file has none, and gets one at open), and so the status index
// (schema damone-3 on).
func checkRecords(path string, tx *bbolt.Tx, sum *Summary) error {
	bad := func(format string, args ...any) error { return damaged(path, format, args...) }
	want := [][]byte{bucketMeta, bucketGames, bucketEvents, bucketRequests}
	c := tx.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		known := slices.ContainsFunc(want, func(b []byte) bool { return bytes.Equal(b, k) }) || bytes.Equal(k, bucketDeadlines) ||
			bytes.Equal(k, bucketCreates) || bytes.Equal(k, bucketStatus)
		if v != nil || !known {
			return bad("unknown top-level entry %q", printable(k))
		}
	}
	for _, b := range want {
		if tx.Bucket(b) == nil {
			return bad("no %q bucket", b)
		}
	}
	meta := tx.Bucket(bucketMeta)
	if err := meta.ForEach(func(k, v []byte) error {
		if v == nil || !slices.ContainsFunc(metaKeys, func(m []byte) bool { return bytes.Equal(m, k) }) {
			return bad("unknown entry %q in the meta bucket", printable(k))
		}
		return nil
	}); err != nil {
		return err
	}
	schema := meta.Get(keySchema)
	if !slices.ContainsFunc(knownSchemas, func(s []byte) bool { return bytes.Equal(s, schema) }) {
		return bad("unknown schema %q (this damone reads %s)", printable(schema), schemaList())
	}
	sum.Schema = string(schema)
	deadlinesB := tx.Bucket(bucketDeadlines)
	switch v1 := bytes.Equal(schema, schemaV1); {
	case v1 && deadlinesB != nil:
		return bad("a %q bucket in a file of schema %q, which has none", bucketDeadlines, schema)
	case !v1 && deadlinesB == nil:
		return bad("no %q bucket", bucketDeadlines)
	}
	statusB := tx.Bucket(bucketStatus)
	switch v3 := bytes.Equal(schema, schemaVersion); {
	case !v3 && statusB != nil:
		return bad("a %q bucket in a file of schema %q, which has none", bucketStatus, schema)
	case v3 && statusB == nil:
		return bad("no %q bucket", bucketStatus)
	}

	gamesB, eventsB, requestsB := tx.Bucket(bucketGames), tx.Bucket(bucketEvents), tx.Bucket(bucketRequests)
	// This goroutine walks the buckets (a transaction and its buckets stay
	// on one goroutine: Bucket caches the nested ones) and hands each
	// game's raw records to workers that decode and check them, most of
	// the work.
	walk := func(send func(*gameJob) bool) {
		gamesB.ForEach(func(k, v []byte) error {
			j := &gameJob{key: k, value: v}
			j.events, j.hasEvents = records(eventsB.Bucket(k))
			j.requests, j.hasRequests = records(requestsB.Bucket(k))
			if !send(j) {
				return errStop
			}
			return nil
		})
	}
	deadlines, statuses, err := checkGames(path, runtime.GOMAXPROCS(0), walk, sum)
	if err != nil {
		return err
	}
	if statusB != nil {
		if err := checkStatus(path, statusB, statuses); err != nil {
			return err
		}
	}
	if deadlinesB != nil {
		if err := checkDeadlines(path, deadlinesB, gamesB, deadlines); err != nil {
			return err
		}
	}
	if cb := tx.Bucket(bucketCreates); cb != nil { // none in a file written before it existed
		if err := cb.ForEach(func(k, v []byte) error {
			if v == nil {
				return bad("create_requests: %q is a bucket, not a record", printable(k))
			}
			r, err := decodeRecord(v, func(b []byte) (games.CreateRecord, error) { return games.DecodeCreateRequest(string(k), b) })
			switch {
			case err != nil:
				return bad("create_requests: %q: %v", printable(k), err)
			case len(k) != 64:
				return bad("create_requests: key %q is not a digest", printable(k))
			case gamesB.Get([]byte(r.GameID)) == nil:
				return bad("create_requests: %q: its game %s is not in the games bucket", printable(k), printable([]byte(r.GameID)))
			}
			return nil
		}); err != nil {
			return err
		}
	}
	// Every events or requests bucket belongs to a game.
	for _, b := range []struct {
		name   string
		bucket *bbolt.Bucket
	}{{"events", eventsB}, {"requests", requestsB}} {
		if err := b.bucket.ForEach(func(k, v []byte) error {
			if v != nil {
				return bad("%s: %q is a record, not a game's bucket", b.name, printable(k))
			}
			if gamesB.Get(k) == nil {
				return bad("%s of game %s, which is not in the games bucket", b.name, printable(k))
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

func schemaList() string {
	var b bytes.Buffer
	for i, s := range knownSchemas {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", s)
	}
	return b.String()
}

// decodeRecord decodes a JSON record, which encoding/json always writes
// as valid UTF-8: invalid UTF-8 is damage the decoder would otherwise
// pass over (replacing it inside strings).
func decodeRecord[T any](v []byte, decode func([]byte) (T, error)) (T, error) {
	if !utf8.Valid(v) {
		var zero T
		return zero, errors.New("the record is not valid UTF-8")
	}
	return decode(v)
}

// errStop ends a walk early.
var errStop = errors.New("stop")

// kv is a record's key and value as a bucket holds them; the value of a
// nested bucket is nil.
type kv struct{ k, v []byte }

// records returns the entries of b (nil: none) and whether there is a
// bucket. They point into the file's memory map: valid while the
// transaction that read them is open.
func records(b *bbolt.Bucket) ([]kv, bool) {
	if b == nil {
		return nil, false
	}
	var out []kv
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		out = append(out, kv{k, v})
	}
	return out, true
}

// gameJob is one game's raw records: its key and record in the games
// bucket, and the entries of its events and requests buckets (whether it
// has them). The slices point into the file's memory map.
type gameJob struct {
	index                  int // in key order
	key, value             []byte
	events, requests       []kv
	hasEvents, hasRequests bool
}

// tally is what one worker of checkGames found in the games it checked:
// their counts and their keys in the deadline index (deadlineKey) and
// the status index (statusKey).
type tally struct {
	Summary
	deadlines, statuses [][]byte
}

// checkGames checks games on worker goroutines. walk runs on the calling
// goroutine and sends every game in key order; send reports false once
// the check has failed (later games cannot change the answer). The error
// is that of the first failing game in key order, whatever the workers'
// timing: the same as one goroutine checking them in turn. A panic or a
// memory fault, in walk or in a worker, is the failure of the game at
// hand. checkGames returns after every worker is done, so the caller may
// then close the transaction the records point into. It returns the keys
// the games should have in the deadline index and in the status index,
// in no order. The counts
// in sum and the keys are complete only when the error is nil.
func checkGames(path string, workers int, walk func(send func(*gameJob) bool), sum *Summary) (deadlines, statuses [][]byte, err error) {
	var (
		failedAt atomic.Int64 // the smallest index that failed; MaxInt64: none
		mu       sync.Mutex
		failure  error
		counts   = make([]tally, workers)
		wg       sync.WaitGroup
		jobs     = make(chan *gameJob, 4*workers)
	)
	failedAt.Store(math.MaxInt64)
	fail := func(i int, err error) {
		mu.Lock()
		defer mu.Unlock()
		if int64(i) < failedAt.Load() {
			failedAt.Store(int64(i))
			failure = err
		}
	}
	for w := range workers {
		c := &counts[w]
		wg.Go(func() {
			for j := range jobs {
				if int64(j.index) > failedAt.Load() {
					continue // an earlier game failed: this one cannot change the answer
				}
				if err := guarded(path, func() error { return checkGame(path, j, c) }); err != nil {
					fail(j.index, err)
				}
			}
		})
	}
	next := 0
	// Wait for the workers however walk ends: they read
	// the memory map, which the caller unmaps when it returns.
	func() {
		defer func() {
			close(jobs)
			wg.Wait()
		}()
		err := guarded(path, func() error {
			walk(func(j *gameJob) bool {
				if failedAt.Load() != math.MaxInt64 {
					return false
				}
				j.index = next
				next++
				jobs <- j
				return true
			})
			return nil
		})
		if err != nil {
			fail(next, err)
		}
	}()
	if failure != nil {
		return nil, nil, failure
	}
	for _, c := range counts {
		sum.Games += c.Games
		sum.Events += c.Events
		sum.Requests += c.Requests
		deadlines = append(deadlines, c.deadlines...)
		statuses = append(statuses, c.statuses...)
	}
	return deadlines, statuses, nil
}

// checkStatus checks the status index (bucket b) against want, the keys
// of the games' records: exactly those keys, each with an empty value.
func checkStatus(path string, b *bbolt.Bucket, want [][]byte) error {
	bad := func(format string, args ...any) error {
		return damaged(path, "status index: "+format, args...)
	}
	name := func(k []byte) string {
		if len(k) > 0 && k[0] == statusOver {
			return "over"
		}
		return "going on"
	}
	// A wanted key missing while the game is under the other status is a
	// status that disagrees with the record.
	missing := func(w []byte) error {
		other := append([]byte{statusGoing}, w[1:]...)
		if w[0] == statusGoing {
			other[0] = statusOver
		}
		if b.Get(other) != nil {
			return bad("game %s is listed as %s, but its record is %s", printable(w[1:]), name(other), name(w))
		}
		return bad("no key for game %s (%s)", printable(w[1:]), name(w))
	}
	slices.SortFunc(want, bytes.Compare)
	i := 0
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		switch {
		case v == nil:
			return bad("%s is a bucket, not a key", printable(k))
		case len(k) < 2 || (k[0] != statusGoing && k[0] != statusOver):
			return bad("key %s is not a status and a game id", printable(k))
		case len(v) != 0:
			return bad("the key of game %s holds %d bytes (want none)", printable(k[1:]), len(v))
		}
		if i < len(want) && bytes.Compare(want[i], k) < 0 {
			return missing(want[i])
		}
		if i < len(want) && bytes.Equal(want[i], k) {
			i++
			continue
		}
		if j := slices.IndexFunc(want, func(w []byte) bool { return bytes.Equal(w[1:], k[1:]) }); j >= 0 {
			return bad("game %s is listed as %s, but its record is %s", printable(k[1:]), name(k), name(want[j]))
		}
		return bad("a key for game %s, which is not in the games bucket", printable(k[1:]))
	}
	if i < len(want) {
		return missing(want[i])
	}
	return nil
}

// checkDeadlines checks the deadline index (bucket b) against want, the
// keys of the games' records (games bucket gamesB): exactly those keys,
// each with an empty value.
func checkDeadlines(path string, b, gamesB *bbolt.Bucket, want [][]byte) error {
	bad := func(format string, args ...any) error {
		return damaged(path, "deadline index: "+format, args...)
	}
	missing := func(k []byte) error {
		return bad("no key for game %s, whose clock's deadline is %s", printable(k[deadlinePrefix:]), keyDeadline(k).Format(time.RFC3339Nano))
	}
	slices.SortFunc(want, bytes.Compare)
	i := 0
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		switch {
		case v == nil:
			return bad("%s is a bucket, not a key", printable(k))
		case len(k) <= deadlinePrefix:
			return bad("a key of %d bytes, too short for a deadline and a game id", len(k))
		case len(v) != 0:
			return bad("the key of game %s holds %d bytes (want none)", printable(k[deadlinePrefix:]), len(v))
		}
		if i < len(want) && bytes.Compare(want[i], k) < 0 {
			return missing(want[i])
		}
		if i < len(want) && bytes.Equal(want[i], k) {
			i++
			continue
		}
		// A stray key: say what the game's record has instead.
		id, at := k[deadlinePrefix:], keyDeadline(k).Format(time.RFC3339Nano)
		if gamesB.Get(id) == nil {
			return bad("a key for game %s (deadline %s), which is not in the games bucket", printable(id), at)
		}
		if j := slices.IndexFunc(want, func(w []byte) bool { return bytes.Equal(w[deadlinePrefix:], id) }); j >= 0 {
			return bad("game %s is at deadline %s, but its clock's deadline is %s", printable(id), at, keyDeadline(want[j]).Format(time.RFC3339Nano))
		}
		return bad("game %s is at deadline %s, but it has none (no clock, or the game is over)", printable(id), at)
	}
	if i < len(want) {
		return missing(want[i])
	}
	return nil
}

// checkGame checks one game's record, events and requests, adding what
// it counts, and its key in the deadline index, to c.
func checkGame(path string, j *gameJob, c *tally) error {
	bad := func(format string, args ...any) error { return damaged(path, format, args...) }
	k, v := j.key, j.value
	if v == nil {
		return bad("game %q is a bucket, not a record", printable(k))
	}
	g, err := decodeRecord(v, games.DecodeGame)
	if err != nil {
		return bad("game %s: %v", printable(k), err)
	}
	if g.ID != string(k) {
		return bad("game %s: its record is of game %q", printable(k), printable([]byte(g.ID)))
	}
	c.Games++
	key, err := deadlineKey(g)
	if err != nil {
		return bad("%v", err)
	}
	if key != nil {
		c.deadlines = append(c.deadlines, key)
	}
	c.statuses = append(c.statuses, statusKey(g))
	n, err := checkEvents(j.events, j.hasEvents, g)
	c.Events += n
	if err != nil {
		return bad("game %s: %v", g.ID, err)
	}
	n, err = checkRequests(j.requests, j.hasRequests, g)
	c.Requests += n
	if err != nil {
		return bad("game %s: %v", g.ID, err)
	}
	return nil
}

// checkEvents checks a game's events (the entries of its events bucket,
// if it has one): numbered 1 to the game's last event, each of the game,
// and a chain from the game's initial position to its position: every
// move legal in the position before it and leading to the position its
// event records, every other event at the position before it. The log is
// where the game's moves are kept.
func checkEvents(events []kv, present bool, g *games.Game) (int, error) {
	if !present {
		return 0, fmt.Errorf("no events (want %d)", g.LastEvent)
	}
	n := int64(0)
	moves := 0
	pos := g.Initial
	legal := make([]engine.Move, 0, 128) // GenerateMoves' storage, reused: it allocates nothing at this capacity
	for _, r := range events {
		k, v := r.k, r.v
		n++
		if v == nil {
			return int(n), fmt.Errorf("event key %s is a bucket", printable(k))
		}
		if len(k) != 8 || int64(binary.BigEndian.Uint64(k)) != n {
			return int(n), fmt.Errorf("event key %s where event %d should be", printable(k), n)
		}
		e, err := decodeRecord(v, games.DecodeEvent)
		if err != nil {
			return int(n), fmt.Errorf("event %d: %w", n, err)
		}
		switch {
		case e.GameID != g.ID || e.Sequence != n:
			return int(n), fmt.Errorf("event %d: its record is event %d of game %q", n, e.Sequence, printable([]byte(e.GameID)))
		case (n == 1) != (e.Kind == games.EventCreated):
			return int(n), fmt.Errorf("event %d is of kind %v (only event 1 is the game's creation)", n, e.Kind)
		case e.Ply < 0 || e.Ply > g.Ply():
			return int(n), fmt.Errorf("event %d: at ply %d of a game of %d moves", n, e.Ply, g.Ply())
		case e.Kind == games.EventMovePlayed && e.Ply != moves+1:
			return int(n), fmt.Errorf("event %d: move %s at ply %d, after %d moves", n, e.Move.Move.String(), e.Ply, moves)
		}
		if e.Kind == games.EventMovePlayed {
			var m engine.Move
			if m, legal, err = legalMove(&pos, &e.Move.Move, legal); err != nil {
				return int(n), fmt.Errorf("event %d: move %s is not legal after the moves before it: %v", n, e.Move.Move.String(), err)
			}
			pos.Play(&m)
			moves++
		}
		if !samePosition(&e.Position, &pos) {
			return int(n), fmt.Errorf("event %d: at position %s, but its moves lead to %s", n, e.Position.String(), pos.String())
		}
	}
	switch {
	case n != g.LastEvent:
		return int(n), fmt.Errorf("%d events, but its last event is %d", n, g.LastEvent)
	case moves != g.Ply():
		return int(n), fmt.Errorf("%d moves in its events, but the game is at ply %d", moves, g.Ply())
	case !samePosition(&pos, &g.Position):
		return int(n), fmt.Errorf("its moves lead to %s, but it is at %s", pos.String(), g.Position.String())
	}
	return int(n), nil
}

// legalMove returns the legal move of p that m (a move as its record
// gives it) names, as p.ParseMove(m.String()) does: found among p's legal
// moves (generated into buf, which it returns for reuse) when one has m's
// origin, landing squares and captures, else by ParseMove itself, which
// also takes an equivalent path and explains a refusal.
func legalMove(p *engine.Position, m *engine.Move, buf []engine.Move) (engine.Move, []engine.Move, error) {
	buf = p.GenerateMoves(buf)
	for i := range buf {
		if l := &buf[i]; l.Equivalent(m) && samePath(l, m) {
			return *l, buf, nil
		}
	}
	l, err := p.ParseMove(m.String())
	return l, buf, err
}

// samePath reports whether a and b have the same landing squares.
func samePath(a, b *engine.Move) bool {
	if a.NumLandings() != b.NumLandings() {
		return false
	}
	for i := range a.NumLandings() {
		if a.Landing(i) != b.Landing(i) {
			return false
		}
	}
	return true
}

// samePosition reports whether p and q have the same text form (String):
// the same pieces, side to move and no-progress count.
func samePosition(p, q *engine.Position) bool {
	return p.SamePlacement(q) && p.NoProgress() == q.NoProgress()
}

// checkRequests checks a game's request records (the entries of its
// requests bucket, if it has one).
func checkRequests(reqs []kv, present bool, g *games.Game) (int, error) {
	if !present {
		return 0, nil
	}
	n := 0
	for _, rec := range reqs {
		k, v := rec.k, rec.v
		n++
		if v == nil {
			return n, fmt.Errorf("request %q is a bucket", printable(k))
		}
		r, err := decodeRecord(v, games.DecodeRequest)
		if err != nil {
			return n, fmt.Errorf("request %q: %w", printable(k), err)
		}
		switch {
		case r.RequestID != string(k):
			return n, fmt.Errorf("request %q: its record is of request %q", printable(k), printable([]byte(r.RequestID)))
		case r.Ply < 1 && r.Call == games.CallMove, r.Ply < 0 || r.Ply > g.Ply() || r.Sequence < 1 || r.Sequence > g.LastEvent || r.Version > g.Version || r.LastEvent > g.LastEvent:
			return n, fmt.Errorf("request %q: ply %d, event %d, version %d, beyond the game's %d, %d, %d",
				printable(k), r.Ply, r.Sequence, r.Version, g.Ply(), g.LastEvent, g.Version)
		}
	}
	return n, nil
}

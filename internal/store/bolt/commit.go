package bolt

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/damone-rules/damone/internal/games"
)

// Group commit. One goroutine, the committer, takes every write: all the
// writes waiting when it is free form a group, which it checks (version,
// event sequence, duplicate request, a game that exists) against the
// groups before it, appends to the write-ahead log (wal.go) as one frame
// in one durable write (wal.append), adds to the overlay (overlay.go) and
// only then acknowledges. Writes that arrive while a group syncs form the
// next one, so a lone writer waits for nothing but its own sync, and many
// writers share one. While many games are played, the committer also
// waits a little for the writers of its last group to come back
// (lingerFor), so groups hold most of the games at once rather than half
// of them. bbolt is written behind, by the checkpointer (checkpoint.go).

// maxGroup bounds the writes of one group, so one frame's size and the
// time its first writer waits stay bounded.
const maxGroup = 256

// lingerMax bounds the wait for a group's writers to come back (lingerFor):
// the latency a move may gain for sharing a commit, on a disk whose
// syncs take longer. Through the server at 64 games a writer's round
// trip is milliseconds (the client's answer, its next call, the move's
// own work): a wait of at most 1 ms left groups as they were (about 30
// writes), one of up to a commit's time doubled them.
const lingerMax = 10 * time.Millisecond

// write is one caller's change, checked by the committer (check).
type write struct {
	c    *change
	done chan error
}

var errClosed = errors.New("embedded store: closed")

// start returns the store on db, which holds games games, writing its
// log from group next on in segments numbered from 1, with its committer
// and checkpointer running.
func start(db *bbolt.DB, games int, next int64) (*Store, error) {
	dir := dirOf(db.Path())
	w, err := newWAL(dir, 1, next)
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, heads: newHeads(), fill: newFiller(db.Path()), storeState: storeState{
		wal: w, ov: newOverlay(), applied: next - 1,
		writes: make(chan *write), quit: make(chan struct{}), done: make(chan struct{}),
		trimmed: make(chan checkpointed), nudge: make(chan struct{}, 1), ckptNow: make(chan chan error), ckptQuit: make(chan struct{}), ckptDone: make(chan struct{}),
	}}
	s.games.Store(int64(games))
	go s.commitLoop()
	go s.checkpointLoop()
	return s, nil
}

// write hands c to the committer and returns once it is durable (or was
// refused, or failed).
func (s *Store) write(c *change) error {
	w := &write{c: c, done: make(chan error, 1)}
	s.arrived.Add(1)
	select {
	case s.writes <- w:
	case <-s.quit:
		return errClosed
	}
	return <-w.done
}

// stop ends the committer once the group under way, if any, is done.
func (s *Store) stop() {
	s.stopping.Do(func() { close(s.quit) })
	<-s.done
}

func (s *Store) commitLoop() {
	defer close(s.done)
	group := make([]*write, 0, maxGroup)
	// Go 1.23 timers: Reset and Stop leave no stale tick to drain.
	timer := time.NewTimer(lingerMax)
	timer.Stop()
	var (
		prev  int           // writes of the last group
		ended int64         // writes handed over before its acknowledgements
		took  time.Duration // and how long it took
	)
	for {
		select {
		case w := <-s.writes:
			group = append(group[:0], w)
		case c := <-s.trimmed:
			s.afterCheckpoint(c)
			continue
		case <-s.quit:
			return
		}
		waiting := false // the timer runs: one wait per group, not per write
	more:
		for len(group) < maxGroup {
			select {
			case w := <-s.writes:
				group = append(group, w)
				continue
			default:
			}
			d := lingerFor(prev, s.arrived.Load()-ended, took)
			if d <= 0 {
				break
			}
			if !waiting {
				timer.Reset(d)
				waiting = true
			}
			select {
			case w := <-s.writes:
				group = append(group, w)
			case <-timer.C:
				waiting = false
				break more
			case <-s.quit:
				break more
			}
		}
		if waiting {
			timer.Stop()
		}
		if err := s.keepUp(); err != nil {
			for _, w := range group {
				w.done <- err
			}
			ended = s.arrived.Load()
			continue
		}
		prev = len(group)
		start := time.Now()
		ended = s.commit(group)
		took = time.Since(start)
	}
}

// maxBehind bounds the log bytes not yet checkpointed (so the overlay's
// memory too): past it, writers wait for a checkpoint. checkpointAt is
// where the committer asks for one early.
const (
	maxBehind    = 64 << 20
	checkpointAt = 8 << 20
)

// keepUp waits, while the log is maxBehind ahead of bbolt, for
// checkpoints, and returns a checkpoint's error (the group is failed
// with it) or errClosed.
func (s *Store) keepUp() error {
	for {
		behind, _ := s.ov.behind()
		if behind >= checkpointAt {
			select {
			case s.nudge <- struct{}{}:
			default:
			}
		}
		if behind < maxBehind {
			return nil
		}
		select {
		case c := <-s.trimmed:
			s.afterCheckpoint(c)
			if c.err != nil {
				return c.err
			}
		case <-s.quit:
			return errClosed
		}
	}
}

// afterCheckpoint drops from the overlay and the log what checkpoint c
// wrote into bbolt. Only the committer does it, between groups, so its
// checks never look for a game between the two (in neither).
func (s *Store) afterCheckpoint(c checkpointed) {
	if c.err == nil {
		s.ov.trim(c.upto)
		s.wal.retire(c.upto)
	}
}

// lingerFor is how long, in all, the committer may wait for more writes
// to join the group it holds, given that the last group took took for
// prev writes and arrived writes came since it ended (0: commit now).
// Writers acknowledged by a group come back with their next write soon
// after it: while fewer than prev have, it waits, at most lingerMax and
// at most as long as that group took (a store on a fast disk waits
// little), so their writes share the next sync instead of each starting
// a new one. A lone writer (prev 1) never waits.
func lingerFor(prev int, arrived int64, took time.Duration) time.Duration {
	if prev < 2 || arrived >= int64(prev) {
		return 0
	}
	return min(took, lingerMax)
}

// pending is what a group's checks see of its own earlier writes.
type pending struct {
	games   map[string]*games.Game
	reqs    map[[2]string]bool
	creates map[string]bool
}

// commit checks group's writes, logs the accepted ones in one frame and
// answers each write. It returns how many writes had been handed over
// when the frame was synced, before any answer went out: the writes that
// come after are the answered ones coming back (lingerFor).
func (s *Store) commit(group []*write) (ended int64) {
	if s.hold != nil {
		s.hold()
	}
	errs := make([]error, len(group))
	if s.broken != nil {
		for _, w := range group {
			w.done <- s.broken
		}
		return s.arrived.Load()
	}
	p := pending{games: map[string]*games.Game{}, reqs: map[[2]string]bool{}, creates: map[string]bool{}}
	accepted := make([]*change, 0, len(group))
	frame := s.wal.frame()
	tx, err := s.db.Begin(false)
	if err == nil {
		for i, w := range group {
			if errs[i] = s.check(tx, &p, w.c); errs[i] == nil {
				accepted = append(accepted, w.c)
				frame = encodeChange(frame, w.c)
			}
		}
		tx.Rollback()
	}
	if err == nil && len(accepted) > 0 {
		var (
			g       int64
			touched bool
		)
		if g, touched, err = s.wal.append(frame, !s.noSync.Load()); err != nil {
			if touched { // what the log holds is unknown now: no more writes
				// The frame may still be on disk and replayed at the next
				// Open: this group's writes are not known to have failed.
				s.broken = fmt.Errorf("%w (the store takes no more writes; restart the server; a write that got this error may have been kept: retrying it with the same request_id answers which)", err)
				err = s.broken
			}
		} else {
			s.ov.merge(g, accepted, frameLen(len(frame)-walHeader))
			for _, c := range accepted {
				if c.create {
					s.games.Add(1)
				}
				s.heads.keepHead(c.id, c.data, c.g)
			}
		}
	}
	ended = s.arrived.Load()
	for i, w := range group {
		if errs[i] == nil {
			errs[i] = err
		}
		w.done <- errs[i]
	}
	return ended
}

// current returns game id as the groups before and the group's own
// earlier writes left it, or nil if there is none.
func (s *Store) current(tx *bbolt.Tx, p *pending, id string) (*games.Game, error) {
	if g := p.games[id]; g != nil {
		return g, nil
	}
	if e, _ := s.ov.game(id); e != nil {
		if e.g != nil {
			return e.g, nil
		}
		return s.heads.peek(id, e.data)
	}
	v := tx.Bucket(bucketGames).Get([]byte(id))
	if v == nil {
		return nil, nil
	}
	return s.heads.peek(id, v)
}

// check refuses c with games.ErrConflict, ErrDuplicateRequest or
// ErrNotFound as the store's contract says (games.Store), or accepts it
// into p. tx is the bbolt state under the overlay.
func (s *Store) check(tx *bbolt.Tx, p *pending, c *change) error {
	stored, err := s.current(tx, p, c.id)
	if err != nil {
		return err
	}
	if c.create {
		if stored != nil {
			return games.ErrConflict
		}
		if _, evs := s.ov.game(c.id); len(evs) > 0 {
			return games.ErrConflict
		}
		if eb := tx.Bucket(bucketEvents).Bucket([]byte(c.id)); eb != nil && eb.Stats().KeyN > 0 {
			return games.ErrConflict
		}
		if c.reqData != nil {
			if _, ok := s.ov.createRequest(c.reqKey); ok || p.creates[c.reqKey] || tx.Bucket(bucketCreates).Get([]byte(c.reqKey)) != nil {
				return games.ErrDuplicateRequest
			}
			p.creates[c.reqKey] = true
		}
		p.games[c.id] = c.g
		return nil
	}
	if stored == nil {
		return games.ErrNotFound
	}
	if stored.Version != c.g.Version-1 {
		return games.ErrConflict
	}
	for i := range c.events {
		if c.events[i].seq != stored.LastEvent+int64(i)+1 {
			return games.ErrConflict
		}
	}
	if c.reqData != nil {
		k := [2]string{c.id, c.reqKey}
		if p.reqs[k] {
			return games.ErrDuplicateRequest
		}
		if _, ok := s.ov.request(c.id, c.reqKey); ok {
			return games.ErrDuplicateRequest
		}
		if rb := tx.Bucket(bucketRequests).Bucket([]byte(c.id)); rb != nil && rb.Get([]byte(c.reqKey)) != nil {
			return games.ErrDuplicateRequest
		}
		p.reqs[k] = true
	}
	p.games[c.id] = c.g
	return nil
}

// storeState is the Store's part that runs the committer and checkpointer.
type storeState struct {
	wal      *wal
	ov       *overlay
	applied  int64  // the last group in bbolt: the checkpointer's
	broken   error  // the committer's: set once a log append failed
	hold     func() // tests: run by the committer before each group
	noSync   atomic.Bool
	writes   chan *write
	quit     chan struct{}
	stopping sync.Once
	done     chan struct{}
	trimmed  chan checkpointed
	nudge    chan struct{}
	ckptNow  chan chan error
	ckptQuit chan struct{}
	ckptDone chan struct{}
}

// setNoSync turns off (or back on) the syncs of the log and of bbolt: for
// tests and benchmarks whose setup needs speed, not durability.
func (s *Store) setNoSync(off bool) {
	s.noSync.Store(off)
	s.db.NoSync = off
}

package bolt

import (
	"errors"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/damone-rules/damone/internal/games"
)

// Group commit. bbolt has one writer at a time and syncs the file at every
// commit, so a write per transaction caps a store at one fsync per move
// however many games are played at once. Here one goroutine commits every
// write: it takes all the writes waiting when it is free, runs them in one
// transaction and acknowledges each only after that transaction is on
// disk. Writes that arrive while a commit syncs form the next one, so a
// lone writer waits for nothing but its own fsync, and many writers share
// one. While many games are played, the committer also waits a little
// for the writers of its last commit to come back (lingerFor), so groups
// hold most of the games at once rather than half of them. (bbolt's own
// Batch waits a fixed delay for company, alone or not.)

// maxGroup bounds the writes of one transaction, so one commit's size and
// the time its first writer waits stay bounded.
const maxGroup = 256

// lingerMax bounds the wait for a group's writers to come back (lingerFor):
// the latency a move may gain for sharing a commit, on a disk whose
// commits take longer. Through the server at 64 games a writer's round
// trip is milliseconds (the client's answer, its next call, the move's
// own work): a wait of at most 1 ms left groups as they were (about 30
// writes), one of up to a commit's time doubled them.
const lingerMax = 10 * time.Millisecond

// write is one caller's change: fn runs inside a shared transaction and
// must make every check that can refuse the change (a games.ErrConflict,
// ErrDuplicateRequest or ErrNotFound) before its first write, so a refused
// write leaves the transaction as it found it.
type write struct {
	fn     func(*bbolt.Tx) error
	create bool // adds a game: counted once committed
	done   chan error
}

var errClosed = errors.New("embedded store: closed")

// start returns the store on db, which holds games games, with its
// committer running.
func start(db *bbolt.DB, games int) *Store {
	s := &Store{db: db, heads: newHeads(), fill: newFiller(db.Path()), writes: make(chan *write), quit: make(chan struct{}), done: make(chan struct{})}
	s.games.Store(int64(games))
	go s.commitLoop()
	return s
}

// write runs fn in a transaction shared with other writers and returns
// once that transaction is on disk (or failed).
func (s *Store) write(create bool, fn func(*bbolt.Tx) error) error {
	w := &write{fn: fn, create: create, done: make(chan error, 1)}
	s.arrived.Add(1)
	select {
	case s.writes <- w:
	case <-s.quit:
		return errClosed
	}
	return <-w.done
}

// stop ends the committer once the commit under way, if any, is done.
func (s *Store) stop() {
	select {
	case <-s.quit:
	default:
		close(s.quit)
	}
	<-s.done
}

func (s *Store) commitLoop() {
	defer close(s.done)
	defer s.fill.close()
	group := make([]*write, 0, maxGroup)
	// Go 1.23 timers: Reset and Stop leave no stale tick to drain.
	timer := time.NewTimer(lingerMax)
	timer.Stop()
	var (
		prev  int           // writes of the last commit
		ended int64         // writes handed over before its acknowledgements
		took  time.Duration // and how long it took
	)
	for {
		select {
		case w := <-s.writes:
			group = append(group[:0], w)
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
		prev = len(group)
		start := time.Now()
		ended = s.commit(group)
		took = time.Since(start)
	}
}

// lingerFor is how long, in all, the committer may wait for more writes
// to join the group it holds, given that the last commit took took for
// prev writes and arrived writes came since it ended (0: commit now).
// Writers acknowledged by a commit come back with their next write soon
// after it: while fewer than prev have, it waits, at most lingerMax and
// at most as long as that commit took (a store on a fast disk waits
// little), so their writes share the next commit instead of each starting
// a new one, and many games at once cost fewer commits (two fsyncs, a
// meta page, the shared pages above the games') per move. A lone writer
// (prev 1) never waits.
func lingerFor(prev int, arrived int64, took time.Duration) time.Duration {
	if prev < 2 || arrived >= int64(prev) {
		return 0
	}
	return min(took, lingerMax)
}

// refusal reports whether err is a check's answer rather than a failure:
// the write changed nothing, and the others of its group go on.
func refusal(err error) bool {
	return errors.Is(err, games.ErrConflict) || errors.Is(err, games.ErrDuplicateRequest) || errors.Is(err, games.ErrNotFound)
}

// groupFailed carries out of the transaction the first write that failed
// other than by a refusal: it may have written part of its change.
type groupFailed struct{ err error }

func (e *groupFailed) Error() string { return e.err.Error() }

// commit runs group in one transaction (each write alone if the group
// fails) and answers each write. It returns how many writes had been
// handed over when its last transaction ended, before any answer went
// out: the writes that come after are the answered ones coming back
// (lingerFor).
func (s *Store) commit(group []*write) (ended int64) {
	errs := make([]error, len(group))
	err := s.db.Update(func(tx *bbolt.Tx) error {
		s.fill.ahead(tx.Size())
		for i, w := range group {
			if err := w.fn(tx); err != nil {
				if !refusal(err) {
					return &groupFailed{err}
				}
				errs[i] = err
			}
		}
		return nil
	})
	ended = s.arrived.Load()
	var failed *groupFailed
	switch {
	case err == nil:
		for i, w := range group {
			if errs[i] == nil && w.create {
				s.games.Add(1)
			}
			w.done <- errs[i]
		}
	case errors.As(err, &failed) && len(group) > 1:
		// The whole transaction was rolled back: run each write alone, so
		// only the one at fault fails.
		for _, w := range group {
			ended = s.commit([]*write{w})
		}
	default:
		if failed != nil {
			err = failed.err
		}
		for _, w := range group {
			w.done <- err
		}
	}
	return ended
}

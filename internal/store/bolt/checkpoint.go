package bolt

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/damone-rules/damone/internal/games"
)

// Checkpoints. In the background the checkpointer writes the overlay (the
// groups logged since the last checkpoint) into bbolt in one normal
// transaction, synced as every bbolt commit is, that also records the
// last group it holds (meta key "wal"). Each game's pages are then written
// once per checkpoint rather than once per move. Then the committer drops
// those groups from the overlay and removes the log segments that hold
// nothing later.

// checkpointEvery is how often the checkpointer writes the overlay into
// bbolt (sooner when the log grows past checkpointAt).
var checkpointEvery = 200 * time.Millisecond

// keyApplied is the meta key of the last log group the file holds: 8
// bytes, big-endian. A file without it holds none.
var keyApplied = []byte("wal")

// checkpointed is a checkpoint's outcome: the groups up to upto are in
// bbolt, unless err.
type checkpointed struct {
	upto int64
	err  error
}

func dirOf(path string) string { return filepath.Dir(path) }

// appliedGroup returns the last log group the file of tx holds.
func appliedGroup(tx *bbolt.Tx) (int64, error) {
	v := tx.Bucket(bucketMeta).Get(keyApplied)
	if v == nil {
		return 0, nil
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("meta key %q holds %d bytes, not 8", keyApplied, len(v))
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

func (s *Store) checkpointLoop() {
	defer close(s.ckptDone)
	tick := time.NewTicker(checkpointEvery)
	defer tick.Stop()
	for {
		var reply chan error
		select {
		case <-tick.C:
		case <-s.nudge:
		case reply = <-s.ckptNow:
		case <-s.ckptQuit:
			return
		}
		c := s.checkpoint()
		if reply != nil {
			reply <- c.err
		}
		if c.upto == 0 && c.err == nil {
			continue // nothing new
		}
		select {
		case s.trimmed <- c:
		case <-s.done: // the committer stopped: Close trims no more
		}
	}
}

// checkpoint writes the overlay into bbolt. It returns upto 0 when there
// was nothing new.
func (s *Store) checkpoint() checkpointed {
	v := s.ov.snapshot(true)
	if v.last <= s.applied {
		return checkpointed{}
	}
	err := s.db.Update(func(tx *bbolt.Tx) error {
		s.fill.ahead(tx.Size())
		_, err := applyView(tx, v)
		return err
	})
	if err != nil {
		return checkpointed{err: fmt.Errorf("embedded store: checkpoint: %w", err)}
	}
	s.applied = v.last
	return checkpointed{upto: v.last}
}

// checkpointNow writes everything acknowledged so far into bbolt.
func (s *Store) checkpointNow() error {
	reply := make(chan error, 1)
	select {
	case s.ckptNow <- reply:
	case <-s.ckptDone:
		return errClosed
	}
	return <-reply
}

// applyView writes the overlay state v into tx: each game's record and
// its index keys (moved from those of the record it replaces), its new
// events and requests, and the last group, v.last. It returns how many
// of its games were not in the file.
func applyView(tx *bbolt.Tx, v *view) (created int, err error) {
	gb := tx.Bucket(bucketGames)
	for _, id := range sortedKeys(v.games) {
		e := v.games[id]
		var oldD, oldS []byte
		if cur := gb.Get([]byte(id)); cur != nil {
			stored, err := games.DecodeGame(cur)
			if err != nil {
				return 0, fmt.Errorf("game %s: %w", id, err)
			}
			if oldD, err = deadlineKey(stored); err != nil {
				return 0, fmt.Errorf("stored record: %w", err)
			}
			oldS = statusKey(stored)
		} else {
			created++
		}
		if err := gb.Put([]byte(id), e.data); err != nil {
			return 0, err
		}
		if err := moveDeadline(tx, oldD, e.dkey); err != nil {
			return 0, err
		}
		if err := moveStatus(tx, oldS, e.skey); err != nil {
			return 0, err
		}
	}
	for _, id := range sortedKeys(v.events) {
		if err := putEvents(tx, id, v.events[id]); err != nil {
			return 0, err
		}
	}
	for _, id := range sortedKeys(v.reqs) {
		rb, err := tx.Bucket(bucketRequests).CreateBucketIfNotExists([]byte(id))
		if err != nil {
			return 0, err
		}
		for _, k := range sortedKeys(v.reqs[id]) {
			if err := rb.Put([]byte(k), v.reqs[id][k].data); err != nil {
				return 0, err
			}
		}
	}
	cb := tx.Bucket(bucketCreates)
	for _, k := range sortedKeys(v.creates) {
		if err := cb.Put([]byte(k), v.creates[k].data); err != nil {
			return 0, err
		}
	}
	return created, tx.Bucket(bucketMeta).Put(keyApplied, binary.BigEndian.AppendUint64(nil, uint64(v.last)))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// putEvents writes a game's events, which follow its last one in tx (or
// are already there, the same).
func putEvents(tx *bbolt.Tx, id string, events []ovEvent) error {
	eb, err := tx.Bucket(bucketEvents).CreateBucketIfNotExists([]byte(id))
	if err != nil {
		return err
	}
	// Events are only appended: a leaf left full when it splits is never
	// written again, where bbolt's default (half full) would leave twice
	// the leaves, and split twice as often. A setting of this transaction
	// only: the file's format is the same.
	eb.FillPercent = 1
	for _, e := range events {
		if err := eb.Put(seqKey(e.seq), e.data); err != nil {
			return err
		}
	}
	return nil
}

// replay applies the log in dir after the group the file of db holds to
// db in one synced commit, then removes the log. It returns the games the
// log created and the last group.
func replay(db *bbolt.DB, dir string) (created int, last int64, err error) {
	var applied int64
	if err := db.View(func(tx *bbolt.Tx) error { applied, err = appliedGroup(tx); return err }); err != nil {
		return 0, 0, err
	}
	frames, paths, err := readLog(dir, applied)
	if err != nil {
		return 0, 0, err
	}
	last = applied
	if len(frames) > 0 {
		o := newOverlay()
		for _, f := range frames {
			cs, err := decodeChanges(f.payload)
			if err != nil {
				return 0, 0, damaged(f.path, "write-ahead log: group %d: %v", f.group, err)
			}
			ptrs := make([]*change, len(cs))
			for i := range cs {
				ptrs[i] = &cs[i]
			}
			o.merge(f.group, ptrs, 0)
		}
		v := o.snapshot(true)
		err = db.Update(func(tx *bbolt.Tx) error {
			created, err = applyView(tx, v)
			return err
		})
		if err != nil {
			return 0, 0, fmt.Errorf("replaying the write-ahead log: %w", err)
		}
		last = v.last
	}
	for _, p := range paths {
		if err := removeFile(p); err != nil {
			return 0, 0, err
		}
	}
	if len(paths) > 0 {
		if err := syncDir(dir); err != nil {
			return 0, 0, err
		}
	}
	return created, last, nil
}

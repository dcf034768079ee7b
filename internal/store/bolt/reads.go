package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/damone-rules/damone/internal/games"
)

// Reads see the overlay (overlay.go) over bbolt: each takes what it needs
// of the overlay before it opens its bbolt transaction, and an overlay
// entry wins over bbolt's record of the same game.

func (s *Store) Get(_ context.Context, id string) (*games.Game, error) {
	if e, _ := s.ov.game(id); e != nil {
		return s.heads.decode(id, e.data)
	}
	var g *games.Game
	err := s.db.View(func(tx *bbolt.Tx) error {
		v := tx.Bucket(bucketGames).Get([]byte(id))
		if v == nil {
			return games.ErrNotFound
		}
		var err error
		g, err = s.heads.decode(id, v)
		return err
	})
	return g, err
}

func (s *Store) List(_ context.Context, q games.ListQuery) ([]*games.Game, error) {
	ov := s.ov.snapshot(false)
	// The overlay's games on the page, in id order.
	var mine []string
	for id, e := range ov.games {
		if id > q.After && (q.Status == games.AnyStatus || (e.skey[0] == statusOver) == (q.Status == games.Finished)) {
			mine = append(mine, id)
		}
	}
	slices.Sort(mine)
	var out []*games.Game
	err := s.db.View(func(tx *bbolt.Tx) error {
		add := func(id string, v []byte) error {
			g, err := games.DecodeGame(v)
			if err != nil {
				return err
			}
			if q.Moves {
				if err := readMoves(tx, g, ov.events[id]); err != nil {
					return err
				}
			}
			out = append(out, g)
			return nil
		}
		// flush adds the overlay's games before id (all with id "").
		flush := func(id string) error {
			for len(mine) > 0 && (id == "" || mine[0] < id) && len(out) < q.Limit {
				if err := add(mine[0], ov.games[mine[0]].data); err != nil {
					return err
				}
				mine = mine[1:]
			}
			return nil
		}
		gb := tx.Bucket(bucketGames)
		// fromFile adds bbolt's game id (record v) unless the overlay has
		// it, and says whether the page wants more.
		fromFile := func(id []byte, v []byte) (bool, error) {
			if err := flush(string(id)); err != nil || len(out) >= q.Limit {
				return false, err
			}
			if _, ok := ov.games[string(id)]; ok {
				return true, nil
			}
			if v == nil {
				if v = gb.Get(id); v == nil {
					return false, fmt.Errorf("embedded store: status index: game %s is not in the games bucket", printable(id))
				}
			}
			if err := add(string(id), v); err != nil {
				return false, err
			}
			return len(out) < q.Limit, nil
		}
		if len(out) >= q.Limit {
			return nil
		}
		if q.Status != games.AnyStatus {
			b := statusGoing
			if q.Status == games.Finished {
				b = statusOver
			}
			if err := statusIDs(tx, b, q.After, func(id []byte) (bool, error) { return fromFile(id, nil) }); err != nil {
				return err
			}
			return flush("")
		}
		c := gb.Cursor()
		k, v := c.First()
		if q.After != "" {
			k, v = c.Seek([]byte(q.After))
			if k != nil && string(k) == q.After {
				k, v = c.Next()
			}
		}
		for ; k != nil; k, v = c.Next() {
			more, err := fromFile(k, v)
			if err != nil {
				return err
			}
			if !more {
				break
			}
		}
		return flush("")
	})
	return out, err
}

// eachEvent calls each for game id's events after sequence number after,
// in order, from bbolt (tx) and then the overlay's (ov, taken before tx),
// until each returns false.
func eachEvent(tx *bbolt.Tx, id string, ov []ovEvent, after int64, each func(data []byte) (bool, error)) error {
	stop := int64(math.MaxInt64) // the overlay's first event: bbolt's from there on are its too
	if len(ov) > 0 {
		stop = ov[0].seq
	}
	last := after
	if eb := tx.Bucket(bucketEvents).Bucket([]byte(id)); eb != nil {
		c := eb.Cursor()
		for k, v := c.Seek(seqKey(after + 1)); k != nil; k, v = c.Next() {
			seq := int64(binary.BigEndian.Uint64(k))
			if seq >= stop {
				break
			}
			if more, err := each(v); err != nil || !more {
				return err
			}
			last = seq
		}
	}
	for _, e := range ov {
		if e.seq <= last {
			continue
		}
		if more, err := each(e.data); err != nil || !more {
			return err
		}
	}
	return nil
}

// readMoves fills g.Moves from its event log in tx and ov, reading only
// the events up to its last move.
func readMoves(tx *bbolt.Tx, g *games.Game, ov []ovEvent) error {
	var events []games.Event
	moves := 0
	if g.Plies > 0 {
		err := eachEvent(tx, g.ID, ov, 0, func(v []byte) (bool, error) {
			e, err := games.DecodeEvent(v)
			if err != nil {
				return false, fmt.Errorf("embedded store: game %s: %w", g.ID, err)
			}
			if e.Kind == games.EventMovePlayed {
				moves++
			}
			events = append(events, e)
			return moves < g.Plies, nil
		})
		if err != nil {
			return err
		}
	}
	return games.SetMoves(g, events)
}

func (s *Store) Events(_ context.Context, id string, after int64, limit int) ([]games.Event, error) {
	e, evs := s.ov.game(id)
	var out []games.Event
	err := s.db.View(func(tx *bbolt.Tx) error {
		if e == nil && tx.Bucket(bucketGames).Get([]byte(id)) == nil {
			return games.ErrNotFound
		}
		if limit <= 0 {
			return nil
		}
		return eachEvent(tx, id, evs, after, func(v []byte) (bool, error) {
			ev, err := games.DecodeEvent(v)
			if err != nil {
				return false, err
			}
			out = append(out, ev)
			return len(out) < limit, nil
		})
	})
	return out, err
}

func (s *Store) Request(_ context.Context, id, requestID string) (games.RequestRecord, error) {
	if v, ok := s.ov.request(id, requestID); ok {
		return games.DecodeRequest(v)
	}
	var r games.RequestRecord
	err := s.db.View(func(tx *bbolt.Tx) error {
		rb := tx.Bucket(bucketRequests).Bucket([]byte(id))
		if rb == nil {
			return games.ErrNotFound
		}
		v := rb.Get([]byte(requestID))
		if v == nil {
			return games.ErrNotFound
		}
		var err error
		r, err = games.DecodeRequest(v)
		return err
	})
	return r, err
}

func (s *Store) CreateRequest(_ context.Context, key string) (games.CreateRecord, error) {
	if v, ok := s.ov.createRequest(key); ok {
		return games.DecodeCreateRequest(key, v)
	}
	var r games.CreateRecord
	err := s.db.View(func(tx *bbolt.Tx) error {
		v := tx.Bucket(bucketCreates).Get([]byte(key))
		if v == nil {
			return games.ErrNotFound
		}
		var err error
		r, err = games.DecodeCreateRequest(key, v)
		return err
	})
	return r, err
}

// Due returns up to limit ids of games going on whose clock deadline is
// at or before until, earliest first (ties in id order): it reads only
// the keys it returns and the one after, and the overlay's games. A limit
// of 0 or less returns none.
func (s *Store) Due(_ context.Context, until time.Time, limit int) ([]string, error) {
	ids := []string{}
	if limit <= 0 || until.Before(earliestDeadline) {
		return ids, nil
	}
	if until.After(latestDeadline) {
		until = latestDeadline // every key is at or before it
	}
	var bound [deadlinePrefix]byte
	putInstant(bound[:], until)
	ov := s.ov.snapshot(false)
	var mine [][]byte
	for _, e := range ov.games {
		if e.dkey != nil && bytes.Compare(e.dkey[:deadlinePrefix], bound[:]) <= 0 {
			mine = append(mine, e.dkey)
		}
	}
	slices.SortFunc(mine, bytes.Compare)
	err := s.db.View(func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketDeadlines).Cursor()
		for k, _ := c.First(); k != nil && len(ids) < limit; k, _ = c.Next() {
			if len(k) <= deadlinePrefix {
				return fmt.Errorf("embedded store: deadline index: a key of %d bytes", len(k))
			}
			if bytes.Compare(k[:deadlinePrefix], bound[:]) > 0 {
				break
			}
			for len(mine) > 0 && bytes.Compare(mine[0], k) < 0 && len(ids) < limit {
				ids = append(ids, string(mine[0][deadlinePrefix:]))
				mine = mine[1:]
			}
			if _, ok := ov.games[string(k[deadlinePrefix:])]; !ok && len(ids) < limit {
				ids = append(ids, string(k[deadlinePrefix:]))
			}
		}
		for len(mine) > 0 && len(ids) < limit {
			ids = append(ids, string(mine[0][deadlinePrefix:]))
			mine = mine[1:]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

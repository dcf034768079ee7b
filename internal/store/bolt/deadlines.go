package bolt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/damone-rules/damone/internal/games"
)

// The deadline index: the deadlines bucket holds one key per game going
// on whose clock has a deadline (Game.Clock.Deadline), with an empty
// value, so Due is a cursor walk over the games due instead of a decode
// of every game. A key is the deadline as 8 bytes then the game's id; the
// 8 bytes are the deadline's Unix time in nanoseconds, big-endian, with
// the sign bit flipped, so bytewise key order is the deadlines' order
// (ties by id) over the whole int64 range. Create and Update keep it in
// the transaction that writes the game's record; a file of schema
// damone-1, which had no index, gets one built at open (prepare); Verify
// checks that it agrees with the games' records.

var bucketDeadlines = []byte("deadlines")

// deadlinePrefix is the length of a key's deadline part.
const deadlinePrefix = 8

// The instants a key can hold: Time.UnixNano's range.
var (
	earliestDeadline = time.Unix(0, math.MinInt64)
	latestDeadline   = time.Unix(0, math.MaxInt64)
)

// deadlineKey returns g's key in the deadlines bucket, or nil when g has
// none: no clock, no deadline, or the game is over. A deadline outside
// the years 1678 to 2262 (which Unix nanoseconds cannot hold) is an error
// naming the game.
func deadlineKey(g *games.Game) ([]byte, error) {
	if g.Clock == nil || g.Clock.Deadline.IsZero() || g.Over() {
		return nil, nil
	}
	d := g.Clock.Deadline
	if d.Before(earliestDeadline) || d.After(latestDeadline) {
		return nil, fmt.Errorf("game %s: clock deadline %s is outside the years 1678 to 2262", g.ID, d.Format(time.RFC3339Nano))
	}
	k := make([]byte, deadlinePrefix, deadlinePrefix+len(g.ID))
	putInstant(k, d)
	return append(k, g.ID...), nil
}

// putInstant writes t (within earliestDeadline..latestDeadline) into
// b[:8] in key order.
func putInstant(b []byte, t time.Time) {
	binary.BigEndian.PutUint64(b, uint64(t.UnixNano())^(1<<63))
}

// keyDeadline returns the deadline of key k (at least 8 bytes).
func keyDeadline(k []byte) time.Time {
	return time.Unix(0, int64(binary.BigEndian.Uint64(k)^(1<<63))).UTC()
}

// moveDeadline replaces a game's key old with next (either nil: none) in
// the index of tx.
func moveDeadline(tx *bbolt.Tx, old, next []byte) error {
	if bytes.Equal(old, next) {
		return nil
	}
	b := tx.Bucket(bucketDeadlines)
	if old != nil {
		if err := b.Delete(old); err != nil {
			return err
		}
	}
	if next != nil {
		return b.Put(next, []byte{})
	}
	return nil
}

// buildDeadlines fills the empty deadlines bucket of tx from the games
// bucket: the migration of a damone-1 file.
func buildDeadlines(tx *bbolt.Tx) error {
	b := tx.Bucket(bucketDeadlines)
	return tx.Bucket(bucketGames).ForEach(func(k, v []byte) error {
		g, err := games.DecodeGame(v)
		if err != nil {
			return fmt.Errorf("game %s: %w", printable(k), err)
		}
		key, err := deadlineKey(g)
		if err != nil || key == nil {
			return err
		}
		return b.Put(key, []byte{})
	})
}

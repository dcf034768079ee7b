package bolt

import (
	"bytes"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/damone-rules/damone/internal/games"
)

// The status index: the status bucket holds one key per game, its status
// byte (statusGoing or statusOver) then its id, with an empty value, so a
// page of List filtered by status is a cursor walk over that status's
// keys from the page's start, never a decode of the games it skips.
// Create and Update keep it in the transaction that writes the game's
// record; a file of schema damone-1 or damone-2, which had none, gets one
// built at open (prepare); Verify checks that it agrees with the records.

var bucketStatus = []byte("status")

const (
	statusGoing byte = 'g'
	statusOver  byte = 'o'
)

// statusKey returns g's key in the status index.
func statusKey(g *games.Game) []byte {
	b := statusGoing
	if g.Over() {
		b = statusOver
	}
	return append([]byte{b}, g.ID...)
}

// moveStatus replaces a game's key old with next (old nil: none) in the
// index of tx.
func moveStatus(tx *bbolt.Tx, old, next []byte) error {
	if bytes.Equal(old, next) {
		return nil
	}
	b := tx.Bucket(bucketStatus)
	if old != nil {
		if err := b.Delete(old); err != nil {
			return err
		}
	}
	return b.Put(next, []byte{})
}

// buildStatus fills the empty status bucket of tx from the games bucket:
// the migration of a damone-1 or damone-2 file.
func buildStatus(tx *bbolt.Tx) error {
	b := tx.Bucket(bucketStatus)
	return tx.Bucket(bucketGames).ForEach(func(k, v []byte) error {
		g, err := games.DecodeGame(v)
		if err != nil {
			return fmt.Errorf("game %s: %w", printable(k), err)
		}
		return b.Put(statusKey(g), []byte{})
	})
}

// statusIDs walks the ids of status b's games after the id after, in id
// order, until each returns false.
func statusIDs(tx *bbolt.Tx, b byte, after string, each func(id []byte) (bool, error)) error {
	c := tx.Bucket(bucketStatus).Cursor()
	start := append([]byte{b}, after...)
	k, _ := c.Seek(start)
	if k != nil && bytes.Equal(k, start) {
		k, _ = c.Next()
	}
	for ; k != nil && k[0] == b; k, _ = c.Next() {
		more, err := each(k[1:])
		if err != nil || !more {
			return err
		}
	}
	return nil
}

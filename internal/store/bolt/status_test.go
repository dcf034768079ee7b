package bolt

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
)

func listIDs(t *testing.T, s *Store, f games.StatusFilter) string {
	t.Helper()
	gs, err := s.List(context.Background(), games.ListQuery{Limit: 10, Status: f})
	if err != nil {
		t.Fatal(err)
	}
	out := ""
	for _, g := range gs {
		out += g.ID + " "
	}
	return out
}

// A damone-2 file has no status index: Open builds it, once.
func TestDamone2FileGetsStatusIndex(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	going, evs := clockGame(t, "going", time.Time{})
	mustCreate(t, s, going, evs)
	over, evs := clockGame(t, "over", time.Time{})
	over.Outcome = engine.Outcome{Result: engine.NoResult, Reason: engine.Aborted}
	mustCreate(t, s, over, evs)
	s.Close()
	rewrite(t, dir, func(tx *bbolt.Tx) error {
		if err := tx.DeleteBucket(bucketStatus); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keySchema, []byte("damone-2"))
	})
	path := filepath.Join(dir, FileName)
	if sum, err := Verify(path); err != nil || sum.Schema != "damone-2" || sum.Games != 2 {
		t.Fatalf("Verify of the damone-2 file: %+v, %v", sum, err)
	}
	if s, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	if got := listIDs(t, s, games.InProgress); got != "going " {
		t.Errorf("games going on after the migration: %q, want going", got)
	}
	if got := listIDs(t, s, games.Finished); got != "over " {
		t.Errorf("games over after the migration: %q, want over", got)
	}
	s.Close()
	if sum, err := Verify(path); err != nil || sum.Schema != "damone-3" {
		t.Fatalf("Verify after the migration: %+v, %v", sum, err)
	}
	before := fileSum(t, path)
	if s, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if fileSum(t, path) != before {
		t.Error("opening the migrated file changed it")
	}
}

// A status index that disagrees with the games' records is damage: each
// case changes one thing in a sound file holding game "going" (going on)
// and game "over".
func TestStatusIndexMismatchRefused(t *testing.T) {
	cases := []struct {
		name, want string
		change     func(b *bbolt.Bucket, tx *bbolt.Tx) error
	}{
		{"key missing", "status index: no key for game going (going on)", func(b *bbolt.Bucket, _ *bbolt.Tx) error {
			return b.Delete([]byte("ggoing"))
		}},
		{"wrong status", "status index: game over is listed as going on, but its record is over", func(b *bbolt.Bucket, _ *bbolt.Tx) error {
			if err := b.Delete([]byte("oover")); err != nil {
				return err
			}
			return b.Put([]byte("gover"), []byte{})
		}},
		{"both statuses", "status index: game going is listed as over, but its record is going on", func(b *bbolt.Bucket, _ *bbolt.Tx) error {
			return b.Put([]byte("ogoing"), []byte{})
		}},
		{"key of no game", "status index: a key for game nobody, which is not in the games bucket", func(b *bbolt.Bucket, _ *bbolt.Tx) error {
			return b.Put([]byte("gnobody"), []byte{})
		}},
		{"unknown status", "status index: key xgoing is not a status and a game id", func(b *bbolt.Bucket, _ *bbolt.Tx) error {
			return b.Put([]byte("xgoing"), []byte{})
		}},
		{"key with a value", "status index: the key of game going holds 1 bytes (want none)", func(b *bbolt.Bucket, _ *bbolt.Tx) error {
			return b.Put([]byte("ggoing"), []byte("x"))
		}},
		{"nested bucket", "status index: gz is a bucket, not a key", func(b *bbolt.Bucket, _ *bbolt.Tx) error {
			_, err := b.CreateBucket([]byte("gz"))
			return err
		}},
		{"no index", `no "status" bucket`, func(_ *bbolt.Bucket, tx *bbolt.Tx) error {
			return tx.DeleteBucket(bucketStatus)
		}},
		{"an index in a damone-2 file", `a "status" bucket in a file of schema "damone-2", which has none`, func(_ *bbolt.Bucket, tx *bbolt.Tx) error {
			return tx.Bucket(bucketMeta).Put(keySchema, []byte("damone-2"))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			going, evs := clockGame(t, "going", time.Time{})
			mustCreate(t, s, going, evs)
			over, evs := clockGame(t, "over", time.Time{})
			over.Outcome = engine.Outcome{Result: engine.NoResult, Reason: engine.Aborted}
			mustCreate(t, s, over, evs)
			s.Close()
			rewrite(t, dir, func(tx *bbolt.Tx) error { return c.change(tx.Bucket(bucketStatus), tx) })
			wantRefused(t, dir, c.want)
		})
	}
}

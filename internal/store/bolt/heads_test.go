package bolt

import (
	"context"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
)

// A kept decoded record is used only for the very bytes it came from: a
// record changed by any other way than this store's Update (another
// process's copy of the file, a rolled-back write) is decoded afresh.
func TestHeadsFollowTheRecord(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	svc := games.NewService(s, games.Limits{})
	g, _, err := svc.Create(ctx, engine.DefaultVariant())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, g.ID); err != nil || got.Version != 1 {
		t.Fatalf("Get = version %d, %v; want 1", got.Version, err)
	}
	changed := g.Clone()
	changed.Version, changed.Plies = 7, 3
	data, err := games.EncodeGame(changed)
	if err != nil {
		t.Fatal(err)
	}
	settle(t, s) // the record is in bbolt only
	if err := s.db.Update(func(tx *bbolt.Tx) error { return tx.Bucket(bucketGames).Put([]byte(g.ID), data) }); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, g.ID)
	if err != nil || got.Version != 7 || got.Ply() != 3 {
		t.Fatalf("after the record changed: version %d ply %d, %v; want 7 and 3", got.Version, got.Ply(), err)
	}
	// What Get hands out is a copy: changing it changes nothing kept.
	got.Recent = append(got.Recent, got.Position)
	got.Version = 99
	if again, _ := s.Get(ctx, g.ID); again.Version != 7 || len(again.Recent) != 0 {
		t.Fatalf("a caller's change reached the store: version %d, %d recent positions", again.Version, len(again.Recent))
	}
}

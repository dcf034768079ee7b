package bolt

import (
	"context"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
)

// A game's events are only ever appended, so its event leaves are filled
// before a new one is started: 401 events of two dames shuffling (about
// 260 bytes each with bbolt's element header) take about 30 leaves of
// 4 KiB (14 events each: a split leaves at least two keys to the new
// leaf), not the 57 of bbolt's default split at half a page (7 each). Fewer leaves: a smaller file, less
// to verify at open and to back up, and fewer splits (a split writes two
// leaves and the branch above them instead of one leaf).
func TestEventLeavesAreFilled(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.setNoSync(true) // speed of the setup only
	start, err := engine.ParsePosition("R:RDh1:BDa8:0")
	if err != nil {
		t.Fatal(err)
	}
	svc := games.NewService(s, games.Limits{})
	ctx := context.Background()
	g, tok, err := svc.Create(ctx, engine.Variant{Setup: engine.SetupCustom, Start: start, WinCondition: engine.CaptureAllPieces})
	if err != nil {
		t.Fatal(err)
	}
	shuffle := [4]string{"h1-g2", "a8-b7", "g2-h1", "b7-a8"}
	const moves = 400
	for i := range moves {
		token := tok.Red
		if i%2 == 1 {
			token = tok.Black
		}
		if _, err := svc.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: token, Move: shuffle[i%4]}); err != nil {
			t.Fatalf("move %d: %v", i+1, err)
		}
	}
	settle(t, s)
	var st bbolt.BucketStats
	s.db.View(func(tx *bbolt.Tx) error {
		st = tx.Bucket(bucketEvents).Bucket([]byte(g.ID)).Stats()
		return nil
	})
	if st.KeyN != moves+1 { // the game's start, then one event a move
		t.Fatalf("%d events stored; want %d", st.KeyN, moves+1)
	}
	capacity := st.LeafPageN * s.db.Info().PageSize
	if fill := float64(st.LeafInuse) / float64(capacity); fill < 0.75 {
		t.Errorf("%d events in %d leaves: %d of their %d bytes in use (%.0f %%); want at least 75 %%",
			st.KeyN, st.LeafPageN, st.LeafInuse, capacity, 100*fill)
	}
}

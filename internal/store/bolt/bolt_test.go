package bolt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) games.Store {
		s, err := Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestRequestIDs(t *testing.T) {
	storetest.RunRequestIDs(t, func(t *testing.T) (games.Store, func() games.Store) {
		dir := t.TempDir()
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s, func() games.Store {
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if s, err = Open(dir); err != nil { // verifies the file, request records and all
				t.Fatal(err)
			}
			return s
		}
	})
}

func TestReopenKeepsGames(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	svc := games.NewService(s, games.DefaultLimits)
	g, tok, err := svc.Create(context.Background(), engine.DefaultVariant())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.MakeMove(context.Background(), games.MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := games.NewService(s, games.DefaultLimits).Get(context.Background(), g.ID)
	if err == nil {
		err = games.NewService(s, games.DefaultLimits).WithMoves(context.Background(), got)
	}
	if err != nil || got.Ply() != 1 || got.Moves[0].Move.String() != "e2-d3" || got.LastEvent != 2 {
		t.Fatalf("after reopening: %+v, %v; want the game at ply 1 after e2-d3 with 2 events", got, err)
	}
}

func TestDamagedFileIsAnError(t *testing.T) {
	cases := map[string][]byte{
		"garbage": []byte(strings.Repeat("not a database ", 400)),
		"short":   []byte("x"),
		"zeroed":  make([]byte, 64<<10),
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName)
			if err := os.WriteFile(path, content, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(dir)
			if err == nil {
				s.Close()
				t.Fatal("Open accepted a damaged file")
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "move it away") {
				t.Errorf("error %q does not name the file and the way out", err)
			}
			after, _ := os.ReadFile(path)
			if string(after) != string(content) {
				t.Error("Open changed the damaged file")
			}
		})
	}
}

func TestDamagedRecordIsAnError(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.db.Update(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketGames).Put([]byte("g1"), []byte(`{"v":1,"id":"g1","initial":"nonsense"}`))
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err := Open(dir); err == nil {
		s.Close()
		t.Fatal("Open accepted a file with a damaged game record")
	} else if !strings.Contains(err.Error(), "game g1") {
		t.Errorf("error %q does not name the damaged game", err)
	}
}

func TestLockedFileIsAnError(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s2, err := Open(dir); err == nil {
		s2.Close()
		t.Fatal("a second Open of the same directory succeeded")
	} else if !strings.Contains(err.Error(), "locked by another process") {
		t.Errorf("error %q does not say the file is locked", err)
	}
}

// TestOlderFileGetsCreateRequests: a file written before the
// create_requests bucket existed opens, gets the bucket, and keeps a
// CreateGame request id across the next reopen.
func TestOlderFileGetsCreateRequests(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	old, _, err := games.NewService(s, games.DefaultLimits).Create(ctx, engine.DefaultVariant())
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := bbolt.Open(filepath.Join(dir, FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bbolt.Tx) error { return tx.DeleteBucket(bucketCreates) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	req := games.CreateRequest{Variant: engine.DefaultVariant(), RequestID: "2f8d4c6a-0b1e-4a3d-9c7f-5e6a8b0d1c24"}
	for i := range 2 {
		s, err := Open(dir)
		if err != nil {
			t.Fatalf("open %d: %v", i+1, err)
		}
		g, _, err := games.NewService(s, games.DefaultLimits).CreateGame(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := s.Count(ctx); n != 2 || g.ID == old.ID {
			t.Errorf("open %d: %d games, game %s; want 2, a new one replayed", i+1, n, g.ID)
		}
		s.Close()
	}
}

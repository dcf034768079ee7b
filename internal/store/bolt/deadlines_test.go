package bolt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// clockGame is a new standard game created at t0 with a 5-minute clock
// whose deadline is deadline (zero: none), with its created event.
func clockGame(t *testing.T, id string, deadline time.Time) (*games.Game, []games.Event) {
	t.Helper()
	v := engine.DefaultVariant()
	start, err := v.InitialPosition()
	if err != nil {
		t.Fatal(err)
	}
	c := games.Clock{Remaining: [2]time.Duration{5 * time.Minute, 5 * time.Minute}, Since: t0, Deadline: deadline}
	g := &games.Game{ID: id, Variant: v, Initial: start, Position: start, Version: 1, LastEvent: 1, CreateTime: t0, UpdateTime: t0,
		TimeControl: games.TimeControl{Initial: 5 * time.Minute, FirstMove: time.Minute}, Clock: &c}
	ec := c
	return g, []games.Event{{GameID: id, Sequence: 1, Time: t0, Kind: games.EventCreated, Position: start, Variant: v, Clock: &ec}}
}

// moved is g after one move of the side to move at t0+1s, its clock's
// deadline then deadline.
func moved(t *testing.T, g *games.Game, deadline time.Time) (*games.Game, []games.Event) {
	t.Helper()
	n := g.Clone()
	before := n.Position
	legal := before.LegalMoves()
	m := legal[0]
	n.Moves, n.Recent = nil, append(n.Recent, before)
	n.Plies++
	n.Position = before.After(&m)
	n.Version++
	n.LastEvent++
	n.UpdateTime = n.UpdateTime.Add(time.Second)
	n.Clock.Since, n.Clock.Deadline = n.UpdateTime, deadline
	c := *n.Clock
	return n, []games.Event{{GameID: n.ID, Sequence: n.LastEvent, Time: n.UpdateTime, Kind: games.EventMovePlayed, Ply: n.Plies,
		Position: n.Position, Move: games.PlayedMove{Move: m, Side: before.SideToMove(), Captured: before.CapturedPieces(&m)}, Clock: &c}}
}

func mustCreate(t *testing.T, s *Store, g *games.Game, evs []games.Event) {
	t.Helper()
	if err := s.Create(context.Background(), g, evs); err != nil {
		t.Fatal(err)
	}
}

func wantDue(t *testing.T, s *Store, until time.Time, want ...string) {
	t.Helper()
	got, err := s.Due(context.Background(), until, 100)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("Due(%v) = %q, %v; want %q", until, got, err, want)
	}
}

// A key is the deadline's Unix nanoseconds with the sign bit flipped,
// big-endian, then the id: bytewise order is time order, before 1970 too.
func TestDeadlineKeyLayout(t *testing.T) {
	cases := []struct {
		at   time.Time
		want string // hex of the 8 bytes
	}{ // in time order
		{time.Unix(0, -1), "7fffffffffffffff"},
		{time.Unix(0, 0), "8000000000000000"},
		{time.Unix(1, 0), "800000003b9aca00"}, // 10^9 ns
		{time.Unix(0, 1<<62), "c000000000000000"},
	}
	var prev []byte
	for i, c := range cases {
		g, _ := clockGame(t, "g", c.at)
		k, err := deadlineKey(g)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", k[:8]); got != c.want || string(k[8:]) != "g" {
			t.Errorf("key of %v = %x, want %s then g", c.at, k, c.want)
		}
		if i > 0 && bytes.Compare(prev, k) >= 0 {
			t.Errorf("key of %v does not sort after the key of an earlier instant", c.at)
		}
		prev = k
	}
	// No key: no clock, no deadline, a game over.
	plain, _ := clockGame(t, "g", t0)
	plain.Clock = nil
	none, _ := clockGame(t, "g", time.Time{})
	over, _ := clockGame(t, "g", t0)
	over.Outcome = engine.Outcome{Result: engine.RedWins, Reason: engine.Resignation}
	for _, g := range []*games.Game{plain, none, over} {
		if k, err := deadlineKey(g); k != nil || err != nil {
			t.Errorf("deadlineKey(%+v) = %x, %v; want none", g.Clock, k, err)
		}
	}
}

// A deadline Unix nanoseconds cannot hold is refused before anything is
// written.
func TestDeadlineOutOfRangeRefused(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	far := time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)
	g, evs := clockGame(t, "far", far)
	err = s.Create(ctx, g, evs)
	if err == nil || !strings.Contains(err.Error(), "game far: clock deadline 2300-01-01T00:00:00Z is outside the years 1678 to 2262") {
		t.Fatalf("Create with a deadline in 2300: %v", err)
	}
	if _, err := s.Get(ctx, "far"); !errors.Is(err, games.ErrNotFound) {
		t.Fatalf("the refused game was stored: %v", err)
	}
	g, evs = clockGame(t, "near", t0)
	mustCreate(t, s, g, evs)
	g2, evs2 := moved(t, g, far)
	if err := s.Update(ctx, g2, evs2, nil); err == nil || !strings.Contains(err.Error(), "outside the years") {
		t.Fatalf("Update to a deadline in 2300: %v", err)
	}
	wantDue(t, s, t0, "near")
}

// Deadlines moved by many writers at once, in shared transactions, with
// stale writes refused among them: the index ends as the games' records
// say, and the file verifies.
func TestDeadlinesUnderGroupCommit(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const n = 64
	base := make([]*games.Game, n)
	for i := range n {
		g, evs := clockGame(t, fmt.Sprintf("g%02d", i), t0.Add(time.Duration(i)*time.Second))
		mustCreate(t, s, g, evs)
		base[i] = g
	}
	// Game i moves to t0+1h-i s (the reverse order); a stale write from
	// the same base would move it to t0, and must be refused.
	var wg sync.WaitGroup
	for i := range n {
		next, evs := moved(t, base[i], t0.Add(time.Hour-time.Duration(i)*time.Second))
		stale, sevs := moved(t, base[i], t0)
		wg.Go(func() {
			if err := s.Update(ctx, next, evs, nil); err != nil {
				t.Error(err)
			}
			if err := s.Update(ctx, stale, sevs, nil); !errors.Is(err, games.ErrConflict) {
				t.Errorf("stale update of %s: %v, want ErrConflict", stale.ID, err)
			}
		})
	}
	wg.Wait()
	var want []string
	for i := n - 1; i >= 0; i-- {
		want = append(want, fmt.Sprintf("g%02d", i))
	}
	wantDue(t, s, t0.Add(time.Minute))
	wantDue(t, s, t0.Add(time.Hour), want...)
	s.Close()
	if _, err := Verify(filepath.Join(dir, FileName)); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wantDue(t, s, t0.Add(time.Hour), want...)
}

// A file of schema damone-1 (no deadline index) verifies, and opening it
// builds the index from the games' records, once: a second open writes
// nothing.
func TestDamone1FileGetsDeadlineIndex(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Deadlines: late at t0+2m, early at t0+1m; over (ended) and plain
	// (no clock) have none.
	late, evs := clockGame(t, "late", t0.Add(2*time.Minute))
	mustCreate(t, s, late, evs)
	early, evs := clockGame(t, "early", t0.Add(time.Minute))
	mustCreate(t, s, early, evs)
	over, evs := clockGame(t, "over", time.Time{})
	over.Outcome = engine.Outcome{Result: engine.NoResult, Reason: engine.Aborted}
	mustCreate(t, s, over, evs)
	plain, evs := clockGame(t, "plain", time.Time{})
	plain.Clock, plain.TimeControl, evs[0].Clock = nil, games.TimeControl{}, nil
	mustCreate(t, s, plain, evs)
	s.Close()
	rewrite(t, dir, func(tx *bbolt.Tx) error {
		if err := tx.DeleteBucket(bucketDeadlines); err != nil {
			return err
		}
		if err := tx.DeleteBucket(bucketStatus); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keySchema, []byte("damone-1"))
	})
	path := filepath.Join(dir, FileName)
	if sum, err := Verify(path); err != nil || sum.Schema != "damone-1" || sum.Games != 4 {
		t.Fatalf("Verify of the damone-1 file: %+v, %v", sum, err)
	}
	if s, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	wantDue(t, s, t0.Add(time.Hour), "early", "late")
	s.Close()
	if sum, err := Verify(path); err != nil || sum.Schema != "damone-3" {
		t.Fatalf("Verify after the migration: %+v, %v", sum, err)
	}
	before := fileSum(t, path)
	if s, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	wantDue(t, s, t0.Add(90*time.Second), "early")
	s.Close()
	if fileSum(t, path) != before {
		t.Error("opening the migrated file changed it")
	}
}

// An index that disagrees with the games' records is damage: each case
// changes one thing in a sound file.
func TestDeadlineIndexMismatchRefused(t *testing.T) {
	deadline := t0.Add(time.Minute)
	key := func(id string, d time.Time) []byte {
		k := make([]byte, 8, 8+len(id))
		putInstant(k, d)
		return append(k, id...)
	}
	cases := []struct {
		name, want string
		change     func(b *bbolt.Bucket, tx *bbolt.Tx) error
	}{
		{"key missing", "deadline index: no key for game timed, whose clock's deadline is 2026-11-29T12:01:00Z", func(b *bbolt.Bucket, _ *bbolt.Tx) error {
			return b.Delete(key("timed", deadline))
		}},
		{"key of no game", "deadline index: a key for game nobody (deadline 2026-11-29T12:00:00Z), which is not in the games bucket", func(b *bbolt.Bucket, _ *bbolt.Tx) error {
			return b.Put(key("nobody", t0), []byte{})
		}},
		{"key at another deadline", "deadline index: game timed is at deadline 2026-11-29T12:00:30Z, but its clock's deadline is 2026-11-29T12:01:00Z", func(b *bbolt.Bucket, _ *bbolt.Tx) error {
			if err := b.Delete(key("timed", deadline)); err != nil {
				return err
			}
			return b.Put(key("timed", t0.Add(30*time.Second)), []byte{})
		}},
		{"key of a game without a deadline", "deadline index: game plain is at deadline 2026-11-29T12:00:00Z, but it has none (no clock, or the game is over)", func(b *bbolt.Bucket, _ *bbolt.Tx) error {
			return b.Put(key("plain", t0), []byte{})
		}},
		{"key with a value", "deadline index: the key of game timed holds 1 bytes (want none)", func(b *bbolt.Bucket, _ *bbolt.Tx) error {
			return b.Put(key("timed", deadline), []byte("x"))
		}},
		{"short key", "deadline index: a key of 3 bytes, too short for a deadline and a game id", func(b *bbolt.Bucket, _ *bbolt.Tx) error {
			return b.Put([]byte("abc"), []byte{})
		}},
		{"nested bucket", "deadline index: zz is a bucket, not a key", func(b *bbolt.Bucket, _ *bbolt.Tx) error {
			_, err := b.CreateBucket([]byte("zz"))
			return err
		}},
		{"no index", `no "deadlines" bucket`, func(_ *bbolt.Bucket, tx *bbolt.Tx) error {
			return tx.DeleteBucket(bucketDeadlines)
		}},
		{"an index in a damone-1 file", `a "deadlines" bucket in a file of schema "damone-1", which has none`, func(_ *bbolt.Bucket, tx *bbolt.Tx) error {
			return tx.Bucket(bucketMeta).Put(keySchema, []byte("damone-1"))
		}},
		{"deadline out of range", "game timed: clock deadline 2300-01-01T00:00:00Z is outside the years 1678 to 2262", func(b *bbolt.Bucket, tx *bbolt.Tx) error {
			gb := tx.Bucket(bucketGames)
			v := gb.Get([]byte("timed"))
			from := []byte(`"deadline":"2026-11-29T12:01:00Z"`)
			if !bytes.Contains(v, from) {
				return fmt.Errorf("no %s in %s", from, v)
			}
			if err := b.Delete(key("timed", deadline)); err != nil {
				return err
			}
			return gb.Put([]byte("timed"), bytes.Replace(v, from, []byte(`"deadline":"2300-01-01T00:00:00Z"`), 1))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			g, evs := clockGame(t, "timed", deadline)
			mustCreate(t, s, g, evs)
			plain, pevs := clockGame(t, "plain", time.Time{})
			plain.Clock, plain.TimeControl, pevs[0].Clock = nil, games.TimeControl{}, nil
			mustCreate(t, s, plain, pevs)
			s.Close()
			rewrite(t, dir, func(tx *bbolt.Tx) error { return c.change(tx.Bucket(bucketDeadlines), tx) })
			wantRefused(t, dir, c.want)
		})
	}
}

package bolt

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
)

// txID returns the id of the file's last committed transaction: one more
// per commit, so per fsync.
func txID(t *testing.T, s *Store) int {
	t.Helper()
	var id int
	if err := s.db.View(func(tx *bbolt.Tx) error { id = tx.ID(); return nil }); err != nil {
		t.Fatal(err)
	}
	return id
}

func put(key string) func(*bbolt.Tx) error {
	return func(tx *bbolt.Tx) error { return tx.Bucket(bucketMeta).Put([]byte(key), []byte("1")) }
}

func has(t *testing.T, s *Store, key string) bool {
	t.Helper()
	var ok bool
	s.db.View(func(tx *bbolt.Tx) error { ok = tx.Bucket(bucketMeta).Get([]byte(key)) != nil; return nil })
	return ok
}

// group holds the committer in a write until the given writes are all
// waiting, then lets them commit together, and returns their errors.
func group(t *testing.T, s *Store, fns ...func(*bbolt.Tx) error) []error {
	t.Helper()
	held, release := make(chan struct{}), make(chan struct{})
	go s.write(false, func(*bbolt.Tx) error { close(held); <-release; return nil })
	<-held
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Go(func() { errs[i] = s.write(false, fn) })
	}
	// The writers are blocked handing their writes over; give them time
	// to get there (the committer is held, so none can be taken early).
	time.Sleep(200 * time.Millisecond)
	close(release)
	wg.Wait()
	return errs
}

func TestWritesShareACommit(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := txID(t, s)
	errs := group(t, s, put("a"), put("b"), func(*bbolt.Tx) error { return games.ErrConflict }, put("c"))
	if errs[0] != nil || errs[1] != nil || errs[3] != nil || !errors.Is(errs[2], games.ErrConflict) {
		t.Fatalf("errors %v; want nil, nil, ErrConflict, nil", errs)
	}
	for _, k := range []string{"a", "b", "c"} {
		if !has(t, s, k) {
			t.Errorf("write %s is lost", k)
		}
	}
	// The holding write's commit, then one for the four waiting writes.
	if got := txID(t, s) - before; got != 2 {
		t.Fatalf("%d commits for two groups of writes; want 2", got)
	}
}

// A write that fails after writing part of its change rolls its group
// back; the others are then committed alone and only it fails.
func TestAFailedWriteFailsAlone(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	boom := errors.New("boom")
	errs := group(t, s, put("a"), func(tx *bbolt.Tx) error {
		put("half")(tx)
		return boom
	}, put("c"))
	if errs[0] != nil || !errors.Is(errs[1], boom) || errs[2] != nil {
		t.Fatalf("errors %v; want nil, boom, nil", errs)
	}
	if !has(t, s, "a") || !has(t, s, "c") {
		t.Error("a write of the failed group is lost")
	}
	if has(t, s, "half") {
		t.Error("the failed write's partial change was committed")
	}
}

func TestWriteAfterCloseFails(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := s.write(false, put("late")); !errors.Is(err, errClosed) {
		t.Fatalf("write after Close = %v; want errClosed", err)
	}
}

// The count kept from the open is the number of games in the file.
func TestCountAfterReopen(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	svc := games.NewService(s, games.Limits{})
	for range 3 {
		if _, _, err := svc.Create(context.Background(), engine.DefaultVariant()); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if s, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, err := s.Count(context.Background()); err != nil || n != 3 {
		t.Fatalf("Count after reopening = %d, %v; want 3", n, err)
	}
}

func TestLingerFor(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		prev    int
		arrived int64
		took    time.Duration
		want    time.Duration
	}{
		{prev: 0, arrived: 0, took: 0, want: 0},                                           // the first commit
		{prev: 1, arrived: 0, took: 5 * ms, want: 0},                                      // a lone writer never waits
		{prev: 2, arrived: 0, took: 300 * time.Microsecond, want: 300 * time.Microsecond}, // no longer than a commit takes
		{prev: 28, arrived: 27, took: 5 * ms, want: 5 * ms},
		{prev: 28, arrived: 27, took: 50 * ms, want: 10 * ms}, // at most lingerMax
		{prev: 28, arrived: 28, took: 5 * ms, want: 0},        // all of the last commit's writers are back
		{prev: 28, arrived: 40, took: 5 * ms, want: 0},
	} {
		if got := lingerFor(c.prev, c.arrived, c.took); got != c.want {
			t.Errorf("lingerFor(%d, %d, %v) = %v; want %v", c.prev, c.arrived, c.took, got, c.want)
		}
	}
}

// The writers of a commit that come back at once share the next commit:
// eight writers writing one after another in step commit in groups of
// about eight, not four (half of them, while the other half's commit
// runs). Each write takes 200 µs in its transaction, so a commit takes
// longer than a writer needs to hand over its next write (microseconds),
// on any file system (a sync on tmpfs costs next to nothing).
func TestReturningWritersShareACommit(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const writers, each = 8, 40
	before := txID(t, s)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				slow := func(tx *bbolt.Tx) error {
					time.Sleep(200 * time.Microsecond)
					return put(fmt.Sprint(w, "-", i))(tx)
				}
				if err := s.write(false, slow); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	commits := txID(t, s) - before
	t.Logf("%d writes in %d commits", writers*each, commits)
	if limit := writers * each / 5; commits > limit {
		t.Errorf("%d writes in %d commits; want groups of at least 5 of the %d writers (at most %d commits)", writers*each, commits, writers, limit)
	}
}

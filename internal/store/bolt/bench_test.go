package bolt

import (
	"fmt"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/store/storetest"
)

// The setup skips fsync (setNoSync) to play thousands of moves and
// create thousands of games quickly; the measured calls sync as served.

func BenchmarkMakeMove(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchMakeMove(b, s, func(fast bool) { s.setNoSync(fast) })
}

func BenchmarkCreateGame(b *testing.B) {
	storetest.BenchCreateGame(b, func(b *testing.B) games.Store {
		s, err := Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}, func(s games.Store, fast bool) { s.(*Store).setNoSync(fast) })
}

// txID is the last committed transaction's id: one more per commit.
func (s *Store) txID() int {
	var id int
	s.db.View(func(tx *bbolt.Tx) error { id = tx.ID(); return nil })
	return id
}

func BenchmarkConcurrentMoves(b *testing.B) {
	for _, n := range []int{1, 64} {
		b.Run(fmt.Sprintf("games=%d", n), func(b *testing.B) {
			s, err := Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			g0 := s.wal.next
			tx0, st0, cpu0 := s.txID(), s.db.Stats().TxStats, processCPU(b)
			storetest.BenchConcurrentMoves(b, s, n)
			if err := s.checkpointNow(); err != nil { // bbolt's share of the moves
				b.Fatal(err)
			}
			st, cpu := s.db.Stats().TxStats, processCPU(b)-cpu0
			moves := float64(b.N)
			// The process's CPU (user and system: the kernel's share of a
			// page write and sync counts), which bounds moves/s on a busy
			// machine where ns/op, mostly the disk's wait, does not.
			b.ReportMetric(float64(cpu.Microseconds())/moves, "cpu-µs/move")
			// What a move costs the disk: log appends (one sync each, on
			// the move's path), bbolt's commits (checkpoints, two syncs
			// each, behind it) and their page writes.
			b.ReportMetric(float64(s.wal.next-g0)/moves, "appends/move")
			b.ReportMetric(float64(s.txID()-tx0)/moves, "commits/move")
			b.ReportMetric(float64(st.GetWrite()-st0.GetWrite())/moves, "pagewrites/move")
		})
	}
}

// BenchmarkCreateGameNoSync is BenchmarkCreateGame without fsync: the
// store's own work (its CPU and page writes), apart from the disk's sync
// time, which varies by far the most on a shared machine.
func BenchmarkCreateGameNoSync(b *testing.B) {
	storetest.BenchCreateGame(b, func(b *testing.B) games.Store {
		s, err := Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}, func(s games.Store, _ bool) { s.(*Store).setNoSync(true) })
}

// BenchmarkDue is Due on 10,000 games with a clock, 10 of them due: a
// walk over the deadline index's first keys.
func BenchmarkDue(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchDue(b, s, func(fast bool) { s.setNoSync(fast) })
}

// BenchmarkList is a ListGames page (storetest.BenchList) at 100 and
// 100,000 stored games, loaded without fsync.
func BenchmarkList(b *testing.B) {
	storetest.BenchList(b, func(b *testing.B) games.Store {
		s, err := Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		s.setNoSync(true)
		return s
	}, nil)
}

package bolt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/store/storetest"
)

// openTemp opens a store in a new temporary directory, closed at the
// test's end.
func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

// noCheckpoints turns the periodic checkpoint off for the stores the test
// opens: their writes stay in the log and the overlay until Close (or a
// backup) writes them into bbolt.
func noCheckpoints(t *testing.T) {
	old := checkpointEvery
	checkpointEvery = time.Hour
	t.Cleanup(func() { checkpointEvery = old })
}

// The conformance suite on a store whose every write is read back from
// the overlay (bbolt holds none of them).
func TestConformanceFromTheOverlay(t *testing.T) {
	noCheckpoints(t)
	storetest.Run(t, func(t *testing.T) games.Store {
		s, err := Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// The conformance suite while checkpoints run back to back, so that reads
// and the committer's checks race entries moving from the overlay into
// bbolt (run with -race).
func TestConformanceWhileCheckpointing(t *testing.T) {
	storetest.Run(t, func(t *testing.T) games.Store {
		s, err := Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := s.checkpointNow(); err != nil {
					t.Error(err)
					return
				}
				time.Sleep(100 * time.Microsecond)
			}
		})
		t.Cleanup(func() { close(stop); wg.Wait(); s.Close() })
		return s
	})
}

// played is what a test knows was acknowledged.
type played struct {
	id      string
	version int64
	events  int64
	moves   []string
	reqs    []string // the request keys recorded (games.RequestRecord.RequestID)
}

// playGames creates n games on s and plays moves moves in each, all
// acknowledged, with a request id each.
func playGames(t *testing.T, s *Store, n, moves int) []played {
	t.Helper()
	ctx := context.Background()
	svc := games.NewService(s, games.Limits{})
	out := make([]played, n)
	for i := range n {
		g, tok, err := svc.Create(ctx, engine.DefaultVariant())
		if err != nil {
			t.Fatal(err)
		}
		out[i].id = g.ID
		for m := range moves {
			mv, ok := play(t, svc, g.ID, tok, fmt.Sprint("req-", m))
			if !ok {
				break
			}
			out[i].moves = append(out[i].moves, mv)
			side := engine.Red
			if m%2 == 1 {
				side = engine.Black
			}
			out[i].reqs = append(out[i].reqs, fmt.Sprint(side, "/req-", m))
		}
		got, err := s.Get(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		out[i].version, out[i].events = got.Version, got.LastEvent
	}
	return out
}

// play plays a legal move in game id (one of its first few, by ply) and
// returns it, or false if the game is over.
func play(t *testing.T, svc *games.Service, id string, tok games.Tokens, requestID string) (string, bool) {
	ctx := context.Background()
	g, err := svc.Get(ctx, id)
	if err != nil {
		t.Error(err)
		return "", false
	}
	legal := g.Position.LegalMoves()
	if g.Over() || len(legal) == 0 {
		return "", false
	}
	mv := legal[g.Plies%len(legal)].String()
	token := tok.Red
	if g.Plies%2 == 1 {
		token = tok.Black
	}
	if _, err := svc.MakeMove(ctx, games.MoveRequest{GameID: id, Token: token, Move: mv, RequestID: requestID}); err != nil {
		t.Errorf("game %s ply %d: %s: %v", id, g.Plies, mv, err)
		return "", false
	}
	return mv, true
}

// killedCopy copies the store's files in dir, as they are on disk while
// it runs, to a new directory: what a killed server leaves behind.
func killedCopy(t *testing.T, dir string) string {
	t.Helper()
	to := t.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != FileName && !strings.HasPrefix(e.Name(), walPrefix) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// hasGames fails unless s holds each game as played: its version, its
// events, its moves, its requests.
func hasGames(t *testing.T, s *Store, want []played) {
	t.Helper()
	ctx := context.Background()
	if n, err := s.Count(ctx); err != nil || n != len(want) {
		t.Errorf("Count = %d, %v; want %d", n, err, len(want))
	}
	for _, p := range want {
		g, err := s.Get(ctx, p.id)
		if err != nil {
			t.Errorf("game %s: %v", p.id, err)
			continue
		}
		if g.Version != p.version || g.LastEvent != p.events || g.Plies != len(p.moves) {
			t.Errorf("game %s: version %d, last event %d, %d plies; want %d, %d, %d", p.id, g.Version, g.LastEvent, g.Plies, p.version, p.events, len(p.moves))
		}
		evs, err := s.Events(ctx, p.id, 0, 1000)
		if err != nil || int64(len(evs)) != p.events {
			t.Errorf("game %s: %d events, %v; want %d", p.id, len(evs), err, p.events)
		}
		for i, e := range evs {
			if e.Sequence != int64(i)+1 {
				t.Errorf("game %s: event %d has sequence number %d", p.id, i, e.Sequence)
				break
			}
		}
		for _, k := range p.reqs {
			if r, err := s.Request(ctx, p.id, k); err != nil || r.RequestID != k {
				t.Errorf("game %s: request %s: %+v, %v", p.id, k, r, err)
			}
		}
	}
	page, err := s.List(ctx, games.ListQuery{Limit: len(want) + 1, Moves: true})
	if err != nil || len(page) != len(want) {
		t.Fatalf("List: %d games, %v; want %d", len(page), err, len(want))
	}
	for _, g := range page {
		for _, p := range want {
			if p.id == g.ID && len(g.Moves) != len(p.moves) {
				t.Errorf("List: game %s with %d moves; want %d", g.ID, len(g.Moves), len(p.moves))
			}
		}
	}
}

// A killed server's acknowledged writes, in its log only, are in the
// store when it is opened again: replayed into the file, and the log
// removed. Both ways of making a frame durable: one O_DIRECT|O_DSYNC
// write (where TMPDIR's file system has it) and a write then an
// fdatasync.
func TestReplayAfterKill(t *testing.T) {
	t.Run("direct", func(t *testing.T) {
		probe := filepath.Join(t.TempDir(), "probe")
		if err := os.WriteFile(probe, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		f := openDirect(probe)
		if f == nil {
			t.Skip("TMPDIR's file system refuses O_DIRECT|O_DSYNC")
		}
		f.Close()
		opened := 0
		directWrites = func(path string) *os.File {
			f := openDirect(path)
			if f != nil {
				opened++
			}
			return f
		}
		t.Cleanup(func() { directWrites = openDirect })
		replayAfterKill(t)
		if opened == 0 {
			t.Fatal("no segment was opened for direct writes")
		}
	})
	t.Run("fdatasync", func(t *testing.T) {
		directWrites = func(string) *os.File { return nil }
		t.Cleanup(func() { directWrites = openDirect })
		replayAfterKill(t)
	})
}

func replayAfterKill(t *testing.T) {
	noCheckpoints(t)
	s, dir := openTemp(t)
	want := playGames(t, s, 5, 6)
	crashed := killedCopy(t, dir)
	// The file itself holds none of them: only the log does.
	var inFile int
	s.db.View(func(tx *bbolt.Tx) error { inFile = tx.Bucket(bucketGames).Stats().KeyN; return nil })
	if inFile != 0 {
		t.Fatalf("the file holds %d games before any checkpoint; want 0", inFile)
	}
	sum, err := Verify(filepath.Join(crashed, FileName))
	if err != nil || sum.Games != 0 || sum.LogWrites != 5*7 {
		t.Fatalf("Verify of the killed store: %d games in the file, %d writes in the log, %v; want 0 and %d", sum.Games, sum.LogWrites, err, 5*7)
	}
	r, err := Open(crashed)
	if err != nil {
		t.Fatal(err)
	}
	hasGames(t, r, want)
	if segs, _ := logSegments(crashed); !laterEmpty(segs) {
		t.Errorf("after the replay: log segments %v hold frames; want only the new log's, empty", segs)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if segs, _ := logSegments(crashed); len(segs) != 0 {
		t.Errorf("after Close: %d log segments; want none", len(segs))
	}
	sum, err = Verify(filepath.Join(crashed, FileName))
	if err != nil || sum.Games != 5 || sum.LogWrites != 0 {
		t.Fatalf("Verify after the replay: %d games, %d writes in the log, %v; want 5 and 0", sum.Games, sum.LogWrites, err)
	}
}

// lastSegment returns the path of the highest-numbered segment in dir
// that holds frames, and the offset where its frames end.
func lastSegment(t *testing.T, dir string) (string, int64) {
	t.Helper()
	segs, err := logSegments(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(segs) - 1; i >= 0; i-- {
		data, err := os.ReadFile(segs[i])
		if err != nil {
			t.Fatal(err)
		}
		end, _, err := scanSegment(segs[i], data, func(int64, int64, []byte) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if end > 0 {
			return segs[i], end
		}
	}
	t.Fatal("no segment holds a frame")
	return "", 0
}

// A frame the crash cut short (its header and part of its payload) is a
// write never acknowledged: dropped, and the rest replayed.
func TestTornTailDropped(t *testing.T) {
	noCheckpoints(t)
	s, dir := openTemp(t)
	want := playGames(t, s, 3, 4)
	// One more move, acknowledged, so the torn copy below is of a real frame.
	crashed := killedCopy(t, dir)
	path, end := lastSegment(t, crashed)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The last frame again as the next group, cut after 100 bytes.
	var last int64
	for off := int64(0); off < end; {
		_, p, _ := frameAt(data, off)
		last = off
		off += frameLen(len(p))
	}
	group, payload, _ := frameAt(data, last)
	torn := make([]byte, walHeader+len(payload))
	copy(torn[walHeader:], payload)
	sealFrame(torn, group+1)
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(torn[:100], end); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r, err := Open(crashed)
	if err != nil {
		t.Fatalf("a torn last frame: %v; want it dropped", err)
	}
	defer r.Close()
	hasGames(t, r, want)
}

// Damage before sound frames, a missing segment, a file that is not a
// segment: refused at open and by Verify, naming the segment and the
// problem; nothing is written.
func TestDamagedLogRefused(t *testing.T) {
	noCheckpoints(t)
	s, dir := openTemp(t)
	playGames(t, s, 10, 10) // 110 groups of a block or more: two segments
	base := killedCopy(t, dir)
	segs, err := logSegments(base)
	if err != nil || len(segs) < 2 {
		t.Fatalf("%d segments, %v; want at least 2", len(segs), err)
	}
	for _, c := range []struct {
		name    string
		damage  func(dir string)
		segment string // the file the error names
		problem string
		noFile  bool // Verify has no file to check
	}{
		{"a byte of the first frame", func(dir string) {
			flipByte(t, filepath.Join(dir, filepath.Base(segs[0])), walHeader+10)
		}, filepath.Base(segs[0]), "a damaged frame (bad checksum) at byte 0, before the sound frame at byte 4096", false},
		{"the last frame of a segment before another", func(dir string) {
			p := filepath.Join(dir, filepath.Base(segs[0]))
			_, end := lastSegmentOf(t, p)
			flipByte(t, p, end-walBlock+walHeader+1)
		}, filepath.Base(segs[0]), "and later segments hold frames", false},
		{"the first segment missing", func(dir string) {
			os.Remove(filepath.Join(dir, filepath.Base(segs[0])))
		}, filepath.Base(segs[1]), "but the store file holds groups only up to 0", false},
		{"a foreign file", func(dir string) {
			os.WriteFile(filepath.Join(dir, walPrefix+"00000099"), []byte("not a log at all"), 0o600)
		}, walPrefix + "00000099", "not a damone log segment", false},
		{"the store file missing", func(dir string) {
			os.Remove(filepath.Join(dir, FileName))
		}, filepath.Base(segs[0]), "a segment of a store whose file", true},
		{"a badly named segment", func(dir string) {
			os.WriteFile(filepath.Join(dir, walPrefix+"old"), nil, 0o600)
		}, walPrefix + "old", "does not end in a segment number", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := killedCopy(t, base)
			c.damage(d)
			before := snapshotDir(t, d)
			errs := map[string]error{"Open": openErr(d)}
			if !c.noFile {
				errs["Verify"] = verifyErr(d)
			}
			for what, err := range errs {
				var de *DamageError
				if !errors.As(err, &de) || filepath.Base(de.Path) != c.segment || !strings.Contains(err.Error(), c.problem) {
					t.Errorf("%s: %v; want a *DamageError naming %s: %q", what, err, c.segment, c.problem)
				}
			}
			if after := snapshotDir(t, d); after != before {
				t.Error("the refused store was written to")
			}
		})
	}
}

func lastSegmentOf(t *testing.T, path string) (string, int64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	end, _, err := scanSegment(path, data, func(int64, int64, []byte) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return path, end
}

func flipByte(t *testing.T, path string, off int64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[off] ^= 0x40
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func openErr(dir string) error {
	s, err := Open(dir)
	if err == nil {
		s.Close()
	}
	return err
}

func verifyErr(dir string) error {
	_, err := Verify(filepath.Join(dir, FileName))
	return err
}

// snapshotDir is the names and contents of dir's files, to tell a change.
func snapshotDir(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		fmt.Fprintf(&b, "%s %x\n", e.Name(), data)
	}
	return b.String()
}

// A hot backup holds every acknowledged write, in bbolt or not yet; a
// stopped store's backup (BackupFile) holds those of its log too.
func TestBackupsHoldTheLog(t *testing.T) {
	noCheckpoints(t)
	s, dir := openTemp(t)
	want := playGames(t, s, 3, 3)
	crashed := killedCopy(t, dir)
	var hot bytes.Buffer
	if _, err := s.Backup(context.Background(), &hot, nil); err != nil {
		t.Fatal(err)
	}
	var cold bytes.Buffer
	if _, err := BackupFile(filepath.Join(crashed, FileName), &cold); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]*bytes.Buffer{"hot": &hot, "stopped": &cold} {
		restored := t.TempDir()
		if err := os.WriteFile(filepath.Join(restored, FileName), b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := Open(restored)
		if err != nil {
			t.Fatalf("%s backup: %v", name, err)
		}
		hasGames(t, r, want)
		r.Close()
	}
}

// Reads racing checkpoints never miss what was acknowledged: a game's
// version and events never go back, List holds each game once.
func TestCheckpointRacingReads(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	svc := games.NewService(s, games.Limits{})
	const n = 8
	ids := make([]string, n)
	toks := make([]games.Tokens, n)
	for i := range n {
		g, tok, err := svc.Create(ctx, engine.DefaultVariant())
		if err != nil {
			t.Fatal(err)
		}
		ids[i], toks[i] = g.ID, tok
	}
	var stop atomic.Bool
	var wg, movers sync.WaitGroup
	wg.Go(func() {
		for !stop.Load() {
			if err := s.checkpointNow(); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for i := range n {
		movers.Go(func() {
			for range 60 {
				if _, ok := play(t, svc, ids[i], toks[i], ""); !ok {
					return
				}
			}
		})
	}
	wg.Go(func() {
		seen := map[string]int64{}
		for !stop.Load() {
			for _, id := range ids {
				g, err := s.Get(ctx, id)
				if err != nil {
					t.Error(err)
					return
				}
				if g.Version < seen[id] {
					t.Errorf("game %s went back from version %d to %d", id, seen[id], g.Version)
				}
				seen[id] = g.Version
				evs, err := s.Events(ctx, id, 0, 1000)
				if err != nil || int64(len(evs)) < g.LastEvent {
					t.Errorf("game %s at event %d: %d events read after, %v", id, g.LastEvent, len(evs), err)
				}
				for k, e := range evs {
					if e.Sequence != int64(k)+1 {
						t.Errorf("game %s: event %d has sequence number %d", id, k, e.Sequence)
						break
					}
				}
			}
			page, err := s.List(ctx, games.ListQuery{Limit: 100})
			if err != nil || len(page) != n {
				t.Errorf("List: %d games, %v; want %d", len(page), err, n)
			}
		}
	})
	// The movers end first; then the readers and the checkpoints stop.
	movers.Wait()
	stop.Store(true)
	wg.Wait()
}

// TestRetiredSegmentGap: segments 1 and 3 left with 2 gone, as when a
// crash kept 2's removal but not 1's. The gap's groups (4 to 6) are
// replayed from the log only if the store file lacks them: with the
// file at 6 the log reads as groups 7 and 8; at 5, group 6 is missing.
func TestRetiredSegmentGap(t *testing.T) {
	dir := t.TempDir()
	first := int64(1)
	for n, groups := range []int{3, 3, 2} {
		w, err := newWAL(dir, n+1, first)
		if err != nil {
			t.Fatal(err)
		}
		for range groups {
			if _, _, err := w.append(append(w.frame(), "payload"...), false); err != nil {
				t.Fatal(err)
			}
		}
		first += int64(groups)
		if err := w.close(false); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(segmentName(dir, 2)); err != nil {
		t.Fatal(err)
	}
	frames, _, err := readLog(dir, 6)
	if err != nil || len(frames) != 2 || frames[0].group != 7 || frames[1].group != 8 {
		t.Errorf("readLog after group 6: %d frames, %v; want groups 7 and 8", len(frames), err)
	}
	var de *DamageError
	if _, _, err := readLog(dir, 5); !errors.As(err, &de) || !strings.Contains(err.Error(), "group 7 where group 4 was due") {
		t.Errorf("readLog after group 5: %v; want a *DamageError: group 7 where group 4 was due", err)
	}
}

// TestLogWriteErrorStopsWrites: once an append to the log fails after it
// may have written (here the segment's files are closed under the
// committer, so the write fails), the store takes no more writes, each
// refused write is told it may have been kept, reads still answer, and
// the acknowledged moves are all there after a restart.
func TestLogWriteErrorStopsWrites(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	svc := games.NewService(s, games.Limits{})
	g, tok, err := svc.Create(ctx, engine.DefaultVariant())
	if err != nil {
		t.Fatal(err)
	}
	mv, ok := play(t, svc, g.ID, tok, "req-0")
	if !ok {
		t.Fatal("no first move")
	}
	// The committer is idle: its last group was acknowledged. Appends go
	// to the direct descriptor where there is one.
	s.wal.f.Close()
	if s.wal.direct != nil {
		s.wal.direct.Close()
	}
	now, err := svc.Get(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	next := now.Position.LegalMoves()[0].String()
	for _, req := range []string{"req-1", "req-2"} {
		_, err := svc.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: tok.Black, Move: next, RequestID: req})
		if err == nil || !strings.Contains(err.Error(), "takes no more writes") || !strings.Contains(err.Error(), "may have been kept") {
			t.Errorf("%s after the log failed: %v; want the store refusing writes, saying the write may have been kept", req, err)
		}
	}
	if got, err := s.Get(ctx, g.ID); err != nil || got.Plies != 1 {
		t.Errorf("read after the log failed: %v; want the game at ply 1", err)
	}
	s.Close()
	s2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	got, err := s2.Get(ctx, g.ID)
	if err != nil || got.Plies != 1 || got.Version != now.Version {
		t.Errorf("after a restart: %v; want the game at ply 1, version %d (the acknowledged move %s alone)", err, now.Version, mv)
	}
}

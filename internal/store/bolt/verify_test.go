package bolt

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
)

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// wantRefused opens dir and wants a *DamageError naming the file and
// holding want, with the file unchanged.
func wantRefused(t *testing.T, dir, want string) {
	t.Helper()
	path := filepath.Join(dir, FileName)
	before := fileSum(t, path)
	s, err := Open(dir)
	if err == nil {
		s.Close()
		t.Fatalf("Open accepted the file; want a refusal with %q", want)
	}
	var de *DamageError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
		t.Errorf("refusal %q (%T): want a *DamageError naming %s and %q", err, err, path, want)
	}
	if fileSum(t, path) != before {
		t.Error("the refused file was changed")
	}
}

// Issue 14: a 0-byte file is refused, not made a new empty store over.
func TestEmptyFileIsRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, dir, "the file is empty (0 bytes)")
	if _, err := Verify(filepath.Join(dir, FileName)); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("Verify of an empty file: %v", err)
	}
}

// Issue 14: opening used to commit a write before anything was checked;
// now a sound file of the current schema is opened without one.
func TestOpenLeavesSoundFileUnchanged(t *testing.T) {
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
	path := filepath.Join(dir, FileName)
	before := fileSum(t, path)
	for range 2 {
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := storedMoves(s, g.ID); err != nil || !slices.Equal(got, []string{"e2-d3"}) {
			t.Fatalf("after reopening: moves %v, %v; want e2-d3", got, err)
		}
		s.Close()
		if fileSum(t, path) != before {
			t.Fatal("opening and closing a sound store changed its file")
		}
	}
}

// A new store is built beside the file and linked into place: no
// temporary file is left, and the directory holds the one store file.
func TestNewStoreLeavesOnlyItsFile(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{FileName}) {
		t.Errorf("data directory holds %v, want only %s", names, FileName)
	}
	if sum, err := Verify(filepath.Join(dir, FileName)); err != nil || sum.Schema != string(schemaVersion) || sum.Games != 0 {
		t.Errorf("Verify of a new store: %+v, %v", sum, err)
	}
}

// Verify counts what was written (3 games: 1 created event each, plus one
// per move and one per draw offer or ending; 2 request ids) and refuses,
// rather than reads, a file a running store holds.
func TestVerifySummaryAndInUse(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	svc := games.NewService(s, games.DefaultLimits)
	ctx := context.Background()
	var ids []string
	for range 3 {
		g, tok, err := svc.Create(ctx, engine.DefaultVariant())
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, g.ID)
		if len(ids) == 1 {
			for i, mv := range []struct{ tok, move string }{{tok.Red, "e2-d3"}, {tok.Black, "d7-e6"}} {
				if _, err := svc.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: mv.tok, Move: mv.move, RequestID: fmt.Sprint("r", i)}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if len(ids) == 2 {
			if _, err := svc.Resign(ctx, g.ID, tok.Black); err != nil {
				t.Fatal(err)
			}
		}
	}
	path := filepath.Join(dir, FileName)
	if _, err := Verify(path); !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), path) {
		t.Errorf("Verify of a file in use: %v, want ErrInUse naming the file", err)
	}
	if s2, err := Open(dir); err == nil || !strings.Contains(err.Error(), "locked by another process") {
		if err == nil {
			s2.Close()
		}
		t.Errorf("second Open: %v, want locked", err)
	}
	s.Close()
	sum, err := Verify(path)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Games != 3 || sum.Events != 3+2+1 || sum.Requests != 2 || sum.Schema != "damone-3" || sum.PageSize < 1024 || sum.Pages < 3 {
		t.Errorf("summary %+v, want 3 games, 6 events, 2 requests, schema damone-3", sum)
	}
}

// rewrite changes a closed store's file directly through bbolt.
func rewrite(t *testing.T, dir string, fn func(tx *bbolt.Tx) error) {
	t.Helper()
	db, err := bbolt.Open(filepath.Join(dir, FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
}

// A store with one game of one move, closed.
func oneGameStore(t *testing.T) (dir string, id string) {
	t.Helper()
	dir = t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	svc := games.NewService(s, games.DefaultLimits)
	g, tok, err := svc.Create(context.Background(), engine.DefaultVariant())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.MakeMove(context.Background(), games.MoveRequest{GameID: g.ID, Token: tok.Red, Move: "e2-d3", RequestID: "q"}); err != nil {
		t.Fatal(err)
	}
	return dir, g.ID
}

// Records that decode but do not fit their key or their game are damage:
// each case changes one thing in a sound file.
func TestMismatchedRecordsAreRefused(t *testing.T) {
	cases := []struct {
		name, want string
		change     func(tx *bbolt.Tx, id string) error
	}{
		{"unknown schema", `unknown schema "damone-99"`, func(tx *bbolt.Tx, _ string) error {
			return tx.Bucket(bucketMeta).Put(keySchema, []byte("damone-99"))
		}},
		{"foreign bucket", `unknown top-level entry "other"`, func(tx *bbolt.Tx, _ string) error {
			_, err := tx.CreateBucket([]byte("other"))
			return err
		}},
		{"game under another key", "its record is of game", func(tx *bbolt.Tx, id string) error {
			gb := tx.Bucket(bucketGames)
			v := bytes.Clone(gb.Get([]byte(id)))
			if err := gb.Delete([]byte(id)); err != nil {
				return err
			}
			return gb.Put([]byte(id+"x"), v)
		}},
		{"missing event", "1 events, but its last event is 2", func(tx *bbolt.Tx, id string) error {
			return tx.Bucket(bucketEvents).Bucket([]byte(id)).Delete(seqKey(2))
		}},
		{"event of another game", "its record is event 1 of game", func(tx *bbolt.Tx, id string) error {
			eb := tx.Bucket(bucketEvents).Bucket([]byte(id))
			v := bytes.Replace(eb.Get(seqKey(1)), []byte(id), []byte("someone-else"), 1)
			return eb.Put(seqKey(1), v)
		}},
		{"event at another position", "at position R:RMh1", func(tx *bbolt.Tx, id string) error {
			eb := tx.Bucket(bucketEvents).Bucket([]byte(id))
			v := bytes.Replace(eb.Get(seqKey(2)), []byte(`"position":"B:`), []byte(`"position":"R:`), 1)
			return eb.Put(seqKey(2), v)
		}},
		{"move not legal there", "move e2-f3 is not legal after the moves before it", func(tx *bbolt.Tx, id string) error {
			eb := tx.Bucket(bucketEvents).Bucket([]byte(id))
			v := bytes.ReplaceAll(eb.Get(seqKey(2)), []byte(`"notation":"e2-d3"`), []byte(`"notation":"e2-f3"`))
			v = bytes.ReplaceAll(v, []byte(`"landings":["d3"]`), []byte(`"landings":["f3"]`))
			return eb.Put(seqKey(2), v)
		}},
		{"events of no game", "which is not in the games bucket", func(tx *bbolt.Tx, _ string) error {
			_, err := tx.Bucket(bucketEvents).CreateBucket([]byte("nobody"))
			return err
		}},
		{"request under another key", "its record is of request", func(tx *bbolt.Tx, id string) error {
			rb := tx.Bucket(bucketRequests).Bucket([]byte(id))
			var k, v []byte
			rb.ForEach(func(kk, vv []byte) error { k, v = bytes.Clone(kk), bytes.Clone(vv); return nil })
			if err := rb.Delete(k); err != nil {
				return err
			}
			return rb.Put([]byte("red/other"), v)
		}},
		{"invalid UTF-8 in a record", "not valid UTF-8", func(tx *bbolt.Tx, id string) error {
			gb := tx.Bucket(bucketGames)
			v := bytes.Replace(gb.Get([]byte(id)), []byte(`"initial":"R`), []byte("\"initial\":\"\xff"), 1)
			return gb.Put([]byte(id), v)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, id := oneGameStore(t)
			rewrite(t, dir, func(tx *bbolt.Tx) error { return c.change(tx, id) })
			wantRefused(t, dir, c.want)
		})
	}
}

// Verify never reads through a lock a writer holds, and a damaged meta
// page is refused even though bbolt would fall back to the other one (an
// older transaction: acknowledged moves would be lost).
func TestDamagedMetaPageIsRefused(t *testing.T) {
	for _, page := range []int{0, 1} {
		t.Run(fmt.Sprint("meta page ", page), func(t *testing.T) {
			dir, _ := oneGameStore(t)
			path := filepath.Join(dir, FileName)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := Verify(path)
			if err != nil {
				t.Fatal(err)
			}
			b[page*sum.PageSize+16+48] ^= 0x01 // the meta's transaction id: the checksum no longer matches
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			wantRefused(t, dir, fmt.Sprintf("meta page %d: bad checksum", page))
		})
	}
}

// slowWriter takes its time over every write, as a slow client would.
type slowWriter struct {
	w     io.Writer
	pause time.Duration
}

func (s slowWriter) Write(p []byte) (int, error) {
	time.Sleep(s.pause)
	return s.w.Write(p)
}

// A hot backup is a sound store file holding every move acknowledged
// before it began, and moves go on being acknowledged while it is taken.
func TestBackupWhileWriting(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	svc := games.NewService(s, games.DefaultLimits)
	ctx := context.Background()

	type played struct {
		id    string
		moves []string
	}
	var mu sync.Mutex
	acked := map[string][]string{}
	var during atomic.Int64 // moves acknowledged while the backup runs
	var backingUp atomic.Bool
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Go(func() {
			for n := 0; ; n++ {
				g, tok, err := svc.Create(ctx, engine.DefaultVariant())
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				acked[g.ID] = []string{}
				mu.Unlock()
				for ply := 0; ply < 30 && !g.Over(); ply++ {
					select {
					case <-stop:
						return
					default:
					}
					legal := g.Position.LegalMoves()
					mv := legal[(w+n+ply)%len(legal)].String()
					token := tok.Red
					if g.Position.SideToMove() != g.Initial.SideToMove() {
						token = tok.Black
					}
					res, err := svc.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: token, Move: mv})
					if err != nil {
						t.Error(err)
						return
					}
					g = res.Game
					mu.Lock()
					acked[g.ID] = append(acked[g.ID], mv)
					mu.Unlock()
					if backingUp.Load() {
						during.Add(1)
					}
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	var before []played
	for id, moves := range acked {
		before = append(before, played{id, slices.Clone(moves)})
	}
	backingUp.Store(true)
	mu.Unlock()
	var buf bytes.Buffer
	var announced int64
	n, err := s.Backup(ctx, slowWriter{&buf, 20 * time.Millisecond}, func(size int64) { announced = size })
	backingUp.Store(false)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if n != announced || int64(buf.Len()) != n {
		t.Fatalf("backup wrote %d bytes, announced %d, buffer %d", n, announced, buf.Len())
	}
	if during.Load() == 0 {
		t.Error("no move was acknowledged while the backup ran: writers waited for it")
	}
	restored := t.TempDir()
	if err := os.WriteFile(filepath.Join(restored, FileName), buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(filepath.Join(restored, FileName)); err != nil {
		t.Fatalf("the backup is not sound: %v", err)
	}
	r, err := Open(restored)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, p := range before {
		got, err := storedMoves(r, p.id)
		if err != nil {
			t.Fatalf("game %s, acknowledged before the backup: %v", p.id, err)
		}
		if len(got) < len(p.moves) || !slices.Equal(got[:len(p.moves)], p.moves) {
			t.Fatalf("game %s in the backup: moves %v, want %v acknowledged before it began", p.id, got, p.moves)
		}
	}
	t.Logf("backup of %d bytes: %d games acknowledged before it, %d moves acknowledged during it", n, len(before), during.Load())
}

// storedMoves reads a game's moves from its event log.
func storedMoves(s *Store, id string) ([]string, error) {
	evs, err := s.Events(context.Background(), id, 0, 1<<20)
	if err != nil {
		return nil, err
	}
	moves := []string{}
	for _, e := range evs {
		if e.Kind == games.EventMovePlayed {
			moves = append(moves, e.Move.Move.String())
		}
	}
	return moves, nil
}

// Games are checked on several goroutines, but the refusal names the
// first damaged game in key order, as one goroutine checking them in turn
// would: here its damage is in its last event, so the later games, whose
// records do not decode at all, are found damaged before it.
func TestVerifyNamesFirstDamagedGame(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.setNoSync(true) // speed of the setup only
	svc := games.NewService(s, games.DefaultLimits)
	ctx := context.Background()
	var ids []string
	for n := range 24 {
		g, tok, err := svc.Create(ctx, engine.DefaultVariant())
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, g.ID)
		for ply := 0; ply < 30 && !g.Over(); ply++ {
			legal := g.Position.LegalMoves()
			token := tok.Red
			if g.Position.SideToMove() != g.Initial.SideToMove() {
				token = tok.Black
			}
			res, err := svc.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: token, Move: legal[(n+ply)%len(legal)].String()})
			if err != nil {
				t.Fatal(err)
			}
			g = res.Game
		}
	}
	s.Close()
	slices.Sort(ids) // key order
	first := ids[3]
	var last int64
	rewrite(t, dir, func(tx *bbolt.Tx) error {
		eb := tx.Bucket(bucketEvents).Bucket([]byte(first))
		k, v := eb.Cursor().Last()
		last = int64(binary.BigEndian.Uint64(k))
		seq := []byte(fmt.Sprintf(`"seq":%d,`, last))
		if !bytes.Contains(v, seq) {
			return fmt.Errorf("event %d of %s: no %s in %s", last, first, seq, v)
		}
		if err := eb.Put(bytes.Clone(k), bytes.Replace(v, seq, []byte(`"seq":9999,`), 1)); err != nil {
			return err
		}
		gb := tx.Bucket(bucketGames)
		for _, id := range ids[4:] {
			if err := gb.Put([]byte(id), []byte(`{"v":2,`)); err != nil {
				return err
			}
		}
		return nil
	})
	want := fmt.Sprintf("game %s: event %d: its record is event 9999 of game %q", first, last, first)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8)) // more workers than cores: more orders of completion
	for range 20 {
		_, err := Verify(filepath.Join(dir, FileName))
		var de *DamageError
		if !errors.As(err, &de) || de.Problem != want {
			t.Fatalf("Verify: %v; want the damage %q", err, want)
		}
	}
}

// legalMove finds a recorded move among the legal moves without parsing
// its notation, and answers as ParseMove of that notation does: the same
// legal move for each path of the position's moves (the one the move
// list gives, the other equivalent path of a loop through ParseMove) and
// the same refusal.
func TestLegalMoveIsParseMove(t *testing.T) {
	record := func(m *engine.Move) engine.Move {
		_, promoted := m.Promotion()
		r, err := engine.MoveFromPath(m.Rank(), m.From(), m.Landings(), promoted)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	check := func(p engine.Position, m engine.Move) {
		t.Helper()
		got, _, err := legalMove(&p, &m, nil)
		want, werr := p.ParseMove(m.String())
		if fmt.Sprint(err) != fmt.Sprint(werr) || got != want {
			t.Errorf("legalMove(%s, %s) = %s, %v; ParseMove gives %s, %v", p, m, got, err, want, werr)
		}
	}
	// Every legal move along a game that captures, promotes and ends.
	v := engine.DefaultVariant()
	g, err := engine.NewGame(v)
	if err != nil {
		t.Fatal(err)
	}
	plies := 0
	for ; plies < 300 && !g.Outcome().Over(); plies++ {
		p := g.Position()
		legal := p.LegalMoves()
		for i := range legal {
			check(p, record(&legal[i]))
		}
		if err := g.Play(legal[(plies*5)%len(legal)]); err != nil {
			t.Fatal(err)
		}
	}
	// A Dama's loop: d3xf5xh3xf1xd3 and d3xf1xh3xf5xd3 are one move; the
	// list holds one of the two paths.
	loop := mustParsePosition(t, "R:RDd3:BPe2,Pe4,Pg2,Pg4:0")
	for _, path := range [][]string{{"f5", "h3", "f1", "d3"}, {"f1", "h3", "f5", "d3"}} {
		var landings []engine.Square
		for _, s := range path {
			sq, err := engine.ParseSquare(s)
			if err != nil {
				t.Fatal(err)
			}
			landings = append(landings, sq)
		}
		d3, _ := engine.ParseSquare("d3")
		m, err := engine.MoveFromPath(engine.Dama, d3, landings, false)
		if err != nil {
			t.Fatal(err)
		}
		check(loop, m)
		if got, _, err := legalMove(&loop, &m, nil); err != nil || got.CaptureCount() != 4 {
			t.Errorf("legalMove(loop, %s) = %s, %v; want the loop", m, got, err)
		}
	}
	// Refusals: a step where a capture is compulsory, a step of the side
	// not to move.
	p := mustParsePosition(t, "R:RDd3:BPe2,Pe4,Pg2,Pg4:0")
	for _, c := range []struct {
		rank     engine.Rank
		from, to string
	}{{engine.Dama, "d3", "c4"}, {engine.Pedine, "e4", "f3"}} {
		from, _ := engine.ParseSquare(c.from)
		to, _ := engine.ParseSquare(c.to)
		m, err := engine.MoveFromPath(c.rank, from, []engine.Square{to}, false)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := legalMove(&p, &m, nil); err == nil {
			t.Errorf("legalMove(%s, %s) accepted it", p, m)
		}
		check(p, m)
	}
	t.Logf("%d plies", plies)
}

func mustParsePosition(t *testing.T, text string) engine.Position {
	t.Helper()
	p, err := engine.ParsePosition(text)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// BenchmarkVerify checks a store of 500 games of up to 40 moves:
// the time a start spends verifying before it serves.
func BenchmarkVerify(b *testing.B) {
	dir := b.TempDir()
	s, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	s.setNoSync(true) // speed of the setup only
	svc := games.NewService(s, games.DefaultLimits)
	ctx := context.Background()
	for n := range 500 {
		g, tok, err := svc.Create(ctx, engine.DefaultVariant())
		if err != nil {
			b.Fatal(err)
		}
		for ply := 0; ply < 40 && !g.Over(); ply++ {
			legal := g.Position.LegalMoves()
			token := tok.Red
			if g.Position.SideToMove() != g.Initial.SideToMove() {
				token = tok.Black
			}
			res, err := svc.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: token, Move: legal[(n+ply)%len(legal)].String()})
			if err != nil {
				b.Fatal(err)
			}
			g = res.Game
		}
	}
	s.Close()
	path := filepath.Join(dir, FileName)
	var sum Summary
	for b.Loop() {
		if sum, err = Verify(path); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(sum.Events), "ns/event")
	b.ReportMetric(float64(sum.FileSize)/(1<<20), "MiB")
}

package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/store/bolt"
)

// smallBuffers makes the server's side of every connection keep little
// in flight, so a client that stops reading stalls the handler's writes
// at once, as a far bigger snapshot would on default buffers.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(32 << 10)
	}
	return c, err
}

// serveBackup serves backupHandler for s on a loopback port.
func serveBackup(t *testing.T, s games.Store) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: backupHandler(s, slog.New(slog.DiscardHandler))}
	go srv.Serve(smallBuffers{ln})
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// player plays games on svc until stop closes: each a new game of up to
// 30 plies, moves chosen by n. Every acknowledged move is added to acked
// and its latency to worst.
type player struct {
	svc   *games.Service
	mu    sync.Mutex
	acked map[string][]string
	moves atomic.Int64
	worst [3]atomic.Int64 // nanoseconds: MakeMove, Get, Due
}

func (p *player) note(i int, since time.Time) {
	d := int64(time.Since(since))
	for {
		old := p.worst[i].Load()
		if d <= old || p.worst[i].CompareAndSwap(old, d) {
			return
		}
	}
}

func (p *player) play(ctx context.Context, store *bolt.Store, w int, stop <-chan struct{}) error {
	for n := 0; ; n++ {
		g, tok, err := p.svc.Create(ctx, engine.DefaultVariant())
		if err != nil {
			return err
		}
		p.mu.Lock()
		p.acked[g.ID] = []string{}
		p.mu.Unlock()
		for ply := 0; ply < 30 && !g.Over(); ply++ {
			select {
			case <-stop:
				return nil
			default:
			}
			legal := g.Position.LegalMoves()
			mv := legal[(w+n+ply)%len(legal)].String()
			token := tok.Red
			if g.Position.SideToMove() != g.Initial.SideToMove() {
				token = tok.Black
			}
			t0 := time.Now()
			res, err := p.svc.MakeMove(ctx, games.MoveRequest{GameID: g.ID, Token: token, Move: mv})
			if err != nil {
				return err
			}
			p.note(0, t0)
			g = res.Game
			p.mu.Lock()
			p.acked[g.ID] = append(p.acked[g.ID], mv)
			p.mu.Unlock()
			p.moves.Add(1)
			t0 = time.Now()
			if _, err := p.svc.Get(ctx, g.ID); err != nil {
				return err
			}
			p.note(1, t0)
			t0 = time.Now()
			if _, err := store.Due(ctx, time.Now(), 100); err != nil { // the clock sweep's query
				return err
			}
			p.note(2, t0)
		}
	}
}

// youngStore is a new embedded store in dir with about moves moves
// played on it by p.
func youngStore(t *testing.T, dir string, moves int64) (*bolt.Store, *player) {
	t.Helper()
	store, err := bolt.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	p := &player{svc: games.NewService(store, games.DefaultLimits), acked: map[string][]string{}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Go(func() { errs <- p.play(context.Background(), store, w, stop) })
	}
	for p.moves.Load() < moves && len(errs) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range p.worst {
		p.worst[i].Store(0)
	}
	return store, p
}

// getBackup sends GET BackupPath on a new connection with small buffers
// and reads the answer's head.
func getBackup(t *testing.T, addr string) (net.Conn, *http.Response) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.(*net.TCPConn).SetReadBuffer(32 << 10)
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: damone\r\n\r\n", BackupPath); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReaderSize(conn, 4096), nil)
	if err != nil {
		t.Fatal(err)
	}
	return conn, resp
}

// A download that stalls does not hold the store (issue 24): on a young
// store, whose file must grow (and bbolt remap it) while the backup is
// served, moves, reads and the clock sweep's query stay fast while the
// client reads nothing; once it reads on, it gets a sound copy holding
// every move acknowledged before it asked.
func TestStalledBackupDoesNotHoldTheStore(t *testing.T) {
	dir := t.TempDir()
	store, p := youngStore(t, dir, 400)
	ctx := context.Background()
	dbPath := filepath.Join(dir, bolt.FileName)
	fileSize := func() int64 {
		fi, err := os.Stat(dbPath)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := map[string][]string{}
	for id, m := range p.acked {
		before[id] = slices.Clone(m)
	}
	startSize := fileSize()
	// bbolt maps the file in powers of two from 32 KiB, and grows a file
	// that small to its map: at four times the map that covers it now, it
	// has been remapped twice.
	mapped := int64(32 << 10)
	for mapped < startSize {
		mapped *= 2
	}
	target := 4 * mapped

	_, resp := getBackup(t, serveBackup(t, store))
	if resp.StatusCode != http.StatusOK || resp.ContentLength <= 0 {
		t.Fatalf("backup: %s, Content-Length %d; want 200 with a length", resp.Status, resp.ContentLength)
	}
	if resp.ContentLength < 256<<10 {
		t.Fatalf("the snapshot is %d bytes: too small to outlast the socket buffers", resp.ContentLength)
	}
	head := make([]byte, 4096)
	if _, err := io.ReadFull(resp.Body, head); err != nil {
		t.Fatal(err)
	}

	// The client stalls until the store has grown past its map twice and
	// a thousand moves were played, or for at most 15 s (a store that
	// waits for the client waits that long).
	stop := make(chan struct{})
	var load sync.WaitGroup
	loadErrs := make(chan error, 4)
	for w := range 4 {
		load.Go(func() { loadErrs <- p.play(ctx, store, 10+w, stop) })
	}
	const maxStall = 15 * time.Second
	startMoves := p.moves.Load()
	stallStart := time.Now()
	for (fileSize() < target || p.moves.Load()-startMoves < 1000) && time.Since(stallStart) < maxStall {
		time.Sleep(20 * time.Millisecond)
	}
	stalled := time.Since(stallStart)
	during := p.moves.Load() - startMoves
	grown := fileSize()
	close(stop)

	rest, err := io.ReadAll(resp.Body)
	load.Wait()
	close(loadErrs)
	for err := range loadErrs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err != nil {
		t.Fatalf("reading the backup after the stall: %v", err)
	}
	names := []string{"MakeMove", "GetGame", "Due (the clock sweep)"}
	for i, name := range names {
		if d := time.Duration(p.worst[i].Load()); d > 2*time.Second {
			t.Errorf("%s took %v while the backup's client stalled: the store waited for it", name, d.Round(time.Millisecond))
		}
	}
	if grown < target {
		t.Errorf("the store file grew from %d to %d bytes in %v of stall, not to %d: the store was not remapped twice", startSize, grown, stalled.Round(time.Millisecond), target)
	}
	if during < 1000 {
		t.Errorf("%d moves in %v of stall, want 1000", during, stalled.Round(time.Millisecond))
	}

	got := append(head, rest...)
	if int64(len(got)) != resp.ContentLength {
		t.Fatalf("the backup is %d bytes, announced %d", len(got), resp.ContentLength)
	}
	restored := t.TempDir()
	if err := os.WriteFile(filepath.Join(restored, bolt.FileName), got, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := bolt.Verify(filepath.Join(restored, bolt.FileName)); err != nil {
		t.Fatalf("the backup is not sound: %v", err)
	}
	r, err := bolt.Open(restored)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rsvc := games.NewService(r, games.DefaultLimits)
	for id, want := range before {
		g, err := rsvc.Get(ctx, id)
		if err != nil {
			t.Fatalf("game %s, acknowledged before the backup: %v", id, err)
		}
		if err := rsvc.WithMoves(ctx, g); err != nil {
			t.Fatal(err)
		}
		var moves []string
		for _, m := range g.Moves {
			moves = append(moves, m.Move.String())
		}
		if len(moves) < len(want) || !slices.Equal(moves[:len(want)], want) {
			t.Fatalf("game %s in the backup: moves %v, want %v acknowledged before it began", id, moves, want)
		}
	}
	if entries := leftovers(t, dir); len(entries) != 0 {
		t.Errorf("the data directory holds %v besides the store", entries)
	}
	t.Logf("snapshot of %d bytes; the store grew from %d to %d bytes during a %v stall, with %d moves; slowest MakeMove %v, GetGame %v, Due %v",
		resp.ContentLength, startSize, grown, stalled.Round(time.Millisecond), during,
		time.Duration(p.worst[0].Load()).Round(time.Microsecond), time.Duration(p.worst[1].Load()).Round(time.Microsecond), time.Duration(p.worst[2].Load()).Round(time.Microsecond))
}

// leftovers lists what dir holds besides the store file.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.Name() != bolt.FileName && !strings.HasPrefix(e.Name(), bolt.LogPrefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// Backups are served one at a time: a second request while one is served
// gets 409 saying so. A client that goes away midway ends its backup: the
// next one is served, and the data directory holds only the store.
func TestBackupsOneAtATimeAndClientGone(t *testing.T) {
	dir := t.TempDir()
	store, _ := youngStore(t, dir, 400)
	addr := serveBackup(t, store)
	first, resp := getBackup(t, addr)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("first backup: %s", resp.Status)
	}
	if resp.ContentLength < 256<<10 {
		t.Fatalf("the snapshot is %d bytes: too small to outlast the socket buffers", resp.ContentLength)
	}
	_, second := getBackup(t, addr)
	body, _ := io.ReadAll(io.LimitReader(second.Body, 200))
	if second.StatusCode != http.StatusConflict || !strings.Contains(string(body), "another backup is being served") {
		t.Fatalf("a second backup while the first is served: %s %q; want 409 saying another backup is being served", second.Status, body)
	}
	first.Close() // the client is gone, the first backup unread

	deadline := time.Now().Add(10 * time.Second)
	for {
		_, again := getBackup(t, addr)
		if again.StatusCode == http.StatusOK {
			got, err := io.ReadAll(again.Body)
			if err != nil || int64(len(got)) != again.ContentLength {
				t.Fatalf("the backup after a client went away: %d of %d bytes, %v", len(got), again.ContentLength, err)
			}
			break
		}
		if again.StatusCode != http.StatusConflict || time.Now().After(deadline) {
			t.Fatalf("a backup after the first client went away: %s; want 200 within 10 s", again.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if entries := leftovers(t, dir); len(entries) != 0 {
		t.Errorf("the data directory holds %v besides the store", entries)
	}
}

// fakeBackuper is a store whose Backup fails with err before its first
// byte.
type fakeBackuper struct {
	games.Store
	err error
}

func (f fakeBackuper) Backup(context.Context, io.Writer, func(int64)) (int64, error) { return 0, f.err }

// A backup refused before its first byte is answered with a status that
// says why: 409 busy, 507 no room, 500 otherwise, the error in the body.
func TestBackupRefusalStatus(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{fmt.Errorf("another backup: %w", syscall.EBUSY), http.StatusConflict},
		{fmt.Errorf("writing: %w", syscall.ENOSPC), http.StatusInsufficientStorage},
		{errors.New("read error"), http.StatusInternalServerError},
	} {
		addr := serveBackup(t, fakeBackuper{err: c.err})
		resp, err := http.Get("http://" + addr + BackupPath)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want || !strings.Contains(string(body), c.err.Error()) {
			t.Errorf("%v: %s %q; want %d with the error", c.err, resp.Status, body, c.want)
		}
	}
}

package main

// End-to-end tests of durable games: several real `damone serve`
// processes sharing one PostgreSQL database, and one process on the
// embedded store killed and restarted. They need the test PostgreSQL
// (scripts/test-postgres, which `make test` starts).

import (
	"context"
	"errors"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/store/postgres/pgtest"
)

// replica is one running `damone serve` process of a test with several
// (started by svStart, with the flags of the test's store).
type replica struct {
	*svServer
}

func startReplica(t *testing.T, args ...string) *replica {
	t.Helper()
	return &replica{svStart(t, append([]string{"--drain-timeout", "5s"}, args...)...)}
}

// kill ends the process with SIGKILL: no drain, no goodbye.
func (r *replica) kill() {
	select {
	case <-r.exited:
	default:
		r.cmd.Process.Signal(syscall.SIGKILL)
		<-r.exited
	}
}

// watcher collects a WatchGame stream in the background.
type watcher struct {
	mu     sync.Mutex
	events []*damonev1.GameEvent
	err    error
	done   chan struct{}
	cancel context.CancelFunc
}

func watch(t *testing.T, c damonev1.GameServiceClient, name string, since int64) *watcher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &watcher{done: make(chan struct{}), cancel: cancel}
	stream, err := c.WatchGame(ctx, &damonev1.WatchGameRequest{Name: name, SinceSequence: since})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(w.done)
		for {
			e, err := stream.Recv()
			w.mu.Lock()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					w.err = err
				}
				w.mu.Unlock()
				return
			}
			w.events = append(w.events, e)
			w.mu.Unlock()
		}
	}()
	t.Cleanup(cancel)
	return w
}

func (w *watcher) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.events)
}

func (w *watcher) waitFor(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for w.count() < n {
		if time.Now().After(deadline) {
			t.Fatalf("watcher has %d events, want %d (err %v)", w.count(), n, w.err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// checkEvents asserts the events are exactly sequences from..from+len-1,
// each once and in order, that the move events are the moves played, in
// order, and that each one's position is the engine's own replay.
func checkEvents(t *testing.T, evs []*damonev1.GameEvent, from int64, moves []string) {
	t.Helper()
	g, err := engine.NewGame(engine.DefaultVariant())
	if err != nil {
		t.Fatal(err)
	}
	ply := 0
	for i, e := range evs {
		if e.GetSequence() != from+int64(i) {
			t.Fatalf("event %d has sequence %d, want %d (missing or repeated events)", i, e.GetSequence(), from+int64(i))
		}
	}
	for _, e := range evs {
		mp := e.GetMovePlayed()
		if mp == nil {
			continue
		}
		if ply == len(moves) || moves[ply] != mp.GetMove().GetNotation() {
			t.Fatalf("event %d plays %s, want move %d of %v", e.GetSequence(), mp.GetMove().GetNotation(), ply+1, moves)
		}
		if _, err := g.PlayText(moves[ply]); err != nil {
			t.Fatal(err)
		}
		ply++
		if got, want := e.GetPosition().GetText(), g.Position().String(); got != want {
			t.Fatalf("event %d position %s, want %s", e.GetSequence(), got, want)
		}
	}
}

// pickMove returns a seeded choice among the legal moves of a game.
func pickMove(t *testing.T, c damonev1.GameServiceClient, name string, rng *rand.Rand) (string, *damonev1.Game) {
	t.Helper()
	g, err := c.GetGame(context.Background(), &damonev1.GetGameRequest{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	p, err := engine.ParsePosition(g.GetPosition().GetText())
	if err != nil {
		t.Fatal(err)
	}
	moves := p.LegalMoves()
	if len(moves) == 0 {
		return "", g
	}
	return moves[rng.Intn(len(moves))].String(), g
}

func postgresDSN(t *testing.T) string { return pgtest.FreshDSN(t) }

func TestReplicasShareGamesAndEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dsn := postgresDSN(t)
	flags := []string{"--store", "postgres", "--postgres-dsn", dsn}
	a, b, c := startReplica(t, flags...), startReplica(t, flags...), startReplica(t, flags...)
	ctx := context.Background()

	created, err := a.games.CreateGame(ctx, &damonev1.CreateGameRequest{})
	if err != nil {
		t.Fatal(err)
	}
	name := created.GetGame().GetName()
	wb, wc := watch(t, b.games, name, 0), watch(t, c.games, name, 0)
	wb.waitFor(t, 1)
	wc.waitFor(t, 1)

	// Moves alternate between replicas A and B; a client of C watches.
	rng := rand.New(rand.NewSource(1))
	var played []string
	replicas := []*replica{a, b}
	for ply := 0; ply < 30; ply++ {
		r := replicas[ply%2]
		move, g := pickMove(t, r.games, name, rng)
		if move == "" || g.GetStatus() == damonev1.GameStatus_GAME_STATUS_FINISHED {
			break
		}
		token := created.GetRedToken()
		if g.GetPosition().GetSideToMove() == damonev1.Side_SIDE_BLACK {
			token = created.GetBlackToken()
		}
		if _, err := r.games.MakeMove(svAuth(ctx, token), &damonev1.MakeMoveRequest{Name: name, Move: move}); err != nil {
			t.Fatalf("ply %d %s via replica %d: %v", ply, move, ply%2, err)
		}
		played = append(played, move)
	}
	// Resign to end the game, so the streams end after game_ended.
	if _, err := c.games.Resign(svAuth(ctx, created.GetRedToken()), &damonev1.ResignRequest{Name: name}); err != nil {
		t.Fatal(err)
	}
	want := 1 + len(played) + 1
	for _, w := range []*watcher{wb, wc} {
		select {
		case <-w.done:
		case <-time.After(15 * time.Second):
			t.Fatalf("stream did not end after game_ended; has %d events", w.count())
		}
		if w.err != nil {
			t.Fatalf("stream error: %v", w.err)
		}
		if len(w.events) != want {
			t.Fatalf("watcher got %d events, want %d", len(w.events), want)
		}
		checkEvents(t, w.events, 1, played)
		if w.events[want-1].GetGameEnded() == nil {
			t.Fatal("the last event is not game_ended")
		}
	}
}

func TestConcurrentMovesAcrossReplicasOneWins(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dsn := postgresDSN(t)
	flags := []string{"--store", "postgres", "--postgres-dsn", dsn}
	a, b := startReplica(t, flags...), startReplica(t, flags...)
	ctx := context.Background()
	for round := 0; round < 10; round++ {
		created, err := a.games.CreateGame(ctx, &damonev1.CreateGameRequest{})
		if err != nil {
			t.Fatal(err)
		}
		name, red := created.GetGame().GetName(), created.GetRedToken()
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, r := range []*replica{a, b} {
			move := []string{"e2-d3", "f3-e4"}[i]
			wg.Go(func() {
				_, errs[i] = r.games.MakeMove(svAuth(ctx, red), &damonev1.MakeMoveRequest{
					Name: name, Move: move, Precondition: &damonev1.MakeMoveRequest_ExpectedPly{ExpectedPly: 0}})
			})
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch status.Code(err) {
			case codes.OK:
				ok++
			case codes.Aborted:
			default:
				t.Fatalf("round %d: a racing move failed with %v, want OK or ABORTED", round, err)
			}
		}
		if ok != 1 {
			t.Fatalf("round %d: %d of two racing moves for ply 0 succeeded, want exactly 1 (%v)", round, ok, errs)
		}
		g, err := b.games.GetGame(ctx, &damonev1.GetGameRequest{Name: name})
		if err != nil || g.GetPly() != 1 || g.GetLastEventSequence() != 2 {
			t.Fatalf("round %d: game after the race: ply %d, last event %d, %v; want 1 and 2", round, g.GetPly(), g.GetLastEventSequence(), err)
		}
	}
}

func TestKilledReplicaLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dsn := postgresDSN(t)
	flags := []string{"--store", "postgres", "--postgres-dsn", dsn}
	a, b, c := startReplica(t, flags...), startReplica(t, flags...), startReplica(t, flags...)
	ctx := context.Background()
	created, err := a.games.CreateGame(ctx, &damonev1.CreateGameRequest{})
	if err != nil {
		t.Fatal(err)
	}
	name := created.GetGame().GetName()
	token := func(g *damonev1.Game) string {
		if g.GetPosition().GetSideToMove() == damonev1.Side_SIDE_BLACK {
			return created.GetBlackToken()
		}
		return created.GetRedToken()
	}
	onA, onB := watch(t, a.games, name, 0), watch(t, b.games, name, 0)
	rng := rand.New(rand.NewSource(2))
	var played []string
	play := func(r *replica, n int) {
		for i := 0; i < n; i++ {
			move, g := pickMove(t, r.games, name, rng)
			if move == "" {
				return
			}
			if _, err := r.games.MakeMove(svAuth(ctx, token(g)), &damonev1.MakeMoveRequest{Name: name, Move: move}); err != nil {
				t.Fatal(err)
			}
			played = append(played, move)
		}
	}
	play(c, 6)
	onA.waitFor(t, 1+len(played))
	a.kill() // SIGKILL in mid-game: its watcher's stream breaks
	<-onA.done
	if onA.err == nil {
		t.Fatal("the killed replica's stream ended cleanly")
	}
	last := onA.events[len(onA.events)-1].GetSequence()
	play(b, 6)
	// The killed replica's client resumes on C from its last sequence.
	resumed := watch(t, c.games, name, last)
	if _, err := c.games.Resign(svAuth(ctx, created.GetBlackToken()), &damonev1.ResignRequest{Name: name}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []*watcher{onB, resumed} {
		select {
		case <-w.done:
		case <-time.After(15 * time.Second):
			t.Fatal("stream did not end after game_ended")
		}
		if w.err != nil {
			t.Fatal(w.err)
		}
	}
	all := 1 + len(played) + 1
	if len(onB.events) != all {
		t.Fatalf("the watcher on B got %d events, want %d: a replica's death disturbed it", len(onB.events), all)
	}
	checkEvents(t, onB.events, 1, played)
	joined := append(append([]*damonev1.GameEvent(nil), onA.events...), resumed.events...)
	if len(joined) != all {
		t.Fatalf("killed client + resumed stream = %d events, want %d", len(joined), all)
	}
	checkEvents(t, joined, 1, played)
	g, err := b.games.GetGame(ctx, &damonev1.GetGameRequest{Name: name})
	if err != nil || int(g.GetPly()) != len(played) {
		t.Fatalf("game ply %d, %v; want %d (moves lost)", g.GetPly(), err, len(played))
	}
}

func TestRestartEveryReplicaKeepsHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dsn := postgresDSN(t)
	flags := []string{"--store", "postgres", "--postgres-dsn", dsn}
	a, b := startReplica(t, flags...), startReplica(t, flags...)
	ctx := context.Background()
	created, err := a.games.CreateGame(ctx, &damonev1.CreateGameRequest{})
	if err != nil {
		t.Fatal(err)
	}
	name := created.GetGame().GetName()
	moves := []string{"e2-d3", "b5-c4", "d3xb5"} // RULES.md: the capture is compulsory
	tokens := []string{created.GetRedToken(), created.GetBlackToken(), created.GetRedToken()}
	for i, m := range moves {
		if _, err := []*replica{a, b}[i%2].games.MakeMove(svAuth(ctx, tokens[i]), &damonev1.MakeMoveRequest{Name: name, Move: m}); err != nil {
			t.Fatal(err)
		}
	}
	a.kill()
	b.kill()
	a2, b2 := startReplica(t, flags...), startReplica(t, flags...)
	for _, r := range []*replica{a2, b2} {
		g, err := r.games.GetGame(ctx, &damonev1.GetGameRequest{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range g.GetMoves() {
			got = append(got, m.GetNotation())
		}
		if strings.Join(got, " ") != strings.Join(moves, " ") || g.GetLastEventSequence() != 4 {
			t.Fatalf("after restart: moves %v, last event %d; want %v and 4", got, g.GetLastEventSequence(), moves)
		}
		w := watch(t, r.games, name, 0)
		w.waitFor(t, 4)
		w.cancel()
		checkEvents(t, w.events[:4], 1, moves)
	}
}

func TestEmbeddedStoreSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	flags := []string{"--store", "embedded", "--data-dir", dir}
	r := startReplica(t, flags...)
	ctx := context.Background()
	created, err := r.games.CreateGame(ctx, &damonev1.CreateGameRequest{})
	if err != nil {
		t.Fatal(err)
	}
	name := created.GetGame().GetName()
	rng := rand.New(rand.NewSource(3))
	var acknowledged []string
	for i := 0; i < 8; i++ {
		move, g := pickMove(t, r.games, name, rng)
		tok := created.GetRedToken()
		if g.GetPosition().GetSideToMove() == damonev1.Side_SIDE_BLACK {
			tok = created.GetBlackToken()
		}
		if _, err := r.games.MakeMove(svAuth(ctx, tok), &damonev1.MakeMoveRequest{Name: name, Move: move}); err != nil {
			t.Fatal(err)
		}
		acknowledged = append(acknowledged, move)
		if i%3 == 2 { // kill -9 between moves, then carry on in a new process
			r.kill()
			r = startReplica(t, flags...)
		}
	}
	r.kill()
	r = startReplica(t, flags...)
	g, err := r.games.GetGame(ctx, &damonev1.GetGameRequest{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range g.GetMoves() {
		got = append(got, m.GetNotation())
	}
	if strings.Join(got, " ") != strings.Join(acknowledged, " ") {
		t.Fatalf("after kill -9 and restart: moves %v, want every acknowledged move %v", got, acknowledged)
	}
	w := watch(t, r.games, name, 0)
	w.waitFor(t, 1+len(acknowledged))
	checkEvents(t, w.events[:1+len(acknowledged)], 1, acknowledged)
}

func TestEmbeddedStoreRefusesDamagedFile(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "damone.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("damaged ", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	svSkip(t)
	cmd := exec.Command(svBin, "serve", "--data-dir", dir, "--grpc-addr", "127.0.0.1:0",
		"--http-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Fatalf("serve on a damaged file: %v, want a failing exit", err)
	}
	if !strings.Contains(string(out), path) || !strings.Contains(string(out), "damaged") {
		t.Fatalf("message %q does not name the damaged file", out)
	}
	if b, _ := os.ReadFile(path); string(b) != strings.Repeat("damaged ", 1000) {
		t.Fatal("the damaged file was changed: it must never be reset silently")
	}
}

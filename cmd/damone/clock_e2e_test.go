package main

// End-to-end tests of clocks (docs/api.md, Clocks) with real time and
// short controls: the real binary, over gRPC and REST, through restarts
// and, with PostgreSQL, several replicas with one killed.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/durationpb"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// clockGame creates a game with initial+increment over gRPC and plays
// both sides' first moves (untimed), so Red's clock runs from Black's
// move on: it returns the game after that move.
func clockGame(t *testing.T, c damonev1.GameServiceClient, initial, increment time.Duration) (*damonev1.CreateGameResponse, *damonev1.Game) {
	t.Helper()
	ctx := svCtx(t)
	cr, err := c.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{TimeControl: &damonev1.TimeControl{
		Initial: durationpb.New(initial), Increment: durationpb.New(increment)}}})
	if err != nil {
		t.Fatal(err)
	}
	name := cr.GetGame().GetName()
	if _, err := c.MakeMove(svAuth(ctx, cr.GetRedToken()), &damonev1.MakeMoveRequest{Name: name, Move: "e2-d3"}); err != nil {
		t.Fatal(err)
	}
	res, err := c.MakeMove(svAuth(ctx, cr.GetBlackToken()), &damonev1.MakeMoveRequest{Name: name, Move: "c6-d5"})
	if err != nil {
		t.Fatal(err)
	}
	return cr, res.GetGame()
}

// TestClockFlagFallsWithNoClient: 2 s + 1 s. After both first moves
// (each adding the increment: Red 3 s, Black 3 s), Red's clock runs and
// nobody calls. A watcher that connects after the deadline finds the
// game ended by timeout, dated at the deadline, Red at zero.
func TestClockFlagFallsWithNoClient(t *testing.T) {
	s := svStart(t)
	_, g := clockGame(t, s.games, 2*time.Second, time.Second)
	clk := g.GetClock()
	if clk.GetRunning() != damonev1.Side_SIDE_RED || clk.GetRedRemaining().AsDuration() != 3*time.Second ||
		clk.GetBlackRemaining().AsDuration() != 3*time.Second || clk.GetFirstMoveDeadline() != nil {
		t.Fatalf("after both first moves: %v", clk)
	}
	deadline := clk.GetDeadline().AsTime()
	if want := g.GetUpdateTime().AsTime().Add(3 * time.Second); !deadline.Equal(want) {
		t.Fatalf("deadline %v, want the move's time + 3 s = %v", deadline, want)
	}
	time.Sleep(time.Until(deadline) + 500*time.Millisecond)
	w := svWatchGame(t, svCtx(t), s.games, g.GetName(), 0)
	evs, err := w.wait(t)
	if err != nil && !errors.Is(err, io.EOF) { // the stream ends after game_ended
		t.Fatal(err)
	}
	end := evs[len(evs)-1]
	o := end.GetGameEnded().GetOutcome()
	if len(evs) != 4 || o.GetResult() != damonev1.OutcomeResult_OUTCOME_RESULT_BLACK_WINS || o.GetReason() != damonev1.OutcomeReason_OUTCOME_REASON_TIMEOUT {
		t.Fatalf("%d events, the last %v", len(evs), end)
	}
	if !end.GetEventTime().AsTime().Equal(deadline) || end.GetClock().GetRedRemaining().AsDuration() != 0 ||
		end.GetClock().GetRunning() != damonev1.Side_SIDE_UNSPECIFIED || end.GetClock().GetDeadline() != nil {
		t.Errorf("the end at %v with clock %v; want at %v, Red at 0, no clock running", end.GetEventTime().AsTime(), end.GetClock(), deadline)
	}
	lag, ok := svMetric(s.metrics(t), "damone_clock_end_lag_seconds_sum", nil)
	if n, _ := svMetric(s.metrics(t), "damone_games_ended_by_clock_total", map[string]string{"reason": "timeout"}); !ok || n != 1 || lag > 1 {
		t.Errorf("metrics: %v timeouts, lag %v s", n, lag)
	}
	t.Logf("ended %.3f s after its deadline", lag)
}

// TestClockOverREST: a clocked game over REST: bad time controls are
// INVALID_ARGUMENT naming the field, the clock is in the game and in the
// watch stream, a first move that never comes aborts the game, and a move
// after a deadline is refused with the timeout.
func TestClockOverREST(t *testing.T) {
	s := svStart(t, "--first-move-time", "1s")
	for body, field := range map[string]string{
		`{"time_control": {"initial": "0.5s"}}`:                    "game.time_control.initial",
		`{"time_control": {"initial": "60s", "per_move": "60s"}}`:  "game.time_control",
		`{"time_control": {"per_move": "60s", "increment": "1s"}}`: "game.time_control.increment",
		`{"time_control": {"initial": "60s", "increment": "-1s"}}`: "game.time_control.increment",
		`{"time_control": {"increment": "1s"}}`:                    "game.time_control",
		`{"time_control": {}}`:                                     "game.time_control",
		`{"time_control": {"initial": "3600000s"}}`:                "game.time_control.initial",
	} {
		var in any
		json.Unmarshal([]byte(body), &in)
		code, out := svHTTP(t, "POST", s.url("/v1/games"), "", in)
		if code != 400 || !strings.Contains(string(out), `"field":"`+field+`"`) && !strings.Contains(string(out), `"field": "`+field+`"`) {
			t.Errorf("%s: %d %s, want 400 naming %s", body, code, out, field)
		}
	}

	// Aborted: nobody makes the first move within 1 s.
	code, out := svHTTP(t, "POST", s.url("/v1/games"), "", map[string]any{"time_control": map[string]any{"initial": "60s", "increment": "2s"}})
	var cr struct {
		Game struct {
			Name  string
			Clock struct {
				RedRemaining      string    `json:"red_remaining"`
				FirstMoveDeadline time.Time `json:"first_move_deadline"`
			}
			TimeControl map[string]string `json:"time_control"`
			UpdateTime  time.Time         `json:"update_time"`
		}
		RedToken string `json:"red_token"`
	}
	if json.Unmarshal(out, &cr); code != 200 || cr.Game.Clock.RedRemaining != "60s" || cr.Game.TimeControl["initial"] != "60s" ||
		!cr.Game.Clock.FirstMoveDeadline.Equal(cr.Game.UpdateTime.Add(time.Second)) {
		t.Fatalf("create: %d %s", code, out)
	}
	time.Sleep(time.Until(cr.Game.Clock.FirstMoveDeadline) + 400*time.Millisecond)
	code, out = svHTTP(t, "GET", s.url("/v1/"+cr.Game.Name), "", nil)
	if code != 200 || !strings.Contains(string(out), `"OUTCOME_REASON_ABORTED"`) || !strings.Contains(string(out), `"OUTCOME_RESULT_NO_RESULT"`) {
		t.Fatalf("after the first-move time: %d %s", code, out)
	}
	code, out = svHTTP(t, "POST", s.url("/v1/"+cr.Game.Name+":move"), cr.RedToken, map[string]any{"move": "e2-d3"})
	if code != 400 || !strings.Contains(string(out), "GAME_OVER") || !strings.Contains(string(out), "OUTCOME_REASON_ABORTED") {
		t.Errorf("a move in an aborted game: %d %s", code, out)
	}
}

// TestClockLateMoveRefused: a move at a deadline that no sweep has reached
// yet (the sweep runs every 0.1 s: the move is sent at the deadline) is
// refused with the timeout outcome, and the game has exactly one end.
func TestClockLateMoveRefused(t *testing.T) {
	s := svStart(t)
	cr, g := clockGame(t, s.games, time.Second, 0)
	deadline := g.GetClock().GetDeadline().AsTime()
	time.Sleep(time.Until(deadline))
	_, err := s.games.MakeMove(svAuth(svCtx(t), cr.GetRedToken()), &damonev1.MakeMoveRequest{Name: g.GetName(), Move: "d3-c4"})
	svWantStatus(t, err, codes.FailedPrecondition, "GAME_OVER", "", map[string]string{"reason": "OUTCOME_REASON_TIMEOUT", "result": "OUTCOME_RESULT_BLACK_WINS"})
	evs, _ := svWatchGame(t, svCtx(t), s.games, g.GetName(), 0).wait(t)
	if len(evs) != 4 || evs[3].GetGameEnded() == nil {
		t.Fatalf("%d events, want the end once", len(evs))
	}
}

// TestClockDeadlinePassesWhileDown: the embedded store, the server killed
// before a deadline and started after it: the game ends at once, dated at
// its deadline.
func TestClockDeadlinePassesWhileDown(t *testing.T) {
	dir := t.TempDir()
	s := svStart(t, "--store", "embedded", "--data-dir", dir)
	_, g := clockGame(t, s.games, 2*time.Second, 0)
	deadline := g.GetClock().GetDeadline().AsTime()
	s.cmd.Process.Kill()
	<-s.exited
	time.Sleep(time.Until(deadline) + 500*time.Millisecond)
	s2 := svStart(t, "--store", "embedded", "--data-dir", dir)
	started := time.Now()
	w := svWatchGame(t, svCtx(t), s2.games, g.GetName(), 0)
	evs, err := w.wait(t)
	if err != nil && !errors.Is(err, io.EOF) { // the stream ends after game_ended
		t.Fatal(err)
	}
	end := evs[len(evs)-1]
	if end.GetGameEnded().GetOutcome().GetReason() != damonev1.OutcomeReason_OUTCOME_REASON_TIMEOUT || !end.GetEventTime().AsTime().Equal(deadline) {
		t.Fatalf("after the restart: %v, want a timeout dated %v", end, deadline)
	}
	t.Logf("ended %v after the restarted server was serving", time.Since(started).Round(time.Millisecond))
}

// TestClockReplicasKilled: three replicas on one PostgreSQL database,
// twelve games with 2 s clocks created on each in turn; one replica is
// killed (SIGKILL) before any deadline. Every game ends exactly once, by
// timeout, and a watcher on a surviving replica sees each end within a
// second of its deadline.
func TestClockReplicasKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dsn := postgresDSN(t)
	flags := []string{"--store", "postgres", "--postgres-dsn", dsn}
	reps := []*replica{startReplica(t, flags...), startReplica(t, flags...), startReplica(t, flags...)}
	type timed struct {
		name     string
		deadline time.Time
	}
	var gamesOn []timed
	for i := range 12 {
		_, g := clockGame(t, reps[i%3].games, 2*time.Second, 0)
		gamesOn = append(gamesOn, timed{g.GetName(), g.GetClock().GetDeadline().AsTime()})
	}
	reps[0].kill()
	var wg sync.WaitGroup
	errs := make(chan error, len(gamesOn))
	for i, g := range gamesOn {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := reps[1+i%2].games
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			stream, err := c.WatchGame(ctx, &damonev1.WatchGameRequest{Name: g.name, SinceSequence: 3})
			if err != nil {
				errs <- err
				return
			}
			var ends []time.Time
			for {
				e, err := stream.Recv()
				if err != nil {
					break
				}
				if e.GetGameEnded() != nil {
					ends = append(ends, time.Now())
					if e.GetGameEnded().GetOutcome().GetReason() != damonev1.OutcomeReason_OUTCOME_REASON_TIMEOUT || !e.GetEventTime().AsTime().Equal(g.deadline) {
						errs <- fmt.Errorf("%s: end %v", g.name, e)
					}
				}
			}
			switch {
			case len(ends) != 1:
				errs <- fmt.Errorf("%s: %d ends, want 1", g.name, len(ends))
			case ends[0].Sub(g.deadline) > time.Second:
				errs <- fmt.Errorf("%s: seen %v after its deadline", g.name, ends[0].Sub(g.deadline))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Read back from a survivor: each game's log has exactly one end.
	for _, g := range gamesOn {
		evs, err := svWatchGame(t, svCtx(t), reps[1].games, g.name, 0).wait(t)
		if err != nil && !errors.Is(err, io.EOF) || len(evs) != 4 || evs[3].GetGameEnded() == nil {
			t.Errorf("%s: %d events (%v)", g.name, len(evs), err)
		}
	}
}

// TestClockEngineNeverFlags: the engine, asked to think 5 s a move, plays
// Black with 3 s on its clock: it must think within its clock, so after
// four replies to instant moves it still has time and the game goes on.
// (Thinking 5 s, it would lose on time at its second timed move.)
func TestClockEngineNeverFlags(t *testing.T) {
	s := svStart(t)
	ctx := svCtx(t)
	cr, err := s.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{
		EngineOpponent: &damonev1.EngineOpponent{Side: damonev1.Side_SIDE_BLACK, Strength: &damonev1.EngineOpponent_MoveTime{MoveTime: durationpb.New(5 * time.Second)}},
		TimeControl:    &damonev1.TimeControl{Initial: durationpb.New(3 * time.Second)}}})
	if err != nil {
		t.Fatal(err)
	}
	name := cr.GetGame().GetName()
	w := svWatchGame(t, ctx, s.games, name, 0)
	var g *damonev1.Game
	for ply := 0; ply < 8; ply += 2 {
		w.waitSeq(t, int64(ply+1))
		g, err = s.games.GetGame(ctx, &damonev1.GetGameRequest{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		if g.GetStatus() == damonev1.GameStatus_GAME_STATUS_FINISHED {
			break
		}
		legal, err := s.rules.ListLegalMoves(ctx, &damonev1.ListLegalMovesRequest{Position: g.GetPosition()})
		if err != nil || len(legal.GetMoves()) == 0 {
			t.Fatalf("legal moves: %v", err)
		}
		if _, err := s.games.MakeMove(svAuth(ctx, cr.GetRedToken()), &damonev1.MakeMoveRequest{Name: name, Move: legal.GetMoves()[0].GetNotation()}); err != nil {
			t.Fatal(err)
		}
	}
	w.waitSeq(t, 9)
	g, _ = s.games.GetGame(ctx, &damonev1.GetGameRequest{Name: name})
	if r := g.GetOutcome().GetReason(); r == damonev1.OutcomeReason_OUTCOME_REASON_TIMEOUT {
		t.Fatalf("the engine lost on time: %v", g.GetClock())
	}
	t.Logf("after %d plies: Black (the engine) has %v, Red %v", g.GetPly(), g.GetClock().GetBlackRemaining().AsDuration(), g.GetClock().GetRedRemaining().AsDuration())
	if g.GetPly() == 8 && g.GetClock().GetBlackRemaining().AsDuration() <= 0 {
		t.Errorf("the engine has no time left: %v", g.GetClock())
	}
}

package main

// The load of damone-bench soak: movers, watchers, creates, analyses and
// bad requests, and the ledger of what the server acknowledged.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// ledger is every game and move the server acknowledged.
type ledger struct {
	mu     sync.Mutex
	games  map[string]*gameLedger
	names  []string // in creation order
	active []string // games a mover plays now
}

type gameLedger struct {
	moves []string
}

func (l *ledger) created(name string, played bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.games[name] = &gameLedger{}
	l.names = append(l.names, name)
	if played {
		l.active = append(l.active, name)
	}
}

func (l *ledger) acked(name string, ply int, move string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	g := l.games[name]
	if len(g.moves) != ply-1 {
		return fmt.Errorf("%s: move %s acknowledged as ply %d after %d", name, move, ply, len(g.moves))
	}
	g.moves = append(g.moves, move)
	return nil
}

func (l *ledger) finished(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i := slices.Index(l.active, name); i >= 0 {
		l.active = slices.Delete(l.active, i, i+1)
	}
}

// move is the acknowledged move of ply (from 1), if known yet.
func (l *ledger) move(name string, ply int) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	g := l.games[name]
	if g == nil || ply < 1 || ply > len(g.moves) {
		return "", false
	}
	return g.moves[ply-1], true
}

// pick returns a game to watch: most often one being played.
func (l *ledger) pick(rng *rand.Rand) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.active) > 0 && rng.IntN(4) != 0 {
		return l.active[rng.IntN(len(l.active))], true
	}
	if len(l.names) == 0 {
		return "", false
	}
	return l.names[rng.IntN(len(l.names))], true
}

// snapshot copies the ledger.
func (l *ledger) snapshot() map[string][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string][]string, len(l.games))
	for name, g := range l.games {
		out[name] = slices.Clone(g.moves)
	}
	return out
}

// startLoad starts the load's goroutines, which run until ctx ends.
func (r *soakRun) startLoad(ctx context.Context, wg *sync.WaitGroup) {
	goLoad := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	period := time.Duration(float64(r.cfg.movers) / r.cfg.moveRate * float64(time.Second))
	for i := range r.cfg.movers {
		p := newPlayer(r.games, r.cfg.seed*7919+uint64(i))
		goLoad(func() { r.mover(ctx, p, period) })
	}
	for i := range r.cfg.watchers {
		rng := rand.New(rand.NewPCG(r.cfg.seed, uint64(1000+i)))
		goLoad(func() { r.watcher(ctx, rng) })
	}
	if r.cfg.createRate > 0 {
		goLoad(func() { r.paced(ctx, r.cfg.createRate, r.creator) })
	}
	if r.cfg.analysisRate > 0 {
		goLoad(func() { r.paced(ctx, r.cfg.analysisRate, r.analyst) })
	}
	if r.cfg.badRate > 0 {
		b := &badRequests{r: r}
		goLoad(func() { r.paced(ctx, r.cfg.badRate, b.next) })
	}
}

// paced calls f rate times a second (later calls wait for earlier ones;
// time lost is not made up in a burst).
func (r *soakRun) paced(ctx context.Context, rate float64, f func(ctx context.Context, i int)) {
	period := time.Duration(float64(time.Second) / rate)
	next := time.Now()
	for i := 0; ctx.Err() == nil; i++ {
		sleepUntil(ctx, next)
		if ctx.Err() != nil {
			return
		}
		r.pause.RLock()
		f(ctx, i)
		r.pause.RUnlock()
		next = notBefore(next.Add(period), time.Now())
	}
}

// notBefore is t, or now if t has passed.
func notBefore(t, now time.Time) time.Time {
	if t.Before(now) {
		return now
	}
	return t
}

// call runs one unary call of the load with the call timeout.
func call[T any](ctx context.Context, f func(ctx context.Context) (T, error)) (T, time.Time, time.Time, error) {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	t0 := time.Now()
	v, err := f(cctx)
	return v, t0, time.Now(), err
}

// mover plays games to their end, one move every period, each move with a
// request id, retried with the same id while a restart breaks it: the
// server must play it once (or answer its first response again).
func (r *soakRun) mover(ctx context.Context, p *player, period time.Duration) {
	next := time.Now()
	for ctx.Err() == nil {
		sleepUntil(ctx, next)
		next = notBefore(next.Add(period), time.Now())
		if p.game == nil || p.game.Outcome().Over() {
			if p.game != nil {
				r.ledger.finished(p.name)
			}
			r.pause.RLock()
			_, t0, t1, err := call(ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, p.newGame(ctx) })
			r.pause.RUnlock()
			if ctx.Err() != nil {
				return
			}
			if r.record("create", t0, t1, err); err != nil {
				p.game = nil
				continue
			}
			r.ledger.created(p.name, true)
			continue
		}
		m, err := p.choose()
		if err != nil {
			r.fail(err.Error())
			p.game = nil
			continue
		}
		ply := p.game.Ply() + 1
		id := fmt.Sprintf("soak-%d", ply)
		for {
			r.pause.RLock()
			_, t0, t1, err := call(ctx, func(ctx context.Context) (*damonev1.MakeMoveResponse, error) { return p.send(ctx, m, id) })
			r.pause.RUnlock()
			if ctx.Err() != nil {
				return
			}
			restart := r.record("move", t0, t1, err)
			if err == nil {
				if err := r.ledger.acked(p.name, ply, m.String()); err != nil {
					r.fail(err.Error())
				}
				if err := p.played(m); err != nil {
					r.fail(err.Error())
					p.game = nil
				}
				break
			}
			if !restart {
				p.game = nil // the mirror may be wrong now
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// watcher watches a game for 0.5-3 s (or to its end), checking that its
// events come in sequence and that every move event is the move
// acknowledged for that ply; a restart breaks the stream, which resumes
// from the last sequence; then it leaves for another game.
func (r *soakRun) watcher(ctx context.Context, rng *rand.Rand) {
	for ctx.Err() == nil {
		name, ok := r.ledger.pick(rng)
		if !ok {
			sleepUntil(ctx, time.Now().Add(100*time.Millisecond))
			continue
		}
		stay := 500*time.Millisecond + time.Duration(rng.Int64N(int64(2500*time.Millisecond)))
		// Leaving is a cancel, not a deadline: a deadline travels with the
		// call, and the server may end the stream with DEADLINE_EXCEEDED
		// a moment before the client's context says it is over.
		sctx, cancel := context.WithCancel(ctx)
		t := time.AfterFunc(stay, cancel)
		r.watchSession(sctx, ctx, name)
		t.Stop()
		cancel()
	}
}

func (r *soakRun) watchSession(sctx, ctx context.Context, name string) {
	var since int64
	for sctx.Err() == nil {
		t0 := time.Now()
		r.pause.RLock()
		stream, err := r.games.WatchGame(sctx, &damonev1.WatchGameRequest{Name: name, SinceSequence: since})
		r.pause.RUnlock()
		if err == nil {
			for {
				var ev *damonev1.GameEvent
				if ev, err = stream.Recv(); err != nil {
					break
				}
				r.watchEvents.Add(1)
				if ev.GetSequence() != since+1 {
					r.fail(fmt.Sprintf("watch %s: event %d after %d", name, ev.GetSequence(), since))
					return
				}
				since = ev.GetSequence()
				if mp := ev.GetMovePlayed(); mp != nil {
					if want, ok := r.ledger.move(name, int(ev.GetPly())); ok && want != mp.GetMove().GetNotation() {
						r.lose(fmt.Sprintf("watch %s: ply %d acknowledged as %s, streamed as %s", name, ev.GetPly(), want, mp.GetMove().GetNotation()))
					}
				}
			}
		}
		switch {
		case err == io.EOF:
			return // after game_ended
		case sctx.Err() != nil:
			return // left
		case ctx.Err() != nil:
			return
		case transient(err) && r.outages.overlaps(t0, time.Now()):
			time.Sleep(20 * time.Millisecond) // resume from since
		default:
			r.fail(fmt.Sprintf("watch %s: %v", name, err))
			return
		}
	}
}

// creator creates a game nobody plays: it must still be there after
// every restart.
func (r *soakRun) creator(ctx context.Context, _ int) {
	resp, t0, t1, err := call(ctx, func(ctx context.Context) (*damonev1.CreateGameResponse, error) {
		return r.games.CreateGame(ctx, &damonev1.CreateGameRequest{})
	})
	if ctx.Err() != nil {
		return
	}
	if r.record("create", t0, t1, err); err == nil {
		r.ledger.created(resp.GetGame().GetName(), false)
	}
}

// analysisPositions are analysed in turn: the standard start and
// positions of the load command.
var analysisPositions = benchPositions

// analyst runs one 50 ms analysis to its final message.
func (r *soakRun) analyst(ctx context.Context, i int) {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	t0 := time.Now()
	err := func() error {
		stream, err := r.anal.AnalyzePosition(cctx, &damonev1.AnalyzePositionRequest{
			Position: &damonev1.Position{Text: analysisPositions[i%len(analysisPositions)]},
			Limit:    &damonev1.AnalyzePositionRequest_MoveTime{MoveTime: durationpb.New(50 * time.Millisecond)},
		})
		if err != nil {
			return err
		}
		final := false
		for {
			msg, err := stream.Recv()
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			final = msg.GetFinal()
		}
		if !final {
			return errors.New("the stream ended without its final message")
		}
		return nil
	}()
	if ctx.Err() != nil {
		return
	}
	r.analyses.Add(1)
	if err != nil && !(transient(err) && r.outages.overlaps(t0, time.Now())) {
		r.fail(fmt.Sprintf("analysis: %v", err))
	}
}

// badRequests sends, in turn, requests the API documents as refused, and
// checks each one's code.
type badRequests struct {
	r    *soakRun
	game string    // a game of its own, never played
	tok  [2]string // its tokens
}

func (b *badRequests) next(ctx context.Context, i int) {
	r := b.r
	if b.game == "" {
		resp, t0, t1, err := call(ctx, func(ctx context.Context) (*damonev1.CreateGameResponse, error) {
			return r.games.CreateGame(ctx, &damonev1.CreateGameRequest{})
		})
		if ctx.Err() != nil {
			return
		}
		if r.record("create", t0, t1, err); err == nil {
			b.game, b.tok = resp.GetGame().GetName(), [2]string{resp.GetRedToken(), resp.GetBlackToken()}
			r.ledger.created(b.game, false)
		}
		return
	}
	with := func(ctx context.Context, tok string) context.Context {
		return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+tok)
	}
	cases := []struct {
		what string
		want codes.Code
		run  func(ctx context.Context) error
	}{
		{"MakeMove, malformed notation", codes.InvalidArgument, func(ctx context.Context) error {
			_, err := r.games.MakeMove(with(ctx, b.tok[0]), &damonev1.MakeMoveRequest{Name: b.game, Move: "e2-"})
			return err
		}},
		{"MakeMove, not a legal move", codes.FailedPrecondition, func(ctx context.Context) error {
			_, err := r.games.MakeMove(with(ctx, b.tok[0]), &damonev1.MakeMoveRequest{Name: b.game, Move: "e2-f3"})
			return err
		}},
		{"MakeMove, not Black's turn", codes.FailedPrecondition, func(ctx context.Context) error {
			_, err := r.games.MakeMove(with(ctx, b.tok[1]), &damonev1.MakeMoveRequest{Name: b.game, Move: "d7-c6"})
			return err
		}},
		{"MakeMove, no token", codes.Unauthenticated, func(ctx context.Context) error {
			_, err := r.games.MakeMove(ctx, &damonev1.MakeMoveRequest{Name: b.game, Move: "e2-d3"})
			return err
		}},
		{"MakeMove, wrong token", codes.PermissionDenied, func(ctx context.Context) error {
			_, err := r.games.MakeMove(with(ctx, "not-a-token-of-this-game"), &damonev1.MakeMoveRequest{Name: b.game, Move: "e2-d3"})
			return err
		}},
		{"GetGame, no such game", codes.NotFound, func(ctx context.Context) error {
			_, err := r.games.GetGame(ctx, &damonev1.GetGameRequest{Name: "games/nosuchgame"})
			return err
		}},
		{"GetGame, malformed name", codes.InvalidArgument, func(ctx context.Context) error {
			_, err := r.games.GetGame(ctx, &damonev1.GetGameRequest{Name: "nosuchgame"})
			return err
		}},
		{"CreateGame, negative no-progress limit", codes.InvalidArgument, func(ctx context.Context) error {
			limit := int32(-1)
			_, err := r.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{Variant: &damonev1.Variant{NoProgressLimit: &limit}}})
			return err
		}},
		{"WatchGame, sequence beyond the game", codes.OutOfRange, func(ctx context.Context) error {
			stream, err := r.games.WatchGame(ctx, &damonev1.WatchGameRequest{Name: b.game, SinceSequence: 1000})
			if err != nil {
				return err
			}
			_, err = stream.Recv()
			return err
		}},
		{"ListLegalMoves, malformed position", codes.InvalidArgument, func(ctx context.Context) error {
			_, err := r.rules.ListLegalMoves(ctx, &damonev1.ListLegalMovesRequest{Position: &damonev1.Position{Text: "R:RMz9:B:0"}})
			return err
		}},
		{"REST CreateGame, malformed JSON", codes.InvalidArgument, func(ctx context.Context) error {
			return b.rest(ctx, http.MethodPost, "/v1/games", "{", http.StatusBadRequest)
		}},
		{"REST GetGame, no such game", codes.NotFound, func(ctx context.Context) error {
			return b.rest(ctx, http.MethodGet, "/v1/games/nosuchgame", "", http.StatusNotFound)
		}},
	}
	c := cases[i%len(cases)]
	_, t0, t1, err := call(ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, c.run(ctx) })
	if ctx.Err() != nil {
		return
	}
	r.bad.Add(1)
	switch code := status.Code(err); {
	case code == c.want:
		r.record("bad", t0, t1, nil)
	case err == nil:
		r.record("bad", t0, t1, fmt.Errorf("%s: accepted, want %v", c.what, c.want))
	default:
		r.record("bad", t0, t1, fmt.Errorf("%s: want %v: %w", c.what, c.want, err))
	}
}

// rest sends a REST request and turns its answer into a status error of
// the documented code (docs/api.md: the HTTP status of each code), or
// returns an error with the code Unavailable when the server cannot be
// reached (a restart).
func (b *badRequests) rest(ctx context.Context, method, path, body string, want int) error {
	req, err := http.NewRequestWithContext(ctx, method, "http://"+b.r.srv.httpAddr+path, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.r.http.Do(req)
	if err != nil {
		return status.Error(codes.Unavailable, err.Error())
	}
	defer resp.Body.Close()
	var st struct {
		Code int `json:"code"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return fmt.Errorf("HTTP %d, body not JSON: %v", resp.StatusCode, err)
	}
	if resp.StatusCode != want {
		return fmt.Errorf("HTTP %d, want %d (code %d)", resp.StatusCode, want, st.Code)
	}
	return status.Error(codes.Code(st.Code), "")
}

//go:build faults

package faulttest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	"google.golang.org/protobuf/types/known/durationpb"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
)

// workload plays games through the replicas and records every call.
type workload struct {
	h             *history
	reps          []*replica
	lim           *rate.Limiter
	seed          int64
	reqSeq        atomic.Int64
	replayDropped atomic.Int64 // acknowledged writes the replay queue had no room for

	mu       sync.Mutex
	games    []*gameRun
	orphans  int // creates still unknown after their retries (the game may exist)
	createKO int
	createRe int // creates that got a game after unknown attempts (settled by replay)
	replays  []replayCheck
	replayCh chan replayReq
}

type gameRun struct {
	name         string
	timed        bool        // a 2 s per-move clock: not in the model, checked by C8
	over         atomic.Bool // its players are done
	red, black   string
	watchers     []*watchLog
	readersStop  context.CancelFunc
	watchersStop context.CancelFunc
	wg           sync.WaitGroup // watchers
}

// watchLog is what one watcher received, across its reconnections.
type watchLog struct {
	mu       sync.Mutex
	events   []evRec
	segments []int64 // since_sequence of each (re)connection
	replicas []string
}

type evRec struct {
	Seq  int64
	Kind string
	Ply  int32
	Move string
}

func evOf(e *damonev1.GameEvent) evRec {
	r := evRec{Seq: e.GetSequence(), Ply: e.GetPly()}
	switch {
	case e.GetGameCreated() != nil:
		r.Kind = "created"
	case e.GetMovePlayed() != nil:
		r.Kind, r.Move = "move", e.GetMovePlayed().GetMove().GetNotation()
	case e.GetDrawOffered() != nil:
		r.Kind = "offer"
	case e.GetDrawDeclined() != nil:
		r.Kind = "declined"
	case e.GetGameEnded() != nil:
		r.Kind = "ended"
	}
	return r
}

// replayReq is an acknowledged write to send again with its request id:
// a move, resignation, draw offer or answer (in), or a CreateGame
// (create set).
type replayReq struct {
	in     input
	token  string
	first  output
	from   string
	create *damonev1.CreateGameRequest
	made   created // create: the first answer
}

// created is a CreateGame's answer as a comparable value.
type created struct {
	Name, Red, Black string
	St               gstate
}

func createdOf(r *damonev1.CreateGameResponse) created {
	return created{Name: r.GetGame().GetName(), Red: r.GetRedToken(), Black: r.GetBlackToken(), St: stateOf(r.GetGame())}
}

type replayCheck struct {
	req  replayReq
	got  output
	made created // create
	err  string
	on   string
}

func (w *workload) rng(k int64) *rand.Rand { return rand.New(rand.NewSource(w.seed*1_000_003 + k)) }

func (w *workload) wait(ctx context.Context) bool { return w.lim.Wait(ctx) == nil }

// rotate returns the replicas starting at i.
func (w *workload) rotate(i int) []*replica {
	n := len(w.reps)
	out := make([]*replica, n)
	for k := range out {
		out[k] = w.reps[(i+k)%n]
	}
	return out
}

// run plays games in slots until ctx ends, and replays acknowledged
// moves meanwhile.
func (w *workload) run(ctx context.Context, slots, timedSlots int) {
	var wg sync.WaitGroup
	replayCtx, stopReplays := context.WithCancel(context.Background())
	var rwg sync.WaitGroup
	for range replayers {
		rwg.Add(1)
		go func() { defer rwg.Done(); w.replayer(replayCtx) }()
	}
	for s := 0; s < slots+timedSlots; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			for g := 0; ctx.Err() == nil; g++ {
				w.playGame(ctx, s, g, s >= slots)
			}
		}(s)
	}
	wg.Wait()
	stopReplays()
	rwg.Wait()
}

// perMove is the time control of timed games: short, so clocks run out
// while replicas are paused or cut off, and every replica's clock sweep
// races to end the game.
const perMove = 2 * time.Second

// create makes a game under a request id. An unknown answer is retried
// with the same id on the next replicas until a definite one (up to
// settleTimeout): a replay returns the first game, so no unknown create
// leaves an orphan game behind.
func (w *workload) create(ctx context.Context, at int, timed bool) *gameRun {
	for ctx.Err() == nil {
		if !w.wait(ctx) {
			return nil
		}
		req := &damonev1.CreateGameRequest{RequestId: fmt.Sprintf("create-%d-%08d", w.seed, w.reqSeq.Add(1))}
		if timed {
			req.Game = &damonev1.Game{TimeControl: &damonev1.TimeControl{PerMove: durationpb.New(perMove)}}
		}
		start := time.Now()
		var resp *damonev1.CreateGameResponse
		var err error
		var r *replica
		for i := 0; ; i++ {
			r = w.reps[(at+i)%len(w.reps)]
			cctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			resp, err = r.games.CreateGame(cctx, req)
			cancel()
			if err == nil || !(indeterminate(err) || errors.Is(err, context.DeadlineExceeded)) || time.Since(start) > settleTimeout {
				if err == nil && i > 0 {
					w.mu.Lock()
					w.createRe++
					w.mu.Unlock()
				}
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err == nil {
			if w.reqSeq.Load()%2 == 0 { // half of them
				select {
				case w.replayCh <- replayReq{create: req, made: createdOf(resp), from: r.name}:
				default:
					w.replayDropped.Add(1)
				}
			}
			return &gameRun{name: resp.GetGame().GetName(), red: resp.GetRedToken(), black: resp.GetBlackToken(), timed: timed}
		}
		w.mu.Lock()
		if indeterminate(err) || errors.Is(err, context.DeadlineExceeded) {
			w.orphans++
		} else {
			w.createKO++
		}
		w.mu.Unlock()
		at++
		time.Sleep(200 * time.Millisecond)
	}
	return nil
}

// playGame creates a game and plays it to its end (or ctx's): both sides
// on different replicas, a reader on the third, and a watcher.
func (w *workload) playGame(ctx context.Context, slot, n int, timed bool) {
	g := w.create(ctx, slot+n, timed)
	if g == nil {
		return
	}
	w.mu.Lock()
	w.games = append(w.games, g)
	w.mu.Unlock()
	rctx, stopReaders := context.WithCancel(ctx)
	wctx, stopWatchers := context.WithCancel(context.Background())
	g.readersStop, g.watchersStop = stopReaders, stopWatchers
	wl := &watchLog{}
	g.watchers = append(g.watchers, wl)
	g.wg.Add(1)
	go func() { defer g.wg.Done(); w.watch(wctx, g, wl, slot+n+2) }()
	var readers sync.WaitGroup
	readers.Add(1)
	go func() { defer readers.Done(); w.reader(rctx, g, slot+n+2, int64(slot*1000+n)) }()
	var players sync.WaitGroup
	for side := 1; side <= 2; side++ {
		players.Add(1)
		go func(side int) {
			defer players.Done()
			w.player(ctx, g, side, slot+n+side-1, int64(slot*1000+n)*3+int64(side))
		}(side)
	}
	players.Wait()
	g.over.Store(true)
	stopReaders()
	readers.Wait()
}

func (w *workload) reader(ctx context.Context, g *gameRun, at int, seed int64) {
	rng := w.rng(seed)
	client := w.h.newClient()
	for w.wait(ctx) {
		rec := w.h.do(context.Background(), client, w.rotate(at), input{Kind: kGet, Game: g.name, Basic: rng.Intn(2) == 0}, "")
		if rec.Out.Unknown {
			client = w.h.newClient()
			at++
		}
		if rec.Out.Code == "" && !rec.Out.Unknown && rec.Out.St.Outcome != 0 {
			return
		}
		time.Sleep(time.Duration(50+rng.Intn(100)) * time.Millisecond)
	}
}

// player plays one side. It reads the game, then acts on what it read:
// mostly a legal move with the ply it read as precondition, sometimes a
// stale precondition, an illegal move, a move out of turn, a draw offer,
// an answer to the opponent's offer, or a resignation.
func (w *workload) player(ctx context.Context, g *gameRun, side, at int, seed int64) {
	rng := w.rng(seed)
	token := g.red
	if side == 2 {
		token = g.black
	}
	client := w.h.newClient()
	var prevMoves []string // legal moves of an earlier position: illegal now, mostly
	for ctx.Err() == nil {
		if !w.wait(ctx) {
			return
		}
		rec := w.h.do(context.Background(), client, w.rotate(at), input{Kind: kGet, Game: g.name, Basic: true}, "")
		if rec.Out.Unknown || rec.Out.Code != "" {
			if rec.Out.Unknown {
				client = w.h.newClient()
			}
			at++
			time.Sleep(100 * time.Millisecond)
			continue
		}
		st := rec.Out.St
		if st.Outcome != 0 {
			return
		}
		pos, err := engine.ParsePosition(st.Pos)
		if err != nil {
			panic(fmt.Sprintf("position %q from the server: %v", st.Pos, err))
		}
		myTurn := int(pos.SideToMove())+1 == side
		in := input{Game: g.name, Side: side, ExpPly: -1}
		x := rng.Intn(100)
		switch {
		case st.Offer != 0 && st.Offer != side && x < 70:
			in.Kind, in.Accept = kAnswer, rng.Intn(100) < 30
		case st.Ply >= 40 && x < 10:
			in.Kind = kResign
		case st.Ply >= 40 && x < 40 && st.Offer == 0:
			in.Kind = kOffer
		case x < 3 && st.Offer == 0:
			in.Kind = kOffer
		case !myTurn && x < 90:
			time.Sleep(time.Duration(30+rng.Intn(60)) * time.Millisecond)
			continue
		default:
			in.Kind = kMove
			if g.timed && myTurn && st.Ply >= 4 && rng.Intn(100) < 12 {
				time.Sleep(perMove + 600*time.Millisecond) // the flag falls
			}
			legal := pos.LegalMoves()
			switch {
			case len(legal) == 0:
				continue
			case x < 8 && len(prevMoves) > 0:
				in.Move = prevMoves[rng.Intn(len(prevMoves))]
				in.ExpPly = st.Ply
			default:
				in.Move = legal[rng.Intn(len(legal))].String()
				switch y := rng.Intn(100); {
				case y < 10:
					in.ExpPly = st.Ply - 1 - rng.Intn(2) // stale on purpose
				case y < 80:
					in.ExpPly = st.Ply
				}
			}
			prevMoves = prevMoves[:0]
			for _, m := range legal {
				prevMoves = append(prevMoves, m.String())
			}
		}
		in.ReqID = fmt.Sprintf("r%d-%d", w.seed, w.reqSeq.Add(1))
		if !w.wait(ctx) {
			return
		}
		wr := w.h.do(context.Background(), client, w.rotate(at), in, token)
		if wr.Out.Unknown {
			client = w.h.newClient()
			at++
			continue
		}
		// Every acknowledged resignation, offer and answer is replayed
		// (they are few), and a quarter of the moves.
		if wr.Out.Code == "" && (in.Kind != kMove || rng.Intn(100) < 25) {
			select {
			case w.replayCh <- replayReq{in: in, token: token, first: wr.Out, from: wr.Replica}:
			default:
				w.replayDropped.Add(1)
			}
		}
	}
}

// replayers is how many clients replay acknowledged writes: one can fall
// behind while replicas are down, and the queue drops what does not fit.
const replayers = 3

// replayer sends acknowledged writes of every kind again, with their
// request ids, through other replicas: each answer must be the first one.
func (w *workload) replayer(ctx context.Context) {
	i := 0
	for {
		select {
		case <-ctx.Done():
			return
		case req := <-w.replayCh:
			time.Sleep(200 * time.Millisecond)
			if !w.wait(ctx) {
				return
			}
			i++
			for k := 0; k < len(w.reps); k++ {
				r := w.reps[(i+k)%len(w.reps)]
				if r.name == req.from && len(w.reps) > 1 {
					continue
				}
				var c replayCheck
				if req.create != nil {
					cctx, cancel := context.WithTimeout(context.Background(), callTimeout)
					resp, err := r.games.CreateGame(cctx, req.create)
					cancel()
					if err != nil && (indeterminate(err) || errors.Is(err, context.DeadlineExceeded)) {
						continue
					}
					c = replayCheck{req: req, made: createdOf(resp), on: r.name}
					if err != nil {
						c.got.Code, c.err = reason(err), err.Error()
					}
				} else {
					out, err := invoke(context.Background(), r, req.in, req.token)
					if out.Unknown {
						continue
					}
					c = replayCheck{req: req, got: out, on: r.name}
					if err != nil {
						c.err = err.Error()
					}
				}
				w.mu.Lock()
				w.replays = append(w.replays, c)
				w.mu.Unlock()
				break
			}
		}
	}
}

// watch follows a game's events; after any error it resumes on the next
// replica from the last sequence it received.
func (w *workload) watch(ctx context.Context, g *gameRun, wl *watchLog, at int) {
	var since int64
	for ctx.Err() == nil {
		r := w.reps[at%len(w.reps)]
		wl.mu.Lock()
		wl.segments = append(wl.segments, since)
		wl.replicas = append(wl.replicas, r.name)
		wl.mu.Unlock()
		sctx, cancel := context.WithCancel(ctx)
		stream, err := r.games.WatchGame(sctx, &damonev1.WatchGameRequest{Name: g.name, SinceSequence: since})
		if err == nil {
			for {
				ev, err := recvTimeout(stream, 3*time.Second)
				if err != nil {
					break
				}
				e := evOf(ev)
				wl.mu.Lock()
				wl.events = append(wl.events, e)
				wl.mu.Unlock()
				since = e.Seq
				if e.Kind == "ended" {
					cancel()
					return
				}
			}
		}
		cancel()
		at++
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// recvTimeout is Recv that gives up after d of silence: a stream whose
// replica is paused or cut off says nothing, and the watcher must move
// on (the game may be quiet too: it then reconnects, which is harmless).
func recvTimeout(s damonev1.GameService_WatchGameClient, d time.Duration) (*damonev1.GameEvent, error) {
	type res struct {
		ev  *damonev1.GameEvent
		err error
	}
	ch := make(chan res, 1)
	go func() { ev, err := s.Recv(); ch <- res{ev, err} }()
	select {
	case r := <-ch:
		return r.ev, r.err
	case <-time.After(d):
		return nil, io.ErrNoProgress
	}
}

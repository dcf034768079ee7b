//go:build faults

package faulttest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// record is one operation of the history: one call, or a write and its
// retries under one request id (first call to last return).
type record struct {
	Client   int
	In       input
	Out      output
	Call     int64 // ns since the run's base, monotonic
	Return   int64
	Replica  string // where the last attempt went
	Err      string // the last attempt's error, if any
	Attempts int
	Settled  string // "replay": an unknown attempt settled by a retry with its id; "sql": by the stored request ids
	Phase    string // fault phase at the call: before, during, after
}

// history collects every operation, concurrently.
type history struct {
	base    time.Time
	mu      sync.Mutex
	recs    []*record
	clients atomic.Int64
	faults  *faultLog
}

func newHistory() *history { return &history{base: time.Now(), faults: &faultLog{}} }

func (h *history) now() int64 { return time.Since(h.base).Nanoseconds() }

// newClient returns a fresh porcupine client id: a client whose call
// ended unknown goes on under a new one, as its call may still be open.
func (h *history) newClient() int { return int(h.clients.Add(1)) }

func (h *history) add(r *record) {
	h.mu.Lock()
	h.recs = append(h.recs, r)
	h.mu.Unlock()
}

func (h *history) all() []*record {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*record(nil), h.recs...)
}

// indeterminate reports whether an error leaves open whether the call
// took effect.
func indeterminate(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled, codes.Unknown, codes.Internal:
		return true
	}
	return false
}

// reason is the ErrorInfo reason of a definite error (its code's name if
// it has none).
func reason(err error) string {
	st, _ := status.FromError(err)
	for _, d := range st.Details() {
		if ei, ok := d.(*errdetails.ErrorInfo); ok {
			return ei.GetReason()
		}
	}
	return st.Code().String()
}

func stateOf(g *damonev1.Game) gstate {
	s := gstate{Ply: int(g.GetPly()), Pos: g.GetPosition().GetText(), Seq: g.GetLastEventSequence(), Offer: int(g.GetDrawOffer())}
	s.Outcome = int(g.GetOutcome().GetResult())*16 + int(g.GetOutcome().GetReason())
	for i, m := range g.GetMoves() {
		if i > 0 {
			s.Moves += " "
		}
		s.Moves += m.GetNotation()
	}
	return s
}

// callTimeout is every client call's deadline: shorter than a replica's
// pause and than the store's 5 s bound, so both leave calls unknown.
const callTimeout = 2 * time.Second

// invoke makes one call of in on r with token and returns its output
// and error (nil for OK and definite errors, which are in output.Code).
func invoke(ctx context.Context, r *replica, in input, token string) (output, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if token != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
	}
	var (
		g   *damonev1.Game
		err error
		out output
	)
	switch in.Kind {
	case kGet:
		view := damonev1.GameView_GAME_VIEW_FULL
		if in.Basic {
			view = damonev1.GameView_GAME_VIEW_BASIC
		}
		g, err = r.games.GetGame(ctx, &damonev1.GetGameRequest{Name: in.Game, View: view})
		out.Partial = in.Basic
	case kMove:
		req := &damonev1.MakeMoveRequest{Name: in.Game, Move: in.Move, RequestId: in.ReqID}
		if in.ExpPly >= 0 {
			req.Precondition = &damonev1.MakeMoveRequest_ExpectedPly{ExpectedPly: int32(in.ExpPly)}
		}
		var resp *damonev1.MakeMoveResponse
		resp, err = r.games.MakeMove(ctx, req)
		g, out.Partial = resp.GetGame(), true
		out.Played, out.EvSeq = resp.GetMove().GetNotation(), resp.GetEventSequence()
	case kResign:
		var resp *damonev1.ResignResponse
		resp, err = r.games.Resign(ctx, &damonev1.ResignRequest{Name: in.Game, RequestId: in.ReqID})
		g, out.Partial = resp.GetGame(), true
	case kOffer:
		var resp *damonev1.OfferDrawResponse
		resp, err = r.games.OfferDraw(ctx, &damonev1.OfferDrawRequest{Name: in.Game, RequestId: in.ReqID})
		g, out.Partial = resp.GetGame(), true
	case kAnswer:
		var resp *damonev1.AnswerDrawOfferResponse
		resp, err = r.games.AnswerDrawOffer(ctx, &damonev1.AnswerDrawOfferRequest{Name: in.Game, Accept: in.Accept, RequestId: in.ReqID})
		g, out.Partial = resp.GetGame(), true
	}
	switch {
	case err == nil:
		out.St = stateOf(g)
		if out.Partial {
			out.St.Moves = ""
		}
		return out, nil
	case indeterminate(err) || errors.Is(err, context.DeadlineExceeded):
		out.Unknown = true
		return out, err
	default:
		out.Code = reason(err)
		return out, err
	}
}

// retryable reports whether a kind of write carries a request id, so an
// unknown answer is settled by sending it again (the replay answers as
// the first call did): every write does (CreateGame too, in create).
var retryable = map[string]bool{kMove: true, kResign: true, kOffer: true, kAnswer: true}

// settleTimeout bounds the retries of one unknown write.
const settleTimeout = 20 * time.Second

// do runs in through reps (starting at the first) and records it: a
// write with a request id that ends unknown is retried on the next
// replicas until it gets a definite answer or settleTimeout passes.
func (h *history) do(ctx context.Context, client int, reps []*replica, in input, token string) *record {
	rec := &record{Client: client, In: in, Call: h.now(), Phase: h.faults.phase()}
	start := time.Now()
	for i := 0; ; i++ {
		r := reps[i%len(reps)]
		out, err := invoke(ctx, r, in, token)
		rec.Attempts++
		rec.Replica = r.name
		rec.Out = out
		rec.Err = ""
		if err != nil {
			rec.Err = err.Error()
		}
		if !out.Unknown || !retryable[in.Kind] || in.ReqID == "" || time.Since(start) > settleTimeout || ctx.Err() != nil {
			break
		}
		if rec.Attempts == 1 {
			rec.Settled = "replay"
		}
		time.Sleep(100 * time.Millisecond)
	}
	if rec.Out.Unknown {
		rec.Settled = ""
	}
	rec.Return = h.now()
	h.add(rec)
	return rec
}

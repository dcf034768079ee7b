package server

import (
	"context"
	"errors"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/tap"
)

// Calls that never send. grpc-go starts a unary handler, and our
// interceptors, only once the request has come in full (the message and
// the client's end of sending), and a server-streaming handler only once
// its request has; until then the stream is held by the transport, with
// a goroutine, past every deadline of ours and through the shutdown's
// drain. arrivals gives each new stream, from the moment its headers
// arrive, a bound for its request to arrive in (the first message, for a
// bidirectional stream), or the stream ends with DEADLINE_EXCEEDED.
//
// It works through the one hook grpc-go gives before a stream is handed
// on: the tap handle, whose context is the one the transport reads the
// stream with. Cancelling it ends a pending read, and the reading call
// answers with the code of the context's Err: DeadlineExceeded here.
//
// The bound is the same for every stream, so the streams waiting for
// their request, kept in opening order, are also in deadline order: one
// goroutine, running while any wait, ends them from the oldest, with no
// timer per stream.

// shutdownRequestGrace is how long, from the start of a shutdown, a call
// still waiting for its request may wait for it (at most its bound): a
// request on its way is served, idle calls do not hold the drain.
const shutdownRequestGrace = time.Second

// errNoRequest is the cause of an arrival context cancelled because the
// request did not come in time.
var errNoRequest = errors.New("the call's request did not arrive within --max-call-duration of its opening")

// arrivals tracks the streams whose request has not arrived.
type arrivals struct {
	bound time.Duration
	// timedOut, if set, is called once for each call ended because its
	// request did not arrive (metrics); it must not block.
	timedOut func()

	mu       sync.Mutex
	waiting  arrival       // sentinel of the list of waiting streams, oldest first
	sweeping bool          // the sweep goroutine runs
	wake     chan struct{} // tells the sweep that deadlines came closer
	stopAt   time.Time     // when the shutdown began; zero before
}

func newArrivals(bound time.Duration) *arrivals {
	as := &arrivals{bound: bound, wake: make(chan struct{}, 1)}
	as.waiting.prev, as.waiting.next = &as.waiting, &as.waiting
	return as
}

// arrival is the context of one stream: the stream's own, cancelled (with
// errNoRequest) if its request does not arrive in time.
type arrival struct {
	context.Context // a cancel-cause child of the stream's context
	cancel          context.CancelCauseFunc
	set             *arrivals
	deadline        time.Time
	stopForget      func() bool // unregisters forget from the context's end

	prev, next *arrival // in set.waiting while linked; guarded by set.mu
}

type arrivalKey struct{}

// tap is the servers' grpc.InTapHandle: it runs for each new stream,
// under the lock of the stream's connection, so it never waits.
func (as *arrivals) tap(ctx context.Context, _ *tap.Info) (context.Context, error) {
	inner, cancel := context.WithCancelCause(ctx)
	a := &arrival{Context: inner, cancel: cancel, set: as, deadline: time.Now().Add(as.bound)}
	as.mu.Lock()
	a.prev, a.next = as.waiting.prev, &as.waiting
	a.prev.next, as.waiting.prev = a, a
	if !as.sweeping {
		as.sweeping = true
		go as.sweep()
	}
	as.mu.Unlock()
	// A stream that ends without its request (the client reset it, the
	// connection closed) is forgotten at once, so nothing of it is kept
	// until its deadline.
	a.stopForget = context.AfterFunc(inner, a.unlink)
	return a, nil
}

// Err is DeadlineExceeded once the request has not arrived in time: the
// transport answers a read cut by it with that code.
func (a *arrival) Err() error {
	err := a.Context.Err()
	if err != nil && context.Cause(a.Context) == errNoRequest {
		return context.DeadlineExceeded
	}
	return err
}

func (a *arrival) Value(key any) any {
	if key == (arrivalKey{}) {
		return a
	}
	return a.Context.Value(key)
}

// unlink takes the stream off the waiting list, if it is on it.
func (a *arrival) unlink() {
	a.set.mu.Lock()
	if a.next != nil {
		a.prev.next, a.next.prev = a.next, a.prev
		a.prev, a.next = nil, nil
	}
	a.set.mu.Unlock()
}

// arrive ends the wait: the request is in.
func (a *arrival) arrive() {
	a.unlink()
	a.stopForget()
}

// sweep ends the streams past their deadline, oldest first, and returns
// when none waits.
func (as *arrivals) sweep() {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		as.mu.Lock()
		a := as.waiting.next
		if a == &as.waiting {
			as.sweeping = false
			as.mu.Unlock()
			return
		}
		deadline := a.deadline
		if end := as.stopAt.Add(shutdownRequestGrace); !as.stopAt.IsZero() && end.Before(deadline) {
			deadline = end
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			a.prev.next, a.next.prev = a.next, a.prev
			a.prev, a.next = nil, nil
		}
		as.mu.Unlock()
		if wait <= 0 {
			a.cancel(errNoRequest)
			if as.timedOut != nil {
				as.timedOut()
			}
			continue
		}
		t.Reset(wait)
		select {
		case <-t.C:
		case <-as.wake:
		}
	}
}

// stop starts the shutdown's grace for every call waiting for its
// request, and for any opened from now on.
func (as *arrivals) stop() {
	as.mu.Lock()
	as.stopAt = time.Now()
	as.mu.Unlock()
	select {
	case as.wake <- struct{}{}:
	default:
	}
}

// arrived ends the wait of the stream whose context ctx is (or derives
// from), if it has one.
func arrived(ctx context.Context) {
	if a, ok := ctx.Value(arrivalKey{}).(*arrival); ok {
		a.arrive()
	}
}

// unary runs only once a unary call's request has come in full.
func (as *arrivals) unary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
	arrived(ctx)
	return next(ctx, req)
}

// stream runs as a streaming call starts, before its first message: the
// first receive that returns ends the wait. (Every streaming handler of
// ours receives first; one that did not would be cut at the bound.)
func (as *arrivals) stream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, next grpc.StreamHandler) error {
	return next(srv, &arrivingStream{ServerStream: ss})
}

type arrivingStream struct {
	grpc.ServerStream
	received bool // RecvMsg is never called from two goroutines at once
}

func (s *arrivingStream) RecvMsg(m any) error {
	err := s.ServerStream.RecvMsg(m)
	if !s.received {
		s.received = true
		arrived(s.ServerStream.Context())
	}
	return err
}

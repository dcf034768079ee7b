package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// REST bodies that never come (the REST half of idle.go). The HTTP server
// bounds a request's headers, not its body: a client that sends headers
// announcing a body and then nothing held a handler until the drain, and
// made the shutdown wait for it. bodies bounds the time from a request's
// start to the end of its body by the same --max-call-duration: guard
// reads a REST call's whole body (at most --max-request-bytes) before
// routing it, under a read deadline on the connection; a body not in by
// then ends the call with DEADLINE_EXCEEDED (HTTP 504, the status JSON).
//
// The deadline is the connection's, so it must not outlive the body:
// net/http reads the connection in the background once a body is
// consumed (at once for a request without one), and a read error there
// cancels the request's context, which would end a long response (a
// watch, an analysis) at the deadline. Requests without a body get no
// deadline; a body's is cleared as soon as it is in (net/http, as of Go
// 1.26, also clears it as it starts that read; this does not rely on
// it). And the whole body is read before any handler runs: a handler
// that does not read its body (a GET with one, a 404, /healthz) would
// leave it to net/http, which reads it once the handler returns, with no
// deadline. The validateGames NDJSON stream is not read here: only its
// first line is bounded, by its handler (gateway_ndjson.go, through
// within), and the rest may come as slowly as its client likes.
//
// A body that times out leaves the deadline in place: net/http then
// cannot read what is left of it after the answer either (a read without
// a deadline would wait for the client) and closes the connection.
type bodies struct {
	bound    time.Duration
	limit    int64  // bytes; above it, LIMIT_EXCEEDED request_bytes (413)
	timedOut func() // called once for each call ended (metrics); must not block
	// answer writes err (a status, or a *http.MaxBytesError) in the
	// gateway's error model; newGateway sets it.
	answer func(w http.ResponseWriter, r *http.Request, err error)
	// routeError answers a request that no route takes (404, or 405 for a
	// known path with another method) in the gateway's error model, for
	// routes served outside the gateway (/board.svg); newGateway sets it.
	routeError func(w http.ResponseWriter, r *http.Request, httpCode int)

	mu      sync.Mutex
	pending map[*pendingBody]struct{} // bodies being read
	stopAt  time.Time                 // when the shutdown began; zero before
}

type pendingBody struct {
	rc       *http.ResponseController
	deadline time.Time
	shutdown bool // the deadline is the shutdown's grace
}

func newBodies(bound time.Duration, limit int, timedOut func()) *bodies {
	return &bodies{bound: bound, limit: int64(limit), timedOut: timedOut, pending: map[*pendingBody]struct{}{}}
}

// stop gives every body being read, and any started from now on, at most
// shutdownRequestGrace more to arrive: such calls do not hold the drain.
func (b *bodies) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stopAt = time.Now()
	end := b.stopAt.Add(shutdownRequestGrace)
	for p := range b.pending {
		if end.Before(p.deadline) {
			p.deadline, p.shutdown = end, true
			p.rc.SetReadDeadline(end)
		}
	}
}

// read reads r's whole body, at most the limit, into buf, within the
// bound from start. The error is a status for the caller's error
// handler: DEADLINE_EXCEEDED if the body did not arrive in time, else
// the reader's error (a *http.MaxBytesError over the limit). After any
// error the deadline stays: net/http reads on what is left of the body
// after the answer (a body over the limit, up to 256 KiB, so that the
// client sees the answer), and must not wait longer.
func (b *bodies) read(w http.ResponseWriter, r *http.Request, start time.Time, buf *bytes.Buffer) error {
	return b.within(w, start, "the request body", false, func() error {
		_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, b.limit))
		return err
	})
}

// within runs read, which reads the request's body (what names the part
// it needs), under a read deadline on the connection at the bound from
// start (or the shutdown's grace). It returns read's error, or
// DEADLINE_EXCEEDED naming what and the setting if the deadline cut it,
// in which case the deadline stays, so that net/http cannot wait for the
// rest of the body and closes the connection. Otherwise the deadline is
// cleared after a read that ends with nil or io.EOF and, if clearOnError,
// after any other error.
func (b *bodies) within(w http.ResponseWriter, start time.Time, what string, clearOnError bool, read func() error) error {
	p := &pendingBody{rc: http.NewResponseController(w), deadline: start.Add(b.bound)}
	b.mu.Lock()
	if end := b.stopAt.Add(shutdownRequestGrace); !b.stopAt.IsZero() && end.Before(p.deadline) {
		p.deadline, p.shutdown = end, true
	}
	// Without the connection's deadline (not HTTP/1, which is all the
	// server speaks) the read is not bounded, as before.
	bounded := p.rc.SetReadDeadline(p.deadline) == nil
	if bounded {
		b.pending[p] = struct{}{}
	}
	b.mu.Unlock()

	err := read()

	if !bounded {
		return err
	}
	timedOut := errors.Is(err, os.ErrDeadlineExceeded)
	b.mu.Lock()
	delete(b.pending, p)
	shutdown := p.shutdown
	if err == nil || errors.Is(err, io.EOF) || (clearOnError && !timedOut) {
		// Under the lock, so that stop cannot set it again after this.
		p.rc.SetReadDeadline(time.Time{})
	}
	b.mu.Unlock()
	if !timedOut {
		return err
	}
	if b.timedOut != nil {
		b.timedOut()
	}
	if shutdown {
		return status.Errorf(codes.DeadlineExceeded, "the server is shutting down and %s has not arrived in full", what)
	}
	return status.Errorf(codes.DeadlineExceeded,
		"%s did not arrive in full within %v of the request's start (setting max-call-duration)", what, b.bound)
}

// guard serves h each request with its body read in full (and kept for
// the error handler, see readBody), limited to the body limit; a body
// over the limit or not in within the bound is answered here, with the
// gateway's error model. A validateGames body is left to its stream.
// Every handler of the REST port is behind it: net/http reads what a
// handler leaves of a body once it returns, without a deadline.
func (b *bodies) guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ctx := context.WithValue(r.Context(), maxBytesKey{}, b.limit)
		if r.Body == nil || r.Body == http.NoBody || isNDJSONStream(r) {
			h.ServeHTTP(w, r.WithContext(ctx))
			return
		}
		kept := bodyPool.Get().(*bytes.Buffer)
		kept.Reset()
		defer bodyPool.Put(kept)
		if err := b.read(w, r, start, kept); err != nil {
			// Any other read error: the client's connection broke, or its
			// chunked encoding is bad.
			var tooBig *http.MaxBytesError
			if _, ok := status.FromError(err); !ok && !errors.As(err, &tooBig) {
				err = invalidStatus("body", "the request body cannot be read: "+err.Error())
			}
			b.answer(w, r.WithContext(ctx), err)
			return
		}
		r = r.WithContext(context.WithValue(ctx, bodyKey{}, kept))
		r.Body = bodyReader{bytes.NewReader(kept.Bytes())}
		h.ServeHTTP(w, r)
	})
}

// bodyReader is a body already read.
type bodyReader struct{ *bytes.Reader }

func (bodyReader) Close() error { return nil }

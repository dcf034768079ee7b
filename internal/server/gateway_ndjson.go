package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// validateGamesPath is ValidateGames' REST route (damone_http.yaml).
const validateGamesPath = "/v1/rules:validateGames"

// ndjsonStream serves ValidateGames over HTTP with newline-delimited JSON
// both ways. The generated gateway handler cannot: it drops a line that
// does not decode without telling the client, and it limits the whole
// body, not each request, to the request size limit. Each line read is
// sent on a gRPC stream to the server (so interceptors and metrics apply),
// each answer is written and flushed as one line, and a reader waits for
// the writer through the stream's flow control: a client that stops
// reading answers stops the reading of its body.
type ndjsonStream struct {
	bodies  *bodies // bounds the arrival of the first line
	client  damonev1.RulesServiceClient
	mux     *runtime.ServeMux
	json    *jsonMarshaler
	maxLine int
}

func newNDJSONStream(conn *grpc.ClientConn, mux *runtime.ServeMux, maxLine int, bs *bodies) *ndjsonStream {
	return &ndjsonStream{
		bodies:  bs,
		client:  damonev1.NewRulesServiceClient(conn),
		mux:     mux,
		json:    &jsonMarshaler{runtime.JSONPb{MarshalOptions: protojson.MarshalOptions{UseProtoNames: true}}},
		maxLine: maxLine,
	}
}

func (h *ndjsonStream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rc := http.NewResponseController(w)
	// HTTP/1.1: answer while the body is still being read.
	_ = rc.EnableFullDuplex()
	// The first request must come within the bound, like any other REST
	// request's body (gateway_body.go); the gRPC stream is opened only
	// once it has, so it never waits for it. The next ones may come as
	// slowly as the client likes.
	lines := &ndjsonLines{br: bufio.NewReaderSize(r.Body, 64<<10), maxLine: h.maxLine}
	var first *damonev1.ValidateGamesRequest
	err := h.bodies.within(w, start, "the first line of the request body", true, func() error {
		var err error
		first, err = lines.next()
		return err
	})
	if err != nil && !errors.Is(err, io.EOF) {
		if status.Code(err) == codes.DeadlineExceeded {
			// The rest of the body is not waited for (the deadline
			// stays): the connection is closed after the answer.
			w.Header().Set("Connection", "close")
		}
		errorHandler(r.Context(), h.mux, h.json, w, r, lines.status(err))
		return
	}
	// The stream ends with the handler: a reader blocked sending to it
	// must not outlive a client whose answer could not be written (its
	// request's context may survive that, gateway_halfclose.go).
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stream, err := h.client.ValidateGames(ctx)
	if err != nil {
		errorHandler(ctx, h.mux, h.json, w, r, err)
		return
	}
	var (
		mu      sync.Mutex
		readErr error // why reading stopped early, reported after the answers
	)
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		var err error
		if first != nil {
			err = h.readRequests(first, lines, stream)
		}
		mu.Lock()
		readErr = err
		mu.Unlock()
		stream.CloseSend()
	}()
	// The body must not be read once the handler has returned: wake a
	// reader still waiting for the client, and wait for it to stop. Only
	// one waiting for the client gets a deadline: once the body is read to
	// its end the server itself reads the connection ahead, and a deadline
	// expiring there cancels the next request on a kept-alive connection
	// (HTTP 499). A reader that has all it needs (the body to its end, or
	// a request for the ended stream, whose Send fails once cancelled)
	// stops within readerGrace.
	defer func() {
		cancel()
		grace := time.NewTimer(readerGrace)
		defer grace.Stop()
		select {
		case <-readerDone:
		case <-grace.C:
			rc.SetReadDeadline(time.Now())
			<-readerDone
			// The deadline is the connection's: clear it for the next
			// request on a kept-alive connection.
			rc.SetReadDeadline(time.Time{})
		}
	}()

	started := false
	flusher := rc
	var line []byte
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			mu.Lock()
			err = readErr
			mu.Unlock()
			if err == nil {
				if !started {
					w.Header().Set("Content-Type", h.json.StreamContentType(nil))
					w.WriteHeader(http.StatusOK)
				}
				return
			}
		}
		if err != nil {
			if !started {
				// Nothing streamed yet: the plain status JSON of every
				// other refused call.
				errorHandler(ctx, h.mux, h.json, w, r, err)
				return
			}
			line = append(line[:0], `{"error":`...)
			b, _ := h.json.Marshal(status.Convert(err).Proto())
			line = append(append(line, b...), "}\n"...)
			w.Write(line)
			flusher.Flush()
			return
		}
		if !started {
			w.Header().Set("Content-Type", h.json.StreamContentType(nil))
			w.WriteHeader(http.StatusOK)
			started = true
		}
		b, err := h.json.Marshal(resp)
		if err != nil {
			return
		}
		line = append(append(append(line[:0], `{"result":`...), b...), "}\n"...)
		if _, err := w.Write(line); err != nil {
			return // the client went away; its context ends the stream
		}
		flusher.Flush()
	}
}

// readerGrace is how long an ended validateGames call waits for its body's
// reader to stop by itself before waking it: long enough for a reader
// with bytes in hand on a loaded machine, short against a client that
// keeps its body open after the answer ended.
const readerGrace = 250 * time.Millisecond

// readRequests sends first and then each request of lines, and returns
// why it stopped before the end of the body, if it did.
func (h *ndjsonStream) readRequests(first *damonev1.ValidateGamesRequest, lines *ndjsonLines, stream damonev1.RulesService_ValidateGamesClient) error {
	for req := first; ; {
		if err := stream.Send(req); err != nil {
			return nil // the stream failed: Recv reports why
		}
		var err error
		if req, err = lines.next(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return lines.status(err)
		}
	}
}

// ndjsonLines reads a validateGames body one request (a non-blank line)
// at a time.
type ndjsonLines struct {
	br      *bufio.Reader
	buf     []byte
	n       int // the line last read, from 1
	maxLine int // bytes a request
}

// lineReadError is the body's reader's error on a line.
type lineReadError struct {
	line int
	err  error
}

func (e *lineReadError) Error() string { return fmt.Sprintf("line %d: %v", e.line, e.err) }
func (e *lineReadError) Unwrap() error { return e.err }

// next returns the next request; io.EOF at the end of the body, a status
// for a line too long or that does not decode, or a *lineReadError.
func (l *ndjsonLines) next() (*damonev1.ValidateGamesRequest, error) {
	for {
		l.n++
		l.buf = l.buf[:0]
		var err error
		for {
			var chunk []byte
			chunk, err = l.br.ReadSlice('\n')
			l.buf = append(l.buf, chunk...)
			// The limit is on the request, not its line ending.
			if len(bytes.TrimRight(l.buf, "\r\n")) > l.maxLine {
				return nil, limitExceeded("request_bytes", l.maxLine,
					"line %d of the body is longer than the server's limit of %d bytes a request (setting max-request-bytes)", l.n, l.maxLine)
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, &lineReadError{l.n, err}
		}
		if text := bytes.TrimSpace(l.buf); len(text) > 0 {
			req := &damonev1.ValidateGamesRequest{}
			if derr := protojson.Unmarshal(text, req); derr != nil {
				return nil, invalidStatus("body", fmt.Sprintf("line %d does not decode as a ValidateGamesRequest: %v", l.n, derr))
			}
			return req, nil
		}
		if err != nil {
			return nil, err // io.EOF
		}
	}
}

// status turns an error of next into the error the client is answered.
func (l *ndjsonLines) status(err error) error {
	var re *lineReadError
	if errors.As(err, &re) {
		// The client's body is broken (e.g. bad chunked encoding), or it
		// went away, in which case nobody reads this answer.
		return invalidStatus("body", fmt.Sprintf("line %d: the request body cannot be read: %v", re.line, re.err))
	}
	return err
}

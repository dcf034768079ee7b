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
	client  damonev1.RulesServiceClient
	mux     *runtime.ServeMux
	json    *jsonMarshaler
	maxLine int
}

func newNDJSONStream(conn *grpc.ClientConn, mux *runtime.ServeMux, maxLine int) *ndjsonStream {
	return &ndjsonStream{
		client:  damonev1.NewRulesServiceClient(conn),
		mux:     mux,
		json:    &jsonMarshaler{runtime.JSONPb{MarshalOptions: protojson.MarshalOptions{UseProtoNames: true}}},
		maxLine: maxLine,
	}
}

func (h *ndjsonStream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// HTTP/1.1: answer while the body is still being read.
	_ = http.NewResponseController(w).EnableFullDuplex()
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
		err := h.readRequests(r.Body, stream)
		mu.Lock()
		readErr = err
		mu.Unlock()
		stream.CloseSend()
	}()
	// The body must not be read once the handler has returned: wake a
	// reader still waiting for the client, and wait for it to stop.
	defer func() {
		rc := http.NewResponseController(w)
		rc.SetReadDeadline(time.Now())
		cancel()
		<-readerDone
		// The deadline is the connection's: clear it for the next request
		// on a kept-alive connection.
		rc.SetReadDeadline(time.Time{})
	}()

	started := false
	flusher := http.NewResponseController(w)
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

// readRequests sends each non-blank line of body as one request and
// returns why it stopped before the end of the body, if it did.
func (h *ndjsonStream) readRequests(body io.Reader, stream damonev1.RulesService_ValidateGamesClient) error {
	br := bufio.NewReaderSize(body, 64<<10)
	var buf []byte
	for n := 1; ; n++ {
		buf = buf[:0]
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			buf = append(buf, chunk...)
			// The limit is on the request, not its line ending.
			if len(bytes.TrimRight(buf, "\r\n")) > h.maxLine {
				return limitExceeded("request_bytes", h.maxLine,
					"line %d of the body is longer than the server's limit of %d bytes a request (setting max-request-bytes)", n, h.maxLine)
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		if text := bytes.TrimSpace(buf); len(text) > 0 {
			req := &damonev1.ValidateGamesRequest{}
			if derr := protojson.Unmarshal(text, req); derr != nil {
				return invalidStatus("body", fmt.Sprintf("line %d does not decode as a ValidateGamesRequest: %v", n, derr))
			}
			if serr := stream.Send(req); serr != nil {
				return nil // the stream failed: Recv reports why
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			// The client's body is broken (e.g. bad chunked encoding), or it
			// went away, in which case nobody reads this answer.
			return invalidStatus("body", fmt.Sprintf("line %d: the request body cannot be read: %v", n, err))
		}
	}
}

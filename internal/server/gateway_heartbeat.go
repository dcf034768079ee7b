package server

import (
	"context"
	"net/http"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
)

// DefaultStreamHeartbeat is how long a REST server stream may stay silent
// before it gets a heartbeat line.
const DefaultStreamHeartbeat = 15 * time.Second

// HeartbeatLine is the line a REST server stream (WatchGame,
// AnalyzePosition) sends after StreamHeartbeat without another line, so
// that its client can tell a quiet stream from a dead connection. It is
// no result: it carries no sequence and moves no resume point.
const HeartbeatLine = `{"heartbeat":{}}` + "\n"

// heartbeats wraps the writer of one REST server stream. Once the gateway
// has the call's response headers (streamStarted), it writes
// HeartbeatLine whenever interval has passed since the last line, never
// inside a line the gateway is writing, and never before the call is
// accepted: a refused call keeps its HTTP error status.
type heartbeats struct {
	http.ResponseWriter
	interval time.Duration

	mu      sync.Mutex
	started bool
	wrote   bool // something was written: the status line is sent
	midLine bool // the gateway wrote a line but not yet its delimiter
	last    time.Time
	quit    chan struct{}
	exited  chan struct{}
}

func newHeartbeats(w http.ResponseWriter, interval time.Duration) *heartbeats {
	return &heartbeats{ResponseWriter: w, interval: interval, quit: make(chan struct{}), exited: make(chan struct{})}
}

// streamStarted is a gateway forward-response option: the gateway calls it
// with a nil message once a server stream's headers have come, before its
// first message.
func streamStarted(_ context.Context, w http.ResponseWriter, m proto.Message) error {
	if hb, ok := w.(*heartbeats); ok && m == nil {
		hb.start()
	}
	return nil
}

func (h *heartbeats) start() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.started || h.interval <= 0 {
		return
	}
	h.started = true
	h.last = time.Now()
	go h.run()
}

func (h *heartbeats) run() {
	defer close(h.exited)
	t := time.NewTimer(h.interval)
	defer t.Stop()
	for {
		select {
		case <-h.quit:
			return
		case <-t.C:
		}
		h.mu.Lock()
		wait := h.interval - time.Since(h.last)
		if wait <= 0 {
			wait = h.interval
			if !h.midLine {
				h.beat()
			}
		}
		h.mu.Unlock()
		t.Reset(wait)
	}
}

// beat writes one heartbeat; h.mu is held.
func (h *heartbeats) beat() {
	if !h.wrote && h.Header().Get("Content-Type") == "" {
		h.Header().Set("Content-Type", "application/x-ndjson")
	}
	h.wrote = true
	h.last = time.Now()
	if _, err := h.ResponseWriter.Write([]byte(HeartbeatLine)); err != nil {
		return
	}
	http.NewResponseController(h.ResponseWriter).Flush()
}

// stop ends the heartbeats; it must be called before the handler returns,
// after which the writer may not be used.
func (h *heartbeats) stop() {
	h.mu.Lock()
	started := h.started
	h.started = true // no start after stop
	h.mu.Unlock()
	if started && h.interval > 0 {
		close(h.quit)
		<-h.exited
	}
}

// WriteHeader passes the status on unless a heartbeat has already sent
// one (200): a stream that fails before its first result then ends with
// an {"error": …} line, as one that fails later does.
func (h *heartbeats) WriteHeader(code int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.wrote {
		return
	}
	h.ResponseWriter.WriteHeader(code)
}

func (h *heartbeats) Write(b []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.wrote = true
	if len(b) > 0 {
		h.midLine = b[len(b)-1] != '\n'
	}
	h.last = time.Now()
	return h.ResponseWriter.Write(b)
}

func (h *heartbeats) Flush() {
	h.mu.Lock()
	defer h.mu.Unlock()
	http.NewResponseController(h.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection (deadlines).
func (h *heartbeats) Unwrap() http.ResponseWriter { return h.ResponseWriter }

package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestHeartbeatsNeverSplitALine: the gateway writes a line and its
// delimiter in two writes; a heartbeat falling due between them waits for
// the line's end, and none comes before the stream is accepted.
func TestHeartbeatsNeverSplitALine(t *testing.T) {
	const interval = 20 * time.Millisecond
	rec := httptest.NewRecorder()
	hb := newHeartbeats(rec, interval)
	time.Sleep(3 * interval) // not started: the call may still be refused
	hb.mu.Lock()
	if rec.Body.Len() != 0 {
		t.Fatalf("before the stream is accepted: %q", rec.Body.String())
	}
	hb.mu.Unlock()
	streamStarted(t.Context(), hb, nil)
	hb.Write([]byte(`{"result":{"a":1}}`))
	time.Sleep(5 * interval)
	hb.Write([]byte("\n"))
	time.Sleep(3 * interval)
	hb.stop()
	lines := strings.Split(strings.TrimSuffix(rec.Body.String(), "\n"), "\n")
	if lines[0] != `{"result":{"a":1}}` {
		t.Fatalf("the line was split: %q", rec.Body.String())
	}
	if len(lines) < 2 {
		t.Fatalf("no heartbeat in %v of silence: %q", 3*interval, rec.Body.String())
	}
	for _, l := range lines[1:] {
		if l+"\n" != HeartbeatLine {
			t.Errorf("line %q, want the heartbeat %q", l, HeartbeatLine)
		}
	}
}

// TestHeartbeatKeepsStreamStatus: after a heartbeat the status (200) is
// sent, so a failure before the first result must not try another status
// (it becomes an {"error": …} line, docs/api.md).
func TestHeartbeatKeepsStreamStatus(t *testing.T) {
	rec := httptest.NewRecorder()
	hb := newHeartbeats(rec, 10*time.Millisecond)
	streamStarted(t.Context(), hb, nil)
	time.Sleep(50 * time.Millisecond)
	hb.WriteHeader(http.StatusServiceUnavailable)
	hb.stop()
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("status %d, type %q; want 200 application/x-ndjson", rec.Code, rec.Header().Get("Content-Type"))
	}
}

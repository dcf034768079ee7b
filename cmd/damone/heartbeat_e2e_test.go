package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// hbLine is one line of a REST stream and when it arrived.
type hbLine struct {
	text string
	at   time.Time
}

// hbStream reads a REST NDJSON stream's lines as they come.
type hbStream struct {
	resp  *http.Response
	lines chan hbLine
}

func hbOpen(t *testing.T, method, url, body string) *hbStream {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	// A stream must be accepted (its headers sent) at once, even with no
	// line to send yet.
	c := &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: 5 * time.Second}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close(); c.CloseIdleConnections() })
	s := &hbStream{resp: resp, lines: make(chan hbLine, 64)}
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			s.lines <- hbLine{sc.Text(), time.Now()}
		}
	}()
	return s
}

// next returns the next line, failing after wait; ok is false at the
// stream's end.
func (s *hbStream) next(t *testing.T, wait time.Duration) (hbLine, bool) {
	t.Helper()
	select {
	case l, ok := <-s.lines:
		return l, ok
	case <-time.After(wait):
		t.Fatalf("no line within %v", wait)
		return hbLine{}, false
	}
}

// hbSequence is the sequence of a {"result": event} line, or 0 for a
// heartbeat (which must be exactly the documented line).
func hbSequence(t *testing.T, line string) int64 {
	t.Helper()
	if line == `{"heartbeat":{}}` {
		return 0
	}
	var l struct {
		Result *struct {
			Sequence string `json:"sequence"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &l); err != nil || l.Result == nil {
		t.Fatalf("line %q: neither a heartbeat nor a result (%v)", line, err)
	}
	n, err := strconv.ParseInt(l.Result.Sequence, 10, 64)
	if err != nil {
		t.Fatalf("line %q: sequence: %v", line, err)
	}
	return n
}

// TestServeStreamHeartbeat: an idle REST watch gets {"heartbeat":{}} lines
// once per --stream-heartbeat, and they never touch the resume contract
// (docs/api.md, The event stream): the events still come in order, once,
// a resume from the last sequence replays nothing twice, a refused watch
// still gets its HTTP error, and the stream still ends right after
// game_ended.
func TestServeStreamHeartbeat(t *testing.T) {
	const interval = 300 * time.Millisecond
	// Slack for a loaded machine; the heartbeat itself is due at interval.
	const late = interval + 700*time.Millisecond
	s := svStart(t, "--stream-heartbeat", interval.String())
	ctx := svCtx(t)
	cr := svNewGame(t, ctx, s, "")
	name := cr.GetGame().GetName()

	w1 := hbOpen(t, http.MethodGet, s.url("/v1/"+name+":watch?since_sequence=0"), "")
	if ct := w1.resp.Header.Get("Content-Type"); w1.resp.StatusCode != http.StatusOK || ct != "application/x-ndjson" {
		t.Fatalf("watch: %d %q", w1.resp.StatusCode, ct)
	}
	first, _ := w1.next(t, 5*time.Second)
	if seq := hbSequence(t, first.text); seq != 1 {
		t.Fatalf("first line: sequence %d, want 1 (game_created)", seq)
	}
	// Two heartbeats while nobody moves, each an interval after the line
	// before it: not sooner (the stream was not silent that long), not
	// much later.
	prev := first.at
	for i := range 2 {
		hb, _ := w1.next(t, 5*time.Second)
		if seq := hbSequence(t, hb.text); seq != 0 {
			t.Fatalf("idle line %d: a result (sequence %d), want a heartbeat", i, seq)
		}
		if gap := hb.at.Sub(prev); gap < interval-50*time.Millisecond || gap > late {
			t.Errorf("heartbeat %d came %v after the line before it; want about %v", i, gap, interval)
		}
		prev = hb.at
	}

	// A watch resumed from the last sequence seen, with nothing to replay,
	// is accepted at once and kept alive by heartbeats too.
	start := time.Now()
	w2 := hbOpen(t, http.MethodGet, s.url("/v1/"+name+":watch?since_sequence=1"), "")
	if w2.resp.StatusCode != http.StatusOK {
		t.Fatalf("resumed watch: %d", w2.resp.StatusCode)
	}
	hb, _ := w2.next(t, 5*time.Second)
	if seq := hbSequence(t, hb.text); seq != 0 {
		t.Fatalf("resumed watch: first line is sequence %d, want a heartbeat (nothing to replay)", seq)
	}
	if gap := hb.at.Sub(start); gap > late {
		t.Errorf("resumed watch: first heartbeat after %v, want about %v", gap, interval)
	}
	// A watch from past the last event is still refused with its HTTP
	// status and the status JSON, not a 200 kept open by heartbeats.
	code, body := svHTTP(t, http.MethodGet, s.url("/v1/"+name+":watch?since_sequence=2"), "", nil)
	if code != http.StatusBadRequest || !strings.Contains(string(body), "SEQUENCE_OUT_OF_RANGE") {
		t.Fatalf("watch past the last event: %d %s", code, body)
	}

	svMove(t, ctx, s, name, cr.GetRedToken(), "e2-d3")
	if _, err := s.games.Resign(svAuth(ctx, cr.GetBlackToken()), &damonev1.ResignRequest{Name: name}); err != nil {
		t.Fatal(err)
	}
	// Each watcher sees exactly the events after its since_sequence, in
	// order, whatever heartbeats came between, and the stream ends right
	// after game_ended (sequence 3): no heartbeat after it.
	for i, c := range []struct {
		w    *hbStream
		want []int64
	}{{w1, []int64{2, 3}}, {w2, []int64{2, 3}}} {
		var got []int64
		for {
			l, ok := c.w.next(t, 5*time.Second)
			if !ok {
				break
			}
			if seq := hbSequence(t, l.text); seq != 0 {
				got = append(got, seq)
			} else if len(got) == len(c.want) {
				t.Errorf("watcher %d: a heartbeat after game_ended", i+1)
			}
		}
		if len(got) != len(c.want) || got[0] != c.want[0] || got[1] != c.want[1] {
			t.Errorf("watcher %d: sequences %v, want %v", i+1, got, c.want)
		}
	}
}

// TestServeAnalysisHeartbeat: an analysis whose next depth takes longer
// than --stream-heartbeat gets heartbeats between its results, and still
// ends with its final result.
func TestServeAnalysisHeartbeat(t *testing.T) {
	const interval = 100 * time.Millisecond
	s := svStart(t, "--stream-heartbeat", interval.String(), "--max-analysis-time", "3s")
	st := hbOpen(t, http.MethodPost, s.url("/v1/analysis:analyzePosition"),
		`{"position": {"text": "`+svStartPos+`"}, "infinite": true}`)
	if st.resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(st.resp.Body)
		t.Fatalf("analysis: %d %s", st.resp.StatusCode, b)
	}
	var beats int
	var last string
	prev := time.Now()
	for {
		l, ok := st.next(t, 10*time.Second)
		if !ok {
			break
		}
		if gap := l.at.Sub(prev); gap > interval+time.Second {
			t.Errorf("%v without a line", gap)
		}
		prev = l.at
		if l.text == `{"heartbeat":{}}` {
			beats++
			continue
		}
		last = l.text
	}
	if beats == 0 {
		t.Error("no heartbeat in 3 s of analysis")
	}
	var final struct {
		Result struct {
			Final bool `json:"final"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(last), &final); err != nil || !final.Result.Final {
		t.Errorf("last result %q is not the final one (%v)", last, err)
	}
}

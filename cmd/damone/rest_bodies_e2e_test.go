package main

// REST calls that never send (issue 14, section 2, the REST half): a REST
// request whose body has not arrived in full within --max-call-duration
// of its start ends with HTTP 504 and the status JSON (DEADLINE_EXCEEDED,
// code 4), at once at shutdown, and is counted in
// damone_request_arrival_timeouts_total{transport="rest"}; REST streams
// whose request is in (watches, analyses, a validateGames stream past its
// first line) are not cut by it, nor by --max-connection-age (docs/api.md,
// "Calls that never send"). The stalled requests are written on raw TCP
// connections, so no client library finishes or times them out.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// rawConn is one HTTP/1.1 connection to the REST port, written by hand.
type rawConn struct {
	net.Conn
	br     *bufio.Reader
	opened time.Time // when the request's head was written
}

// rawSend opens a connection to addr and writes text (a request's head
// and whatever part of its body the test sends) on it.
func rawSend(t *testing.T, addr, text string) *rawConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	rc := &rawConn{Conn: c, br: bufio.NewReader(c), opened: time.Now()}
	if _, err := io.WriteString(c, text); err != nil {
		t.Fatal(err)
	}
	return rc
}

// rawAnswer is an answer read from a rawConn.
type rawAnswer struct {
	code  int
	body  string
	after time.Duration // since the request was opened
	err   error         // the answer could not be read
}

// answer reads the next answer, waiting at most wait.
func (c *rawConn) answer(wait time.Duration) rawAnswer {
	c.SetReadDeadline(time.Now().Add(wait))
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return rawAnswer{err: err, after: time.Since(c.opened)}
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return rawAnswer{code: resp.StatusCode, body: strings.TrimSpace(string(b)), after: time.Since(c.opened), err: err}
}

// closed reports whether the server closed the connection (EOF within
// wait, nothing more sent).
func (c *rawConn) closed(wait time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(wait))
	_, err := c.br.ReadByte()
	return errors.Is(err, io.EOF)
}

// wantTimedOut checks a stalled request's answer: HTTP 504 with the
// status JSON of DEADLINE_EXCEEDED (code 4, docs/api.md, Error model)
// whose message names the setting, not before bound and at most slack
// after it.
func wantTimedOut(t *testing.T, what string, a rawAnswer, bound, slack time.Duration) {
	t.Helper()
	if a.err != nil {
		t.Errorf("%s: no answer %v after it was sent: %v", what, a.after.Round(time.Millisecond), a.err)
		return
	}
	var st struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if a.code != http.StatusGatewayTimeout || json.Unmarshal([]byte(a.body), &st) != nil || st.Code != int(codes.DeadlineExceeded) ||
		!strings.Contains(st.Message, "max-call-duration") {
		t.Errorf("%s: HTTP %d %s; want 504 with code 4 and a message naming max-call-duration", what, a.code, a.body)
	}
	if a.after < bound || a.after > bound+slack {
		t.Errorf("%s: answered %v after it was sent; want between --max-call-duration %v and %v", what, a.after.Round(time.Millisecond), bound, bound+slack)
	}
}

// arrivalTimeouts reads damone_request_arrival_timeouts_total for a
// transport, failing if the series is missing.
func arrivalTimeouts(t *testing.T, s *svServer, transport string) int {
	t.Helper()
	v, ok := svMetric(s.metrics(t), "damone_request_arrival_timeouts_total", map[string]string{"transport": transport})
	if !ok {
		t.Fatalf("/metrics has no damone_request_arrival_timeouts_total{transport=%q}", transport)
	}
	return int(v)
}

// restWatch is a REST WatchGame stream: each NDJSON line on lines.
type restWatch struct{ lines chan string }

func openRESTWatch(t *testing.T, ctx context.Context, url string) *restWatch {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("REST watch: HTTP %d %s", resp.StatusCode, b)
	}
	w := &restWatch{lines: make(chan string, 64)}
	go func() {
		defer close(w.lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
	}()
	return w
}

// next returns the watch's next line; ok is false if the stream ended
// or nothing came within wait.
func (w *restWatch) next(wait time.Duration) (line string, ok bool) {
	select {
	case line, ok = <-w.lines:
		return line, ok
	case <-time.After(wait):
		return "", false
	}
}

// TestRESTBodiesThatNeverCome: with --max-call-duration 2s, REST requests
// whose body never comes in full (none of it, half of it, a chunked body
// cut mid-chunk, on routes that decode their body, stream their answer or
// read no body at all) are answered 504 with the status JSON, not before
// the bound and soon after it, and their connection is closed; a body
// sent slowly but in full within the bound is served, and its connection
// serves the next request past the bound; the gateway's validateGames
// stream without a first line ends the same way; REST streams older than
// the bound (a watch, an analysis, a validateGames stream past its first
// line) are not cut; each call ended is counted once, by transport; the
// server's goroutines come back.
func TestRESTBodiesThatNeverCome(t *testing.T) {
	const bound = 2 * time.Second
	const slack = 2 * time.Second
	s := svStart(t, "--max-call-duration", bound.String())
	ctx := svCtx(t)
	if g, r := arrivalTimeouts(t, s, "grpc"), arrivalTimeouts(t, s, "rest"); g != 0 || r != 0 {
		t.Fatalf("damone_request_arrival_timeouts_total at start: grpc %d, rest %d; want both series at 0", g, r)
	}

	// Streams whose request is in, opened before the stalled requests:
	// a watch, and a validateGames stream that has had one line.
	cr := svNewGame(t, ctx, s, "")
	name := cr.GetGame().GetName()
	watch := openRESTWatch(t, ctx, s.url("/v1/"+name+":watch"))
	if line, ok := watch.next(5 * time.Second); !ok || !strings.Contains(line, `"game_created"`) {
		t.Fatalf("REST watch's first line: %q (%v); want the game_created event", line, ok)
	}
	vgBody, vgW := io.Pipe()
	defer vgW.Close()
	vgReq, _ := http.NewRequestWithContext(ctx, "POST", s.url("/v1/rules:validateGames"), vgBody)
	vgReq.Header.Set("Content-Type", "application/x-ndjson")
	vgResp := make(chan *http.Response, 1)
	go func() {
		resp, err := http.DefaultClient.Do(vgReq)
		if err != nil {
			t.Errorf("REST validateGames: %v", err)
			close(vgResp)
			return
		}
		vgResp <- resp
	}()
	fmt.Fprintln(vgW, `{"id":"first","game":{"moves":["e2-d3"]}}`)
	resp, ok := <-vgResp
	if !ok {
		t.FailNow()
	}
	defer resp.Body.Close()
	vgLines := bufio.NewReader(resp.Body)
	validated := func(id string) {
		t.Helper()
		line, err := vgLines.ReadString('\n')
		if err != nil || !strings.Contains(line, `"id":"`+id+`"`) || !strings.Contains(line, `"valid":true`) {
			t.Errorf("REST validateGames answer to %s: %q %v; want it valid", id, line, err)
		}
	}
	validated("first")
	// A watch whose request came with a body it does not need, in full:
	// the body is read, and the stream is not cut at the bound either.
	bodyWatch := rawSend(t, s.httpAddr, "GET /v1/"+name+":watch HTTP/1.1\r\nHost: "+s.httpAddr+"\r\nContent-Length: 2\r\n\r\n{}")
	bodyWatch.SetReadDeadline(time.Now().Add(5 * time.Second))
	bwResp, err := http.ReadResponse(bodyWatch.br, nil)
	if err != nil || bwResp.StatusCode != 200 {
		t.Fatalf("REST watch with a body: %v %v; want HTTP 200", bwResp, err)
	}
	bwLines := bufio.NewReader(bwResp.Body)
	if line, err := bwLines.ReadString('\n'); err != nil || !strings.Contains(line, `"game_created"`) {
		t.Fatalf("REST watch with a body, first line: %q %v; want the game_created event", line, err)
	}
	base := goroutines(t, s)

	// The stalled requests. applyMove's body is about 100 bytes.
	body := `{"move":"e2-d3","position":{"text":"` + svStartPos + `"}}`
	head := func(method, path, extra string) string {
		return method + " " + path + " HTTP/1.1\r\nHost: " + s.httpAddr + "\r\nContent-Type: application/json\r\n" + extra + "\r\n"
	}
	cl := func(n int) string { return fmt.Sprintf("Content-Length: %d\r\n", n) }
	stalled := []struct {
		what string
		text string
	}{
		{"applyMove, no body", head("POST", "/v1/rules:applyMove", cl(len(body)))},
		{"applyMove, half its body", head("POST", "/v1/rules:applyMove", cl(len(body))) + body[:len(body)/2]},
		{"applyMove, chunked, cut mid-chunk", head("POST", "/v1/rules:applyMove", "Transfer-Encoding: chunked\r\n") +
			fmt.Sprintf("%x\r\n", len(body)) + body[:10]},
		{"analyzePosition (a stream), no body", head("POST", "/v1/analysis:analyzePosition", cl(80))},
		{"GetGame (reads no body), a body announced", head("GET", "/v1/"+name, cl(10))},
		{"/healthz, a body announced", head("GET", "/healthz", cl(10))},
	}
	conns := make([]*rawConn, len(stalled))
	for i, c := range stalled {
		conns[i] = rawSend(t, s.httpAddr, c.text)
	}
	// Over gRPC, three calls that never send, for the other series.
	grpcEnds := openIdleCalls(t, s.dial(t), 3)
	// Over REST, a validateGames stream whose first line never comes:
	// bounded like a body (gateway_ndjson.go), counted as REST.
	ndjson := rawSend(t, s.httpAddr, head("POST", "/v1/rules:validateGames", "Transfer-Encoding: chunked\r\n"))

	// A body sent slowly, in three parts over 3/4 of the bound, is served.
	slow := rawSend(t, s.httpAddr, head("POST", "/v1/rules:applyMove", cl(len(body))))
	for i, part := range []string{body[:30], body[30:60], body[60:]} {
		time.Sleep(bound / 4)
		if _, err := io.WriteString(slow, part); err != nil {
			t.Fatalf("slow body, part %d: %v", i+1, err)
		}
	}
	a := slow.answer(10 * time.Second)
	if a.err != nil || a.code != 200 || !strings.Contains(a.body, `"e2-d3"`) {
		t.Errorf("applyMove whose body took %v: HTTP %d %s (%v); want 200 with the move played", 3*bound/4, a.code, a.body, a.err)
	}

	for i, c := range stalled {
		a := conns[i].answer(bound + slack + 5*time.Second)
		wantTimedOut(t, c.what, a, bound, slack)
		if a.err == nil && !conns[i].closed(5*time.Second) {
			t.Errorf("%s: the connection is still open after the 504", c.what)
		}
	}
	a = ndjson.answer(bound + slack + 5*time.Second)
	wantTimedOut(t, "validateGames without a first line", a, bound, slack)
	if a.err == nil && !ndjson.closed(5*time.Second) {
		t.Errorf("validateGames without a first line: the connection is still open after the 504")
	}
	for range 3 {
		select {
		case e := <-grpcEnds:
			if status.Code(e.err) != codes.DeadlineExceeded {
				t.Errorf("gRPC idle call on %s: %v; want DEADLINE_EXCEEDED", e.method, e.err)
			}
		case <-time.After(bound + 10*time.Second):
			t.Fatal("gRPC idle calls still open")
		}
	}

	// The slow body's connection, now past its request's bound, serves
	// the next request (the deadline was the body's, not the connection's).
	if _, err := io.WriteString(slow, head("POST", "/v1/rules:applyMove", cl(len(body)))+body); err != nil {
		t.Fatal(err)
	}
	if a := slow.answer(10 * time.Second); a.err != nil || a.code != 200 {
		t.Errorf("a second request on the slow body's connection, %v after the first: HTTP %d %s (%v); want 200", a.after.Round(time.Millisecond), a.code, a.body, a.err)
	}

	// An analysis that runs past the bound after its body came is not cut:
	// every line a result, the last final.
	aresp, err := http.Post(s.url("/v1/analysis:analyzePosition"), "application/json",
		strings.NewReader(`{"position":{"text":"`+svStartPos+`"},"move_time":"3s"}`))
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	sc := bufio.NewScanner(aresp.Body)
	var last string
	for sc.Scan() {
		last = sc.Text()
		if !strings.HasPrefix(last, `{"result":`) {
			t.Errorf("REST analysis line %q; want results only", last)
		}
	}
	aresp.Body.Close()
	if took := time.Since(began); !strings.Contains(last, `"final":true`) || took < bound {
		t.Errorf("REST analysis of 3s: last line %q after %v; want the final result, past the bound %v", last, took.Round(time.Millisecond), bound)
	}

	// The watch and the validateGames stream, older than the bound, go on.
	svMove(t, ctx, s, name, cr.GetRedToken(), "e2-d3")
	if line, ok := watch.next(5 * time.Second); !ok || !strings.Contains(line, `"move_played"`) {
		t.Errorf("REST watch after the stalled requests ended: %q (%v); want the move_played event", line, ok)
	}
	bodyWatch.SetReadDeadline(time.Now().Add(5 * time.Second))
	if line, err := bwLines.ReadString('\n'); err != nil || !strings.Contains(line, `"move_played"`) {
		t.Errorf("REST watch with a body, %v after it opened: %q %v; want the move_played event", time.Since(bodyWatch.opened).Round(time.Millisecond), line, err)
	}
	fmt.Fprintln(vgW, `{"id":"second","game":{"moves":["e2-d3"]}}`)
	validated("second")

	// Each call ended is counted once: the six stalled bodies and the
	// validateGames stream over REST, the three idle calls over gRPC.
	if g, r := arrivalTimeouts(t, s, "grpc"), arrivalTimeouts(t, s, "rest"); g != 3 || r != len(stalled)+1 {
		t.Errorf("damone_request_arrival_timeouts_total: grpc %d, rest %d; want 3 and %d", g, r, len(stalled)+1)
	}
	after, back := waitGoroutines(t, s, 10*time.Second, func(n int) bool { return n <= base+10 })
	t.Logf("server goroutines: %d before the stalled requests, %d after they ended", base, after)
	if !back {
		t.Errorf("the server's goroutines stayed at %d after the stalled requests ended, from %d before", after, base)
	}
}

// restStalled is how many stalled REST requests the shutdown test holds.
const restStalled = 200

// TestRESTStalledBodiesDoNotHoldShutdown: at SIGTERM, 200 REST requests
// whose body never comes do not hold the drain: with --drain-timeout and
// --max-call-duration at 30s the server exits within 5s, each request
// answered 504 with the status JSON.
func TestRESTStalledBodiesDoNotHoldShutdown(t *testing.T) {
	s := svStart(t, "--drain-timeout", "30s", "--max-call-duration", "30s")
	base := goroutines(t, s)
	head := "POST /v1/rules:applyMove HTTP/1.1\r\nHost: " + s.httpAddr + "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
	conns := make([]*rawConn, restStalled)
	for i := range conns {
		conns[i] = rawSend(t, s.httpAddr, head)
	}
	// Every request must be in the server before SIGTERM: one still in the
	// listen backlog is refused at shutdown, rightly, and would read as a
	// request the drain dropped. Each holds its connection's goroutine;
	// the count must reach all but a couple of them (transient goroutines
	// in the base) and stop growing.
	last := -1
	if n, ok := waitGoroutines(t, s, 20*time.Second, func(n int) bool {
		settled := n == last
		last = n
		return n >= base+restStalled-2 && settled
	}); !ok {
		t.Fatalf("the server's goroutines went from %d to %d with %d stalled requests: they do not reach the server", base, n, restStalled)
	}
	took := stopWithin(t, s, 5*time.Second, fmt.Sprintf("%d stalled REST requests", restStalled))
	answered := 0
	for i, c := range conns {
		a := c.answer(5 * time.Second)
		if a.err != nil || a.code != http.StatusGatewayTimeout || !strings.Contains(a.body, `"code":4`) {
			t.Errorf("stalled request %d at shutdown: HTTP %d %s (%v); want 504 with code 4", i, a.code, a.body, a.err)
			continue
		}
		answered++
	}
	t.Logf("exited %v after SIGTERM with %d stalled REST requests; %d answered 504", took.Round(time.Millisecond), restStalled, answered)
}

// TestRESTWatchOutlivesConnectionAge: --max-connection-age is for
// balancing external gRPC clients: with an age of 2s and a grace of 2s a
// gRPC watch is ended (UNAVAILABLE, to resume elsewhere) after about 4 to
// 5s, while a REST watch opened with it, whose gateway connection is
// in-process, still receives events 2s after that, and at least 7s after
// it opened.
func TestRESTWatchOutlivesConnectionAge(t *testing.T) {
	// The grace is the larger of --drain-timeout and --max-analysis-time
	// plus 1s: 2s here.
	s := svStart(t, "--max-connection-age", "2s", "--drain-timeout", "1s", "--max-analysis-time", "1s")
	ctx := svCtx(t)
	cr := svNewGame(t, ctx, s, "")
	name := cr.GetGame().GetName()
	opened := time.Now()
	rest := openRESTWatch(t, ctx, s.url("/v1/"+name+":watch"))
	if line, ok := rest.next(5 * time.Second); !ok || !strings.Contains(line, `"game_created"`) {
		t.Fatalf("REST watch's first line: %q (%v); want the game_created event", line, ok)
	}
	// A gRPC watch on a connection of its own, opened with the REST one.
	g := svWatchGame(t, ctx, damonev1.NewGameServiceClient(s.dial(t)), name, 0)
	g.waitSeq(t, 1)
	_, err := g.wait(t)
	cut := time.Since(opened)
	if status.Code(err) != codes.Unavailable || cut > 10*time.Second {
		t.Fatalf("gRPC watch with --max-connection-age 2s: ended after %v with %v; want UNAVAILABLE after about 4 to 5s", cut.Round(time.Millisecond), err)
	}
	time.Sleep(max(cut+2*time.Second, 7*time.Second) - time.Since(opened))
	svMove(t, ctx, s, name, cr.GetRedToken(), "e2-d3")
	line, ok := rest.next(5 * time.Second)
	if !ok || !strings.Contains(line, `"move_played"`) {
		t.Fatalf("REST watch %v after it opened (the gRPC watch was cut after %v): %q (%v); want the move_played event",
			time.Since(opened).Round(time.Millisecond), cut.Round(time.Millisecond), line, ok)
	}
	t.Logf("gRPC watch cut %v after it opened; the REST watch received a move %v after", cut.Round(time.Millisecond), time.Since(opened).Round(time.Millisecond))
}

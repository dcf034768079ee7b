package main

// REST clients that half-close and requests that never start (issue 24,
// faults 7 and 8): a client that ends its sending (shutdown(SHUT_WR))
// after a complete request is answered in full, on every kind of route; a
// client that goes away before its answer still ends the work; a
// validateGames body whose first line never comes is refused like every
// other REST body that never comes (docs/api.md, "Calls that never send").

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// halfClosed writes text (a whole request) on a new connection to addr,
// ends its sending side, and reads the answer and then the end of the
// connection.
func halfClosed(t *testing.T, addr, text string) (code int, body string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, text); err != nil {
		t.Fatal(err)
	}
	if err := c.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer after a half-close: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("HTTP %d, answer cut after %d bytes: %v", resp.StatusCode, len(b), err)
	}
	return resp.StatusCode, string(b)
}

// TestRESTHalfClosedClientIsAnswered: a request written in full and then
// followed by CloseWrite gets its whole answer: validateGame of a long
// game (work that takes long enough for the server to see the EOF), a
// validateGames stream of several games, applyMove, a CreateGame; with a
// Content-Length body and with a chunked one.
func TestRESTHalfClosedClientIsAnswered(t *testing.T) {
	s := svStart(t)
	// Eighty moves of two Damoni shuffling: the game ends by repetition
	// at ply 8 and the rest is refused, a verdict (200), not an error.
	var moves []string
	for range 20 {
		moves = append(moves, `"h1-g2"`, `"a8-b7"`, `"g2-h1"`, `"b7-a8"`)
	}
	game := `{"variant":{"start_position":{"text":"R:RMh1:BMa8:0"}},"moves":[` + strings.Join(moves, ",") + `]}`
	head := func(method, path, extra string) string {
		return method + " " + path + " HTTP/1.1\r\nHost: " + s.httpAddr + "\r\nContent-Type: application/json\r\n" + extra + "\r\n"
	}
	withLength := func(method, path, body string) string {
		return head(method, path, fmt.Sprintf("Content-Length: %d\r\n", len(body))) + body
	}
	chunked := func(method, path, body string) string {
		return head(method, path, "Transfer-Encoding: chunked\r\n") + fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(body), body)
	}
	var lines strings.Builder
	for i := range 20 {
		fmt.Fprintf(&lines, `{"id":"g%d","game":%s}`+"\n", i, game)
	}
	cases := []struct {
		what, text string
		wantLines  int
	}{
		{"validateGame, Content-Length", withLength("POST", "/v1/rules:validateGame", game), 0},
		{"validateGame, chunked", chunked("POST", "/v1/rules:validateGame", game), 0},
		{"validateGames, Content-Length", withLength("POST", "/v1/rules:validateGames", lines.String()), 20},
		{"validateGames, chunked", chunked("POST", "/v1/rules:validateGames", lines.String()), 20},
		{"applyMove", withLength("POST", "/v1/rules:applyMove", `{"move":"e2-d3","position":{"text":"`+svStartPos+`"}}`), 0},
		{"createGame", withLength("POST", "/v1/games", `{}`), 0},
	}
	for _, c := range cases {
		for try := range 5 { // the server's EOF races the work: try a few times
			code, body := halfClosed(t, s.httpAddr, c.text)
			if code != http.StatusOK {
				t.Errorf("%s, half-closed after the request (try %d): HTTP %d %s; want 200 with the answer", c.what, try+1, code, body)
				break
			}
			if c.wantLines > 0 {
				n := strings.Count(body, `{"result":{"id":"g`)
				if n != c.wantLines || strings.Count(body, "\n") != c.wantLines || strings.Contains(body, `{"error":`) {
					t.Errorf("%s, half-closed: %d results in %d lines, last %q; want %d results", c.what, n, strings.Count(body, "\n"), svLastLine(body), c.wantLines)
					break
				}
			}
		}
	}
}

// TestRESTResetClientEndsValidateGames: a validateGames client that sends
// its whole body, half-closes, reads none of the answers and then resets
// its connection ends the stream on the server (it is counted as handled
// soon after, as cancelled): tolerating a half-close does not keep the work of a client
// that is gone.
func TestRESTResetClientEndsValidateGames(t *testing.T) {
	s := svStart(t)
	handled := func(code string) float64 {
		v, _ := svMetric(s.metrics(t), "grpc_server_handled_total", map[string]string{"grpc_method": "ValidateGames", "grpc_code": code})
		return v
	}
	// With every position, about 5 kB of answer a line: some 30 MB, far
	// more than the sockets' buffers, so the server is still writing when
	// the client resets.
	var body strings.Builder
	for i := range 6000 {
		fmt.Fprintf(&body, `{"id":"g%d","game":{"moves":["e2-d3","e8-d7","f3-e4"],"include_positions":true}}`+"\n", i)
	}
	c, err := net.DialTimeout("tcp", s.httpAddr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tc := c.(*net.TCPConn)
	fmt.Fprintf(c, "POST /v1/rules:validateGames HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n\r\n%s", s.httpAddr, body.Len(), body.String())
	tc.CloseWrite()
	time.Sleep(time.Second)
	if ok, cancelled := handled("OK"), handled("Canceled"); ok != 0 || cancelled != 0 {
		t.Fatalf("before the client went away, the stream ended (%v OK, %v cancelled); want it still running, held by the unread answers", ok, cancelled)
	}
	tc.SetLinger(0) // close with a reset
	tc.Close()
	end := time.Now().Add(10 * time.Second)
	for handled("Canceled") == 0 {
		if time.Now().After(end) {
			t.Fatalf("the validateGames stream of a client that reset its connection is not cancelled 10s later (%v ended OK)", handled("OK"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestRESTValidateGamesFirstLineNeverComes: with --max-call-duration 1s,
// a validateGames body whose first request never comes (nothing, blank
// lines only, half a line; chunked or with a Content-Length) is answered
// like every other REST body that never comes: 504 with the status JSON,
// code 4, a message naming max-call-duration, after the bound, and its
// connection is closed at once; it is counted once as a REST arrival
// timeout. A stream whose first line comes in time is served.
func TestRESTValidateGamesFirstLineNeverComes(t *testing.T) {
	const bound = time.Second
	const slack = 2 * time.Second
	s := svStart(t, "--max-call-duration", bound.String())
	head := func(extra string) string {
		return "POST /v1/rules:validateGames HTTP/1.1\r\nHost: " + s.httpAddr + "\r\nContent-Type: application/x-ndjson\r\n" + extra + "\r\n"
	}
	line := `{"id":"a","game":{"moves":["e2-d3"]}}` + "\n"
	cases := []struct{ what, text string }{
		{"chunked, nothing", head("Transfer-Encoding: chunked\r\n")},
		{"chunked, blank lines", head("Transfer-Encoding: chunked\r\n") + "2\r\n\n\n\r\n"},
		{"chunked, half a line", head("Transfer-Encoding: chunked\r\n") + fmt.Sprintf("%x\r\n%s\r\n", 10, line[:10])},
		{"Content-Length, nothing", head(fmt.Sprintf("Content-Length: %d\r\n", len(line)))},
		{"Content-Length, half a line", head(fmt.Sprintf("Content-Length: %d\r\n", len(line))) + line[:10]},
	}
	conns := make([]*rawConn, len(cases))
	for i, c := range cases {
		conns[i] = rawSend(t, s.httpAddr, c.text)
	}
	// A first line that comes at half the bound: the stream is served.
	ok := rawSend(t, s.httpAddr, head("Transfer-Encoding: chunked\r\n"))
	time.Sleep(bound / 2)
	fmt.Fprintf(ok, "%x\r\n%s\r\n0\r\n\r\n", len(line), line)
	if a := ok.answer(10 * time.Second); a.err != nil || a.code != 200 || !strings.Contains(a.body, `"id":"a"`) {
		t.Errorf("validateGames whose first line came after %v: HTTP %d %s (%v); want 200 with its answer", bound/2, a.code, a.body, a.err)
	}
	for i, c := range cases {
		a := conns[i].answer(bound + slack + 5*time.Second)
		wantTimedOut(t, "validateGames, "+c.what, a, bound, slack)
		if a.err == nil && !conns[i].closed(2*time.Second) {
			t.Errorf("validateGames, %s: the connection is still open 2s after the 504", c.what)
		}
	}
	if n := arrivalTimeouts(t, s, "rest"); n != len(cases) {
		t.Errorf("damone_request_arrival_timeouts_total{transport=\"rest\"} = %d; want %d", n, len(cases))
	}
}

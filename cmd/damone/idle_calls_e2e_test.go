package main

// Calls that never send (issue 14, section 2): a gRPC stream opened on a
// method whose request never arrives is ended by the server, with
// DEADLINE_EXCEEDED, once --max-call-duration has passed since it opened,
// or at once when the server shuts down; and one connection holds at most
// --max-streams-per-connection streams (docs/api.md, "Calls that never
// send"). The idle calls are real gRPC streams on which the client never
// calls SendMsg (or never CloseSend), on the real binary.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// idleMethods are the methods idle calls are opened on: unary calls of
// each service, the server-streaming ones (whose single request comes
// first) and the bidirectional ValidateGames.
var idleMethods = []string{
	damonev1.RulesService_ListLegalMoves_FullMethodName,
	damonev1.RulesService_Perft_FullMethodName,
	damonev1.GameService_GetGame_FullMethodName,
	damonev1.GameService_WatchGame_FullMethodName,
	damonev1.AnalysisService_AnalyzePosition_FullMethodName,
	damonev1.RulesService_ValidateGames_FullMethodName,
}

// idleEnd is how one idle call ended: its error (a status) and how long
// after the client opened it.
type idleEnd struct {
	method string
	err    error
	after  time.Duration
}

// openIdleCalls opens n streams on conn, cycling through idleMethods, and
// sends nothing on them; each one's end is sent on the channel. The
// context has no deadline, so no grpc-timeout reaches the server.
func openIdleCalls(t *testing.T, conn *grpc.ClientConn, n int) <-chan idleEnd {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ends := make(chan idleEnd, n)
	for i := range n {
		method := idleMethods[i%len(idleMethods)]
		opened := time.Now()
		cs, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, method)
		if err != nil {
			t.Fatalf("opening idle call %d (%s): %v", i, method, err)
		}
		go func() {
			err := cs.RecvMsg(new(emptypb.Empty))
			ends <- idleEnd{method, err, time.Since(opened)}
		}()
	}
	return ends
}

// goroutines reads the server's go_goroutines.
func goroutines(t *testing.T, s *svServer) int {
	t.Helper()
	v, ok := svMetric(s.metrics(t), "go_goroutines", nil)
	if !ok {
		t.Fatal("/metrics has no go_goroutines")
	}
	return int(v)
}

// waitGoroutines polls the server's goroutines until ok accepts the count
// or the wait is over, and returns the last count.
func waitGoroutines(t *testing.T, s *svServer, wait time.Duration, ok func(int) bool) (int, bool) {
	t.Helper()
	end := time.Now().Add(wait)
	for {
		n := goroutines(t, s)
		if ok(n) {
			return n, true
		}
		if time.Now().After(end) {
			return n, false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// idleCalls is how many idle calls the tests open on one connection: the
// default --max-streams-per-connection.
const idleCalls = 1000

// TestIdleCallsEnd: 1,000 calls on one connection that never send end
// with DEADLINE_EXCEEDED once --max-call-duration (2s here) has passed
// since they opened, not before; so does a REST validateGames whose first
// line never comes (504); the server's goroutines come back to what they
// were; calls on other connections are served meanwhile; and calls whose
// request came in time are not cut, however long they last.
func TestIdleCallsEnd(t *testing.T) {
	const bound = 2 * time.Second
	s := svStart(t, "--max-call-duration", bound.String())
	ctx := svCtx(t)
	// A game, and a watcher that has sent its request: it must outlive
	// the bound.
	cr := svNewGame(t, ctx, s, "")
	name := cr.GetGame().GetName()
	w := svWatchGame(t, ctx, s.games, name, 0)
	w.waitSeq(t, 1)
	// A ValidateGames stream that has sent one game: after it, the stream
	// may wait for the next as long as it likes.
	vg, err := s.rules.ValidateGames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	validateOne := func(id string) {
		t.Helper()
		if err := vg.Send(&damonev1.ValidateGamesRequest{Id: id, Game: &damonev1.ValidateGameRequest{Moves: []string{"e2-d3"}}}); err != nil {
			t.Fatalf("ValidateGames send %s: %v", id, err)
		}
		r, err := vg.Recv()
		if err != nil || r.GetId() != id || !r.GetResult().GetValid() {
			t.Fatalf("ValidateGames answer to %s: %v %v; want it valid", id, r, err)
		}
	}
	validateOne("first")
	listReq := &damonev1.ListLegalMovesRequest{Position: &damonev1.Position{Text: svStartPos}}
	rest := func() {
		t.Helper()
		if code, body := svHTTP(t, "POST", s.url("/v1/rules:listLegalMoves"), "", map[string]any{"position": map[string]any{"text": svStartPos}}); code != 200 {
			t.Errorf("REST ListLegalMoves: HTTP %d %s", code, body)
		}
	}
	// The idle calls' connection, and REST's, are open before the count.
	idle := s.dial(t)
	if _, err := damonev1.NewRulesServiceClient(idle).ListLegalMoves(ctx, listReq); err != nil {
		t.Fatal(err)
	}
	rest()
	base := goroutines(t, s)

	opened := time.Now()
	ends := openIdleCalls(t, idle, idleCalls)
	// On the tests' main connection (the idle one is full): a unary call
	// whose request is sent but never closed is not complete either.
	half, err := s.conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, damonev1.RulesService_ListLegalMoves_FullMethodName)
	if err != nil {
		t.Fatal(err)
	}
	if err := half.SendMsg(listReq); err != nil {
		t.Fatal(err)
	}
	halfEnd := make(chan error, 1)
	go func() { halfEnd <- half.RecvMsg(new(damonev1.ListLegalMovesResponse)) }()
	// A request that is slow but within the bound is served.
	slow, err := s.conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, damonev1.RulesService_ListLegalMoves_FullMethodName)
	if err != nil {
		t.Fatal(err)
	}

	// Over REST, a validateGames stream whose first line never comes.
	restEnd := make(chan string, 1)
	bodyR, bodyW := io.Pipe()
	defer bodyW.Close()
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", s.url("/v1/rules:validateGames"), bodyR)
		req.Header.Set("Content-Type", "application/x-ndjson")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			restEnd <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		restEnd <- fmt.Sprintf("HTTP %d %s", resp.StatusCode, bytes.TrimSpace(b))
	}()

	peak, held := waitGoroutines(t, s, 10*time.Second, func(n int) bool { return n >= base+idleCalls*9/10 })
	t.Logf("server goroutines: %d before, %d with %d idle calls on one connection (%v to open them)",
		base, peak, idleCalls, time.Since(opened).Round(time.Millisecond))
	if !held {
		t.Fatalf("the server's goroutines went from %d to %d with %d idle calls open: the calls do not reach the server", base, peak, idleCalls)
	}
	time.Sleep(bound / 4)
	if err := slow.SendMsg(listReq); err != nil {
		t.Fatal(err)
	}
	if err := slow.CloseSend(); err != nil {
		t.Fatal(err)
	}
	var slowResp damonev1.ListLegalMovesResponse
	if err := slow.RecvMsg(&slowResp); err != nil || len(slowResp.GetMoves()) != 8 {
		t.Errorf("a request sent %v after its call opened: %v, %d moves; want the 8 opening moves", bound/4, err, len(slowResp.GetMoves()))
	}
	// Other connections are served meanwhile, over gRPC and REST.
	if r, err := s.rules.ListLegalMoves(ctx, listReq); err != nil || len(r.GetMoves()) != 8 {
		t.Errorf("ListLegalMoves on another connection with %d idle calls open: %v", idleCalls, err)
	}
	rest()

	byCode := map[codes.Code]int{}
	var first, last time.Duration
	deadline := time.After(bound + 20*time.Second)
	for i := range idleCalls {
		select {
		case e := <-ends:
			byCode[status.Code(e.err)]++
			if status.Code(e.err) != codes.DeadlineExceeded {
				t.Errorf("idle call on %s ended with %v; want DEADLINE_EXCEEDED", e.method, e.err)
			}
			if e.after < bound {
				t.Errorf("idle call on %s ended %v after it opened, before --max-call-duration %v", e.method, e.after, bound)
			}
			if i == 0 {
				first = e.after
			}
			last = max(last, e.after)
		case <-deadline:
			t.Fatalf("%d of %d idle calls still open %v after they opened (ended so far: %v)", idleCalls-i, idleCalls, time.Since(opened).Round(time.Second), byCode)
		}
	}
	t.Logf("idle calls ended: %v, the first %v and the last %v after opening", byCode, first.Round(time.Millisecond), last.Round(time.Millisecond))
	select {
	case err := <-halfEnd:
		if status.Code(err) != codes.DeadlineExceeded {
			t.Errorf("a unary call whose request was never closed ended with %v; want DEADLINE_EXCEEDED", err)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("a unary call whose request was never closed is still open")
	}
	select {
	case got := <-restEnd:
		// DEADLINE_EXCEEDED is code 4, HTTP 504 (docs/api.md, Error model).
		if !strings.HasPrefix(got, "HTTP 504 ") || !strings.Contains(got, `"code":4`) {
			t.Errorf("REST validateGames without a first line: %s; want HTTP 504 with code 4", got)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("REST validateGames without a first line is still open")
	}
	bodyW.Close()
	after, back := waitGoroutines(t, s, 10*time.Second, func(n int) bool { return n <= base+10 })
	t.Logf("server goroutines after the idle calls ended: %d (%d before)", after, base)
	if !back {
		t.Errorf("the server's goroutines stayed at %d after the idle calls ended, from %d before", after, base)
	}

	// The watcher and the ValidateGames stream, older than the bound, go on.
	svMove(t, ctx, s, name, cr.GetRedToken(), "e2-d3")
	w.waitSeq(t, 2)
	validateOne("second")
	if err := vg.CloseSend(); err != nil {
		t.Fatal(err)
	}
	if _, err := vg.Recv(); !errors.Is(err, io.EOF) {
		t.Errorf("ValidateGames after its client closed: %v; want the end (EOF)", err)
	}
}

// TestIdleCallsDoNotHoldShutdown: at SIGTERM, 1,000 idle calls do not
// hold the drain: with --drain-timeout and --max-call-duration at 30s the
// server exits within 5s (the idle calls get 1s), each idle call ended.
func TestIdleCallsDoNotHoldShutdown(t *testing.T) {
	s := svStart(t, "--drain-timeout", "30s", "--max-call-duration", "30s")
	base := goroutines(t, s)
	ends := openIdleCalls(t, s.dial(t), idleCalls)
	if n, ok := waitGoroutines(t, s, 10*time.Second, func(n int) bool { return n >= base+idleCalls*9/10 }); !ok {
		t.Fatalf("the server's goroutines went from %d to %d with %d idle calls open: the calls do not reach the server", base, n, idleCalls)
	}
	took := stopWithin(t, s, 5*time.Second, fmt.Sprintf("%d idle calls open", idleCalls))
	byCode := map[codes.Code]int{}
	for i := range idleCalls {
		select {
		case e := <-ends:
			// ValidateGames ends at shutdown with UNAVAILABLE, as it does
			// with games sent (docs/api.md); every other idle call with
			// DEADLINE_EXCEEDED.
			want := codes.DeadlineExceeded
			if e.method == damonev1.RulesService_ValidateGames_FullMethodName {
				want = codes.Unavailable
			}
			if status.Code(e.err) != want {
				t.Errorf("idle call on %s at shutdown: %v; want %v", e.method, e.err, want)
			}
			byCode[status.Code(e.err)]++
		case <-time.After(5 * time.Second):
			t.Fatalf("%d idle calls still open after the server exited", idleCalls-i)
		}
	}
	t.Logf("exited %v after SIGTERM with %d idle calls open; they ended with %v", took.Round(time.Millisecond), idleCalls, byCode)
}

// h2Conn is a raw HTTP/2 connection to the gRPC port, to see what the
// server itself does, whatever a client library would do for it.
type h2Conn struct {
	t        *testing.T
	addr     string
	fr       *http2.Framer
	hbuf     bytes.Buffer
	enc      *hpack.Encoder
	settings map[http2.SettingID]uint32 // the server's first SETTINGS
}

func h2Dial(t *testing.T, addr string) *h2Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.SetDeadline(time.Now().Add(20 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	h := &h2Conn{t: t, addr: addr, fr: http2.NewFramer(c, c)}
	h.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	h.enc = hpack.NewEncoder(&h.hbuf)
	if err := h.fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	for h.settings == nil {
		f, err := h.fr.ReadFrame()
		if err != nil {
			t.Fatalf("reading the server's settings: %v", err)
		}
		if sf, ok := f.(*http2.SettingsFrame); ok && !sf.IsAck() {
			h.settings = map[http2.SettingID]uint32{}
			sf.ForeachSetting(func(s http2.Setting) error { h.settings[s.ID] = s.Val; return nil })
			if err := h.fr.WriteSettingsAck(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return h
}

// open starts a gRPC call on stream id: its headers only.
func (h *h2Conn) open(id uint32, method string) {
	h.t.Helper()
	h.hbuf.Reset()
	for _, f := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":path", method}, {":authority", h.addr},
		{"content-type", "application/grpc"}, {"te", "trailers"}} {
		if err := h.enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]}); err != nil {
			h.t.Fatal(err)
		}
	}
	if err := h.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: h.hbuf.Bytes(), EndHeaders: true}); err != nil {
		h.t.Fatal(err)
	}
}

// send sends m as the call's one message and ends the client's side.
func (h *h2Conn) send(id uint32, m proto.Message) {
	h.t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		h.t.Fatal(err)
	}
	msg := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(b))) // not compressed, length
	if err := h.fr.WriteData(id, true, append(msg, b...)); err != nil {
		h.t.Fatal(err)
	}
}

// next returns the next frame about a stream (HEADERS, DATA, RST_STREAM).
func (h *h2Conn) next() http2.Frame {
	h.t.Helper()
	for {
		f, err := h.fr.ReadFrame()
		if err != nil {
			h.t.Fatalf("reading from the server: %v", err)
		}
		switch f.(type) {
		case *http2.MetaHeadersFrame, *http2.DataFrame, *http2.RSTStreamFrame:
			return f
		case *http2.GoAwayFrame:
			h.t.Fatalf("the server closed the connection: %v", f)
		}
	}
}

// TestStreamsPerConnectionBounded: one connection holds at most
// --max-streams-per-connection calls: the server advertises the bound and
// refuses a stream beyond it (REFUSED_STREAM: not processed, safe to
// retry), a stream that ends makes room, other connections are served,
// and REST, whose calls share the gateway's one in-process connection, is
// not bounded by it.
func TestStreamsPerConnectionBounded(t *testing.T) {
	const limit = 50
	s := svStart(t, "--max-streams-per-connection", fmt.Sprint(limit), "--max-call-duration", "30s")
	ctx := svCtx(t)
	h := h2Dial(t, s.grpcAddr)
	if got, ok := h.settings[http2.SettingMaxConcurrentStreams]; !ok || got != limit {
		t.Errorf("the server's SETTINGS_MAX_CONCURRENT_STREAMS: %d (sent: %v); want %d", got, ok, limit)
	}
	method := damonev1.RulesService_ListLegalMoves_FullMethodName
	over := uint32(2*limit + 1) // stream ids are odd: the limit+1st
	for id := uint32(1); id <= over; id += 2 {
		h.open(id, method)
	}
	for {
		f := h.next()
		if rst, ok := f.(*http2.RSTStreamFrame); ok && rst.StreamID == over {
			if rst.ErrCode != http2.ErrCodeRefusedStream {
				t.Errorf("stream %d beyond the bound reset with %v; want REFUSED_STREAM", over, rst.ErrCode)
			}
			break
		}
		t.Fatalf("before refusing stream %d, a frame about stream %d: %v", over, f.Header().StreamID, f)
	}
	// Other connections are served.
	listReq := &damonev1.ListLegalMovesRequest{Position: &damonev1.Position{Text: svStartPos}}
	if r, err := s.rules.ListLegalMoves(ctx, listReq); err != nil || len(r.GetMoves()) != 8 {
		t.Errorf("ListLegalMoves on another connection while one holds %d calls: %v", limit, err)
	}
	// A stream that ends makes room for one more, which is served.
	if err := h.fr.WriteRSTStream(1, http2.ErrCodeCancel); err != nil {
		t.Fatal(err)
	}
	next := over + 2
	h.open(next, method)
	h.send(next, listReq)
	var answer []byte
	for done := false; !done; {
		switch f := h.next().(type) {
		case *http2.RSTStreamFrame:
			if f.StreamID == next {
				t.Fatalf("stream %d, after stream 1 ended: reset with %v", next, f.ErrCode)
			}
		case *http2.DataFrame:
			if f.StreamID == next {
				answer = append(answer, f.Data()...)
			}
		case *http2.MetaHeadersFrame:
			if f.StreamID == next && f.StreamEnded() {
				var grpcStatus string
				for _, hf := range f.Fields {
					if hf.Name == "grpc-status" {
						grpcStatus = hf.Value
					}
				}
				if grpcStatus != "0" {
					t.Errorf("stream %d, after stream 1 ended: grpc-status %q; want 0 (OK)", next, grpcStatus)
				}
				done = true
			}
		}
	}
	var resp damonev1.ListLegalMovesResponse
	if len(answer) < 5 || proto.Unmarshal(answer[5:], &resp) != nil || len(resp.GetMoves()) != 8 {
		t.Errorf("stream %d's answer (%d bytes) is not the 8 opening moves", next, len(answer))
	}

	// REST: limit+10 watches at once, each gets its first event.
	name := svNewGame(t, ctx, s, "").GetGame().GetName()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	firsts := make(chan error, limit+10)
	for range limit + 10 {
		go func() {
			req, _ := http.NewRequestWithContext(wctx, "GET", s.url("/v1/"+name+":watch"), nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				firsts <- err
				return
			}
			defer resp.Body.Close()
			line, err := bufio.NewReader(resp.Body).ReadString('\n')
			if err == nil && !strings.Contains(line, `"game_created"`) {
				err = fmt.Errorf("HTTP %d, first line %q; want the game_created event", resp.StatusCode, line)
			}
			firsts <- err
			<-wctx.Done()
		}()
	}
	for i := range limit + 10 {
		select {
		case err := <-firsts:
			if err != nil {
				t.Errorf("REST watch: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("%d of %d REST watches have no first event (the gateway's connection bounded?)", limit+10-i, limit+10)
		}
	}
}

// stopWithin sends SIGTERM to s and fails the test unless it exits, with
// status 0, within limit (its drain timeout is longer: what is open, which
// with names, must not hold it); it returns how long the exit took.
func stopWithin(t *testing.T, s *svServer, limit time.Duration, with string) time.Duration {
	t.Helper()
	sent := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.exited:
	case <-time.After(limit):
		t.Fatalf("damone serve still running %v after SIGTERM with %s", limit, with)
	}
	took := time.Since(sent)
	if s.waitErr != nil {
		t.Errorf("exit after SIGTERM: %v, want status 0\n%s", s.waitErr, s.logText())
	}
	return took
}

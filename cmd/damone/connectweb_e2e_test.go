package main

// Connect and gRPC-Web on the HTTP port (internal/connectweb): the limits
// and guarantees of the gRPC port hold for calls that come this way, which
// skip grpc-go's own transport.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// cwProtocols are the browser protocols, as connect-go's client speaks
// them: Connect (binary and JSON) and gRPC-Web.
var cwProtocols = map[string][]connect.ClientOption{
	"Connect":      nil,
	"Connect-JSON": {connect.WithProtoJSON()},
	"gRPC-Web":     {connect.WithGRPCWeb()},
}

// cwHTTP1 is an HTTP/1.1-only client, as a browser's fetch over http://.
var cwHTTP1 = &http.Client{Transport: &http.Transport{ForceAttemptHTTP2: false}}

func cwClient[Req, Res any](s *svServer, method string, opts []connect.ClientOption) *connect.Client[Req, Res] {
	return connect.NewClient[Req, Res](cwHTTP1, s.url("/damone.v1."+method), opts...)
}

// cwStatus turns a Connect error into the gRPC status it carries (code,
// message, details), for the checks written for gRPC.
func cwStatus(err error) error {
	var ce *connect.Error
	if !errors.As(err, &ce) {
		return err
	}
	p := &spb.Status{Code: int32(ce.Code()), Message: ce.Message()}
	for _, d := range ce.Details() {
		p.Details = append(p.Details, &anypb.Any{TypeUrl: "type.googleapis.com/" + d.Type(), Value: d.Bytes()})
	}
	return status.FromProto(p).Err()
}

// TestConnectWebUnaryAndErrorDetails: a unary call, and a refusal whose
// ErrorInfo and BadRequest the client reads, over each protocol.
func TestConnectWebUnaryAndErrorDetails(t *testing.T) {
	s := svStart(t)
	for name, opts := range cwProtocols {
		t.Run(name, func(t *testing.T) {
			ctx := svCtx(t)
			ip := cwClient[damonev1.GetInitialPositionRequest, damonev1.GetInitialPositionResponse](s, "RulesService/GetInitialPosition", opts)
			res, err := ip.CallUnary(ctx, connect.NewRequest(&damonev1.GetInitialPositionRequest{}))
			if err != nil {
				t.Fatal(err)
			}
			// The standard setup (RULES.md): 8 pieces a side, Red's Damone on h1.
			pieces := res.Msg.GetPosition().GetPieces()
			if len(pieces) != 16 || !slices.ContainsFunc(pieces, func(p *damonev1.Piece) bool {
				return p.GetSquare() == "h1" && p.GetSide() == damonev1.Side_SIDE_RED && p.GetRank() == damonev1.Rank_RANK_DAMONE
			}) {
				t.Errorf("initial position: %v; want 16 pieces with Red's Damone on h1", pieces)
			}
			lm := cwClient[damonev1.ListLegalMovesRequest, damonev1.ListLegalMovesResponse](s, "RulesService/ListLegalMoves", opts)
			_, err = lm.CallUnary(ctx, connect.NewRequest(&damonev1.ListLegalMovesRequest{Position: &damonev1.Position{Text: "not a position"}}))
			svWantStatus(t, cwStatus(err), codes.InvalidArgument, "INVALID_REQUEST", "position.text", nil)
		})
	}
}

// TestConnectWebRequestBytes: --max-request-bytes bounds a call's body, and
// the refusal is LIMIT_EXCEEDED naming request_bytes in the caller's
// protocol, as over gRPC.
func TestConnectWebRequestBytes(t *testing.T) {
	s := svStart(t, "--max-request-bytes", "2048")
	big := &damonev1.ListLegalMovesRequest{Position: &damonev1.Position{Text: strings.Repeat("x", 5000)}}
	for name, opts := range cwProtocols {
		t.Run(name, func(t *testing.T) {
			lm := cwClient[damonev1.ListLegalMovesRequest, damonev1.ListLegalMovesResponse](s, "RulesService/ListLegalMoves", opts)
			_, err := lm.CallUnary(svCtx(t), connect.NewRequest(big))
			svWantStatus(t, cwStatus(err), codes.ResourceExhausted, "LIMIT_EXCEEDED", "", map[string]string{"limit": "request_bytes", "maximum": "2048"})
		})
	}
	// --max-header-bytes (64 KiB by default) bounds the header block, as
	// for REST: 431 before any call.
	t.Run("headers", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, s.url("/damone.v1.RulesService/GetInitialPosition"), strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Connect-Protocol-Version", "1")
		req.Header.Set("X-Padding", strings.Repeat("x", 80<<10))
		resp, err := cwHTTP1.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("an 80 KiB header: HTTP %d, want 431", resp.StatusCode)
		}
	})
	t.Run("gRPC, for comparison", func(t *testing.T) {
		_, err := s.rules.ListLegalMoves(svCtx(t), big)
		svWantStatus(t, err, codes.ResourceExhausted, "LIMIT_EXCEEDED", "", map[string]string{"limit": "request_bytes", "maximum": "2048"})
	})
}

// TestConnectWebRequestArrival: a call whose body does not come in full is
// ended with DEADLINE_EXCEEDED within --max-call-duration of its start, in
// the caller's protocol (it does not hold a handler until the drain).
func TestConnectWebRequestArrival(t *testing.T) {
	s := svStart(t, "--max-call-duration", "1s")
	for _, c := range []struct{ name, ctype, extra, want string }{
		// Connect's unary error: JSON with the code's name.
		{"Connect", "application/proto", "Connect-Protocol-Version: 1\r\n", `"code":"deadline_exceeded"`},
		// gRPC-Web: the status in the headers of a response without messages.
		{"gRPC-Web", "application/grpc-web+proto", "X-Grpc-Web: 1\r\n", "Grpc-Status: 4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", s.httpAddr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			start := time.Now()
			fmt.Fprintf(conn, "POST /damone.v1.RulesService/GetInitialPosition HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\n%sContent-Length: 100\r\n\r\nabc", c.ctype, c.extra)
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("no answer within 10 s: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			took := time.Since(start)
			var head strings.Builder
			resp.Header.Write(&head)
			if !strings.Contains(head.String()+string(body), c.want) {
				t.Errorf("HTTP %d\n%s\n%s\nwant %s", resp.StatusCode, head.String(), body, c.want)
			}
			if took < 900*time.Millisecond || took > 5*time.Second {
				t.Errorf("answered after %v; want about the 1 s bound", took)
			}
		})
	}
}

// TestConnectWebAuth: a move needs its side's token in the Authorization
// header, as over gRPC (metadata) and REST.
func TestConnectWebAuth(t *testing.T) {
	s := svStart(t)
	ctx := svCtx(t)
	cr := svNewGame(t, ctx, s, "")
	for name, opts := range cwProtocols {
		t.Run(name, func(t *testing.T) {
			mm := cwClient[damonev1.MakeMoveRequest, damonev1.MakeMoveResponse](s, "GameService/MakeMove", opts)
			req := connect.NewRequest(&damonev1.MakeMoveRequest{Name: cr.GetGame().GetName(), Move: "e2-d3"})
			_, err := mm.CallUnary(ctx, req)
			svWantStatus(t, cwStatus(err), codes.Unauthenticated, "MISSING_TOKEN", "", nil)
			req.Header().Set("Authorization", "Bearer not-a-token-of-this-game")
			_, err = mm.CallUnary(ctx, req)
			svWantStatus(t, cwStatus(err), codes.PermissionDenied, "WRONG_TOKEN", "", nil)
		})
	}
	// The right token: the move is played (once: the next is Black's).
	mm := cwClient[damonev1.MakeMoveRequest, damonev1.MakeMoveResponse](s, "GameService/MakeMove", nil)
	req := connect.NewRequest(&damonev1.MakeMoveRequest{Name: cr.GetGame().GetName(), Move: "e2-d3"})
	req.Header().Set("Authorization", "Bearer "+cr.GetRedToken())
	res, err := mm.CallUnary(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(res.Msg.GetGame().GetMoves()); got != 1 {
		t.Errorf("after the move the game has %d moves, want 1", got)
	}
}

// TestConnectWebStreams: WatchGame over HTTP/1.1 receives moves as they are
// played (over gRPC here), and AnalyzePosition streams its depths; the
// bidirectional ValidateGames is refused on HTTP/1.1 with HTTP 505, as it
// needs HTTP/2.
func TestConnectWebStreams(t *testing.T) {
	s := svStart(t)
	for name, opts := range cwProtocols {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(svCtx(t), 20*time.Second)
			defer cancel()
			cr := svNewGame(t, ctx, s, "")
			wg := cwClient[damonev1.WatchGameRequest, damonev1.GameEvent](s, "GameService/WatchGame", opts)
			stream, err := wg.CallServerStream(ctx, connect.NewRequest(&damonev1.WatchGameRequest{Name: cr.GetGame().GetName()}))
			if err != nil {
				t.Fatal(err)
			}
			defer stream.Close()
			next := func() *damonev1.GameEvent {
				t.Helper()
				if !stream.Receive() {
					t.Fatalf("the stream ended: %v", stream.Err())
				}
				return stream.Msg()
			}
			if ev := next(); ev.GetGameCreated() == nil || ev.GetSequence() != 1 {
				t.Fatalf("first event %v, want game_created with sequence 1", ev)
			}
			// Played after the watch began: live events, not a replay.
			for i, mv := range []struct{ tok, move string }{{cr.GetRedToken(), "e2-d3"}, {cr.GetBlackToken(), "d7-e6"}} {
				svMove(t, ctx, s, cr.GetGame().GetName(), mv.tok, mv.move)
				ev := next()
				if got := ev.GetMovePlayed().GetMove().GetNotation(); got != mv.move || ev.GetSequence() != int64(i+2) {
					t.Errorf("event %d: %q sequence %d, want %q sequence %d", i, got, ev.GetSequence(), mv.move, i+2)
				}
			}

			ap := cwClient[damonev1.AnalyzePositionRequest, damonev1.AnalyzePositionResponse](s, "AnalysisService/AnalyzePosition", opts)
			as, err := ap.CallServerStream(ctx, connect.NewRequest(&damonev1.AnalyzePositionRequest{
				Position: &damonev1.Position{Text: "R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0"}, Limit: &damonev1.AnalyzePositionRequest_Depth{Depth: 3}}))
			if err != nil {
				t.Fatal(err)
			}
			var depths []int32
			for as.Receive() {
				depths = append(depths, as.Msg().GetDepth())
			}
			if err := as.Err(); err != nil || len(depths) == 0 || depths[len(depths)-1] != 3 {
				t.Errorf("analysis to depth 3: depths %v, end %v; want the last at depth 3", depths, err)
			}

			vg := connect.NewClient[damonev1.ValidateGamesRequest, damonev1.ValidateGamesResponse](cwHTTP1, s.url("/damone.v1.RulesService/ValidateGames"), opts...)
			bidi := vg.CallBidiStream(ctx)
			bidi.Send(&damonev1.ValidateGamesRequest{})
			bidi.CloseRequest()
			_, err = bidi.Receive()
			bidi.CloseResponse()
			if err == nil || !strings.Contains(err.Error(), "505 HTTP Version Not Supported") {
				t.Errorf("ValidateGames over HTTP/1.1: %v; want HTTP 505 (bidirectional streams need HTTP/2)", err)
			}
		})
	}
}

// TestConnectWebMetrics: Connect calls count in the per-method gRPC
// metrics, with their code.
func TestConnectWebMetrics(t *testing.T) {
	s := svStart(t)
	labels := map[string]string{"grpc_service": "damone.v1.RulesService", "grpc_method": "ListLegalMoves", "grpc_code": "InvalidArgument"}
	before, _ := svMetric(s.metrics(t), "grpc_server_handled_total", labels)
	lm := cwClient[damonev1.ListLegalMovesRequest, damonev1.ListLegalMovesResponse](s, "RulesService/ListLegalMoves", nil)
	for range 3 {
		lm.CallUnary(svCtx(t), connect.NewRequest(&damonev1.ListLegalMovesRequest{Position: &damonev1.Position{Text: "bad"}}))
	}
	after, ok := svMetric(s.metrics(t), "grpc_server_handled_total", labels)
	if !ok || after-before != 3 {
		t.Errorf("grpc_server_handled_total%v went from %v to %v (present %v), want 3 more", labels, before, after, ok)
	}
}

// TestConnectWebDrain: at shutdown a Connect watch ends with UNAVAILABLE
// (the watcher resumes elsewhere from its last sequence) and the server
// exits within the drain, as for gRPC watchers.
func TestConnectWebDrain(t *testing.T) {
	s := svStart(t, "--drain-timeout", "5s")
	ctx := svCtx(t)
	cr := svNewGame(t, ctx, s, "")
	wg := cwClient[damonev1.WatchGameRequest, damonev1.GameEvent](s, "GameService/WatchGame", nil)
	stream, err := wg.CallServerStream(ctx, connect.NewRequest(&damonev1.WatchGameRequest{Name: cr.GetGame().GetName()}))
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	if !stream.Receive() {
		t.Fatalf("no first event: %v", stream.Err())
	}
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for stream.Receive() {
	}
	if got := connect.CodeOf(stream.Err()); got != connect.CodeUnavailable {
		t.Errorf("the watch ended with %v (%v); want unavailable", got, stream.Err())
	}
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not exit within 10 s of SIGTERM")
	}
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("the shutdown took %v with a Connect watch open; want it not to wait for the 5 s drain bound", took)
	}
}

// TestConnectWebCORS: without --cors-origins a page of another origin gets
// no CORS permission; with it, the listed origin may call with the
// protocols' headers and Authorization, and may read the error headers.
func TestConnectWebCORS(t *testing.T) {
	preflight := func(t *testing.T, s *svServer, origin string) http.Header {
		t.Helper()
		req, _ := http.NewRequest(http.MethodOptions, s.url("/damone.v1.GameService/MakeMove"), nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization,connect-protocol-version,content-type")
		resp, err := cwHTTP1.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header
	}
	t.Run("off by default", func(t *testing.T) {
		s := svStart(t)
		if h := preflight(t, s, "https://board.example.org"); h.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("CORS allowed without --cors-origins: %v", h)
		}
	})
	t.Run("listed origin", func(t *testing.T) {
		s := svStart(t, "--cors-origins", "https://board.example.org, http://localhost:5173")
		h := preflight(t, s, "https://board.example.org")
		if h.Get("Access-Control-Allow-Origin") != "https://board.example.org" {
			t.Fatalf("preflight of a listed origin: %v", h)
		}
		allowed := strings.ToLower(h.Get("Access-Control-Allow-Headers"))
		for _, want := range []string{"authorization", "connect-protocol-version", "content-type"} {
			if !strings.Contains(allowed, want) {
				t.Errorf("Access-Control-Allow-Headers %q lacks %s", allowed, want)
			}
		}
		if h := preflight(t, s, "https://evil.example.org"); h.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("an origin not listed is allowed: %v", h)
		}
		// The actual call: its answer names the origin and exposes the
		// gRPC-Web status headers.
		req, _ := http.NewRequest(http.MethodPost, s.url("/damone.v1.RulesService/GetInitialPosition"), strings.NewReader("{}"))
		req.Header.Set("Origin", "http://localhost:5173")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Connect-Protocol-Version", "1")
		resp, err := cwHTTP1.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:5173" ||
			!strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "Grpc-Status-Details-Bin") {
			t.Errorf("call from a listed origin: HTTP %d %v", resp.StatusCode, resp.Header)
		}
	})
	t.Run("bad setting", func(t *testing.T) {
		for _, bad := range []string{"board.example.org", "ftp://x.org", "https://x.org/path"} {
			cmd := exec.Command(svBin, "serve", "--store", "memory", "--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0",
				"--metrics-addr", "127.0.0.1:0", "--cors-origins", bad)
			cmd.Env = svEnv()
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "--cors-origins") {
				t.Errorf("--cors-origins %q: %v\n%s", bad, err, out)
			}
		}
	})
}

// TestConnectWebTracing: with tracing on, a Connect call has its gRPC
// server span named by method, in the trace of the HTTP request's span.
func TestConnectWebTracing(t *testing.T) {
	rec, endpoint := startOTLPReceiver(t)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50") // ms: export at once
	s := svStart(t, "--otlp-endpoint", endpoint)
	ip := cwClient[damonev1.GetInitialPositionRequest, damonev1.GetInitialPositionResponse](s, "RulesService/GetInitialPosition", nil)
	if _, err := ip.CallUnary(svCtx(t), connect.NewRequest(&damonev1.GetInitialPositionRequest{})); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		spans, _ := rec.snapshot()
		byID := map[string]*tracepb.Span{}
		for _, sp := range spans {
			byID[string(sp.GetSpanId())] = sp
		}
		for _, sp := range spans {
			if sp.GetName() == "damone.v1.RulesService/GetInitialPosition" && sp.GetKind() == tracepb.Span_SPAN_KIND_SERVER {
				if p := byID[string(sp.GetParentSpanId())]; p == nil || p.GetName() != "HTTP POST" {
					t.Fatalf("the server span's parent is %v, want the HTTP port's span HTTP POST", p)
				}
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no server span of the Connect call within 10 s (%d spans)", len(spans))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestConnectWebUndecodableJSON: a Connect JSON body that does not decode
// as the method's request is the client's fault, refused as over REST:
// invalid_argument (400), INVALID_REQUEST, the field named in the message
// and the BadRequest (a syntax error before any field: the body). An
// unknown method of a served service is unimplemented, named.
func TestConnectWebUndecodableJSON(t *testing.T) {
	s := svStart(t)
	post := func(path, body string) (int, map[string]any) {
		req, _ := http.NewRequest(http.MethodPost, s.url(path), strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Connect-Protocol-Version", "1")
		resp, err := cwHTTP1.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var got map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
			t.Fatalf("%s %s: not a Connect JSON error: %v", path, body, err)
		}
		return resp.StatusCode, got
	}
	for body, field := range map[string]string{
		`{"depth": "abc"}`:          "depth",
		`{"position": {"text": 5}}`: "position.text",
		`{`:                         "body",
	} {
		code, got := post("/damone.v1.RulesService/Perft", body)
		msg, _ := got["message"].(string)
		if code != http.StatusBadRequest || got["code"] != "invalid_argument" || !strings.HasPrefix(msg, field+": ") {
			t.Errorf("%s: HTTP %d, %v; want 400, invalid_argument, %q", body, code, got, field+": ...")
		}
		if js, _ := json.Marshal(got["details"]); !strings.Contains(string(js), `"reason":"INVALID_REQUEST"`) || !strings.Contains(string(js), `"field":"`+field+`"`) {
			t.Errorf("%s: details %s lack INVALID_REQUEST and the field %s", body, js, field)
		}
	}
	code, got := post("/damone.v1.RulesService/Nope", `{}`)
	if msg, _ := got["message"].(string); code != http.StatusNotImplemented || got["code"] != "unimplemented" || !strings.Contains(msg, "/damone.v1.RulesService/Nope") {
		t.Errorf("unknown method: HTTP %d, %v; want 501, unimplemented, naming it", code, got)
	}
}

// TestConnectWebWrongMethodAndService: through the server's HTTP port, a
// Connect call of an unknown service of damone.v1 is unimplemented (501)
// naming its path, not the REST gateway's 404 ROUTE_NOT_FOUND; one by PUT,
// DELETE or GET is 405 with Allow: POST and Connect's error, unimplemented,
// not plain text or a 415.
func TestConnectWebWrongMethodAndService(t *testing.T) {
	s := svStart(t)
	call := func(method, path string) (int, string, map[string]any) {
		req, _ := http.NewRequest(method, s.url(path), strings.NewReader("{}"))
		if method != http.MethodGet {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Connect-Protocol-Version", "1")
		}
		resp, err := cwHTTP1.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var got map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
			t.Fatalf("%s %s: HTTP %d, not a Connect JSON error: %v", method, path, resp.StatusCode, err)
		}
		return resp.StatusCode, resp.Header.Get("Allow"), got
	}
	code, _, got := call(http.MethodPost, "/damone.v1.Nope/Nope")
	if msg, _ := got["message"].(string); code != http.StatusNotImplemented || got["code"] != "unimplemented" || !strings.Contains(msg, "/damone.v1.Nope/Nope") {
		t.Errorf("unknown service: HTTP %d, %v; want 501, unimplemented naming the path", code, got)
	}
	for _, m := range []string{http.MethodPut, http.MethodDelete, http.MethodGet} {
		code, allow, got := call(m, "/damone.v1.RulesService/Perft")
		if msg, _ := got["message"].(string); code != http.StatusMethodNotAllowed || allow != "POST" || got["code"] != "unimplemented" || !strings.Contains(msg, m+" /damone.v1.RulesService/Perft") {
			t.Errorf("%s: HTTP %d, Allow %q, %v; want 405, POST, unimplemented naming the method", m, code, allow, got)
		}
	}
}

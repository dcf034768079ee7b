package apicontract

// The error model (docs/api.md, Error model; error_reason.proto) of
// RulesService.ValidateGame and ValidateGames, against an in-process
// server with small limits (max-game-plies 6, max-request-bytes 2048),
// over gRPC and over REST (JSON, and NDJSON both ways for the stream).
// Every documented error is produced and checked: code, HTTP status,
// ErrorInfo reason, domain and metadata, and the BadRequest field path.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/server"
)

// Two known differences from the documented error model, reported; set
// each to false once the service follows the documents:
//   - knownGRPCSizeErrorBare: a gRPC request above max-request-bytes is
//     refused by grpc-go itself, RESOURCE_EXHAUSTED without an ErrorInfo,
//     where rules_service.proto promises LIMIT_EXCEEDED (`limit` =
//     `request_bytes`) and docs/api.md one ErrorInfo on every error;
//   - knownNDJSONFirstLineTooBig429: a REST ValidateGames body whose first
//     line is above max-request-bytes gets HTTP 429, where docs/api.md
//     says 413 for `request_bytes`.
const (
	knownGRPCSizeErrorBare        = false
	knownNDJSONFirstLineTooBig429 = false
)

// The server's limits in these tests.
const (
	testMaxGamePlies    = 6
	testMaxRequestBytes = 2048
)

type testServer struct {
	rules damonev1.RulesServiceClient
	http  string // base URL of the REST gateway
}

func startServer(t *testing.T) *testServer {
	t.Helper()
	srv, err := server.New(server.Config{
		GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", MetricsAddr: "127.0.0.1:0",
		DrainTimeout: 2 * time.Second, MaxCallDuration: 10 * time.Second,
		MaxRequestBytes: testMaxRequestBytes, MaxPerftDepth: 8, MaxGamePlies: testMaxGamePlies,
		Rules: true, Limits: games.DefaultLimits,
		SearchTableMB: 1, MaxAnalysisTime: time.Second, MaxAnalyses: 1, MaxEngineMoveTime: time.Second,
		Store: games.NewMemoryStore(), Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx) }()
	grpcAddr, httpAddr, _ := srv.Addrs()
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		stop()
		if err := <-served; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	return &testServer{rules: damonev1.NewRulesServiceClient(conn), http: "http://" + httpAddr}
}

// wantError is an error as the model describes it.
type wantError struct {
	code     codes.Code
	httpCode int
	reason   string
	field    string            // the BadRequest field, for INVALID_ARGUMENT
	metadata map[string]string // ErrorInfo metadata (every entry)
}

// checkStatus checks a gRPC status against the error model.
func checkStatus(t *testing.T, what string, st *status.Status, want wantError) {
	t.Helper()
	var info *errdetails.ErrorInfo
	var fields []string
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			if info != nil {
				t.Errorf("%s: two ErrorInfo details", what)
			}
			info = d
		case *errdetails.BadRequest:
			for _, v := range d.GetFieldViolations() {
				fields = append(fields, v.GetField())
			}
		}
	}
	if st.Code() != want.code || info == nil || info.GetReason() != want.reason || info.GetDomain() != "damone.v1" {
		t.Errorf("%s: %v %v (%q); want %v with ErrorInfo %s in damone.v1", what, st.Code(), info, st.Message(), want.code, want.reason)
		return
	}
	checkFieldsAndMetadata(t, what, fields, info.GetMetadata(), want)
}

func checkFieldsAndMetadata(t *testing.T, what string, fields []string, md map[string]string, want wantError) {
	t.Helper()
	if want.code == codes.InvalidArgument && !cmp.Equal(fields, []string{want.field}) {
		t.Errorf("%s: field violations %v; want one on %q", what, fields, want.field)
	}
	if want.code != codes.InvalidArgument && len(fields) > 0 {
		t.Errorf("%s: field violations %v on a %v error", what, fields, want.code)
	}
	if want.metadata == nil {
		want.metadata = map[string]string{}
	}
	if md == nil {
		md = map[string]string{}
	}
	if d := cmp.Diff(want.metadata, md); d != "" {
		t.Errorf("%s: ErrorInfo metadata (-want +got):\n%s", what, d)
	}
}

// restStatus is google.rpc.Status in the gateway's JSON.
type restStatus struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Details []struct {
		Type            string            `json:"@type"`
		Reason          string            `json:"reason"`
		Domain          string            `json:"domain"`
		Metadata        map[string]string `json:"metadata"`
		FieldViolations []struct {
			Field       string `json:"field"`
			Description string `json:"description"`
		} `json:"field_violations"`
	} `json:"details"`
}

// checkRESTStatus checks the status JSON of a refused REST call (or of a
// stream's final error line) against the error model.
func checkRESTStatus(t *testing.T, what string, body []byte, want wantError) {
	t.Helper()
	var st restStatus
	if err := json.Unmarshal(body, &st); err != nil {
		t.Errorf("%s: status JSON %s: %v", what, body, err)
		return
	}
	var infos int
	var reason, domain string
	var md map[string]string
	var fields []string
	for _, d := range st.Details {
		switch d.Type {
		case "type.googleapis.com/google.rpc.ErrorInfo":
			infos++
			reason, domain, md = d.Reason, d.Domain, d.Metadata
		case "type.googleapis.com/google.rpc.BadRequest":
			for _, v := range d.FieldViolations {
				fields = append(fields, v.Field)
			}
		}
	}
	if st.Code != int(want.code) || infos != 1 || reason != want.reason || domain != "damone.v1" || st.Message == "" {
		t.Errorf("%s: status %s; want code %d (%v) with one ErrorInfo %s in damone.v1 and a message", what, body, want.code, want.code, want.reason)
		return
	}
	checkFieldsAndMetadata(t, what, fields, md, want)
}

func post(t *testing.T, url, contentType string, body []byte) (int, http.Header, []byte) {
	t.Helper()
	resp, err := http.Post(url, contentType, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// sevenMoves is one move more than the server's max-game-plies.
var sevenMoves = []string{"e2-d3", "a4-b3", "d3-c4", "b5xd3", "d1-c2", "d3xb1", "h1-g2"}

func TestValidateGameErrors(t *testing.T) {
	s := startServer(t)
	ctx := context.Background()
	badArg := func(field string) wantError {
		return wantError{code: codes.InvalidArgument, httpCode: 400, reason: "INVALID_REQUEST", field: field}
	}
	cases := []struct {
		name string
		req  *damonev1.ValidateGameRequest
		json string // the same request as the REST body
		want wantError
	}{
		{"both moves and pdn", &damonev1.ValidateGameRequest{Moves: []string{"e2-d3"}, Pdn: proto.String("1. e2-d3 *")},
			`{"moves":["e2-d3"],"pdn":"1. e2-d3 *"}`, badArg("pdn")},
		{"negative no-progress limit", &damonev1.ValidateGameRequest{Variant: &damonev1.Variant{NoProgressLimit: proto.Int32(-1)},
			Moves: []string{"e2-d3"}}, `{"variant":{"no_progress_limit":-1},"moves":["e2-d3"]}`, badArg("variant.no_progress_limit")},
		// RULES.md, End of the game: capture-all-Damones needs a Damone on
		// each side; the no-Damone setup has none.
		{"capture all damones without damones", &damonev1.ValidateGameRequest{Variant: &damonev1.Variant{
			Start:        &damonev1.Variant_Setup{Setup: damonev1.Setup_SETUP_NO_DAMONE},
			WinCondition: damonev1.WinCondition_WIN_CONDITION_CAPTURE_ALL_DAMONES}},
			`{"variant":{"setup":"SETUP_NO_DAMONE","win_condition":"WIN_CONDITION_CAPTURE_ALL_DAMONES"}}`, badArg("variant")},
		// With a start position, its side to move moves first.
		{"first player contradicting the start", &damonev1.ValidateGameRequest{Variant: &damonev1.Variant{
			Start:       &damonev1.Variant_StartPosition{StartPosition: &damonev1.Position{Text: "R:RPc4:BPb5,Pb7:0"}},
			FirstPlayer: damonev1.Side_SIDE_BLACK}},
			`{"variant":{"start_position":{"text":"R:RPc4:BPb5,Pb7:0"},"first_player":"SIDE_BLACK"}}`, badArg("variant.first_player")},
		{"PDN that does not parse", &damonev1.ValidateGameRequest{Pdn: proto.String("1. e2-d3 {a comment that never ends")},
			`{"pdn":"1. e2-d3 {a comment that never ends"}`, badArg("pdn")},
		{"more moves than max-game-plies", &damonev1.ValidateGameRequest{Moves: sevenMoves},
			`{"moves":["e2-d3","a4-b3","d3-c4","b5xd3","d1-c2","d3xb1","h1-g2"]}`,
			wantError{code: codes.ResourceExhausted, httpCode: 429, reason: "LIMIT_EXCEEDED",
				metadata: map[string]string{"limit": "game_plies", "maximum": "6"}}},
		// The limit counts the moves given, legal or not.
		{"more garbage than max-game-plies", &damonev1.ValidateGameRequest{Moves: []string{"zz", "zz", "zz", "zz", "zz", "zz", "zz"}},
			`{"moves":["zz","zz","zz","zz","zz","zz","zz"]}`,
			wantError{code: codes.ResourceExhausted, httpCode: 429, reason: "LIMIT_EXCEEDED",
				metadata: map[string]string{"limit": "game_plies", "maximum": "6"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.rules.ValidateGame(ctx, c.req)
			if err == nil {
				t.Fatalf("gRPC: the call succeeded; want %v %s", c.want.code, c.want.reason)
			}
			checkStatus(t, "gRPC", status.Convert(err), c.want)
			code, _, body := post(t, s.http+"/v1/rules:validateGame", "application/json", []byte(c.json))
			if code != c.want.httpCode {
				t.Errorf("REST: HTTP %d %s; want %d", code, body, c.want.httpCode)
			}
			checkRESTStatus(t, "REST", body, c.want)
		})
	}

	// At the limit, and illegal throughout: a verdict, not an error.
	r, err := s.rules.ValidateGame(ctx, &damonev1.ValidateGameRequest{Moves: sevenMoves[:testMaxGamePlies]})
	if err != nil || !r.GetValid() || r.GetPly() != testMaxGamePlies {
		t.Errorf("%d legal moves: %v, %v; want a valid verdict of %d plies", testMaxGamePlies, r, err, testMaxGamePlies)
	}
	r, err = s.rules.ValidateGame(ctx, &damonev1.ValidateGameRequest{Moves: []string{"zz", "zz", "zz", "zz", "zz", "zz"}})
	if err != nil || r.GetValid() || r.GetFirstIllegalPly() != 1 || r.GetReason() != "INVALID_REQUEST" {
		t.Errorf("six garbage moves: %v, %v; want the verdict: invalid at ply 1 (INVALID_REQUEST)", r, err)
	}

	// A request above max-request-bytes: over REST, 413 with
	// LIMIT_EXCEEDED (limit request_bytes); over gRPC RESOURCE_EXHAUSTED.
	big := `{"moves":["` + strings.Repeat("x", testMaxRequestBytes) + `"]}`
	code, _, body := post(t, s.http+"/v1/rules:validateGame", "application/json", []byte(big))
	if code != 413 {
		t.Errorf("REST body of %d bytes: HTTP %d %s; want 413", len(big), code, body)
	}
	checkRESTStatus(t, "REST body above the limit", body, wantError{code: codes.ResourceExhausted, reason: "LIMIT_EXCEEDED",
		metadata: map[string]string{"limit": "request_bytes", "maximum": "2048"}})
	_, err = s.rules.ValidateGame(ctx, &damonev1.ValidateGameRequest{Moves: []string{strings.Repeat("x", testMaxRequestBytes)}})
	if knownGRPCSizeErrorBare {
		if status.Code(err) != codes.ResourceExhausted {
			t.Errorf("gRPC request above the limit: %v; want RESOURCE_EXHAUSTED", err)
		}
	} else {
		checkStatus(t, "gRPC request above the limit", status.Convert(err), wantError{code: codes.ResourceExhausted,
			reason: "LIMIT_EXCEEDED", metadata: map[string]string{"limit": "request_bytes", "maximum": "2048"}})
	}
}

// streamCase is one request of a ValidateGames stream and its answer:
// a verdict (valid, ply) or an error.
type streamCase struct {
	req   *damonev1.ValidateGamesRequest
	json  string // the same request as an NDJSON line
	valid bool
	ply   int32
	err   *wantError
}

func streamCases() []streamCase {
	badArg := func(field string) *wantError {
		return &wantError{code: codes.InvalidArgument, reason: "INVALID_REQUEST", field: field}
	}
	long := strings.Repeat("i", 129)
	return []streamCase{
		{req: &damonev1.ValidateGamesRequest{Id: "ok", Game: &damonev1.ValidateGameRequest{Moves: []string{"e2-d3", "a4-b3"}}},
			json: `{"id":"ok","game":{"moves":["e2-d3","a4-b3"]}}`, valid: true, ply: 2},
		{req: &damonev1.ValidateGamesRequest{Id: "bad variant", Game: &damonev1.ValidateGameRequest{
			Variant: &damonev1.Variant{NoProgressLimit: proto.Int32(-1)}}},
			json: `{"id":"bad variant","game":{"variant":{"no_progress_limit":-1}}}`, err: badArg("game.variant.no_progress_limit")},
		{req: &damonev1.ValidateGamesRequest{Id: "illegal", Game: &damonev1.ValidateGameRequest{Moves: []string{"e2-e4"}}},
			json: `{"id":"illegal","game":{"moves":["e2-e4"]}}`, valid: false, ply: 0},
		{req: &damonev1.ValidateGamesRequest{Id: "too long", Game: &damonev1.ValidateGameRequest{Moves: sevenMoves}},
			json: `{"id":"too long","game":{"moves":["e2-d3","a4-b3","d3-c4","b5xd3","d1-c2","d3xb1","h1-g2"]}}`,
			err:  &wantError{code: codes.ResourceExhausted, reason: "LIMIT_EXCEEDED", metadata: map[string]string{"limit": "game_plies", "maximum": "6"}}},
		{req: &damonev1.ValidateGamesRequest{Id: "both", Game: &damonev1.ValidateGameRequest{Moves: []string{"e2-d3"}, Pdn: proto.String("1. e2-d3 *")}},
			json: `{"id":"both","game":{"moves":["e2-d3"],"pdn":"1. e2-d3 *"}}`, err: badArg("game.pdn")},
		{req: &damonev1.ValidateGamesRequest{Id: "no game"}, json: `{"id":"no game"}`, err: badArg("game")},
		{req: &damonev1.ValidateGamesRequest{Id: long, Game: &damonev1.ValidateGameRequest{}},
			json: `{"id":"` + long + `","game":{}}`, err: badArg("id")},
		{req: &damonev1.ValidateGamesRequest{Id: "ok again", Game: &damonev1.ValidateGameRequest{Moves: []string{"e2-d3"}}},
			json: `{"id":"ok again","game":{"moves":["e2-d3"]}}`, valid: true, ply: 1},
	}
}

// checkAnswer checks one stream answer (its id, then verdict or error).
func checkAnswer(t *testing.T, c streamCase, id string, verdict *damonev1.ValidateGameResponse, verr *damonev1.ValidationError) {
	t.Helper()
	what := "answer to " + c.req.GetId()[:min(20, len(c.req.GetId()))]
	if id != c.req.GetId() {
		t.Errorf("%s: id %q (answers come in request order)", what, id)
		return
	}
	if c.err == nil {
		if verdict == nil || verr != nil || verdict.GetValid() != c.valid || verdict.GetPly() != c.ply {
			t.Errorf("%s: verdict %v, error %v; want a verdict: valid %v, ply %d", what, verdict, verr, c.valid, c.ply)
		}
		return
	}
	if verdict != nil || verr == nil {
		t.Errorf("%s: verdict %v; want the error %v %s", what, verdict, c.err.code, c.err.reason)
		return
	}
	if verr.GetCode() != c.err.codeName() || verr.GetReason() != c.err.reason || verr.GetMessage() == "" {
		t.Errorf("%s: error %v; want code %s, reason %s and a message", what, verr, c.err.codeName(), c.err.reason)
	}
	var fields []string
	if verr.GetField() != "" {
		fields = []string{verr.GetField()}
	}
	checkFieldsAndMetadata(t, what, fields, verr.GetMetadata(), *c.err)
}

// codeName is the canonical name of the code, e.g. INVALID_ARGUMENT.
func (w *wantError) codeName() string {
	return map[codes.Code]string{codes.InvalidArgument: "INVALID_ARGUMENT", codes.ResourceExhausted: "RESOURCE_EXHAUSTED"}[w.code]
}

// TestValidateGamesStreamErrors: a request the server cannot judge is
// answered with an error in its place and the stream goes on; a request
// above the size limit ends the whole stream.
func TestValidateGamesStreamErrors(t *testing.T) {
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cases := streamCases()

	t.Run("gRPC", func(t *testing.T) {
		stream, err := s.rules.ValidateGames(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			if err := stream.Send(c.req); err != nil {
				t.Fatal(err)
			}
		}
		stream.CloseSend()
		for i := 0; ; i++ {
			r, err := stream.Recv()
			if err == io.EOF {
				if i != len(cases) {
					t.Errorf("%d answers for %d requests", i, len(cases))
				}
				break
			}
			if err != nil {
				t.Fatalf("the stream failed after %d answers: %v", i, err)
			}
			if i >= len(cases) {
				t.Fatalf("answer %d beyond the %d requests: %v", i+1, len(cases), r)
			}
			checkAnswer(t, cases[i], r.GetId(), r.GetResult(), r.GetError())
		}
	})

	t.Run("REST", func(t *testing.T) {
		var body []byte
		for _, c := range cases {
			body = append(append(body, c.json...), '\n')
		}
		code, header, out := post(t, s.http+"/v1/rules:validateGames", "application/x-ndjson", body)
		if code != 200 || header.Get("Content-Type") != "application/x-ndjson" {
			t.Fatalf("HTTP %d, Content-Type %q: %s", code, header.Get("Content-Type"), out)
		}
		lines := ndjsonLines(t, out)
		if len(lines) != len(cases) {
			t.Fatalf("%d lines for %d requests:\n%s", len(lines), len(cases), out)
		}
		for i, l := range lines {
			if l.Result == nil {
				t.Errorf("line %d is not a result: %s", i+1, l.raw)
				continue
			}
			checkAnswer(t, cases[i], l.Result.GetId(), l.Result.GetResult(), l.Result.GetError())
		}
	})

	t.Run("gRPC request above the size limit", func(t *testing.T) {
		stream, err := s.rules.ValidateGames(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := stream.Send(cases[0].req); err != nil {
			t.Fatal(err)
		}
		r, err := stream.Recv()
		if err != nil || r.GetId() != "ok" {
			t.Fatalf("first answer %v, %v", r, err)
		}
		stream.Send(&damonev1.ValidateGamesRequest{Id: "big", Game: &damonev1.ValidateGameRequest{Moves: []string{strings.Repeat("x", testMaxRequestBytes)}}})
		r, err = stream.Recv()
		switch {
		case err == nil:
			t.Errorf("after a request above the limit: answer %v; want the stream to fail", r)
		case knownGRPCSizeErrorBare:
			if status.Code(err) != codes.ResourceExhausted {
				t.Errorf("after a request above the limit: %v; want the stream to fail with RESOURCE_EXHAUSTED", err)
			}
		default:
			checkStatus(t, "stream request above the limit", status.Convert(err), wantError{code: codes.ResourceExhausted,
				reason: "LIMIT_EXCEEDED", metadata: map[string]string{"limit": "request_bytes", "maximum": "2048"}})
		}
	})
}

// ndjsonLine is one line of a ValidateGames REST response.
type ndjsonLine struct {
	raw    []byte
	Result *damonev1.ValidateGamesResponse
	Error  json.RawMessage
}

func ndjsonLines(t *testing.T, body []byte) []ndjsonLine {
	t.Helper()
	var out []ndjsonLine
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct {
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil || (l.Result == nil) == (l.Error == nil) {
			t.Fatalf("line %q: want {\"result\": ...} or {\"error\": ...} (%v)", sc.Text(), err)
		}
		line := ndjsonLine{raw: append([]byte(nil), sc.Bytes()...), Error: l.Error}
		if l.Result != nil {
			checkSnakeCase(t, l.Result)
			line.Result = &damonev1.ValidateGamesResponse{}
			if err := unmarshal.Unmarshal(l.Result, line.Result); err != nil {
				t.Fatalf("result %s: %v", l.Result, err)
			}
		}
		out = append(out, line)
	}
	return out
}

// checkSnakeCase: responses use the proto field names.
func checkSnakeCase(t *testing.T, b []byte) {
	t.Helper()
	checkKeys(t, jsonValue(t, string(b)), "$")
}

// TestValidateGamesNDJSONStreamFailures: over REST, a line that cannot be
// read ends the stream with a final {"error": <status>} line after the
// answers to the lines before it; before any answer, it is an HTTP error
// with the status JSON like any other call.
func TestValidateGamesNDJSONStreamFailures(t *testing.T) {
	s := startServer(t)
	ok := func(id string) string { return `{"id":"` + id + `","game":{"moves":["e2-d3"]}}` }
	undecodable := wantError{code: codes.InvalidArgument, reason: "INVALID_REQUEST", field: "body"}
	tooBig := wantError{code: codes.ResourceExhausted, reason: "LIMIT_EXCEEDED",
		metadata: map[string]string{"limit": "request_bytes", "maximum": "2048"}}
	bigLine := `{"id":"big","game":{"moves":["` + strings.Repeat("x", testMaxRequestBytes) + `"]}}`
	cases := []struct {
		name    string
		lines   []string
		answers []string // ids answered before the error
		want    *wantError
	}{
		{"undecodable line after two games", []string{ok("a"), ok("b"), `{bad`, ok("c")}, []string{"a", "b"}, &undecodable},
		{"line cut short", []string{ok("a"), `{"id":"x","game":{"moves":["e2-d3"`, ok("c")}, []string{"a"}, &undecodable},
		{"line above max-request-bytes", []string{ok("a"), bigLine, ok("c")}, []string{"a"}, &tooBig},
		// The limit is on each line, not the whole body.
		{"body above the limit in lines below it", func() []string {
			var ls []string
			for i := range 16 { // 16 lines of about 200 bytes
				ls = append(ls, `{"id":"`+strings.Repeat(string(rune('a'+i)), 120)+`","game":{"moves":["e2-d3","a4-b3","d3-c4","b5xd3","d1-c2"]}}`)
			}
			return ls
		}(), nil, nil},
		{"blank lines are skipped", []string{ok("a"), "", "  ", ok("b")}, []string{"a", "b"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := []byte(strings.Join(c.lines, "\n") + "\n")
			code, header, out := post(t, s.http+"/v1/rules:validateGames", "application/x-ndjson", body)
			if code != 200 || header.Get("Content-Type") != "application/x-ndjson" {
				t.Fatalf("HTTP %d, Content-Type %q: %s", code, header.Get("Content-Type"), out)
			}
			lines := ndjsonLines(t, out)
			var ids []string
			for _, l := range lines {
				if l.Result != nil {
					ids = append(ids, l.Result.GetId())
					if l.Result.GetResult() == nil {
						t.Errorf("answer %s: no verdict: %v", l.Result.GetId(), l.Result.GetError())
					}
				}
			}
			if c.want == nil {
				if len(lines) != len(ids) || len(ids) == 0 || (len(body) <= testMaxRequestBytes && len(c.lines) > 4) {
					t.Errorf("answers %v in %d lines; want only answers:\n%s", ids, len(lines), out)
				}
				return
			}
			if !cmp.Equal(ids, c.answers) || len(lines) != len(c.answers)+1 || lines[len(lines)-1].Error == nil {
				t.Fatalf("answers %v in %d lines; want %v, then a final error line:\n%s", ids, len(lines), c.answers, out)
			}
			checkRESTStatus(t, "final error line", lines[len(lines)-1].Error, *c.want)
		})
	}

	// Before any answer: an HTTP error and the status JSON.
	code, _, out := post(t, s.http+"/v1/rules:validateGames", "application/x-ndjson", []byte("{bad\n"+ok("a")+"\n"))
	if code != 400 {
		t.Errorf("undecodable first line: HTTP %d %s; want 400", code, out)
	}
	checkRESTStatus(t, "undecodable first line", out, undecodable)
	code, _, out = post(t, s.http+"/v1/rules:validateGames", "application/x-ndjson", []byte(bigLine+"\n"))
	if code != 413 && !(knownNDJSONFirstLineTooBig429 && code == 429) {
		t.Errorf("first line above the limit: HTTP %d %s; want 413", code, out)
	}
	checkRESTStatus(t, "first line above the limit", out, tooBig)
}

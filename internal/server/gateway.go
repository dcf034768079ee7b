package server

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/wire"
)

// newGateway returns the REST/JSON gateway: it calls the gRPC server over
// a client connection, so interceptors (logs, metrics, limits) apply to
// REST calls too and WatchGame streams as newline-delimited JSON, one
// flushed line per event. Its requests come through bs.guard
// (gateway_body.go), which reads their bodies, limited to
// maxRequestBytes, and answers those it cannot read with the gateway's
// error model.
func newGateway(lis *bufconn.Listener, maxRequestBytes int, bs *bodies, traced bool, heartbeat time.Duration) (http.Handler, *grpc.ClientConn, error) {
	conn, err := gatewayClient(lis, traced)
	if err != nil {
		return nil, nil, err
	}
	mux := runtime.NewServeMux(
		runtime.WithMarshalerOption(runtime.MIMEWildcard, &jsonMarshaler{runtime.JSONPb{
			MarshalOptions:   protojson.MarshalOptions{UseProtoNames: true},
			UnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: false},
		}}),
		// A Content-Length instead of a chunked body: the whole answer is
		// marshalled before it is written anyway.
		runtime.WithWriteContentLength(),
		// The service reads no metadata but the side token, which the
		// gateway forwards from Authorization whatever the matcher says;
		// turning every other header into metadata only cost time on each
		// call.
		runtime.WithIncomingHeaderMatcher(func(string) (string, bool) { return "", false }),
		// Nor does it send metadata meant for HTTP clients (gRPC's own
		// headers, such as content-type application/grpc, are not).
		runtime.WithOutgoingHeaderMatcher(func(string) (string, bool) { return "", false }),
		// A request to a route with another method is 405, never served by
		// the GET handler of the same path because of its Content-Type.
		runtime.WithDisablePathLengthFallback(),
		runtime.WithErrorHandler(errorHandler),
		runtime.WithRoutingErrorHandler(routingErrorHandler),
		runtime.WithStreamErrorHandler(streamErrorHandler),
		// Heartbeats on idle server streams start once a stream is
		// accepted (gateway_heartbeat.go).
		runtime.WithForwardResponseOption(streamStarted),
	)
	ctx := context.Background()
	if err := damonev1.RegisterRulesServiceHandler(ctx, mux, conn); err != nil {
		conn.Close()
		return nil, nil, err
	}
	if err := damonev1.RegisterGameServiceHandler(ctx, mux, conn); err != nil {
		conn.Close()
		return nil, nil, err
	}
	if err := damonev1.RegisterAnalysisServiceHandler(ctx, mux, conn); err != nil {
		conn.Close()
		return nil, nil, err
	}
	if err := damonev1.RegisterTablebaseServiceHandler(ctx, mux, conn); err != nil {
		conn.Close()
		return nil, nil, err
	}
	// ValidateGames' body is a stream of requests: limited a line at a
	// time, not as a whole.
	stream := newNDJSONStream(conn, mux, maxRequestBytes, bs)
	bs.answer = func(w http.ResponseWriter, r *http.Request, err error) {
		_, out := runtime.MarshalerForRequest(mux, r)
		errorHandler(r.Context(), mux, out, w, r, err)
	}
	bs.routeError = func(w http.ResponseWriter, r *http.Request, httpCode int) {
		_, out := runtime.MarshalerForRequest(mux, r)
		routingErrorHandler(r.Context(), mux, out, w, r, httpCode)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The gateway would serve GET /v1/games/{game}:move as GetGame of
		// a game named "{game}:move" (400): a custom method on a game
		// asked with another method is 405, as on every other route.
		if m, ok := gameRouteMethod(r.URL.Path); ok && m != r.Method && strings.Contains(r.URL.Path, ":") {
			bs.routeError(w, r, http.StatusMethodNotAllowed)
			return
		}
		if isServerStream(r) {
			hb := newHeartbeats(&streamRefusal{ResponseWriter: w}, heartbeat)
			defer hb.stop()
			mux.ServeHTTP(hb, r)
			return
		}
		// A complete request is answered, even if its client has ended
		// its sending (gateway_halfclose.go).
		r, stop := halfCloseTolerant(r)
		defer stop()
		if isNDJSONStream(r) {
			stream.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	}), conn, nil
}

// isNDJSONStream reports whether r is for ValidateGames, whose body is a
// stream of requests (gateway_ndjson.go).
func isNDJSONStream(r *http.Request) bool {
	return r.Method == http.MethodPost && r.URL.Path == validateGamesPath
}

// isServerStream reports whether r is for a server-streaming route
// (WatchGame, AnalyzePosition).
func isServerStream(r *http.Request) bool {
	return (r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, ":watch")) ||
		(r.Method == http.MethodPost && r.URL.Path == "/v1/analysis:analyzePosition")
}

// streamRefusal makes a stream refused before its first message answer
// like every other refused call: the plain status JSON, not the
// `{"error": ...}` line grpc-gateway writes for a stream that fails
// (docs/api.md, Error model). A refusal is the gateway writing an error
// status code before any body; its first write is then the wrapped status.
type streamRefusal struct {
	http.ResponseWriter
	refused, done bool
}

func (s *streamRefusal) WriteHeader(code int) {
	if code != http.StatusOK {
		s.refused = true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *streamRefusal) Write(b []byte) (int, error) {
	if !s.refused {
		return s.ResponseWriter.Write(b)
	}
	if s.done { // the line's delimiter
		return len(b), nil
	}
	s.done = true
	var wrapped struct {
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(b, &wrapped); err != nil || len(wrapped.Error) == 0 {
		return s.ResponseWriter.Write(b)
	}
	if _, err := s.ResponseWriter.Write(wrapped.Error); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (s *streamRefusal) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// jsonMarshaler is the gateway's JSONPb, except that a message is
// marshalled straight into a slice sized from its wire size: JSONPb
// marshals into a growing slice and copies it into another, which for a
// list of legal moves was a third of the marshalling time
// (BenchmarkGatewayJSON).
type jsonMarshaler struct{ runtime.JSONPb }

// jsonPerWireByte is how much longer than its protobuf encoding a message
// is in JSON with enum names and proto field names (4.5 for the legal
// moves at the start); overshooting costs less than growing.
const jsonPerWireByte = 5

// StreamContentType is the type of WatchGame's and AnalyzePosition's
// streams: one JSON object a line.
func (j *jsonMarshaler) StreamContentType(any) string { return "application/x-ndjson" }

// NewDecoder decodes one JSON value and refuses anything after it but
// white space: JSONPb alone would ignore `{...} junk`.
func (j *jsonMarshaler) NewDecoder(r io.Reader) runtime.Decoder {
	dw := j.JSONPb.NewDecoder(r).(runtime.DecoderWrapper)
	return runtime.DecoderFunc(func(v any) error {
		if err := dw.Decode(v); err != nil {
			return err
		}
		if _, err := dw.Token(); err != io.EOF {
			return errors.New("unexpected data after the JSON object")
		}
		return nil
	})
}

func (j *jsonMarshaler) Marshal(v any) ([]byte, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return j.JSONPb.Marshal(v)
	}
	return j.MarshalOptions.MarshalAppend(make([]byte, 0, 64+jsonPerWireByte*wire.Size(m)), m)
}

// httpStatus maps a status to its HTTP code: the usual gRPC mapping,
// except that a request above the size limit is 413 Content Too Large,
// and a failed etag or ply precondition is 412 Precondition
// Failed (the HTTP meaning of a failed If-Match) and any other ABORTED is
// 409 Conflict.
func httpStatus(st *status.Status) int {
	info := errorInfo(st)
	switch {
	case st.Code() == codes.ResourceExhausted && info.GetMetadata()["limit"] == "request_bytes":
		return http.StatusRequestEntityTooLarge
	case st.Code() == codes.Aborted && (info.GetReason() == "ETAG_MISMATCH" || info.GetReason() == "PLY_MISMATCH"):
		return http.StatusPreconditionFailed
	case st.Code() == codes.Aborted:
		return http.StatusConflict
	}
	return runtime.HTTPStatusFromCode(st.Code())
}

// queryField finds the query parameter in the gateway's error for one it
// cannot parse.
var queryField = regexp.MustCompile(`^parsing field "([a-z0-9_.]+)"`)

// queryFieldPath is the whole path, in proto names, of r's query parameter
// whose last segment is leaf (the gateway names only that, e.g.
// "no_progress_limit" for variant.no_progress_limit), or leaf itself if no
// one parameter is so named.
func queryFieldPath(r *http.Request, leaf string) string {
	found := ""
	for key := range r.URL.Query() {
		segs := strings.Split(key, ".")
		for i, s := range segs {
			segs[i] = snakeCase(s)
		}
		if segs[len(segs)-1] != leaf {
			continue
		}
		if found != "" {
			return leaf
		}
		found = strings.Join(segs, ".")
	}
	return cmp.Or(found, leaf)
}

func errorHandler(ctx context.Context, mux *runtime.ServeMux, m runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
	code := 0
	var tooBig *http.MaxBytesError
	// The gateway turns a body cut at --max-request-bytes into a plain
	// INVALID_ARGUMENT with the reader's message; recognise both forms.
	if errors.As(err, &tooBig) || strings.Contains(status.Convert(err).Message(), "http: request body too large") {
		err = limitExceeded("request_bytes", maxRequestBytes(ctx),
			"the request body is larger than the server's limit of %d bytes (setting max-request-bytes)", maxRequestBytes(ctx))
		code = http.StatusRequestEntityTooLarge
	} else if st := status.Convert(err); len(st.Details()) == 0 && st.Code() == codes.InvalidArgument {
		// The gateway itself refused the request (JSON it cannot decode
		// into the method's request, a bad query parameter): give it the
		// error model's details like every other error.
		field := "body"
		if m := queryField.FindStringSubmatch(st.Message()); m != nil {
			field = queryFieldPath(r, m[1])
		} else if b := readBody(ctx); b != nil {
			if f := jsonFieldAt(b.Bytes(), st.Message()); f != "" {
				field = bodyFieldPrefix(ctx) + f
			}
		}
		err = invalidStatus(field, "the request does not decode as this method's request message: "+st.Message())
	}
	st := status.Convert(err)
	if code == 0 {
		code = httpStatus(st)
	}
	runtime.DefaultHTTPErrorHandler(ctx, mux, m, &statusOverride{ResponseWriter: w, code: code}, r, err)
}

// bodyFields holds the routes whose HTTP body is one field of the request
// message, not all of it (damone_http.yaml, body: FIELD), by RPC: a field
// violation names a field relative to the request message (docs/api.md,
// Error model), so a field found in such a body is under that field.
var bodyFields = map[string]string{
	damonev1.GameService_CreateGame_FullMethodName: "game",
}

// bodyFieldPrefix is the path of the request's body in its request
// message, with its dot ("game."), or "" for a body that is the whole
// message.
func bodyFieldPrefix(ctx context.Context) string {
	method, _ := runtime.RPCMethod(ctx)
	if f := bodyFields[method]; f != "" {
		return f + "."
	}
	return ""
}

// routingErrorHandler answers a request that matches no route in the
// error model: 404 for an unknown path, 405 for a known path with another
// method.
func routingErrorHandler(ctx context.Context, mux *runtime.ServeMux, m runtime.Marshaler, w http.ResponseWriter, r *http.Request, httpCode int) {
	var err error
	md := map[string]string{"method": r.Method, "path": r.URL.Path}
	if _, isGameRoute := gameRouteMethod(r.URL.Path); httpCode == http.StatusMethodNotAllowed &&
		strings.HasPrefix(r.URL.Path, "/v1/games/") && !isGameRoute {
		// GetGame's pattern takes any /v1/games/{id:verb}, but no route has
		// this custom method: there is no method to allow.
		httpCode = http.StatusNotFound
	}
	switch httpCode {
	case http.StatusMethodNotAllowed:
		w.Header().Set("Allow", allowedMethods(r.URL.Path))
		err = withInfo(codes.Unimplemented, fmt.Sprintf("%s is not allowed on %s (see docs/api.md for each route's method)", r.Method, r.URL.Path),
			reasonMethodNotAllowed, md)
	case http.StatusNotFound:
		err = withInfo(codes.NotFound, fmt.Sprintf("no route %s %s (see docs/api.md for the routes)", r.Method, engine.Quote(r.URL.Path)),
			reasonRouteNotFound, md)
	default:
		err = invalidStatus("body", http.StatusText(httpCode))
	}
	runtime.DefaultHTTPErrorHandler(ctx, mux, m, &statusOverride{ResponseWriter: w, code: httpCode}, r, err)
}

// allowedMethods is the Allow header (RFC 9110) of a 405 on path, a path
// of a route (damone_http.yaml, or /board.svg): the methods its routes
// serve. The gateway does not serve HEAD on its GET routes.
func allowedMethods(path string) string {
	switch {
	case path == BoardImagePath:
		return "GET, HEAD"
	case path == "/v1/games": // ListGames, CreateGame
		return "GET, POST"
	case strings.HasPrefix(path, "/v1/tablebase:"): // TablebaseService: reads
		return "GET"
	}
	if m, ok := gameRouteMethod(path); ok {
		return m
	}
	return "POST" // the RulesService and AnalysisService routes
}

// gameVerbMethods is the method of each route on a game, by its custom
// method ("" for GetGame), as damone_http.yaml gives them.
var gameVerbMethods = map[string]string{
	"": http.MethodGet, "watch": http.MethodGet, "exportPdn": http.MethodGet,
	"move": http.MethodPost, "resign": http.MethodPost, "offerDraw": http.MethodPost, "answerDrawOffer": http.MethodPost,
}

// gameRouteMethod returns the method of the route on a game that path
// (/v1/games/{game}[:verb]) is, if it is one.
func gameRouteMethod(path string) (string, bool) {
	id, ok := strings.CutPrefix(path, "/v1/games/")
	if !ok || id == "" || strings.Contains(id, "/") {
		return "", false
	}
	game, verb, _ := strings.Cut(id, ":")
	if game == "" {
		return "", false
	}
	m, ok := gameVerbMethods[verb]
	return m, ok
}

// statusOverride replaces the status code the default handler writes.
type statusOverride struct {
	http.ResponseWriter
	code int
}

func (s *statusOverride) WriteHeader(int) { s.ResponseWriter.WriteHeader(s.code) }

func (s *statusOverride) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// streamErrorHandler keeps the status's details (reason, metadata) in the
// stream's final {"error": ...} line.
func streamErrorHandler(_ context.Context, err error) *status.Status {
	return status.Convert(err)
}

// The ErrorInfo reasons of the gateway's own routing errors
// (error_reason.proto).
const (
	reasonRouteNotFound    = "ROUTE_NOT_FOUND"
	reasonMethodNotAllowed = "METHOD_NOT_ALLOWED"
)

type maxBytesKey struct{}

type bodyKey struct{}

// bodyPool holds the buffers request bodies are read into (withBodies),
// kept so that a decode error can name the field at its place.
var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// readBody returns the request body, if kept.
func readBody(ctx context.Context) *bytes.Buffer {
	b, _ := ctx.Value(bodyKey{}).(*bytes.Buffer)
	return b
}

func maxRequestBytes(ctx context.Context) int64 {
	n, _ := ctx.Value(maxBytesKey{}).(int64)
	return n
}

// Package connectweb serves the gRPC services over the Connect and gRPC-Web
// protocols on an HTTP/1.1 port, for browsers, which cannot make gRPC calls:
// connectrpc.com/vanguard's vanguardgrpc transcoder turns each Connect or
// gRPC-Web request into a gRPC call of a *grpc.Server through its
// ServeHTTP, so the server's interceptors, stats handlers and codec apply as
// on its own port; what only grpc-go's transport does (tap handles,
// keepalive, per-connection limits) does not, and the HTTP port's own
// guards stand in for it (internal/server).
//
// The package keeps vanguard, an alpha library whose API is due to change,
// behind three functions: New, Handles and WriteError.
package connectweb

import (
	"cmp"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"connectrpc.com/connect"
	connectcors "connectrpc.com/cors"
	"connectrpc.com/vanguard"
	"connectrpc.com/vanguard/vanguardgrpc"
	"github.com/rs/cors"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Handler serves Connect and gRPC-Web calls of a gRPC server's services on
// the paths /<package>.<Service>/<Method> (Prefixes).
type Handler struct {
	http.Handler
	prefixes []string
	errors   *connect.ErrorWriter
}

// Options configure New.
type Options struct {
	// MaxMessageBytes bounds one message, of a request or of a response,
	// that the transcoder holds in memory (0: vanguard's default, 4 GiB).
	MaxMessageBytes int
	// CORSOrigins are the origins (scheme://host[:port], or "*") other
	// than the server's own whose pages may call the services; none: no
	// CORS headers, so only pages of the same origin can.
	CORSOrigins []string
	// CORSHeaders are request headers beyond the protocols' own that a
	// page of another origin may send (e.g. Authorization).
	CORSHeaders []string
	// DecodeError makes the error for a JSON request body that does not
	// decode as the method's request message (err is protojson's): a gRPC
	// status error, INVALID_ARGUMENT naming the field. Nil: one naming
	// the body.
	DecodeError func(body []byte, err error) error
	// MaxRequestBytes bounds a gzip-compressed request once decompressed
	// (0: no bound), as the body guard bounds it on the wire; over it,
	// TooLarge (a gRPC status error).
	MaxRequestBytes int
	TooLarge        error
}

// New returns the handler for every service registered on srv (so srv
// should hold only the public ones: no health or reflection service).
func New(srv *grpc.Server, opts Options) (*Handler, error) {
	h := &Handler{errors: connect.NewErrorWriter()}
	for name := range srv.GetServiceInfo() {
		h.prefixes = append(h.prefixes, "/"+name+"/")
	}
	slices.Sort(h.prefixes)
	// The gRPC server is in this process: compressing its requests would
	// only cost CPU, and vanguard marks an empty message compressed without
	// compressing it, which the server refuses (INTERNAL).
	svcOpts := []vanguard.ServiceOption{vanguard.WithNoTargetCompression()}
	if opts.MaxMessageBytes > 0 {
		svcOpts = append(svcOpts, vanguard.WithMaxMessageBufferBytes(uint32(opts.MaxMessageBytes)))
	}
	decodeError := opts.DecodeError
	if decodeError == nil {
		decodeError = func(_ []byte, err error) error {
			return status.Error(codes.InvalidArgument, "body: the request does not decode as this method's request message: "+err.Error())
		}
	}
	t, err := vanguardgrpc.NewTranscoder(srv, vanguard.WithDefaultServiceOptions(svcOpts...),
		// vanguard reports a JSON request it cannot decode as unknown (500),
		// though the fault is the client's.
		vanguard.WithCodec(func(res vanguard.TypeResolver) vanguard.Codec {
			return jsonCodec{JSONCodec: vanguard.NewJSONCodec(res), decodeError: decodeError}
		}),
		// vanguard's gzip reads a request out to any size before the gRPC
		// server's limit applies: a small body could take gigabytes.
		vanguard.WithCompression("gzip", func() connect.Compressor { return gzip.NewWriter(io.Discard) },
			func() connect.Decompressor { return &gunzip{limit: int64(opts.MaxRequestBytes), tooBig: opts.TooLarge} }),
		// Unknown methods of our services: Connect's error, not a text 404.
		vanguard.WithUnknownHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !h.errors.IsSupported(r) {
				http.NotFound(w, r)
				return
			}
			h.WriteError(w, r, status.Errorf(codes.Unimplemented, "unknown method %s (see docs/api.md for the services)", r.URL.Path))
		})))
	if err != nil {
		return nil, fmt.Errorf("connectweb: %w", err)
	}
	h.Handler = t
	if len(opts.CORSOrigins) > 0 {
		h.Handler = cors.New(cors.Options{
			AllowedOrigins: opts.CORSOrigins,
			AllowedMethods: connectcors.AllowedMethods(),
			AllowedHeaders: slices.Concat(connectcors.AllowedHeaders(), opts.CORSHeaders),
			ExposedHeaders: connectcors.ExposedHeaders(),
			// A browser may reuse a preflight's answer this long (seconds).
			MaxAge: 7200,
		}).Handler(t)
	}
	return h, nil
}

// Timeouts as the protocols define them: Connect's, at most 10 digits of
// milliseconds; gRPC's, at most 8 digits and a unit.
var (
	connectTimeout = regexp.MustCompile(`^[0-9]{1,10}$`)
	grpcTimeout    = regexp.MustCompile(`^[0-9]{1,8}[HMSmun]$`)
)

// ServeHTTP refuses a malformed timeout header, and a Connect or gRPC-Web
// call by another HTTP method than POST, in the caller's protocol
// (vanguard answers them in plain text), then serves r.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost && r.Method != http.MethodOptions && h.looksRPC(r) {
		// As connect-go answers a method it does not serve: 405 with
		// Allow; the body is Connect's error, so a client reads the code.
		w.Header().Set("Allow", http.MethodPost)
		h.WriteError(statusWriter{w, http.StatusMethodNotAllowed}, r, status.Errorf(codes.Unimplemented,
			"%s %s: calls are POST (no method is marked free of side effects, so none is served by GET)", r.Method, r.URL.Path))
		return
	}
	if v := r.Header.Values("Connect-Timeout-Ms"); len(v) > 0 && (len(v) > 1 || !connectTimeout.MatchString(v[0])) {
		h.WriteError(w, r, status.Errorf(codes.InvalidArgument, "Connect-Timeout-Ms: want a whole number of milliseconds, at most 10 digits; got %q", strings.Join(v, ", ")))
		return
	}
	if v := r.Header.Values("Grpc-Timeout"); len(v) > 0 && (len(v) > 1 || !grpcTimeout.MatchString(v[0])) {
		h.WriteError(w, r, status.Errorf(codes.InvalidArgument, "grpc-timeout: want at most 8 digits and a unit (H, M, S, m, u, n); got %q", strings.Join(v, ", ")))
		return
	}
	h.Handler.ServeHTTP(w, r)
}

// Prefixes returns the path prefixes the handler serves, one per service:
// "/damone.v1.RulesService/", ...
func (h *Handler) Prefixes() []string { return slices.Clone(h.prefixes) }

// Handles reports whether r is for one of the handler's services, or is a
// Connect or gRPC-Web call (by its headers) of an unknown service in one of
// their packages (/<package>.<Service>/<Method>), which it answers
// unimplemented.
func (h *Handler) Handles(r *http.Request) bool {
	if slices.ContainsFunc(h.prefixes, func(p string) bool { return strings.HasPrefix(r.URL.Path, p) }) {
		return true
	}
	svc, method, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	dot := strings.LastIndexByte(svc, '.')
	if !ok || dot < 0 || method == "" || strings.Contains(method, "/") {
		return false
	}
	pkg := "/" + svc[:dot+1]
	return slices.ContainsFunc(h.prefixes, func(p string) bool { return strings.HasPrefix(p, pkg) && !strings.Contains(p[len(pkg):len(p)-1], ".") }) && h.looksRPC(r)
}

// looksRPC reports whether r is, by its headers, a Connect or gRPC-Web
// call (of any HTTP method), so that its errors are owed in that protocol.
func (h *Handler) looksRPC(r *http.Request) bool {
	if h.errors.IsSupported(r) || r.Header.Get("Connect-Protocol-Version") != "" {
		return true
	}
	// Bare application/json or proto is Connect only with the header above.
	ct := strings.ToLower(r.Header.Get("Content-Type"))
	return strings.HasPrefix(ct, "application/connect+") || strings.HasPrefix(ct, "application/grpc")
}

// statusWriter writes its status instead of the one asked for.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w statusWriter) WriteHeader(int) { w.ResponseWriter.WriteHeader(w.status) }

// gunzip decompresses a request up to limit bytes (0: any); corrupt data is
// the client's fault (INVALID_ARGUMENT).
type gunzip struct {
	zr     gzip.Reader
	limit  int64
	n      int64
	tooBig error
}

func (g *gunzip) Reset(r io.Reader) error {
	g.n = 0
	if err := g.zr.Reset(r); err != nil {
		return g.corrupt(err)
	}
	return nil
}

func (g *gunzip) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	g.n += int64(n)
	if g.limit > 0 && g.n > g.limit {
		return 0, toConnect(cmp.Or(g.tooBig, status.Errorf(codes.ResourceExhausted, "the request is larger than %d bytes once decompressed", g.limit)))
	}
	if err != nil && err != io.EOF {
		return n, g.corrupt(err)
	}
	return n, err
}

func (g *gunzip) Close() error { return g.zr.Close() }

func (g *gunzip) corrupt(err error) error {
	return toConnect(status.Error(codes.InvalidArgument, "body: not valid gzip (Content-Encoding: gzip): "+err.Error()))
}

// jsonCodec is vanguard's JSON codec whose decode errors are the client's
// fault (INVALID_ARGUMENT). Only requests are decoded with it: the gRPC
// server's responses are protobuf.
type jsonCodec struct {
	*vanguard.JSONCodec
	decodeError func(body []byte, err error) error
}

func (c jsonCodec) Unmarshal(data []byte, msg proto.Message) error {
	if err := c.JSONCodec.Unmarshal(data, msg); err != nil {
		return toConnect(c.decodeError(data, err))
	}
	return nil
}

// toConnect is err, a gRPC status error, as a Connect error with the same
// code, message and details.
func toConnect(err error) *connect.Error {
	st := status.Convert(err)
	ce := connect.NewError(connect.Code(st.Code()), fmt.Errorf("%s", st.Message()))
	for _, d := range st.Details() {
		if m, ok := d.(proto.Message); ok {
			if detail, err := connect.NewErrorDetail(m); err == nil {
				ce.AddDetail(detail)
			}
		}
	}
	return ce
}

// WriteError answers r, refused before it reached the transcoder, with err
// (a gRPC status error: code, message and details such as ErrorInfo and
// BadRequest) in the protocol r speaks: Connect's JSON error body (unary),
// its end-of-stream message (streams), or gRPC-Web's trailers.
func (h *Handler) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	h.errors.Write(w, r, toConnect(err))
}

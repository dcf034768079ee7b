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
	"fmt"
	"net/http"
	"slices"
	"strings"

	"connectrpc.com/connect"
	connectcors "connectrpc.com/cors"
	"connectrpc.com/vanguard"
	"connectrpc.com/vanguard/vanguardgrpc"
	"github.com/rs/cors"
	"google.golang.org/grpc"
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
}

// New returns the handler for every service registered on srv (so srv
// should hold only the public ones: no health or reflection service).
func New(srv *grpc.Server, opts Options) (*Handler, error) {
	h := &Handler{errors: connect.NewErrorWriter()}
	for name := range srv.GetServiceInfo() {
		h.prefixes = append(h.prefixes, "/"+name+"/")
	}
	slices.Sort(h.prefixes)
	var svcOpts []vanguard.ServiceOption
	if opts.MaxMessageBytes > 0 {
		svcOpts = append(svcOpts, vanguard.WithMaxMessageBufferBytes(uint32(opts.MaxMessageBytes)))
	}
	t, err := vanguardgrpc.NewTranscoder(srv, vanguard.WithDefaultServiceOptions(svcOpts...))
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

// Prefixes returns the path prefixes the handler serves, one per service:
// "/damone.v1.RulesService/", ...
func (h *Handler) Prefixes() []string { return slices.Clone(h.prefixes) }

// Handles reports whether r is for one of the handler's services.
func (h *Handler) Handles(r *http.Request) bool {
	return slices.ContainsFunc(h.prefixes, func(p string) bool { return strings.HasPrefix(r.URL.Path, p) })
}

// WriteError answers r, refused before it reached the transcoder, with err
// (a gRPC status error: code, message and details such as ErrorInfo and
// BadRequest) in the protocol r speaks: Connect's JSON error body (unary),
// its end-of-stream message (streams), or gRPC-Web's trailers.
func (h *Handler) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	st := status.Convert(err)
	ce := connect.NewError(connect.Code(st.Code()), fmt.Errorf("%s", st.Message()))
	for _, d := range st.Details() {
		if m, ok := d.(proto.Message); ok {
			if detail, err := connect.NewErrorDetail(m); err == nil {
				ce.AddDetail(detail)
			}
		}
	}
	h.errors.Write(w, r, ce)
}

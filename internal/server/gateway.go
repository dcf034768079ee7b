package server

import (
	"context"
	"net/http"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// newGateway returns the REST/JSON gateway: it calls the gRPC server over
// a client connection, so interceptors (logs, metrics, limits) apply to
// REST calls too and WatchGame streams as newline-delimited JSON, one
// flushed line per event.
func newGateway(grpcAddr string) (http.Handler, *grpc.ClientConn, error) {
	conn, err := gatewayClient(grpcAddr)
	if err != nil {
		return nil, nil, err
	}
	mux := runtime.NewServeMux(
		runtime.WithMarshalerOption(runtime.MIMEWildcard, &runtime.JSONPb{
			MarshalOptions:   protojson.MarshalOptions{UseProtoNames: true},
			UnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: false},
		}),
		runtime.WithErrorHandler(errorHandler),
		runtime.WithStreamErrorHandler(streamErrorHandler),
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
	return mux, conn, nil
}

// httpStatus maps a status to its HTTP code: the usual gRPC mapping,
// except that a failed etag or ply precondition is 412 Precondition
// Failed (the HTTP meaning of a failed If-Match) and any other ABORTED is
// 409 Conflict.
func httpStatus(st *status.Status) int {
	if st.Code() == codes.Aborted {
		for _, d := range st.Details() {
			if info, ok := d.(*errdetails.ErrorInfo); ok && (info.Reason == "ETAG_MISMATCH" || info.Reason == "PLY_MISMATCH") {
				return http.StatusPreconditionFailed
			}
		}
		return http.StatusConflict
	}
	return runtime.HTTPStatusFromCode(st.Code())
}

func errorHandler(ctx context.Context, mux *runtime.ServeMux, m runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
	st := status.Convert(err)
	code := httpStatus(st)
	runtime.DefaultHTTPErrorHandler(ctx, mux, m, &statusOverride{ResponseWriter: w, code: code}, r, err)
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

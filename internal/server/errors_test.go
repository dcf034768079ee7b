package server

import (
	"testing"
	"unicode/utf8"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// An error whose text or metadata quotes invalid UTF-8 from a request is
// still an error with the error model's details: a status cannot carry
// invalid UTF-8 (its details would not marshal, and clients could not
// decode it), so the bytes are replaced, never the error lost.
func TestErrorsWithInvalidUTF8(t *testing.T) {
	for name, err := range map[string]error{
		"invalidStatus": invalidStatus("moves[0]", "bad move \"e2-d3\xff\""),
		"withInfo":      withInfo(codes.NotFound, "no route GET /v1/\xff", reasonRouteNotFound, map[string]string{"path": "/v1/\xff"}),
	} {
		if err == nil {
			t.Errorf("%s: nil error", name)
			continue
		}
		st := status.Convert(err)
		if !utf8.ValidString(st.Message()) {
			t.Errorf("%s: message %q is not valid UTF-8", name, st.Message())
		}
		var info *errdetails.ErrorInfo
		for _, d := range st.Details() {
			if i, ok := d.(*errdetails.ErrorInfo); ok {
				info = i
			}
		}
		if info == nil {
			t.Errorf("%s: no ErrorInfo in %v", name, st.Details())
			continue
		}
		for k, v := range info.GetMetadata() {
			if !utf8.ValidString(v) {
				t.Errorf("%s: metadata %s = %q is not valid UTF-8", name, k, v)
			}
		}
	}
}

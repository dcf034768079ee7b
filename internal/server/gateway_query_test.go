package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestQueryDecodeErrorNamesTheFieldPath: grpc-gateway names only the last
// segment of a query parameter it cannot parse ("parsing field
// \"no_progress_limit\""); the violation names the parameter's whole path,
// as the client sent it (in proto names), so that
// GET /v1/tablebase:probe?variant.no_progress_limit=abc is refused on
// variant.no_progress_limit, as the service's own check of -1 is.
func TestQueryDecodeErrorNamesTheFieldPath(t *testing.T) {
	for query, want := range map[string]string{
		"position=R:RMh1:BMa8:0&variant.no_progress_limit=abc": "variant.no_progress_limit",
		"position=R:RMh1:BMa8:0&variant.noProgressLimit=abc":   "variant.no_progress_limit",
		"page_size=abc": "page_size",
	} {
		leaf := "no_progress_limit"
		if want == "page_size" {
			leaf = "page_size"
		}
		r := httptest.NewRequest(http.MethodGet, "/v1/x?"+query, nil)
		w := httptest.NewRecorder()
		err := status.Error(codes.InvalidArgument, `parsing field "`+leaf+`": strconv.ParseInt: parsing "abc": invalid syntax`)
		errorHandler(r.Context(), runtime.NewServeMux(), &jsonMarshaler{gatewayJSONPb()}, w, r, err)
		var got struct {
			Details []struct {
				FieldViolations []struct{ Field string } `json:"field_violations"`
			}
		}
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
			t.Fatalf("%s: %v in %s", query, err, w.Body)
		}
		var fields []string
		for _, d := range got.Details {
			for _, v := range d.FieldViolations {
				fields = append(fields, v.Field)
			}
		}
		if w.Code != http.StatusBadRequest || len(fields) != 1 || fields[0] != want {
			t.Errorf("%s: HTTP %d, violations on %v; want 400 on [%s]", query, w.Code, fields, want)
		}
	}
}

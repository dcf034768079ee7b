package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Errors the REST gateway itself produces follow the error model too:
// the status JSON with an ErrorInfo, and the HTTP status that fits.
func TestGatewayOwnErrors(t *testing.T) {
	s := svStart(t, "--max-request-bytes", "2048")
	big := `{"position":{"text":"` + strings.Repeat("a", 5000) + `"}}`
	cases := []struct {
		name, method, path, body string
		status                   int
		code                     float64
		reason, field            string
	}{
		{"malformed JSON", "POST", "/v1/rules:listLegalMoves", `{bad`, 400, 3, "INVALID_REQUEST", "body"},
		{"wrong type", "POST", "/v1/rules:listLegalMoves", `{"position": 5}`, 400, 3, "INVALID_REQUEST", "body"},
		{"unknown field", "POST", "/v1/rules:listLegalMoves", `{"positon": {}}`, 400, 3, "INVALID_REQUEST", "body"},
		{"body over the limit", "POST", "/v1/rules:listLegalMoves", big, 413, 8, "LIMIT_EXCEEDED", ""},
		{"wrong method", "GET", "/v1/rules:listLegalMoves", ``, 405, 12, "INVALID_REQUEST", ""},
		{"unknown route", "GET", "/v1/nothing", ``, 404, 5, "INVALID_REQUEST", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, s.url(c.path), strings.NewReader(c.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			var st struct {
				Code    float64
				Message string
				Details []map[string]any
			}
			if err := json.Unmarshal(body, &st); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			if resp.StatusCode != c.status || st.Code != c.code || st.Message == "" {
				t.Fatalf("HTTP %d code %v %q, want HTTP %d code %v", resp.StatusCode, st.Code, st.Message, c.status, c.code)
			}
			var reason, field string
			for _, d := range st.Details {
				if r, ok := d["reason"].(string); ok {
					reason = r
				}
				if fv, ok := d["field_violations"].([]any); ok && len(fv) > 0 {
					field, _ = fv[0].(map[string]any)["field"].(string)
				}
			}
			if reason != c.reason || field != c.field {
				t.Fatalf("reason %q field %q, want %q %q (%s)", reason, field, c.reason, c.field, body)
			}
		})
	}
}

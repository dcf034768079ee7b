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
		contentType              string
		status                   int
		code                     float64
		reason, field            string
	}{
		{"malformed JSON", "POST", "/v1/rules:listLegalMoves", `{bad`, "", 400, 3, "INVALID_REQUEST", "body"},
		// A decode error names the field at fault, as a snake_case path
		// (docs/api.md, Error model), whichever JSON name the body used.
		{"wrong type", "POST", "/v1/rules:listLegalMoves", `{"position": 5}`, "", 400, 3, "INVALID_REQUEST", "position"},
		{"unknown field", "POST", "/v1/rules:listLegalMoves", `{"positon": {}}`, "", 400, 3, "INVALID_REQUEST", "positon"},
		{"bad enum, nested", "POST", "/v1/rules:listLegalMoves", `{"position": {"side_to_move": "SIDE_GREEN"}}`, "", 400, 3, "INVALID_REQUEST", "position.side_to_move"},
		{"bad value in a list", "POST", "/v1/rules:listLegalMoves",
			`{"position": {"pieces": [{"square": "a1"}, {"square": 5}]}}`, "", 400, 3, "INVALID_REQUEST", "position.pieces[1].square"},
		{"camelCase name", "POST", "/v1/rules:listLegalMoves", `{"position": {"sideToMove": 7.5}}`, "", 400, 3, "INVALID_REQUEST", "position.side_to_move"},
		{"data after the JSON", "POST", "/v1/rules:listLegalMoves", `{"position":{"text":"R:RPc4:BPb5,Pb7:0"}} junk`, "", 400, 3, "INVALID_REQUEST", "body"},
		{"a second JSON object", "POST", "/v1/rules:listLegalMoves", `{"position":{"text":"R:RPc4:BPb5,Pb7:0"}}{"x":1}`, "", 400, 3, "INVALID_REQUEST", "body"},
		{"bad query parameter", "GET", "/v1/games?page_size=abc", ``, "", 400, 3, "INVALID_REQUEST", "page_size"},
		{"body over the limit", "POST", "/v1/rules:listLegalMoves", big, "", 413, 8, "LIMIT_EXCEEDED", ""},
		// Routing errors have reasons of their own (error_reason.proto).
		{"wrong method", "GET", "/v1/rules:listLegalMoves", ``, "", 405, 12, "METHOD_NOT_ALLOWED", ""},
		// A form body must not make grpc-gateway serve the GET route.
		{"POST to a GET route, form body", "POST", "/v1/games/g1", `move=x`, "application/x-www-form-urlencoded", 405, 12, "METHOD_NOT_ALLOWED", ""},
		{"unknown route", "GET", "/v1/nothing", ``, "", 404, 5, "ROUTE_NOT_FOUND", ""},
		// No route on a game has this custom method: there is no method to
		// allow (a 405 saying POST is not allowed, with Allow: POST, would
		// contradict itself).
		{"unknown custom method on a game", "POST", "/v1/games/g1:nosuch", `{}`, "", 404, 5, "ROUTE_NOT_FOUND", ""},
		{"unknown custom method on a game, DELETE", "DELETE", "/v1/games/g1:nosuch", ``, "", 404, 5, "ROUTE_NOT_FOUND", ""},
		{"custom method on no game", "POST", "/v1/games/:move", `{}`, "", 404, 5, "ROUTE_NOT_FOUND", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, s.url(c.path), strings.NewReader(c.body))
			if c.contentType != "" {
				req.Header.Set("Content-Type", c.contentType)
			}
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

// Two Authorization headers are refused, whichever order they come in:
// the acting side must not depend on which one a proxy keeps. The watch
// stream is NDJSON and carries no gRPC metadata as HTTP headers.
func TestGatewayTokensAndStreamHeaders(t *testing.T) {
	s := svStart(t)
	resp, err := http.Post(s.url("/v1/games"), "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Game       struct{ Name string }
		RedToken   string `json:"red_token"`
		BlackToken string `json:"black_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil || created.RedToken == "" {
		t.Fatalf("create: %v %+v", err, created)
	}
	resp.Body.Close()

	req, _ := http.NewRequest("POST", s.url("/v1/"+created.Game.Name+":move"), strings.NewReader(`{"move":"e2-d3"}`))
	req.Header.Add("Authorization", "Bearer "+created.RedToken)
	req.Header.Add("Authorization", "Bearer "+created.BlackToken)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "MISSING_TOKEN") || !strings.Contains(string(body), "exactly one") {
		t.Fatalf("two tokens: HTTP %d %s; want 401 MISSING_TOKEN asking for exactly one", resp.StatusCode, body)
	}

	resp, err = http.Get(s.url("/v1/" + created.Game.Name + ":watch"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Errorf("watch Content-Type %q, want application/x-ndjson", ct)
	}
	for k := range resp.Header {
		if strings.HasPrefix(strings.ToLower(k), "grpc-metadata-") {
			t.Errorf("watch response has the header %s: %v", k, resp.Header[k])
		}
	}
}

package apicontract

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestCreateGameFieldPathsAgree: one field, one name. CreateGame's REST
// body is the request's `game` field (damone_http.yaml, body: game), and a
// field violation names the field relative to the request message
// (docs/api.md, Error model), as over gRPC: so for each field below, a
// body that does not decode there and a body that decodes but holds a bad
// value there are both refused with the field violation
// game.<the field's path in the body>.
func TestCreateGameFieldPathsAgree(t *testing.T) {
	s := startBinary(t)
	cases := []struct {
		field            string // the path in the body
		undecodable, bad string // bodies
	}{
		{"time_control.initial", `{"time_control":{"initial":5}}`, `{"time_control":{"initial":"-1s"}}`},
		{"time_control.increment", `{"time_control":{"initial":"60s","increment":true}}`, `{"time_control":{"initial":"60s","increment":"-1s"}}`},
		{"time_control.per_move", `{"time_control":{"per_move":[]}}`, `{"time_control":{"per_move":"0s"}}`},
		{"engine_opponent.move_time", `{"engine_opponent":{"side":"SIDE_BLACK","move_time":7}}`, `{"engine_opponent":{"side":"SIDE_BLACK","move_time":"0s"}}`},
		{"engine_opponent.depth", `{"engine_opponent":{"side":"SIDE_BLACK","depth":"deep"}}`, `{"engine_opponent":{"side":"SIDE_BLACK","depth":99}}`},
	}
	violation := func(body string) (string, string) {
		t.Helper()
		resp, err := http.Post("http://"+s.httpAddr+"/v1/games", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var st struct {
			Details []struct {
				FieldViolations []struct {
					Field string `json:"field"`
				} `json:"field_violations"`
			} `json:"details"`
		}
		if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(b, &st) != nil {
			t.Fatalf("CreateGame %s: HTTP %d %s; want 400 with the status JSON", body, resp.StatusCode, b)
		}
		for _, d := range st.Details {
			for _, v := range d.FieldViolations {
				return v.Field, string(b)
			}
		}
		t.Fatalf("CreateGame %s: %s; want a field violation", body, b)
		return "", ""
	}
	for _, c := range cases {
		want := "game." + c.field
		dec, decBody := violation(c.undecodable)
		val, valBody := violation(c.bad)
		if dec != val {
			t.Errorf("%s: the decode error names %q, the validation error %q; want one name for the field\n%s\n%s", c.field, dec, val, decBody, valBody)
		}
		if dec != want || val != want {
			t.Errorf("%s: field violations %q (decode) and %q (validation); want %q, the path in CreateGameRequest", c.field, dec, val, want)
		}
	}
}

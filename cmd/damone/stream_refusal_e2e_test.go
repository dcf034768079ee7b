package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// TestRESTStreamRefusals: a streaming call refused before its first
// message answers over REST like every other refused call, with the HTTP
// status and the plain status JSON (docs/api.md, The event stream), not
// the {"error": ...} line of a stream that failed after it started.
func TestRESTStreamRefusals(t *testing.T) {
	r := startReplica(t, "--max-watchers-per-game", "1")
	created, err := r.games.CreateGame(context.Background(), &damonev1.CreateGameRequest{})
	if err != nil {
		t.Fatal(err)
	}
	name := created.GetGame().GetName()
	// Hold the game's only watcher slot.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hold, err := r.games.WatchGame(ctx, &damonev1.WatchGameRequest{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hold.Recv(); err != nil {
		t.Fatal(err)
	}
	base := "http://" + r.httpAddr
	cases := []struct {
		what, method, url, body string
		status                  int
		code                    int
		reason                  string
	}{
		{"unknown game", "GET", base + "/v1/games/0193aaaa-0000-7000-8000-000000000000:watch", "", 404, 5, "GAME_NOT_FOUND"},
		{"since_sequence above the latest", "GET", base + "/v1/" + name + ":watch?since_sequence=7", "", 400, 11, "SEQUENCE_OUT_OF_RANGE"},
		{"watchers per game", "GET", base + "/v1/" + name + ":watch", "", 429, 8, "LIMIT_EXCEEDED"},
		{"analysis lines", "POST", base + "/v1/analysis:analyzePosition",
			`{"position": {"text": "R:RPc4:BPb5,Pb7:0"}, "lines": 9, "depth": 2}`, 400, 3, "INVALID_REQUEST"},
		{"analysis time cap", "POST", base + "/v1/analysis:analyzePosition",
			`{"position": {"text": "R:RPc4:BPb5,Pb7:0"}, "move_time": "3600s"}`, 429, 8, "LIMIT_EXCEEDED"},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, c.url, strings.NewReader(c.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var st struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Error   json.RawMessage `json:"error"`
			Details []struct {
				Reason string `json:"reason"`
			} `json:"details"`
		}
		if err := json.Unmarshal(body, &st); err != nil {
			t.Errorf("%s: body %q is not one JSON object: %v", c.what, body, err)
			continue
		}
		if resp.StatusCode != c.status || st.Code != c.code || st.Error != nil || len(st.Details) == 0 || st.Details[0].Reason != c.reason ||
			!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s: %d %s %s, want HTTP %d and the plain status JSON with code %d, reason %s",
				c.what, resp.StatusCode, resp.Header.Get("Content-Type"), body, c.status, c.code, c.reason)
		}
	}
}

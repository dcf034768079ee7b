package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// docs/api.md, Views: over REST, GetGame takes the view as a query
// parameter and MakeMove in its JSON body; a query parameter on the POST
// is not read (the full view, the default, is answered).
func TestViewOverREST(t *testing.T) {
	svSkip(t)
	s := svStart(t)
	call := func(method, path, token, body string) map[string]any {
		t.Helper()
		req, err := http.NewRequest(method, s.url(path), strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s %s: %d, %v", method, path, resp.StatusCode, err)
		}
		return out
	}
	created := call("POST", "/v1/games", "", "{}")
	name := created["game"].(map[string]any)["name"].(string)
	red, black := created["red_token"].(string), created["black_token"].(string)
	moves := func(g any) int {
		m, _ := g.(map[string]any)["moves"].([]any)
		return len(m)
	}
	if got := moves(call("POST", "/v1/"+name+":move?view=GAME_VIEW_BASIC", red, `{"move": "e2-d3"}`)["game"]); got != 1 {
		t.Errorf("MakeMove with view in the query: %d moves in the answer; want the full view (1 move): the query is not read", got)
	}
	if got := moves(call("POST", "/v1/"+name+":move", black, `{"move": "a4-b3", "view": "GAME_VIEW_BASIC"}`)["game"]); got != 0 {
		t.Errorf("MakeMove with view in the body: %d moves in the answer; want the basic view (none)", got)
	}
	if got := moves(call("GET", "/v1/"+name+"?view=GAME_VIEW_BASIC", "", "")); got != 0 {
		t.Errorf("GetGame with view in the query: %d moves; want none", got)
	}
	if got := moves(call("GET", "/v1/"+name, "", "")); got != 2 {
		t.Errorf("GetGame without a view: %d moves; want both", got)
	}
}

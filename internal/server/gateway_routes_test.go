package server

import (
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestGatewayRouteTablesMatchHTTPRules: the gateway's own knowledge of its
// routes (the method of each route on a game, for 405s and their Allow
// header; the routes whose body is one field, for decode errors' field
// paths) is what damone_http.yaml says.
func TestGatewayRouteTablesMatchHTTPRules(t *testing.T) {
	data, err := os.ReadFile("../../proto/damone/v1/damone_http.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		HTTP struct {
			Rules []struct {
				Selector, Get, Post, Body string
			} `yaml:"rules"`
		} `yaml:"http"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil || len(cfg.HTTP.Rules) == 0 {
		t.Fatalf("damone_http.yaml: %v", err)
	}
	verbs := 0
	for _, r := range cfg.HTTP.Rules {
		method, path := "GET", r.Get
		if r.Post != "" {
			method, path = "POST", r.Post
		}
		dot := strings.LastIndex(r.Selector, ".")
		rpc := "/" + r.Selector[:dot] + "/" + r.Selector[dot+1:] // the gRPC full method name
		want := r.Body
		if want == "*" {
			want = ""
		}
		if bodyFields[rpc] != want {
			t.Errorf("%s: body %q; bodyFields has %q", r.Selector, r.Body, bodyFields[rpc])
		}
		if rest, ok := strings.CutPrefix(path, "/v1/{name=games/*}"); ok {
			verbs++
			concrete := "/v1/games/g1" + rest
			if got, ok := gameRouteMethod(concrete); !ok || got != method {
				t.Errorf("%s: %s %s; gameRouteMethod says %q (%v)", r.Selector, method, concrete, got, ok)
			}
			if got := allowedMethods(concrete); got != method {
				t.Errorf("%s: Allow %q on %s; want %q", r.Selector, got, concrete, method)
			}
		} else if got := allowedMethods(path); !strings.Contains(got, method) {
			t.Errorf("%s: Allow %q on %s; want it to hold %s", r.Selector, got, path, method)
		}
	}
	if verbs != len(gameVerbMethods) {
		t.Errorf("damone_http.yaml has %d routes on a game; gameVerbMethods %d", verbs, len(gameVerbMethods))
	}
}

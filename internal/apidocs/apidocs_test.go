package apidocs

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v3"
)

// TestOpenAPI3Validates: the served OpenAPI 3 document passes
// kin-openapi's validation and describes the API as docs/api.md does:
// every route of damone_http.yaml, every service, NDJSON on the three
// stream routes with the stream envelope (result, error, and heartbeat on
// the two server streams), the side token on the four calls that act for
// a side, and google.rpc.Status as the error body.
func TestOpenAPI3Validates(t *testing.T) {
	h, err := New(false)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	h.Register(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	get := func(p string) []byte {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("GET %s: %d %q", p, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		return b
	}
	v3 := get(V3Path)
	if v2 := get(V2Path); !json.Valid(v2) || !strings.Contains(string(v2), `"swagger": "2.0"`) {
		t.Fatalf("%s is not a Swagger 2.0 document", V2Path)
	}
	doc, err := openapi3.NewLoader().LoadFromData(v3)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the OpenAPI 3 document does not validate: %v", err)
	}

	rules := httpRules(t)
	ops := map[string]*openapi3.Operation{}
	for p, item := range doc.Paths.Map() {
		for m, op := range item.Operations() {
			ops[strings.ToLower(m)+" "+p] = op
		}
	}
	if len(ops) != len(rules) {
		t.Errorf("%d operations, want %d (one per HTTP rule)", len(ops), len(rules))
	}
	byRPC := map[string]*openapi3.Operation{}
	for _, op := range ops {
		byRPC[op.OperationID] = op
	}
	for _, r := range rules {
		if byRPC[r] == nil {
			t.Errorf("no operation for %s", r)
		}
	}
	for _, svc := range []string{"RulesService", "GameService", "AnalysisService", "TablebaseService"} {
		if doc.Tags.Get(svc) == nil || !strings.Contains(doc.Info.Description, svc) {
			t.Errorf("%s: no tag, or not in the description", svc)
		}
	}
	for id, op := range byRPC {
		def := op.Responses.Default()
		if def == nil || def.Value.Content.Get("application/json") == nil ||
			def.Value.Content.Get("application/json").Schema.Ref != "#/components/schemas/Status" {
			t.Errorf("%s: the error answer is not a google.rpc.Status in application/json", id)
		}
		ok := op.Responses.Value("200")
		stream := map[string]bool{"GameService_WatchGame": true, "AnalysisService_AnalyzePosition": true, "RulesService_ValidateGames": true}[id]
		if got := ok.Value.Content.Get("application/x-ndjson") != nil; got != stream {
			t.Errorf("%s: NDJSON answer %v, want %v", id, got, stream)
			continue
		}
		if !stream {
			continue
		}
		props := ok.Value.Content.Get("application/x-ndjson").Schema.Value.Properties
		if props["result"] == nil || props["error"] == nil || props["error"].Ref != "#/components/schemas/Status" {
			t.Errorf("%s: the stream envelope lacks result or error", id)
		}
		if hb := props["heartbeat"] != nil; hb != (id != "RulesService_ValidateGames") {
			t.Errorf("%s: heartbeat in the envelope %v", id, hb)
		}
	}
	for _, id := range []string{"GameService_MakeMove", "GameService_Resign", "GameService_OfferDraw", "GameService_AnswerDrawOffer"} {
		op := byRPC[id]
		if op == nil || op.Security == nil || len(*op.Security) != 1 || (*op.Security)[0]["SideToken"] == nil {
			t.Errorf("%s: does not need the side token", id)
		}
	}
	if s := doc.Components.SecuritySchemes["SideToken"]; s == nil || s.Value.Type != "http" || s.Value.Scheme != "bearer" {
		t.Errorf("SideToken is not an HTTP bearer scheme: %+v", s)
	}
}

// httpRules are the selectors of damone_http.yaml as operation ids
// (damone.v1.GameService.GetGame -> GameService_GetGame).
func httpRules(t *testing.T) []string {
	b, err := os.ReadFile("../../proto/damone/v1/damone_http.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		HTTP struct {
			Rules []struct {
				Selector string `yaml:"selector"`
			} `yaml:"rules"`
		} `yaml:"http"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range cfg.HTTP.Rules {
		ids = append(ids, strings.Replace(strings.TrimPrefix(r.Selector, "damone.v1."), ".", "_", 1))
	}
	return ids
}

// TestPageHeaders: the page and its files carry the strict CSP, and an
// unknown file is 404.
func TestPageHeaders(t *testing.T) {
	h, err := New(true)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	h.Register(mux)
	for p, want := range map[string]int{PagePath: 200, PagePath + "/swagger-ui-bundle.js": 200, PagePath + "/reference.js": 200, PagePath + "/nosuch.js": 404} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		if rec.Code != want || !strings.Contains(rec.Header().Get("Content-Security-Policy"), "default-src 'none'") {
			t.Errorf("GET %s: %d, CSP %q", p, rec.Code, rec.Header().Get("Content-Security-Policy"))
		}
	}
}

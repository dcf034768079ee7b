package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.yaml.in/yaml/v3"
)

// httpRuleCount is the number of HTTP rules in damone_http.yaml: one
// route, so one operation, per RPC.
func httpRuleCount(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("../../proto/damone/v1/damone_http.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		HTTP struct {
			Rules []map[string]any `yaml:"rules"`
		} `yaml:"http"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	return len(cfg.HTTP.Rules)
}

// TestAPIReferencePage: /docs/api renders the served OpenAPI 3 document
// with Swagger UI in a real Chromium, under the page's strict CSP: one
// operation block per route, every service a section, no CSP violation or
// other page error, nothing loaded from elsewhere.
func TestAPIReferencePage(t *testing.T) {
	s := svStart(t)
	resp, err := http.Get(s.url("/docs/api"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self';") || strings.Contains(csp, "unsafe") {
		t.Fatalf("/docs/api CSP %q", csp)
	}
	want := httpRuleCount(t)
	ctx := newTab(t, newBrowser(t))
	if err := chromedp.Do(ctx, chromedp.Navigate(s.url("/docs/api")), chromedp.WaitVisible(chromedp.CSS(".opblock"))); err != nil {
		t.Fatalf("rendering /docs/api: %v", err)
	}
	// Swagger UI renders the sections in turn: wait for every block.
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](
		fmt.Sprintf(`document.querySelectorAll(".opblock").length >= %d`, want),
		chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Errorf("waiting for %d operation blocks: %v", want, err)
	}
	ops, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(".opblock").length`))
	if err != nil {
		t.Fatal(err)
	}
	tags, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".opblock-tag")].map(e => e.getAttribute("data-tag"))`))
	if err != nil {
		t.Fatal(err)
	}
	if ops != want {
		t.Errorf("%d operation blocks, want %d (one per HTTP rule)", ops, want)
	}
	for _, svc := range []string{"RulesService", "GameService", "AnalysisService", "TablebaseService"} {
		if !strings.Contains(strings.Join(tags, " "), svc) {
			t.Errorf("no section for %s (sections %v)", svc, tags)
		}
	}
	screenshot(t, ctx, "api-reference")
	assertNoPageErrors(t, ctx)
	assertSameOrigin(t, ctx, "http://"+s.httpAddr)
	var spec struct {
		OpenAPI string `json:"openapi"`
	}
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(window.ui.specSelectors.specJson().toJS())`))
	if err != nil {
		t.Fatal(err)
	}
	if json.Unmarshal([]byte(text), &spec) != nil || !strings.HasPrefix(spec.OpenAPI, "3.0") {
		t.Errorf("the page shows a document of version %q, want the served 3.0 one", spec.OpenAPI)
	}
}

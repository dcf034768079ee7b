package main

// The TypeScript client in a real browser: clients/ts/browser/page.ts,
// bundled with esbuild (npm) and run in headless Chromium, calls damone
// over Connect and gRPC-Web with @connectrpc/connect-web.

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// cwBundle type-checks the test page with tsc and bundles it with esbuild
// (scripts/test-deps installs both from package-lock.json), returning the
// bundle.
func cwBundle(t *testing.T) []byte {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	esbuild, tsc := filepath.Join(root, "node_modules/.bin/esbuild"), filepath.Join(root, "node_modules/.bin/tsc")
	for _, p := range []string{esbuild, tsc} {
		if _, err := os.Stat(p); err != nil {
			if testing.Short() {
				t.Skipf("no %s (-short)", p)
			}
			t.Fatalf("%v: run scripts/test-deps", err)
		}
	}
	if out, err := exec.Command(tsc, "-p", filepath.Join(root, "clients/ts/browser")).CombinedOutput(); err != nil {
		t.Fatalf("tsc -p clients/ts/browser: %v\n%s", err, out)
	}
	bundle := filepath.Join(t.TempDir(), "page.js")
	if out, err := exec.Command(esbuild, filepath.Join(root, "clients/ts/browser/page.ts"), "--bundle", "--format=esm",
		"--log-level=warning", "--outfile="+bundle).CombinedOutput(); err != nil {
		t.Fatalf("esbuild: %v\n%s", err, out)
	}
	b, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cwPageResult is what the page reports (page.ts, Result).
type cwPageResult struct {
	Pieces    int
	Moves     []string
	Sequences []int
	Error     struct{ Code, Reason, Field string }
	Failure   string
	Done      bool
}

// TestConnectWebBrowser: in Chromium, a page of another origin (allowed by
// --cors-origins) makes a unary call, reads a refusal's ErrorInfo and
// BadRequest, and watches a game whose moves are played while it watches,
// over Connect and over gRPC-Web; a server without --cors-origins gives
// that page no answer it may read.
func TestConnectWebBrowser(t *testing.T) {
	bundle := cwBundle(t)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/page.js" {
			w.Header().Set("Content-Type", "text/javascript")
			w.Write(bundle)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><html lang="en"><title>damone Connect test page</title><script type="module" src="/page.js"></script></html>`))
	}))
	defer page.Close()
	s := svStart(t, "--cors-origins", page.URL)
	closed := svStart(t) // no --cors-origins
	browser := newBrowser(t)

	open := func(t *testing.T, q url.Values) (tab func(string) string) {
		t.Helper()
		ctx := newTab(t, browser)
		if _, err := chromedp.Run(ctx, chromedp.Navigate(page.URL+"/?"+q.Encode())); err != nil {
			t.Fatal(err)
		}
		return func(global string) string {
			v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.`+global+` ?? ""`))
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	wait := func(t *testing.T, what string, get func() string, ok func(string) bool) string {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			if v := get(); ok(v) {
				return v
			}
			if time.Now().After(deadline) {
				t.Fatalf("the page did not report %s within 20 s (last: %q)", what, get())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	for _, protocol := range []string{"connect", "grpc-web"} {
		t.Run(protocol, func(t *testing.T) {
			ctx := svCtx(t)
			cr := svNewGame(t, ctx, s, "")
			name := cr.GetGame().GetName()
			// Sequences 1 (created), 2 and 3 (the moves).
			get := open(t, url.Values{"api": {"http://" + s.httpAddr}, "protocol": {protocol}, "game": {name}, "until": {"3"}})
			wait(t, "the watch's first event", func() string { return get("damoneProgress") }, func(v string) bool {
				var r cwPageResult
				return json.Unmarshal([]byte(v), &r) == nil && slices.Contains(r.Sequences, 1)
			})
			svMove(t, ctx, s, name, cr.GetRedToken(), "e2-d3")
			svMove(t, ctx, s, name, cr.GetBlackToken(), "d7-e6")
			var r cwPageResult
			raw := wait(t, "its result", func() string { return get("damoneResult") }, func(v string) bool { return v != "" })
			if err := json.Unmarshal([]byte(raw), &r); err != nil {
				t.Fatalf("result %q: %v", raw, err)
			}
			if r.Failure != "" || !r.Done {
				t.Fatalf("the page failed: %s", raw)
			}
			// The standard setup (RULES.md): 8 pieces a side.
			if r.Pieces != 16 {
				t.Errorf("initial position: %d pieces, want 16", r.Pieces)
			}
			if r.Error.Code != "InvalidArgument" || r.Error.Reason != "INVALID_REQUEST" || r.Error.Field != "position.text" {
				t.Errorf("the refusal as the page read it: %+v; want InvalidArgument, INVALID_REQUEST, field position.text", r.Error)
			}
			if !slices.Equal(r.Moves, []string{"e2-d3", "d7-e6"}) || !slices.Equal(r.Sequences, []int{1, 2, 3}) {
				t.Errorf("the watch saw moves %v in events %v; want [e2-d3 d7-e6] in [1 2 3]", r.Moves, r.Sequences)
			}
		})
	}

	t.Run("no CORS by default", func(t *testing.T) {
		get := open(t, url.Values{"api": {"http://" + closed.httpAddr}, "protocol": {"connect"}})
		raw := wait(t, "its result", func() string { return get("damoneResult") }, func(v string) bool { return v != "" })
		var r cwPageResult
		if json.Unmarshal([]byte(raw), &r); r.Failure == "" || r.Pieces != 0 {
			t.Errorf("a page of another origin read an answer from a server without --cors-origins: %s", raw)
		}
	})
}

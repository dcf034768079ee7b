package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func newMux(t *testing.T) (*Site, *http.ServeMux) {
	t.Helper()
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	s.Register(mux)
	return s, mux
}

func get(mux http.Handler, path string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	return rec
}

// The page's policy, as the issue asks: nothing from elsewhere, no inline
// script.
const wantCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

func TestPageAndAssetHeaders(t *testing.T) {
	s, mux := newMux(t)
	if !regexp.MustCompile(`^/assets/[0-9a-f]{16}/$`).MatchString(s.AssetPrefix()) {
		t.Fatalf("asset prefix %q", s.AssetPrefix())
	}
	for _, path := range []string{"/", "/games/k3v9q2m7x1"} {
		rec := get(mux, path)
		h := rec.Header()
		if rec.Code != 200 || h.Get("Content-Type") != "text/html; charset=utf-8" || h.Get("Cache-Control") != "no-cache" ||
			h.Get("Content-Security-Policy") != wantCSP || h.Get("X-Content-Type-Options") != "nosniff" ||
			h.Get("Referrer-Policy") != "no-referrer" || h.Get("ETag") == "" {
			t.Fatalf("GET %s: %d %v", path, rec.Code, h)
		}
		if !strings.Contains(rec.Body.String(), `src="`+s.AssetPrefix()+`app.js"`) || strings.Contains(rec.Body.String(), "/assets/_/") {
			t.Errorf("GET %s: the page does not load the hashed app.js:\n%s", path, rec.Body)
		}
		// Revalidation with the ETag is a 304 without a body; the gzipped
		// representation has a tag of its own.
		for _, match := range []string{h.Get("ETag"), "*"} {
			if again := get(mux, path, "If-None-Match", match); again.Code != http.StatusNotModified || again.Body.Len() != 0 {
				t.Errorf("GET %s with If-None-Match %s: %d, %d bytes", path, match, again.Code, again.Body.Len())
			}
		}
		if gz := get(mux, path, "Accept-Encoding", "gzip"); gz.Header().Get("ETag") == h.Get("ETag") {
			t.Errorf("GET %s: the gzipped page has the plain page's ETag %s", path, h.Get("ETag"))
		}
	}
	rec := get(mux, s.AssetPrefix()+"app.js")
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "text/javascript; charset=utf-8" ||
		rec.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" || rec.Header().Get("Content-Security-Policy") != wantCSP {
		t.Fatalf("GET app.js: %d %v", rec.Code, rec.Header())
	}
	for _, path := range []string{"/assets/0123456789abcdef/app.js", s.AssetPrefix() + "nothere.js", "/games/a/b", "/index.html"} {
		if rec := get(mux, path); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, rec.Code)
		}
	}
}

func TestGzipNegotiation(t *testing.T) {
	s, mux := newMux(t)
	plain := get(mux, s.AssetPrefix()+"app.js")
	for _, tc := range []struct {
		accept string
		gz     bool
	}{
		{"", false}, {"gzip", true}, {"br, gzip;q=0.8", true}, {"GZIP", true},
		{"gzip;q=0", false}, {"gzip; q=0.0", false}, {"gzip;q=0.001", true}, {"identity", false}, {"x-gzip", false},
		{"gzip;level=1;q=0", false}, {"gzip;q=", false}, {"gzip;level=9", true},
	} {
		rec := get(mux, s.AssetPrefix()+"app.js", "Accept-Encoding", tc.accept)
		gz := rec.Header().Get("Content-Encoding") == "gzip"
		if gz != tc.gz {
			t.Errorf("Accept-Encoding %q: gzip %v, want %v", tc.accept, gz, tc.gz)
			continue
		}
		body := rec.Body.Bytes()
		if gz {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(body, plain.Body.Bytes()) {
			t.Errorf("Accept-Encoding %q: the body differs from the plain one", tc.accept)
		}
	}
}

// TestTransferBudget: a game page, everything it loads, gzipped, is at
// most 60 KB (the budget).
// TestPageTagFollowsItsText: the page's ETag changes with the page's own
// text, not only with its assets'.
func TestPageTagFollowsItsText(t *testing.T) {
	s, _ := newMux(t)
	if s.page.etag == s.files["app.js"].etag {
		t.Errorf("the page's ETag %s is the assets' hash", s.page.etag)
	}
	sum := sha256.Sum256(s.page.body)
	if want := `"` + hex.EncodeToString(sum[:])[:16] + `"`; s.page.etag != want {
		t.Errorf("page ETag %s, want %s (a hash of its text)", s.page.etag, want)
	}
}

func TestTransferBudget(t *testing.T) {
	s, mux := newMux(t)
	page := get(mux, "/games/x", "Accept-Encoding", "gzip")
	total := page.Body.Len()
	for name := range s.files {
		rec := get(mux, s.AssetPrefix()+name, "Accept-Encoding", "gzip")
		if rec.Code != 200 || rec.Header().Get("Content-Encoding") != "gzip" {
			t.Fatalf("%s: %d %v", name, rec.Code, rec.Header())
		}
		total += rec.Body.Len()
	}
	t.Logf("page and %d assets: %d bytes gzipped", len(s.files), total)
	if total > 60*1000 {
		t.Errorf("%d bytes gzipped, over the 60 KB budget", total)
	}
}

// TestNoInlineCode: the page has no inline script, event handler or style
// attribute (the policy would block them), and every script and style it
// loads is one of the served assets.
func TestNoInlineCode(t *testing.T) {
	s, mux := newMux(t)
	doc, err := html.Parse(strings.NewReader(get(mux, "/").Body.String()))
	if err != nil {
		t.Fatal(err)
	}
	loads := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			attr := map[string]string{}
			for _, a := range n.Attr {
				attr[a.Key] = a.Val
				if strings.HasPrefix(a.Key, "on") || a.Key == "style" {
					t.Errorf("<%s %s=%q>: inline code or style", n.Data, a.Key, a.Val)
				}
			}
			ref := attr["src"] + attr["href"]
			switch {
			case n.Data == "script" && (attr["src"] == "" || n.FirstChild != nil):
				t.Errorf("an inline <script>")
			case n.Data == "style":
				t.Errorf("an inline <style>")
			case n.Data == "script" || n.Data == "link":
				name, ok := strings.CutPrefix(ref, s.AssetPrefix())
				if _, served := s.files[name]; !ok || !served {
					t.Errorf("<%s> loads %q, not a served asset", n.Data, ref)
				}
				loads++
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if loads != 3 {
		t.Errorf("the page loads %d assets, want 3 (icon, style, app)", loads)
	}
	// Scripts build the DOM with textContent and attributes only: a
	// server's message or a position is never parsed as HTML, and nothing
	// is evaluated.
	for name, f := range s.files {
		for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "localStorage", "console."} {
			if bytes.Contains(f.body, []byte(bad)) {
				t.Errorf("%s uses %s", name, bad)
			}
		}
	}
}

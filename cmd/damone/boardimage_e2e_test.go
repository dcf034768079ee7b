package main

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestBoardImageE2E: the real binary draws a position at GET /board.svg
// with the headers of a standalone, cacheable image, and refuses each bad
// parameter with 400 in the error model, naming the parameter.
func TestBoardImageE2E(t *testing.T) {
	s := svStart(t)
	start := "R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0"
	get := func(method, query string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, s.url("/board.svg?"+query), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}

	q := url.Values{"position": {start}, "flip": {"true"}, "size": {"300"}, "last_move": {"e2-d3"}}.Encode()
	resp, body := get("GET", q)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /board.svg: %d %s", resp.StatusCode, body)
	}
	for h, want := range map[string]string{
		"Content-Type":            "image/svg+xml",
		"Cache-Control":           "public, max-age=86400, immutable",
		"Content-Security-Policy": "default-src 'none'",
		"X-Content-Type-Options":  "nosniff",
	} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	var svg struct {
		XMLName xml.Name
		Width   string `xml:"width,attr"`
		Title   string `xml:"title"`
	}
	if err := xml.Unmarshal(body, &svg); err != nil {
		t.Fatalf("the image does not parse: %v", err)
	}
	if svg.XMLName.Local != "svg" || svg.Width != "300" || svg.Title != "Italian Damone position, Red to move, seen from Black" {
		t.Errorf("image: <%s width=%q> title %q", svg.XMLName.Local, svg.Width, svg.Title)
	}
	if n := strings.Count(string(body), `class="piece"`); n != 16 {
		t.Errorf("%d pieces drawn, want the start's 16", n)
	}

	resp, body = get("HEAD", q)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" || len(body) != 0 {
		t.Errorf("HEAD: %d %q, %d bytes of body", resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
	}

	pos := "position=" + url.QueryEscape(start)
	for _, c := range []struct{ query, field, text string }{
		{"", "position", "position"},
		{"position=R:RMh1:BMa1:0", "position", "light square"},
		{"position=R:RMh1:BMa8:0&position=R:RMh1:BMa8:0", "position", "once"},
		{pos + "&flip=yes", "flip", `"yes"`},
		{pos + "&size=100", "size", "120 to 1200"},
		{pos + "&size=1201", "size", "120 to 1200"},
		{pos + "&size=big", "size", `"big"`},
		{pos + "&last_move=e2-e3", "last_move", "light square"},
		{pos + "&last_move=e2xd3", "last_move", "leap"},
	} {
		resp, body := get("GET", c.query)
		var e struct {
			Code    int
			Message string
			Details []struct {
				Type            string `json:"@type"`
				Reason          string
				FieldViolations []struct{ Field, Description string } `json:"field_violations"`
			}
		}
		if err := json.Unmarshal(body, &e); err != nil {
			t.Errorf("?%s: %d, body %s: %v", c.query, resp.StatusCode, body, err)
			continue
		}
		field, reason := "", ""
		for _, d := range e.Details {
			if strings.HasSuffix(d.Type, "google.rpc.BadRequest") && len(d.FieldViolations) == 1 {
				field = d.FieldViolations[0].Field
			}
			if strings.HasSuffix(d.Type, "google.rpc.ErrorInfo") {
				reason = d.Reason
			}
		}
		if resp.StatusCode != 400 || e.Code != 3 || field != c.field || reason != "INVALID_REQUEST" ||
			!strings.Contains(e.Message, c.text) || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Errorf("?%s: %d %s %s, want 400 INVALID_ARGUMENT (3) naming %s, message with %q", c.query, resp.StatusCode,
				resp.Header.Get("Content-Type"), body, c.field, c.text)
		}
	}

	// A route like the gateway's: another method is 405 METHOD_NOT_ALLOWED.
	resp, body = get("POST", pos)
	if resp.StatusCode != 405 || !strings.Contains(string(body), `"reason":"METHOD_NOT_ALLOWED"`) {
		t.Errorf("POST /board.svg: %d %s, want 405 METHOD_NOT_ALLOWED", resp.StatusCode, body)
	}
}

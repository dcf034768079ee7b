package apicontract

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestMethodNotAllowedNamesAllow: every route of damone_http.yaml, and
// /board.svg, asked with a method it does not serve is answered 405
// METHOD_NOT_ALLOWED with an Allow header (RFC 9110, section 15.5.6)
// listing exactly the methods its rules give that path (HEAD too for
// /board.svg, which serves it).
func TestMethodNotAllowedNamesAllow(t *testing.T) {
	s := startBinary(t)
	// The methods of the rules, by concrete path.
	allowed := map[string][]string{"/board.svg": {"GET", "HEAD"}}
	for _, r := range loadHTTPRules(t) {
		method, path := "GET", r.Get
		if r.Post != "" {
			method, path = "POST", r.Post
		}
		path = strings.ReplaceAll(path, "{name=games/*}", "games/k3v9q2m7x1")
		if strings.ContainsAny(path, "{}") {
			t.Fatalf("rule %s: path %q has a pattern this test does not know", r.Selector, path)
		}
		allowed[path] = append(allowed[path], method)
	}
	for path, methods := range allowed {
		slices.Sort(methods)
		want := strings.Join(methods, ", ")
		for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"} {
			if slices.Contains(methods, m) || (m == "HEAD" && slices.Contains(methods, "GET") && path == "/board.svg") {
				continue
			}
			req, err := http.NewRequest(m, "http://"+s.httpAddr+path, strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("%s %s: HTTP %d %s; want 405", m, path, resp.StatusCode, body)
				continue
			}
			if got := resp.Header.Values("Allow"); len(got) != 1 || got[0] != want {
				t.Errorf("%s %s: 405 with Allow %q; want %q", m, path, got, want)
			}
			if m == "HEAD" {
				continue // no body
			}
			var st struct {
				Details []struct {
					Reason string `json:"reason"`
				} `json:"details"`
			}
			if json.Unmarshal(body, &st) != nil || len(st.Details) == 0 || st.Details[0].Reason != "METHOD_NOT_ALLOWED" {
				t.Errorf("%s %s: 405 %s; want the status JSON with METHOD_NOT_ALLOWED", m, path, body)
			}
		}
	}
}

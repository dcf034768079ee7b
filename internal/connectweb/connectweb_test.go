package connectweb

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	_ "google.golang.org/grpc/encoding/gzip" // the server side of a gzip call, as in the real server
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

func newHandler(t *testing.T, opts Options) *Handler {
	t.Helper()
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, health.NewServer())
	h, err := New(srv, opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestPrefixesAndHandles(t *testing.T) {
	h := newHandler(t, Options{})
	if got := h.Prefixes(); !slices.Equal(got, []string{"/grpc.health.v1.Health/"}) {
		t.Errorf("Prefixes() = %v", got)
	}
	for path, want := range map[string]bool{"/grpc.health.v1.Health/Check": true, "/grpc.health.v1.Healthz": false, "/v1/games": false} {
		if got := h.Handles(httptest.NewRequest("POST", path, nil)); got != want {
			t.Errorf("Handles(%s) = %v, want %v", path, got, want)
		}
	}
}

// refusal is a LIMIT_EXCEEDED status with its ErrorInfo.
func refusal(t *testing.T) error {
	st, err := status.New(codes.ResourceExhausted, "too big").WithDetails(&errdetails.ErrorInfo{
		Reason: "LIMIT_EXCEEDED", Domain: "damone.v1", Metadata: map[string]string{"limit": "request_bytes"}})
	if err != nil {
		t.Fatal(err)
	}
	return st.Err()
}

// TestWriteError: a refusal in each protocol's error shape (the Connect
// protocol's documented JSON error, its end-of-stream message, gRPC-Web's
// status headers), with the ErrorInfo detail.
func TestWriteError(t *testing.T) {
	h := newHandler(t, Options{})
	call := func(ctype string, hdr ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/grpc.health.v1.Health/Check", nil)
		r.Header.Set("Content-Type", ctype)
		for i := 0; i < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		w := httptest.NewRecorder()
		h.WriteError(w, r, refusal(t))
		return w
	}
	type connectErr struct {
		Code    string
		Message string
		Details []struct{ Type, Value string }
	}
	checkConnect := func(t *testing.T, e connectErr) {
		t.Helper()
		if e.Code != "resource_exhausted" || e.Message != "too big" || len(e.Details) != 1 || e.Details[0].Type != "google.rpc.ErrorInfo" {
			t.Fatalf("error %+v", e)
		}
		b, _ := base64.RawStdEncoding.DecodeString(strings.TrimRight(e.Details[0].Value, "="))
		var info errdetails.ErrorInfo
		if err := proto.Unmarshal(b, &info); err != nil || info.Reason != "LIMIT_EXCEEDED" || info.Metadata["limit"] != "request_bytes" {
			t.Errorf("ErrorInfo %v (%v)", &info, err)
		}
	}

	t.Run("Connect unary", func(t *testing.T) {
		w := call("application/proto", "Connect-Protocol-Version", "1")
		var e connectErr
		if w.Code != http.StatusTooManyRequests || json.Unmarshal(w.Body.Bytes(), &e) != nil {
			t.Fatalf("HTTP %d %s", w.Code, w.Body)
		}
		checkConnect(t, e)
	})
	t.Run("Connect stream", func(t *testing.T) {
		w := call("application/connect+proto")
		b := w.Body.Bytes()
		// One envelope: flags 0x02 (end of stream), length, JSON.
		if w.Code != 200 || len(b) < 5 || b[0] != 2 || int(binary.BigEndian.Uint32(b[1:5])) != len(b)-5 {
			t.Fatalf("HTTP %d % x", w.Code, b)
		}
		var end struct{ Error connectErr }
		if err := json.Unmarshal(b[5:], &end); err != nil {
			t.Fatal(err)
		}
		checkConnect(t, end.Error)
	})
	t.Run("gRPC-Web", func(t *testing.T) {
		w := call("application/grpc-web+proto", "X-Grpc-Web", "1")
		if w.Header().Get("Grpc-Status") != "8" || w.Header().Get("Grpc-Message") != "too big" {
			t.Fatalf("HTTP %d headers %v", w.Code, w.Header())
		}
		b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(w.Header().Get("Grpc-Status-Details-Bin"), "="))
		var st spb.Status
		if err != nil || proto.Unmarshal(b, &st) != nil || len(st.Details) != 1 {
			t.Fatalf("Grpc-Status-Details-Bin %q: %v", w.Header().Get("Grpc-Status-Details-Bin"), err)
		}
		var info errdetails.ErrorInfo
		if err := st.Details[0].UnmarshalTo(&info); err != nil || info.Reason != "LIMIT_EXCEEDED" {
			t.Errorf("detail %v: %v", st.Details[0], err)
		}
	})
}

// TestCORS: no CORS headers without origins; with them, a preflight of a
// listed origin is allowed with the protocols' headers and the extra ones.
func TestCORS(t *testing.T) {
	preflight := func(h http.Handler, origin string) http.Header {
		r := httptest.NewRequest("OPTIONS", "/grpc.health.v1.Health/Check", nil)
		r.Header.Set("Origin", origin)
		r.Header.Set("Access-Control-Request-Method", "POST")
		r.Header.Set("Access-Control-Request-Headers", "authorization,connect-protocol-version,content-type") // sorted, as browsers send it
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Header()
	}
	if got := preflight(newHandler(t, Options{}), "https://a.example").Get("Access-Control-Allow-Origin"); got != "" {
		t.Errorf("without origins: Access-Control-Allow-Origin %q", got)
	}
	h := newHandler(t, Options{CORSOrigins: []string{"https://a.example"}, CORSHeaders: []string{"Authorization"}})
	got := preflight(h, "https://a.example")
	if got.Get("Access-Control-Allow-Origin") != "https://a.example" || !strings.Contains(strings.ToLower(got.Get("Access-Control-Allow-Headers")), "authorization") {
		t.Errorf("listed origin: %v", got)
	}
	if got := preflight(h, "https://b.example").Get("Access-Control-Allow-Origin"); got != "" {
		t.Errorf("origin not listed: Access-Control-Allow-Origin %q", got)
	}
}

// connectJSON posts body to path as a Connect unary JSON call and returns
// the HTTP status and the decoded Connect error body.
func connectJSON(t *testing.T, h http.Handler, path, body string) (int, map[string]any) {
	t.Helper()
	r := httptest.NewRequest("POST", path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Connect-Protocol-Version", "1")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var got map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatalf("%s: body %q is not a Connect JSON error: %v", path, w.Body.String(), err)
	}
	return w.Code, got
}

// TestUndecodableJSONIsInvalidArgument: a Connect JSON request that does
// not decode as the method's request (a string where the message has a
// number... here a number where the string field service is) is the
// client's fault: invalid_argument (HTTP 400) naming the field, not
// unknown (500); a syntax error names the body.
func TestUndecodableJSONIsInvalidArgument(t *testing.T) {
	h := newHandler(t, Options{DecodeError: func(body []byte, err error) error {
		field := "body"
		if strings.Contains(err.Error(), "service") {
			field = "service"
		}
		return status.Error(codes.InvalidArgument, field+": "+err.Error())
	}})
	for body, field := range map[string]string{`{"service": 5}`: "service", `{`: "body"} {
		code, got := connectJSON(t, h, "/grpc.health.v1.Health/Check", body)
		if code != http.StatusBadRequest || got["code"] != "invalid_argument" {
			t.Errorf("%s: HTTP %d, %v; want 400, invalid_argument", body, code, got)
		}
		if msg, _ := got["message"].(string); !strings.HasPrefix(msg, field+": ") {
			t.Errorf("%s: message %q does not name %s", body, msg, field)
		}
	}
	// Without the hook, still invalid_argument, naming the body.
	code, got := connectJSON(t, newHandler(t, Options{}), "/grpc.health.v1.Health/Check", `{"service": 5}`)
	if msg, _ := got["message"].(string); code != http.StatusBadRequest || got["code"] != "invalid_argument" || !strings.HasPrefix(msg, "body: ") {
		t.Errorf("no hook: HTTP %d, %v; want 400, invalid_argument, body: ...", code, got)
	}
}

// TestUnknownMethod: a Connect call of a method the service does not have
// gets Connect's error for it (unimplemented; the Connect protocol's HTTP
// status for that code is 501) naming the method, not a bare text "Not
// Found".
func TestUnknownMethod(t *testing.T) {
	code, got := connectJSON(t, newHandler(t, Options{}), "/grpc.health.v1.Health/Nope", `{}`)
	if code != http.StatusNotImplemented || got["code"] != "unimplemented" {
		t.Errorf("HTTP %d, %v; want 501, unimplemented", code, got)
	}
	if msg, _ := got["message"].(string); !strings.Contains(msg, "/grpc.health.v1.Health/Nope") {
		t.Errorf("message %q does not name the method", msg)
	}
}

// gzipConnect posts a gzip-encoded Connect JSON body (raw as given) to the
// health check.
func gzipConnect(t *testing.T, h http.Handler, body []byte) (int, map[string]any) {
	t.Helper()
	r := httptest.NewRequest("POST", "/grpc.health.v1.Health/Check", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Connect-Protocol-Version", "1")
	r.Header.Set("Content-Encoding", "gzip")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var got map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatalf("body %q is not a Connect JSON error: %v", w.Body.String(), err)
	}
	return w.Code, got
}

// TestGzipBounded: a gzip request is refused once it decompresses beyond
// MaxRequestBytes, with TooLarge (here 1 MiB of JSON from about a KiB on
// the wire, over a limit of 64 KiB), and gzip that is not gzip is the
// client's fault: invalid_argument, not unknown (500).
func TestGzipBounded(t *testing.T) {
	tooLarge := status.Error(codes.ResourceExhausted, "too large once decompressed")
	h := newHandler(t, Options{MaxRequestBytes: 64 << 10, TooLarge: tooLarge})
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(`{"service":"` + strings.Repeat("x", 1<<20) + `"}`))
	zw.Close()
	code, got := gzipConnect(t, h, z.Bytes())
	if code != http.StatusTooManyRequests || got["code"] != "resource_exhausted" || got["message"] != "too large once decompressed" {
		t.Errorf("a 1 MiB request in %d bytes of gzip: HTTP %d, %v; want 429, resource_exhausted, TooLarge", z.Len(), code, got)
	}
	code, got = gzipConnect(t, h, []byte("not gzip"))
	if msg, _ := got["message"].(string); code != http.StatusBadRequest || got["code"] != "invalid_argument" || !strings.HasPrefix(msg, "body: ") {
		t.Errorf("bad gzip: HTTP %d, %v; want 400, invalid_argument, body: ...", code, got)
	}
	// Within the limit, served, an empty message (no bytes of protobuf)
	// too.
	z.Reset()
	zw = gzip.NewWriter(&z)
	zw.Write([]byte(`{"service":""}`))
	zw.Close()
	r := httptest.NewRequest("POST", "/grpc.health.v1.Health/Check", bytes.NewReader(z.Bytes()))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Connect-Protocol-Version", "1")
	r.Header.Set("Content-Encoding", "gzip")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Errorf("a small gzip request: HTTP %d %s; want 200", w.Code, w.Body)
	}
}

// TestBadTimeoutHeader: a malformed Connect-Timeout-Ms or grpc-timeout is
// refused in the caller's protocol as invalid_argument naming the header,
// not with a plain-text 400 that Connect and gRPC-Web clients cannot read.
func TestBadTimeoutHeader(t *testing.T) {
	h := newHandler(t, Options{})
	for _, v := range []string{"abc", "-5", "99999999999999999999", "1.5"} {
		r := httptest.NewRequest("POST", "/grpc.health.v1.Health/Check", strings.NewReader("{}"))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Connect-Protocol-Version", "1")
		r.Header.Set("Connect-Timeout-Ms", v)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		var got map[string]any
		json.Unmarshal(w.Body.Bytes(), &got)
		if msg, _ := got["message"].(string); w.Code != http.StatusBadRequest || got["code"] != "invalid_argument" || !strings.HasPrefix(msg, "Connect-Timeout-Ms: ") {
			t.Errorf("Connect-Timeout-Ms %q: HTTP %d %q; want 400, invalid_argument, naming the header", v, w.Code, w.Body)
		}
	}
	for _, v := range []string{"abc", "5x", "123456789S", "S"} {
		r := httptest.NewRequest("POST", "/grpc.health.v1.Health/Check", nil)
		r.Header.Set("Content-Type", "application/grpc-web+proto")
		r.Header.Set("Grpc-Timeout", v)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if got := w.Header().Get("Grpc-Status"); got != "3" || !strings.HasPrefix(w.Header().Get("Grpc-Message"), "grpc-timeout: ") {
			t.Errorf("grpc-timeout %q: HTTP %d, grpc-status %q, message %q; want 3 naming the header", v, w.Code, got, w.Header().Get("Grpc-Message"))
		}
	}
	// Well-formed ones are served.
	r := httptest.NewRequest("POST", "/grpc.health.v1.Health/Check", strings.NewReader("{}"))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Connect-Protocol-Version", "1")
	r.Header.Set("Connect-Timeout-Ms", "5000")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Errorf("Connect-Timeout-Ms 5000: HTTP %d %s", w.Code, w.Body)
	}
}

// TestWrongHTTPMethod: a Connect or gRPC-Web call by another method than
// POST gets HTTP 405 with Allow: POST (as connect-go answers a method it
// does not serve) and Connect's JSON error, unimplemented, naming the
// method and the path; not vanguard's plain-text "Method Not Allowed" or,
// for GET, its 415 about an empty sub-format.
func TestWrongHTTPMethod(t *testing.T) {
	h := newHandler(t, Options{})
	const path = "/grpc.health.v1.Health/Check"
	for _, c := range []struct {
		method, ctype string
		version       bool // Connect-Protocol-Version: 1
	}{
		{"PUT", "application/json", true},
		{"DELETE", "application/proto", true},
		{"PUT", "application/grpc-web+proto", false},
		{"PATCH", "application/connect+json", false},
		{"GET", "", false},
	} {
		r := httptest.NewRequest(c.method, path, strings.NewReader("{}"))
		if c.ctype != "" {
			r.Header.Set("Content-Type", c.ctype)
		}
		if c.version {
			r.Header.Set("Connect-Protocol-Version", "1")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		var got map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
			t.Errorf("%s %s (%s): HTTP %d, body %q is not a Connect JSON error", c.method, path, c.ctype, w.Code, w.Body.String())
			continue
		}
		msg, _ := got["message"].(string)
		if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "POST" || got["code"] != "unimplemented" ||
			!strings.Contains(msg, c.method+" "+path) || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
			t.Errorf("%s (%s): HTTP %d, Allow %q, Content-Type %q, %v; want 405, POST, application/json, unimplemented naming %s %s",
				c.method, c.ctype, w.Code, w.Header().Get("Allow"), w.Header().Get("Content-Type"), got, c.method, path)
		}
	}
}

// TestUnknownService: a Connect call of a service the server does not
// have, in the package of one it has, is the handler's (Handles), and is
// unimplemented (HTTP 501, the Connect protocol's status for the code)
// naming the path; a path outside the package, or a request without any
// protocol header, is not the handler's.
func TestUnknownService(t *testing.T) {
	h := newHandler(t, Options{})
	connect := func(method, path string) *http.Request {
		r := httptest.NewRequest(method, path, strings.NewReader("{}"))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Connect-Protocol-Version", "1")
		return r
	}
	const path = "/grpc.health.v1.Nope/Nope"
	for _, c := range []struct {
		r    *http.Request
		want bool
	}{
		{connect("POST", path), true},
		{connect("PUT", path), true},
		{httptest.NewRequest("POST", path, nil), false},
		{connect("POST", "/grpc.health.v2.Health/Check"), false},
		{connect("POST", "/grpc.health.Health/Check"), false},
		{connect("POST", "/grpc.health.v1.Nope"), false},
		{connect("POST", "/v1/games"), false},
	} {
		if got := h.Handles(c.r); got != c.want {
			t.Errorf("Handles(%s %s, Content-Type %q) = %v, want %v", c.r.Method, c.r.URL.Path, c.r.Header.Get("Content-Type"), got, c.want)
		}
	}
	code, got := connectJSON(t, h, path, `{}`)
	if msg, _ := got["message"].(string); code != http.StatusNotImplemented || got["code"] != "unimplemented" || !strings.Contains(msg, path) {
		t.Errorf("HTTP %d, %v; want 501, unimplemented naming %s", code, got, path)
	}
}

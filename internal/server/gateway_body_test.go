package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// bodyServer serves guard around a handler that answers the length of
// the body it reads; answers to refused bodies are "<code> <message>",
// with the status's HTTP code (413 for a body over the limit).
func bodyServer(t testing.TB, bound time.Duration, limit int) (*bodies, *httptest.Server, *atomic.Int64) {
	t.Helper()
	var timeouts atomic.Int64
	bs := newBodies(bound, limit, func() { timeouts.Add(1) })
	bs.answer = func(w http.ResponseWriter, _ *http.Request, err error) {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			return
		}
		st := status.Convert(err)
		w.WriteHeader(httpStatus(st))
		fmt.Fprintf(w, "%d %s", st.Code(), st.Message())
	}
	srv := httptest.NewServer(bs.guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		fmt.Fprint(w, n)
	})))
	t.Cleanup(srv.Close)
	return bs, srv, &timeouts
}

// stalledPost writes a POST announcing n bytes of body and sends sent of
// them; the answer is read from the returned reader.
func stalledPost(t *testing.T, srv *httptest.Server, n int, sent string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", n, sent)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	return c, bufio.NewReader(c)
}

func readAnswer(t *testing.T, br *bufio.Reader) (int, string) {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(b)
}

// TestBodiesBound: a body not in full within the bound is refused with
// DEADLINE_EXCEEDED (504), not before the bound, and counted once; a
// complete body reaches the handler whole, and one over the limit is
// refused as too large; neither is counted.
func TestBodiesBound(t *testing.T) {
	const bound = 300 * time.Millisecond
	_, srv, timeouts := bodyServer(t, bound, 64)
	start := time.Now()
	_, br := stalledPost(t, srv, 10, "12345")
	code, body := readAnswer(t, br)
	took := time.Since(start)
	if code != http.StatusGatewayTimeout || !strings.HasPrefix(body, fmt.Sprintf("%d ", codes.DeadlineExceeded)) || !strings.Contains(body, "max-call-duration") {
		t.Errorf("half a body: %d %q; want 504, DEADLINE_EXCEEDED naming max-call-duration", code, body)
	}
	if took < bound || took > bound+2*time.Second {
		t.Errorf("half a body answered after %v; want just after the bound %v", took, bound)
	}
	if n := timeouts.Load(); n != 1 {
		t.Errorf("timeouts counted: %d, want 1", n)
	}

	resp, err := http.Post(srv.URL, "text/plain", strings.NewReader(strings.Repeat("x", 64)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "64" {
		t.Errorf("a body of 64 bytes, the limit: %d %q; want 200 \"64\"", resp.StatusCode, b)
	}
	resp, err = http.Post(srv.URL, "text/plain", strings.NewReader(strings.Repeat("x", 65)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a body of 65 bytes: %d; want 413", resp.StatusCode)
	}
	if n := timeouts.Load(); n != 1 {
		t.Errorf("timeouts counted after two bodies in time: %d, want still 1", n)
	}
}

// TestBodiesStop: at stop, a body being read, and one whose request
// starts after, get shutdownRequestGrace more, however long the bound.
func TestBodiesStop(t *testing.T) {
	bs, srv, timeouts := bodyServer(t, time.Hour, 64)
	_, before := stalledPost(t, srv, 10, "")
	time.Sleep(100 * time.Millisecond) // its handler is reading
	stopped := time.Now()
	bs.stop()
	_, after := stalledPost(t, srv, 10, "")
	for i, br := range []*bufio.Reader{before, after} {
		code, body := readAnswer(t, br)
		took := time.Since(stopped)
		if code != http.StatusGatewayTimeout || !strings.Contains(body, "shutting down") {
			t.Errorf("stalled body %d at stop: %d %q; want 504 saying the server is shutting down", i, code, body)
		}
		if took < shutdownRequestGrace-50*time.Millisecond || took > shutdownRequestGrace+2*time.Second {
			t.Errorf("stalled body %d answered %v after stop; want about %v", i, took, shutdownRequestGrace)
		}
	}
	if n := timeouts.Load(); n != 2 {
		t.Errorf("timeouts counted: %d, want 2", n)
	}
}

// BenchmarkBodyGuard is what guard adds to a REST call with a body of
// about 100 bytes (an applyMove), over a kept-alive loopback connection:
// guard=off is a handler reading the body into a pooled buffer, as the
// gateway did before.
func BenchmarkBodyGuard(b *testing.B) {
	body := `{"move":"e2-d3","position":{"text":"R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0"}}`
	read := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kept := bodyPool.Get().(*bytes.Buffer)
		kept.Reset()
		n, _ := kept.ReadFrom(r.Body)
		bodyPool.Put(kept)
		fmt.Fprint(w, n)
	})
	for _, on := range []bool{false, true} {
		b.Run(map[bool]string{false: "guard=off", true: "guard=on"}[on], func(b *testing.B) {
			h := http.Handler(read)
			if on {
				bs := newBodies(DefaultMaxCallDuration, DefaultMaxRequestBytes, nil)
				h = bs.guard(read)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			client := srv.Client()
			b.ReportAllocs()
			for b.Loop() {
				resp, err := client.Post(srv.URL, "application/json", strings.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}

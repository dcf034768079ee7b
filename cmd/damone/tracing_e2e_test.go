package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
)

// otlpReceiver is an OTLP/gRPC trace collector in the test: it keeps every
// span it is sent.
type otlpReceiver struct {
	coltrace.UnimplementedTraceServiceServer
	mu    sync.Mutex
	spans []*tracepb.Span
	raw   []string // each export as JSON, to search for secrets
}

func (r *otlpReceiver) Export(_ context.Context, req *coltrace.ExportTraceServiceRequest) (*coltrace.ExportTraceServiceResponse, error) {
	b, _ := protojson.Marshal(req)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.raw = append(r.raw, string(b))
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			r.spans = append(r.spans, ss.GetSpans()...)
		}
	}
	return &coltrace.ExportTraceServiceResponse{}, nil
}

func (r *otlpReceiver) snapshot() ([]*tracepb.Span, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.Span(nil), r.spans...), strings.Join(r.raw, "\n")
}

func startOTLPReceiver(t *testing.T) (*otlpReceiver, string) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rec := &otlpReceiver{}
	srv := grpc.NewServer()
	coltrace.RegisterTraceServiceServer(srv, rec)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return rec, "http://" + lis.Addr().String()
}

// TestTracingRESTMakeMove: with --otlp-endpoint, a REST MakeMove is one
// trace: the REST request's span, the gateway's gRPC client span under it,
// the gRPC server span under that, and store spans under the server span.
// The call's log line names the trace, the latency histogram carries it as
// an exemplar, and no span holds a side token.
func TestTracingRESTMakeMove(t *testing.T) {
	rec, endpoint := startOTLPReceiver(t)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50") // ms: export at once
	s := svStart(t, "--otlp-endpoint", endpoint)
	// svStart keeps no DAMONE_ variable; OTEL_ ones pass through.

	code, body := svHTTP(t, "POST", s.url("/v1/games"), "", map[string]any{})
	var cr struct {
		Game       struct{ Name string }
		RedToken   string `json:"red_token"`
		BlackToken string `json:"black_token"`
	}
	if json.Unmarshal(body, &cr); code != 200 || cr.RedToken == "" {
		t.Fatalf("create: %d %s", code, body)
	}
	code, body = svHTTP(t, "POST", s.url("/v1/"+cr.Game.Name+":move"), cr.RedToken, map[string]any{"move": "e2-d3", "request_id": "0b8f1c52-6a4e-4c1b-9d2e-7f3a5c9e1d20"})
	if code != 200 {
		t.Fatalf("move: %d %s", code, body)
	}

	// The gRPC server span of MakeMove, then its whole trace.
	var trace []*tracepb.Span
	var server *tracepb.Span
	deadline := time.Now().Add(10 * time.Second)
	for {
		spans, _ := rec.snapshot()
		for _, sp := range spans {
			if sp.GetName() == "damone.v1.GameService/MakeMove" && sp.GetKind() == tracepb.Span_SPAN_KIND_SERVER {
				server = sp
			}
		}
		if server != nil {
			trace = trace[:0]
			for _, sp := range spans {
				if string(sp.GetTraceId()) == string(server.GetTraceId()) {
					trace = append(trace, sp)
				}
			}
			if len(trace) >= 5 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no complete MakeMove trace within 10 s: %d spans, server span %v", len(spans), server != nil)
		}
		time.Sleep(50 * time.Millisecond)
	}
	byID := map[string]*tracepb.Span{}
	for _, sp := range trace {
		byID[string(sp.GetSpanId())] = sp
	}
	parent := func(sp *tracepb.Span) *tracepb.Span { return byID[string(sp.GetParentSpanId())] }
	var names []string
	for _, sp := range trace {
		names = append(names, sp.GetName())
	}
	client := parent(server)
	if client == nil || client.GetName() != "damone.v1.GameService/MakeMove" || client.GetKind() != tracepb.Span_SPAN_KIND_CLIENT {
		t.Fatalf("the server span's parent is %v, want the gateway's client span; trace: %v", client, names)
	}
	rest := parent(client)
	if rest == nil || rest.GetName() != "HTTP POST" || rest.GetKind() != tracepb.Span_SPAN_KIND_SERVER || len(rest.GetParentSpanId()) != 0 {
		t.Fatalf("the client span's parent is %v, want the REST request's root span; trace: %v", rest, names)
	}
	stores := map[string]bool{}
	for _, sp := range trace {
		if strings.HasPrefix(sp.GetName(), "store.") && parent(sp) == server {
			stores[sp.GetName()] = true
		}
		// store.request finds no record for a new request id: an answer,
		// not a failure.
		if sp.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR {
			t.Errorf("span %s has an error status: %v", sp.GetName(), sp.GetStatus())
		}
	}
	if !stores["store.get"] || !stores["store.update"] {
		t.Errorf("store spans under the server span: %v; trace: %v", stores, names)
	}
	t.Logf("trace %s: %v", hex.EncodeToString(server.GetTraceId()), names)

	// No token anywhere in what was exported.
	_, raw := rec.snapshot()
	for _, secret := range []string{cr.RedToken, cr.BlackToken, "0b8f1c52-6a4e-4c1b-9d2e-7f3a5c9e1d20"} {
		if strings.Contains(raw, secret) {
			t.Errorf("an exported span holds %q", secret)
		}
	}

	// The call's log line names the trace.
	traceID := hex.EncodeToString(server.GetTraceId())
	found := false
	sc := bufio.NewScanner(strings.NewReader(s.logText()))
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) == nil && line["grpc.method"] == "MakeMove" && line["trace_id"] == traceID {
			found = true
		}
	}
	if !found {
		t.Errorf("no MakeMove log line with trace_id %s:\n%s", traceID, s.logText())
	}

	// The latency histogram carries the trace as an exemplar (OpenMetrics).
	metrics := openMetrics(t, s)
	exemplar := false
	for line := range strings.SplitSeq(string(metrics), "\n") {
		if strings.HasPrefix(line, "grpc_server_handling_seconds_bucket{") && strings.Contains(line, `grpc_method="MakeMove"`) &&
			strings.Contains(line, `# {trace_id="`+traceID+`"}`) {
			exemplar = true
		}
	}
	if !exemplar {
		t.Errorf("no exemplar with trace_id %s on MakeMove's latency buckets", traceID)
	}
}

// TestTracingOffByDefault: without an endpoint nothing is exported and
// call logs carry no trace id.
func TestTracingOffByDefault(t *testing.T) {
	rec, _ := startOTLPReceiver(t)
	s := svStart(t)
	if code, _ := svHTTP(t, "POST", s.url("/v1/games"), "", map[string]any{}); code != 200 {
		t.Fatal(code)
	}
	time.Sleep(300 * time.Millisecond)
	if spans, _ := rec.snapshot(); len(spans) != 0 || strings.Contains(s.logText(), "trace_id") {
		t.Errorf("tracing is on without --otlp-endpoint: %d spans", len(spans))
	}
}

// TestPprofFlag: the profiles are on the metrics port with --pprof only,
// and never on the public port.
func TestPprofFlag(t *testing.T) {
	for _, on := range []bool{false, true} {
		args := []string{}
		if on {
			args = append(args, "--pprof")
		}
		s := svStart(t, args...)
		resp, err := http.Get("http://" + s.metricsAddr + "/debug/pprof/")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if served := resp.StatusCode == 200 && strings.Contains(string(b), "goroutine"); served != on {
			t.Errorf("--pprof=%v: metrics port /debug/pprof/ %d", on, resp.StatusCode)
		}
		if code, _ := svHTTP(t, "GET", s.url("/debug/pprof/"), "", nil); code == 200 {
			t.Errorf("--pprof=%v: the REST port serves /debug/pprof/", on)
		}
	}
}

// TestTracingUnsampledTraceNamesNothing: with a sampler that keeps no
// trace, no log line or exemplar names a trace id (it would lead nowhere).
func TestTracingUnsampledTraceNamesNothing(t *testing.T) {
	rec, endpoint := startOTLPReceiver(t)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	t.Setenv("OTEL_TRACES_SAMPLER", "always_off")
	s := svStart(t, "--otlp-endpoint", endpoint)
	if code, _ := svHTTP(t, "POST", s.url("/v1/games"), "", map[string]any{}); code != 200 {
		t.Fatal(code)
	}
	time.Sleep(300 * time.Millisecond)
	metrics := openMetrics(t, s)
	if spans, _ := rec.snapshot(); len(spans) != 0 || strings.Contains(s.logText(), "trace_id") || strings.Contains(string(metrics), "trace_id") {
		t.Errorf("unsampled: %d spans exported, trace ids in logs %v or exemplars %v", len(spans),
			strings.Contains(s.logText(), "trace_id"), strings.Contains(string(metrics), "trace_id"))
	}
}

// TestTracingBadEndpoint: an --otlp-endpoint that is not an http(s) URL
// stops the start with a usage error naming the flag (exit 2).
func TestTracingBadEndpoint(t *testing.T) {
	svSkip(t)
	for _, bad := range []string{"127.0.0.1:4317", "ftp://x", "not a url", "http://"} {
		cmd := exec.Command(svBin, "serve", "--store", "memory", "--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0",
			"--metrics-addr", "127.0.0.1:0", "--otlp-endpoint", bad)
		cmd.Env = svEnv()
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "--otlp-endpoint") {
			t.Errorf("--otlp-endpoint %q: %v\n%s", bad, err, out)
		}
	}
}

// openMetrics scrapes the server's metrics as OpenMetrics, the format that
// carries exemplars.
func openMetrics(t *testing.T, s *svServer) []byte {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+s.metricsAddr+"/metrics", nil)
	req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/games"
)

// probe4 is a 4-piece position (Red to move wins, capture or promotion in
// 17 at counter 12) with six legal moves, each probed too.
const probe4 = "R:RDc4,Pb1:BPe6,Pc8:12"

var (
	tb4Once sync.Once
	tb4     *egtb.Set
	tb4Err  error
)

// set4 opens the ≤ 4-piece set in $DAMONE_BENCH_EGTB4 (damone egtb build
// --pieces 4), or builds one (about 25 s of CPU) into a temporary
// directory, once.
func set4(b *testing.B) *egtb.Set {
	tb4Once.Do(func() {
		dir := os.Getenv("DAMONE_BENCH_EGTB4")
		if dir == "" {
			if dir, tb4Err = os.MkdirTemp("", "damone-tb4-"); tb4Err != nil {
				return
			}
			if tb4Err = egtb.Build(dir, egtb.Options{Pieces: 4, Threads: 2}); tb4Err != nil {
				return
			}
		}
		tb4, tb4Err = egtb.Open(dir)
	})
	if tb4Err != nil {
		b.Fatal(tb4Err)
	}
	if tb4.Pieces() < 4 {
		b.Fatalf("the set holds %d pieces, want 4", tb4.Pieces())
	}
	return tb4
}

// cpuTime is the CPU time (user + system) this process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loopCPU runs f in b.Loop and reports the process's CPU time per call
// (cpu-ns/op): the server's and, over a transport, the client's too.
func loopCPU(b *testing.B, f func()) {
	b.ReportAllocs()
	start := cpuTime(b)
	n := 0
	for b.Loop() {
		f()
		n++
	}
	if n == 0 {
		b.Fatal("no call made")
	}
	b.ReportMetric(float64((cpuTime(b)-start).Nanoseconds())/float64(n), "cpu-ns/op")
}

// BenchmarkProbe4Handler is the server's own cost of one ProbePosition of
// a 4-piece position held in memory (parsing, the probes of the position
// and of every move's, the answer), without transport.
func BenchmarkProbe4Handler(b *testing.B) {
	srv := NewTablebaseServer(served(set4(b)))
	req := &damonev1.ProbePositionRequest{Position: probe4}
	loopCPU(b, func() {
		if _, err := srv.ProbePosition(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	})
}

// probeServer starts the whole service (interceptors, metrics, gateway)
// on loopback with the ≤ 4-piece set, for the transport benchmarks.
func probeServer(b *testing.B) *Server {
	srv, err := New(Config{
		GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", MetricsAddr: "127.0.0.1:0",
		DrainTimeout: time.Second, MaxCallDuration: 10 * time.Second, MaxRequestBytes: DefaultMaxRequestBytes,
		MaxHeaderBytes: DefaultMaxHeaderBytes, MaxStreamsPerConnection: DefaultMaxStreamsPerConnection,
		MaxPerftDepth: DefaultMaxPerftDepth, MaxGamePlies: DefaultMaxGamePlies, Rules: true, Tablebase: served(set4(b)),
		SearchTableMB: 1, MaxAnalysisTime: time.Second, MaxAnalyses: 1, MaxEngineMoveTime: time.Second,
		Store: games.NewMemoryStore(), Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	})
	return srv
}

// BenchmarkProbe4GRPC: one ProbePosition over gRPC on loopback, one call
// at a time: ns/op is the latency, cpu-ns/op client and server together.
func BenchmarkProbe4GRPC(b *testing.B) {
	srv := probeServer(b)
	g, _, _ := srv.Addrs()
	conn, err := grpc.NewClient(g, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	client := damonev1.NewTablebaseServiceClient(conn)
	req := &damonev1.ProbePositionRequest{Position: probe4}
	if _, err := client.ProbePosition(context.Background(), req); err != nil {
		b.Fatal(err) // connected, and the answer is served
	}
	loopCPU(b, func() {
		resp, err := client.ProbePosition(context.Background(), req)
		if err != nil || len(resp.GetMoves()) != 6 {
			b.Fatalf("%v %v", resp, err)
		}
	})
}

// BenchmarkProbe4REST: one GET /v1/tablebase:probe on loopback (a kept-
// alive HTTP/1.1 connection), one call at a time.
func BenchmarkProbe4REST(b *testing.B) {
	srv := probeServer(b)
	_, h, _ := srv.Addrs()
	u := "http://" + h + "/v1/tablebase:probe?position=" + url.QueryEscape(probe4)
	client := &http.Client{}
	get := func() {
		resp, err := client.Get(u)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(body) == 0 {
			b.Fatalf("%d %s", resp.StatusCode, body)
		}
	}
	get()
	loopCPU(b, get)
}

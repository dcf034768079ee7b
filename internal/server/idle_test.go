package server

import (
	"context"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
)

// arrivalServer serves the health service (a unary Check, a
// server-streaming Watch) behind arrivals with the given bound, in memory.
func arrivalServer(t *testing.T, bound time.Duration) (*arrivals, *health.Server, *grpc.ClientConn) {
	t.Helper()
	as := newArrivals(bound)
	srv := grpc.NewServer(grpc.InTapHandle(as.tap), grpc.ChainUnaryInterceptor(as.unary), grpc.ChainStreamInterceptor(as.stream))
	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)
	lis := bufconn.Listen(1 << 16)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///arrivals",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return as, hs, conn
}

// idleStream opens a Check call and sends nothing on it.
func idleStream(t *testing.T, ctx context.Context, conn *grpc.ClientConn) grpc.ClientStream {
	t.Helper()
	cs, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, healthpb.Health_Check_FullMethodName)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func (as *arrivals) pendingCount() int {
	as.mu.Lock()
	defer as.mu.Unlock()
	n := 0
	for a := as.waiting.next; a != &as.waiting; a = a.next {
		n++
	}
	return n
}

// waitPending waits up to 5s for the number of calls waiting for their
// request to be n.
func waitPending(t *testing.T, as *arrivals, n int) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); as.pendingCount() != n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d calls waiting for their request; want %d", as.pendingCount(), n)
		}
	}
}

func TestArrivalBound(t *testing.T) {
	const bound = 100 * time.Millisecond
	as, hs, conn := arrivalServer(t, bound)
	ctx := context.Background()

	// No request: DEADLINE_EXCEEDED, not before the bound.
	opened := time.Now()
	err := idleStream(t, ctx, conn).RecvMsg(new(healthpb.HealthCheckResponse))
	if status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("a call without its request: %v; want DEADLINE_EXCEEDED", err)
	}
	if took := time.Since(opened); took < bound {
		t.Errorf("a call without its request ended %v after it opened, before the bound of %v", took, bound)
	}
	waitPending(t, as, 0)

	// A request that comes: served, and the call is no longer waiting.
	client := healthpb.NewHealthClient(conn)
	if r, err := client.Check(ctx, &healthpb.HealthCheckRequest{}); err != nil || r.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("Check: %v %v", r, err)
	}
	waitPending(t, as, 0)

	// A stream whose request came outlives the bound.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := client.Watch(wctx, &healthpb.HealthCheckRequest{Service: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := w.Recv(); err != nil || r.GetStatus() != healthpb.HealthCheckResponse_SERVICE_UNKNOWN {
		t.Fatalf("Watch: %v %v", r, err)
	}
	time.Sleep(3 * bound)
	hs.SetServingStatus("s", healthpb.HealthCheckResponse_SERVING)
	if r, err := w.Recv(); err != nil || r.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("Watch, %v after its request: %v %v; want the update", 3*bound, r, err)
	}
	waitPending(t, as, 0)
}

// A call the client gives up before sending its request is forgotten at
// once, not when its bound passes.
func TestArrivalForgottenWhenTheCallEnds(t *testing.T) {
	as, _, conn := arrivalServer(t, time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	for range 50 {
		idleStream(t, ctx, conn)
	}
	waitPending(t, as, 50)
	cancel()
	waitPending(t, as, 0)
}

// At shutdown, calls waiting for their request get shutdownRequestGrace.
func TestArrivalStop(t *testing.T) {
	as, _, conn := arrivalServer(t, time.Hour)
	cs := idleStream(t, context.Background(), conn)
	waitPending(t, as, 1)
	stopped := time.Now()
	as.stop()
	err := cs.RecvMsg(new(healthpb.HealthCheckResponse))
	if status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("a call without its request at shutdown: %v; want DEADLINE_EXCEEDED", err)
	}
	if took := time.Since(stopped); took < shutdownRequestGrace || took > time.Minute {
		t.Errorf("a call without its request ended %v after the shutdown began; want %v", took, shutdownRequestGrace)
	}
	// One opened during the shutdown gets the grace too.
	opened := time.Now()
	err = idleStream(t, context.Background(), conn).RecvMsg(new(healthpb.HealthCheckResponse))
	if status.Code(err) != codes.DeadlineExceeded || time.Since(opened) > time.Minute {
		t.Errorf("a call opened during the shutdown without its request: %v after %v; want DEADLINE_EXCEEDED", err, time.Since(opened))
	}
}

// BenchmarkArrival is what arrivals add to each call: the tap, and the
// request's arrival.
func BenchmarkArrival(b *testing.B) {
	as := newArrivals(DefaultMaxCallDuration)
	b.ReportAllocs()
	for b.Loop() {
		stream, cancel := context.WithCancel(context.Background())
		ctx, _ := as.tap(stream, nil)
		arrived(ctx)
		cancel()
	}
}

// BenchmarkArrivalBaseline is the stream context alone, for comparison.
func BenchmarkArrivalBaseline(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, cancel := context.WithCancel(context.Background())
		cancel()
	}
}

// BenchmarkArrivalCall: a unary call (health Check) over an in-memory
// connection, without and with arrivals.
func BenchmarkArrivalCall(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(map[bool]string{false: "arrivals=off", true: "arrivals=on"}[on], func(b *testing.B) {
			var opts []grpc.ServerOption
			if on {
				as := newArrivals(DefaultMaxCallDuration)
				opts = append(opts, grpc.InTapHandle(as.tap), grpc.ChainUnaryInterceptor(as.unary), grpc.ChainStreamInterceptor(as.stream))
			}
			srv := grpc.NewServer(opts...)
			healthpb.RegisterHealthServer(srv, health.NewServer())
			lis := bufconn.Listen(1 << 20)
			go srv.Serve(lis)
			defer srv.Stop()
			conn, err := grpc.NewClient("passthrough:///arrivals",
				grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
				grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			client := healthpb.NewHealthClient(conn)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := client.Check(context.Background(), &healthpb.HealthCheckRequest{}); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

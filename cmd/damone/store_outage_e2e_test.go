package main

import (
	"context"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// tcpProxy forwards connections to a backend and can cut them all, to
// make a database unreachable for one process without stopping it.
type tcpProxy struct {
	t       *testing.T
	addr    string
	backend string
	mu      sync.Mutex
	ln      net.Listener
	conns   []net.Conn
}

func newTCPProxy(t *testing.T, backend string) *tcpProxy {
	p := &tcpProxy{t: t, backend: backend}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.down)
	return p
}

func (p *tcpProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b, err := net.Dial("tcp", p.backend)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, b)
			p.mu.Unlock()
			go func() { io.Copy(b, c); b.Close() }()
			go func() { io.Copy(c, b); c.Close() }()
		}
	}()
}

// down refuses new connections and cuts the open ones.
func (p *tcpProxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// up accepts connections again on the same address.
func (p *tcpProxy) up() {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.serve(ln)
}

func readiness(r *replica) healthpb.HealthCheckResponse_ServingStatus {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	resp, err := healthpb.NewHealthClient(r.conn).Check(ctx, &healthpb.HealthCheckRequest{Service: "readiness"})
	if err != nil {
		return healthpb.HealthCheckResponse_UNKNOWN
	}
	return resp.GetStatus()
}

func waitReadiness(t *testing.T, r *replica, want healthpb.HealthCheckResponse_ServingStatus) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for readiness(r) != want {
		if time.Now().After(deadline) {
			t.Fatalf("readiness is %v, want %v within 20s", readiness(r), want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestDatabaseOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dsn := postgresDSN(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newTCPProxy(t, u.Host)
	u.Host = proxy.addr
	r := startReplica(t, "--store", "postgres", "--postgres-dsn", u.String())
	waitReadiness(t, r, healthpb.HealthCheckResponse_SERVING)
	created, err := r.games.CreateGame(context.Background(), &damonev1.CreateGameRequest{})
	if err != nil {
		t.Fatal(err)
	}

	proxy.down()
	waitReadiness(t, r, healthpb.HealthCheckResponse_NOT_SERVING)
	start := time.Now()
	_, err = r.games.GetGame(context.Background(), &damonev1.GetGameRequest{Name: created.GetGame().GetName()})
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("GetGame with the database down: %v, want UNAVAILABLE", err)
	}
	if took := time.Since(start); took > 8*time.Second {
		t.Fatalf("GetGame took %v to fail: calls must fail, not hang", took)
	}

	proxy.up()
	waitReadiness(t, r, healthpb.HealthCheckResponse_SERVING)
	if _, err := r.games.GetGame(context.Background(), &damonev1.GetGameRequest{Name: created.GetGame().GetName()}); err != nil {
		t.Fatalf("GetGame after the database came back: %v", err)
	}
}

package faulttest

import (
	"bufio"
	"net"
	"testing"
	"time"
)

// echo serves lines back, counting what it received.
func echo(t *testing.T) (addr string, got chan string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got = make(chan string, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					got <- sc.Text()
					c.Write([]byte(sc.Text() + "\n"))
				}
			}()
		}
	}()
	return ln.Addr().String(), got
}

// roundTrip sends a line and waits up to d for its echo.
func roundTrip(c net.Conn, r *bufio.Reader, line string, d time.Duration) (string, error) {
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		return "", err
	}
	c.SetReadDeadline(time.Now().Add(d))
	s, err := r.ReadString('\n')
	return s, err
}

func TestProxyModes(t *testing.T) {
	addr, got := echo(t)
	p, err := NewProxy(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr)
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	if s, err := roundTrip(c, r, "a", time.Second); err != nil || s != "a\n" {
		t.Fatalf("pass: %q %v", s, err)
	}
	<-got

	// Replies dropped: the server still gets the request.
	p.Set(DropReplies, 0)
	if s, err := roundTrip(c, r, "b", 300*time.Millisecond); err == nil {
		t.Fatalf("drop-replies: got the reply %q", s)
	}
	select {
	case s := <-got:
		if s != "b" {
			t.Fatalf("server got %q, want b", s)
		}
	case <-time.After(time.Second):
		t.Fatal("drop-replies: the request did not reach the server")
	}

	// Healing resets the connection that lost bytes.
	p.Set(Pass, 0)
	if _, err := roundTrip(c, r, "c", time.Second); err == nil {
		t.Fatal("a connection that lost replies was not reset on healing")
	}

	// Blackhole: neither side hears; a new connection works after healing.
	c2, err := net.Dial("tcp", p.Addr)
	if err != nil {
		t.Fatal(err)
	}
	r2 := bufio.NewReader(c2)
	p.Set(Blackhole, 0)
	if _, err := roundTrip(c2, r2, "d", 300*time.Millisecond); err == nil {
		t.Fatal("blackhole: got a reply")
	}
	select {
	case s := <-got:
		t.Fatalf("blackhole: the server got %q", s)
	case <-time.After(200 * time.Millisecond):
	}
	p.Set(Pass, 0)
	c3, err := net.Dial("tcp", p.Addr)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := roundTrip(c3, bufio.NewReader(c3), "e", time.Second); err != nil || s != "e\n" {
		t.Fatalf("after healing: %q %v", s, err)
	}

	// Delay holds each chunk.
	p.Set(Delay, 150*time.Millisecond)
	t0 := time.Now()
	r3 := bufio.NewReader(c3)
	<-got
	if s, err := roundTrip(c3, r3, "f", 2*time.Second); err != nil || s != "f\n" {
		t.Fatalf("delay: %q %v", s, err)
	}
	if d := time.Since(t0); d < 300*time.Millisecond {
		t.Fatalf("delay: the round trip took %v, want at least 2 × 150 ms", d)
	}

	// Refuse: a new connection is reset at once.
	p.Set(Refuse, 0)
	c4, err := net.Dial("tcp", p.Addr)
	if err == nil {
		if _, err := roundTrip(c4, bufio.NewReader(c4), "g", time.Second); err == nil {
			t.Fatal("refuse: a new connection was served")
		}
	}
}

// Package faulttest is the fault test of the games service (make
// test-faults): real `damone serve` processes behind TCP proxies that can
// cut, delay or blackhole their links, a workload whose every call is
// recorded, faults injected one at a time, and checks of the recorded
// history against a model of a game (porcupine) and against the stored
// state. The test itself is under the build tag "faults"
// (faults_test.go); this file is the proxy, which needs no tag.
package faulttest

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// Mode is what a Proxy does with the bytes of its connections.
type Mode int

const (
	// Pass forwards bytes both ways.
	Pass Mode = iota
	// Blackhole reads and discards bytes both ways, keeping the sockets
	// open: the peers see silence, not an error.
	Blackhole
	// DropReplies forwards the client's bytes to the backend and discards
	// the backend's answers: the server acts, the client never hears.
	DropReplies
	// Delay forwards both ways, holding each chunk for the proxy's delay.
	Delay
	// Refuse resets every connection as soon as it is accepted.
	Refuse
)

func (m Mode) String() string {
	return [...]string{"pass", "blackhole", "drop-replies", "delay", "refuse"}[m]
}

// Proxy forwards TCP connections from a fixed loopback address to a
// backend, with a fault mode that applies to open and new connections.
// Connections that lived through a mode that lost bytes are reset when
// the proxy heals, since their byte streams are broken.
type Proxy struct {
	Addr    string
	backend string
	ln      net.Listener

	mu     sync.Mutex
	mode   Mode
	delay  time.Duration
	conns  map[*link]struct{}
	closed bool
}

type link struct {
	client, server *net.TCPConn
	tainted        bool // lived through a lossy mode
}

// NewProxy listens on a free loopback port and forwards to backend.
func NewProxy(backend string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{Addr: ln.Addr().String(), backend: backend, ln: ln, conns: map[*link]struct{}{}}
	go p.accept()
	return p, nil
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.open(c.(*net.TCPConn))
	}
}

func (p *Proxy) open(c *net.TCPConn) {
	p.mu.Lock()
	mode := p.mode
	p.mu.Unlock()
	if mode == Refuse {
		reset(c)
		return
	}
	b, err := net.DialTimeout("tcp", p.backend, 2*time.Second)
	if err != nil {
		reset(c)
		return
	}
	l := &link{client: c, server: b.(*net.TCPConn)}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		reset(c)
		reset(l.server)
		return
	}
	p.conns[l] = struct{}{}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { p.pump(l, l.server, l.client, false); done <- struct{}{} }()
	go func() { p.pump(l, l.client, l.server, true); done <- struct{}{} }()
	<-done
	reset(l.client)
	reset(l.server)
	<-done
	p.mu.Lock()
	delete(p.conns, l)
	p.mu.Unlock()
}

// pump copies src to dst chunk by chunk, applying the mode current at
// each chunk; reply says the bytes go from the backend to the client.
func (p *Proxy) pump(l *link, dst, src *net.TCPConn, reply bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			mode, delay := p.mode, p.delay
			if mode == Blackhole || (mode == DropReplies && reply) {
				l.tainted = true
			}
			p.mu.Unlock()
			switch {
			case mode == Blackhole, mode == DropReplies && reply:
				continue
			case mode == Delay:
				time.Sleep(delay)
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				dst.CloseWrite()
			}
			return
		}
	}
}

// Set changes the mode (delay is used by Delay). Going back to Pass
// resets the connections that lost bytes; Refuse resets them all.
func (p *Proxy) Set(mode Mode, delay time.Duration) {
	p.mu.Lock()
	p.mode, p.delay = mode, delay
	var cut []*link
	for l := range p.conns {
		if mode == Refuse || (mode == Pass && l.tainted) {
			cut = append(cut, l)
		}
	}
	p.mu.Unlock()
	for _, l := range cut {
		reset(l.client)
		reset(l.server)
	}
}

// Reset sends a TCP reset on every open connection, both sides.
func (p *Proxy) Reset() {
	p.mu.Lock()
	var cut []*link
	for l := range p.conns {
		cut = append(cut, l)
	}
	p.mu.Unlock()
	for _, l := range cut {
		reset(l.client)
		reset(l.server)
	}
}

// Close stops listening and resets every connection.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.ln.Close()
	p.Reset()
}

// reset closes c with an RST rather than a FIN.
func reset(c *net.TCPConn) {
	c.SetLinger(0)
	c.Close()
}

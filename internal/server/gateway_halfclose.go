package server

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
)

// Clients that half-close. Once a request's body is read, net/http reads
// the connection in the background, and any read error there, the EOF of
// a client that ended its sending (shutdown(SHUT_WR)) included, cancels
// the request's context: a complete request from such a client was
// answered 499 CANCELLED. A read EOF says only that the client sends
// nothing more, not that it stopped reading; so the calls whose request
// is complete and whose answer is bounded (the unary routes and
// validateGames) run on a context that a read EOF does not cancel. Any
// other end of the connection (a reset, the server closing it) still
// cancels them, and a client that has closed its connection in full is
// found at the first write of the answer (the write fails, the handler
// returns, and its context ends). The server-streaming routes (WatchGame,
// AnalyzePosition), whose answer may last long with nothing written for a
// while, keep net/http's behaviour: a read EOF ends them.

// readEndListener is the REST port's listener: its connections record a
// read EOF (readEndConn), which readEndContext gives each request.
type readEndListener struct{ net.Listener }

func (l readEndListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &readEndConn{Conn: c}, nil
}

// readEndConn is a connection that records whether a read met its EOF.
type readEndConn struct {
	net.Conn
	eof atomic.Bool
}

func (c *readEndConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if errors.Is(err, io.EOF) {
		c.eof.Store(true)
	}
	return n, err
}

// CloseWrite keeps the TCP half-close net/http uses before closing a
// connection, so that the client reads the whole answer first.
func (c *readEndConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ReadFrom keeps the connection's own ReadFrom (sendfile for files).
func (c *readEndConn) ReadFrom(r io.Reader) (int64, error) { return io.Copy(c.Conn, r) }

type readEndKey struct{}

// readEndContext is the REST server's ConnContext: it keeps the
// connection for halfCloseTolerant.
func readEndContext(ctx context.Context, c net.Conn) context.Context {
	if rc, ok := c.(*readEndConn); ok {
		return context.WithValue(ctx, readEndKey{}, rc)
	}
	return ctx
}

// halfCloseTolerant returns r with a context that ends with r's own,
// except when r's ended because the client's connection met its read EOF;
// stop releases it, and must be called once the request is answered.
func halfCloseTolerant(r *http.Request) (_ *http.Request, stop func()) {
	parent := r.Context()
	conn, ok := parent.Value(readEndKey{}).(*readEndConn)
	if !ok {
		return r, func() {}
	}
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(parent))
	unhook := context.AfterFunc(parent, func() {
		if !conn.eof.Load() {
			cancel(context.Cause(parent))
		}
	})
	return r.WithContext(ctx), func() {
		unhook()
		cancel(context.Canceled)
	}
}

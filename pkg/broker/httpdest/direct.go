package httpdest

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// direct is the publisher's HTTP/1.1 client for a plain http:// target
// reached without a proxy: it writes each request and reads its answer on
// the publishing goroutine, over a pool of kept-alive connections.
// net/http's Transport gives every connection a reading and a writing
// goroutine and hands each request and answer between them and the
// caller; on the deliver path those hand-offs and the scheduler work they
// cause were about a quarter of the CPU per row (docs/performance.md).
// The request and the answer are still written and parsed by net/http
// (Request.Write, ReadResponse), so the bytes on the wire are the ones
// the Transport sends, without its Accept-Encoding: gzip.
//
// The request's context bounds it: its deadline becomes the connection's
// and its end interrupts a read or write in progress. A connection goes
// back to the pool only when its answer was read to the end and neither
// side asked to close it. A request that fails on a pooled connection
// before any byte of an answer arrived (the receiver closed the idle
// connection) is sent once more on a new connection, as the Transport
// does.
type direct struct {
	addr string // host:port of the target
	dial func(ctx context.Context, network, addr string) (net.Conn, error)

	mu     sync.Mutex
	idle   []*directConn // most recently used last
	max    int           // idle connections kept at most
	closed bool
}

// directConn is one connection with its buffers.
type directConn struct {
	conn net.Conn
	br   *bufio.Reader
	bw   *bufio.Writer
	// werr is the connection's first write error. Request.Write reports a
	// failed write of the body as an error of the body's reader, an
	// unexported type without Unwrap; this keeps the connection's own.
	werr error
	// idleSince is when the connection went back to the pool.
	idleSince time.Time
}

// Write writes to the connection, keeping the first error; bw writes
// through it.
func (c *directConn) Write(p []byte) (int, error) {
	n, err := c.conn.Write(p)
	if err != nil && c.werr == nil {
		c.werr = err
	}
	return n, err
}

// longAgo is a deadline in the past: setting it interrupts every read and
// write of a connection at once.
var longAgo = time.Unix(1, 0)

func newDirect(addr string, dial func(ctx context.Context, network, addr string) (net.Conn, error), maxIdle int) *direct {
	return &direct{addr: addr, dial: dial, max: maxIdle}
}

// RoundTrip sends req and returns its answer, whose body must be read and
// closed for the connection to be kept. It implements http.RoundTripper.
func (d *direct) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	c, reused, err := d.get(ctx)
	if err != nil {
		return nil, err
	}
	resp, noAnswer, err := d.exchange(ctx, c, req)
	if err != nil && noAnswer && reused && ctx.Err() == nil && req.GetBody != nil {
		if c, err = d.fresh(ctx); err != nil {
			return nil, err
		}
		if req.Body, err = req.GetBody(); err != nil {
			c.conn.Close()
			return nil, err
		}
		resp, _, err = d.exchange(ctx, c, req)
	}
	return resp, err
}

// exchange writes req on c and reads the answer's head. On success the
// answer's body owns c; on failure c is closed, and noAnswer says that no
// byte of an answer arrived.
func (d *direct) exchange(ctx context.Context, c *directConn, req *http.Request) (resp *http.Response, noAnswer bool, err error) {
	if dl, ok := ctx.Deadline(); ok {
		_ = c.conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = c.conn.SetDeadline(longAgo) })
	fail := func(err error, answered bool) (*http.Response, bool, error) {
		stop()
		c.conn.Close()
		var netErr net.Error
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = ctxErr // the deadline or the cancel interrupted the connection
		} else if _, ok := ctx.Deadline(); ok && errors.As(err, &netErr) && netErr.Timeout() {
			// The connection's only deadline is the context's, which ran
			// out a moment before the context's own timer.
			err = context.DeadlineExceeded
		}
		return nil, !answered, err
	}
	writeErr := req.Write(c.bw)
	if writeErr == nil {
		writeErr = c.bw.Flush()
	}
	if writeErr != nil && c.werr != nil {
		writeErr = c.werr
	}
	if _, err := c.br.Peek(1); err != nil {
		if writeErr != nil {
			err = writeErr
		}
		return fail(err, false)
	}
	// A receiver may answer before it has read the whole request (a 413
	// for a body too large) and close, which fails the rest of the write;
	// its answer is then the outcome, as with net/http's Transport.
	resp, err = http.ReadResponse(c.br, req)
	// An informational answer (100 Continue, 103 Early Hints) precedes the
	// real one and has no body; 101 would switch protocols, which a POST
	// of an event never asks for, so it is returned as the answer.
	for err == nil && resp.StatusCode >= 100 && resp.StatusCode <= 199 && resp.StatusCode != http.StatusSwitchingProtocols {
		resp, err = http.ReadResponse(c.br, req)
	}
	if err != nil {
		return fail(err, true)
	}
	resp.Body = &directBody{body: resp.Body, d: d, c: c, stop: stop, keep: writeErr == nil && !resp.Close && !req.Close}
	return resp, false, nil
}

// get returns the most recently used idle connection, or a new one. It
// first closes the idle connections older than idleConnTimeout, as the
// Transport does, so a receiver's closed connections do not linger here.
func (d *direct) get(ctx context.Context) (*directConn, bool, error) {
	var c *directConn
	d.mu.Lock()
	stale := d.dropOlderThan(time.Now().Add(-idleConnTimeout))
	if n := len(d.idle); n > 0 {
		c = d.idle[n-1]
		d.idle = d.idle[:n-1]
	}
	d.mu.Unlock()
	for _, s := range stale {
		s.conn.Close()
	}
	if c != nil {
		return c, true, nil
	}
	c, err := d.fresh(ctx)
	return c, false, err
}

// dropOlderThan takes the idle connections that went idle before t out
// of the pool and returns them; d.mu is held. The pool is ordered by
// idleSince, oldest first, so the usual case looks at one connection and
// moves nothing.
func (d *direct) dropOlderThan(t time.Time) []*directConn {
	i := 0
	for i < len(d.idle) && d.idle[i].idleSince.Before(t) {
		i++
	}
	if i == 0 {
		return nil
	}
	old := append([]*directConn(nil), d.idle[:i]...)
	d.idle = append(d.idle[:0], d.idle[i:]...)
	return old
}

// fresh dials a new connection.
func (d *direct) fresh(ctx context.Context) (*directConn, error) {
	conn, err := d.dial(ctx, "tcp", d.addr)
	if err != nil {
		return nil, err
	}
	c := &directConn{conn: conn, br: bufio.NewReaderSize(conn, 4<<10)}
	c.bw = bufio.NewWriterSize(c, 4<<10)
	return c, nil
}

// put keeps c for the next request, or closes it when the pool is full or
// closed.
func (d *direct) put(c *directConn) {
	d.mu.Lock()
	if d.closed || len(d.idle) >= d.max {
		d.mu.Unlock()
		c.conn.Close()
		return
	}
	c.idleSince = time.Now()
	d.idle = append(d.idle, c)
	d.mu.Unlock()
}

// CloseIdleConnections closes the pooled connections, and every one that
// comes back later: the publisher calls it only from Close.
func (d *direct) CloseIdleConnections() {
	d.mu.Lock()
	idle := d.idle
	d.idle = nil
	d.closed = true
	d.mu.Unlock()
	for _, c := range idle {
		c.conn.Close()
	}
}

// directBody is an answer's body: closing it after reading it to the end
// returns the connection to the pool, closing it earlier closes the
// connection.
type directBody struct {
	body   io.ReadCloser
	d      *direct
	c      *directConn
	stop   func() bool
	keep   bool
	sawEOF bool
	done   bool
}

func (b *directBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if err == io.EOF {
		b.sawEOF = true
	}
	return n, err
}

func (b *directBody) Close() error {
	if b.done {
		return nil
	}
	b.done = true
	err := b.body.Close()
	// stop reports false when the context already ended and interrupted
	// the connection: it cannot be reused then.
	if b.stop() && b.keep && b.sawEOF && b.c.br.Buffered() == 0 {
		_ = b.c.conn.SetDeadline(time.Time{})
		b.d.put(b.c)
		return err
	}
	b.c.conn.Close()
	return err
}

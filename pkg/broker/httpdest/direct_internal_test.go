package httpdest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// earlyAnswerConn is a connection whose receiver answered 413 and closed
// after reading the first accept bytes of the request: writes past them
// fail as a reset, and the answer waits to be read.
type earlyAnswerConn struct {
	net.Conn // nil: only the methods below are called
	accept   int
	answer   *strings.Reader
	closed   bool
}

func (c *earlyAnswerConn) Write(p []byte) (int, error) {
	if len(p) > c.accept {
		n := c.accept
		c.accept = 0
		return n, syscall.ECONNRESET
	}
	c.accept -= len(p)
	return len(p), nil
}

func (c *earlyAnswerConn) Read(p []byte) (int, error)       { return c.answer.Read(p) }
func (c *earlyAnswerConn) Close() error                     { c.closed = true; return nil }
func (c *earlyAnswerConn) SetDeadline(time.Time) error      { return nil }
func (c *earlyAnswerConn) SetReadDeadline(time.Time) error  { return nil }
func (c *earlyAnswerConn) SetWriteDeadline(time.Time) error { return nil }

// TestAnswerGivenBeforeTheBodyIsTheOutcome: a receiver that answers 413
// and stops reading makes the write fail; the publish reports the 413
// it answered, not the reset, and the connection is not kept.
func TestAnswerGivenBeforeTheBodyIsTheOutcome(t *testing.T) {
	t.Parallel()
	conn := &earlyAnswerConn{accept: 10 << 10,
		answer: strings.NewReader("HTTP/1.1 413 Request Entity Too Large\r\nConnection: close\r\nContent-Length: 8\r\n\r\ntoo big!")}
	dials := 0
	d := newDirect("receiver.test:80", func(context.Context, string, string) (net.Conn, error) {
		dials++
		return conn, nil
	}, 4)
	req, err := http.NewRequest(http.MethodPost, "http://receiver.test/events", bytes.NewReader(make([]byte, 1<<20)))
	require.NoError(t, err)
	resp, err := d.RoundTrip(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, "too big!", string(body))
	require.NoError(t, resp.Body.Close())
	require.True(t, conn.closed, "a connection whose request was cut short is not kept")
	require.Empty(t, d.idle)
	require.Equal(t, 1, dials)
}

// TestWriteFailureWithoutAnAnswerIsTheError: when the write fails and no
// answer follows, the write's error is reported.
func TestWriteFailureWithoutAnAnswerIsTheError(t *testing.T) {
	t.Parallel()
	conn := &earlyAnswerConn{accept: 100, answer: strings.NewReader("")}
	d := newDirect("receiver.test:80", func(context.Context, string, string) (net.Conn, error) { return conn, nil }, 4)
	req, err := http.NewRequest(http.MethodPost, "http://receiver.test/events", bytes.NewReader(make([]byte, 1<<20)))
	require.NoError(t, err)
	_, err = d.RoundTrip(req)
	require.True(t, errors.Is(err, syscall.ECONNRESET), "%v", err)
	require.True(t, conn.closed)
}

// TestIdleConnectionsPastTheTimeoutAreClosed: get takes the newest idle
// connection and closes those idle longer than idleConnTimeout.
func TestIdleConnectionsPastTheTimeoutAreClosed(t *testing.T) {
	t.Parallel()
	dials := 0
	d := newDirect("receiver.test:80", func(context.Context, string, string) (net.Conn, error) {
		dials++
		return &earlyAnswerConn{answer: strings.NewReader("")}, nil
	}, 4)
	old := &directConn{conn: &earlyAnswerConn{}, idleSince: time.Now().Add(-2 * idleConnTimeout)}
	recent := &directConn{conn: &earlyAnswerConn{}, idleSince: time.Now()}
	d.idle = []*directConn{old, recent}

	c, reused, err := d.get(context.Background())
	require.NoError(t, err)
	require.True(t, reused)
	require.Same(t, recent, c)
	require.True(t, old.conn.(*earlyAnswerConn).closed, "the connection idle past the timeout is closed")
	require.Empty(t, d.idle)

	d.idle = []*directConn{old}
	c, reused, err = d.get(context.Background())
	require.NoError(t, err)
	require.False(t, reused, "a stale last connection is replaced by a new one")
	require.NotSame(t, old, c)
	require.Equal(t, 1, dials)
}

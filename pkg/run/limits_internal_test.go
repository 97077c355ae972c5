package run

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/httpbody"
)

// generous bounds a wait that passes in milliseconds on an idle machine.
const generous = 20 * time.Second

func TestServerSetsEveryConnectionLimit(t *testing.T) {
	t.Parallel()
	s := NewServer("data", "127.0.0.1:0", quietInternal())
	require.Equal(t, ReadHeaderTimeout, s.srv.ReadHeaderTimeout)
	require.Equal(t, ReadTimeout, s.srv.ReadTimeout)
	require.Equal(t, WriteTimeout, s.srv.WriteTimeout)
	require.Equal(t, IdleTimeout, s.srv.IdleTimeout)
	require.Equal(t, MaxHeaderBytes, s.srv.MaxHeaderBytes)
	for _, d := range []time.Duration{s.srv.ReadTimeout, s.srv.WriteTimeout, s.srv.IdleTimeout} {
		require.Positive(t, d)
	}
}

// serving starts s with a route that reads its body, and stops it after
// the test.
func serving(t *testing.T, s *Server) string {
	t.Helper()
	s.Echo.POST("/read", func(c echo.Context) error {
		if _, err := httpbody.Read(c.Request(), 1<<20); err != nil {
			return c.NoContent(http.StatusBadRequest)
		}
		return c.NoContent(http.StatusNoContent)
	})
	require.NoError(t, s.Listen())
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	t.Cleanup(func() { _ = s.srv.Close(); <-done })
	return s.Addr()
}

// closedWithin reports whether the server ends conn (an answer or EOF)
// before the generous bound.
func closedWithin(t *testing.T, conn net.Conn) string {
	t.Helper()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(generous)))
	line, err := bufio.NewReader(conn).ReadString('\n')
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server kept the connection for %s", generous)
	}
	return line
}

// A body that trickles in is cut off by the read deadline.
func TestServerEndsATricklingBody(t *testing.T) {
	t.Parallel()
	s := NewServer("data", "127.0.0.1:0", quietInternal())
	s.srv.ReadTimeout = 200 * time.Millisecond
	conn, err := net.Dial("tcp", serving(t, s))
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /read HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"id\":")
	require.NoError(t, err)
	closedWithin(t, conn)
}

// An idle keep-alive connection is closed.
func TestServerClosesIdleConnections(t *testing.T) {
	t.Parallel()
	s := NewServer("data", "127.0.0.1:0", quietInternal())
	s.srv.IdleTimeout = 200 * time.Millisecond
	conn, err := net.Dial("tcp", serving(t, s))
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /read HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
	require.NoError(t, err)
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(generous)))
	_, err = r.ReadByte()
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the idle connection stayed open for %s", generous)
	}
	require.Error(t, err, "the server closed the idle connection")
}

func TestServerAnswers431PastTheHeaderLimit(t *testing.T) {
	t.Parallel()
	s := NewServer("data", "127.0.0.1:0", quietInternal())
	conn, err := net.Dial("tcp", serving(t, s))
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /read HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\nContent-Length: 2\r\n\r\n{}", strings.Repeat("a", 2*MaxHeaderBytes))
	require.NoError(t, err)
	require.Contains(t, closedWithin(t, conn), "431")
}

func TestServerCountsOpenConnections(t *testing.T) {
	t.Parallel()
	s := NewServer("data", "127.0.0.1:0", quietInternal())
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "open"})
	s.CountConnections(g)
	conn, err := net.Dial("tcp", serving(t, s))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return testutil.ToFloat64(g) == 1 }, generous, 5*time.Millisecond)
	require.NoError(t, conn.Close())
	require.Eventually(t, func() bool { return testutil.ToFloat64(g) == 0 }, generous, 5*time.Millisecond)
}

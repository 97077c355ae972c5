package httpbody_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/httpbody"
)

// TestEarlyAnswerReachesACallerStillSending sends the headers and half of
// an oversized body, reads the 413 that the server gives before the body,
// sends the other half and reads on to the end: the connection must end
// with a FIN, not a reset. Closing with the body's second half unread
// resets the connection, which drops the answer from a caller's socket
// before it reads it (the "connection reset by peer" a client saw
// instead of its 413).
func TestEarlyAnswerReachesACallerStillSending(t *testing.T) {
	t.Parallel()
	const limit = 10
	e := echo.New()
	e.Use(httpbody.Limit(limit))
	e.POST("/inbox/orders", func(c echo.Context) error { return c.String(http.StatusOK, "ok") })
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)

	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	require.NoError(t, conn.SetDeadline(time.Now().Add(time.Minute)))
	half := bytes.Repeat([]byte("x"), 32<<10)
	_, err = fmt.Fprintf(conn, "POST /inbox/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", 2*len(half))
	require.NoError(t, err)
	_, err = conn.Write(half)
	require.NoError(t, err)

	reader := bufio.NewReader(conn)
	resp, err := http.ReadResponse(reader, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	answer, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, `{"error":"Request body exceeds 10 bytes"}`, strings.TrimSpace(string(answer)))

	_, err = conn.Write(half)
	require.NoError(t, err, "the server must still take the rest of the body")
	rest, err := io.ReadAll(reader)
	require.NoError(t, err, "the connection must end with a FIN, not a reset")
	require.Empty(t, rest)
}

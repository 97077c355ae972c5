// Package httpbodytest sends requests whose body never ends, for the tests
// of every route that answers before it reads a body (the inbox sources
// and the admin routes).
package httpbodytest

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Unfinished sends a POST to path on the server at addr with the given
// header lines ("Name: value") and a chunked body whose first chunk never
// gets a successor. It returns the status of the answer after checking
// that the answer announces Connection: close and that the server then
// closes the connection instead of waiting for the rest of the body (the
// server under test should have no read timeout, so only the close ends
// the connection within the test's bound). The bound of 10 s only stops
// a test whose server never closes.
func Unfinished(t *testing.T, addr, path string, headers ...string) int {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	head := "POST " + path + " HTTP/1.1\r\nHost: qb\r\nContent-Type: application/json\r\n"
	for _, h := range headers {
		head += h + "\r\n"
	}
	_, err = io.WriteString(conn, head+"Transfer-Encoding: chunked\r\n\r\n6\r\n{\"id\":\r\n")
	require.NoError(t, err)

	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	r := bufio.NewReader(conn)
	res, err := http.ReadResponse(r, nil)
	require.NoError(t, err)
	require.True(t, res.Close, "the answer announces the close")
	_, err = io.Copy(io.Discard, res.Body)
	require.NoError(t, err)

	// The server closes: the read ends with EOF or a reset, not the deadline.
	_, err = r.ReadByte()
	require.Error(t, err)
	require.False(t, errors.Is(err, os.ErrDeadlineExceeded), "the server kept the connection open: %v", err)
	return res.StatusCode
}

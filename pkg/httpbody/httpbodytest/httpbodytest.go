// Package httpbodytest sends requests whose body never ends, for the tests
// of every route that answers before it reads a body (the inbox sources
// and the admin routes).
package httpbodytest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Chunked is the start of a POST to path with the given header lines
// ("Name: value") and a chunked body whose first chunk, first, never gets
// a successor.
func Chunked(path, first string, headers ...string) string {
	return head(path, append(headers, "Transfer-Encoding: chunked")) + fmt.Sprintf("%x\r\n%s\r\n", len(first), first)
}

// Declared is the start of a POST to path with the given header lines that
// declares a Content-Length of length and sends only sent of it.
func Declared(path string, length int, sent string, headers ...string) string {
	return head(path, append(headers, "Content-Length: "+strconv.Itoa(length))) + sent
}

func head(path string, headers []string) string {
	h := "POST " + path + " HTTP/1.1\r\nHost: qb\r\nContent-Type: application/json\r\n"
	for _, line := range headers {
		h += line + "\r\n"
	}
	return h + "\r\n"
}

// Unfinished writes request (see Chunked and Declared), whose body never
// ends, to the server at addr. It returns the status of the answer after
// checking that the answer announces Connection: close and that the
// server then closes the connection instead of waiting for the rest of
// the body (the server under test should have no read timeout, so only
// the close ends the connection within the test's bound). The bound of
// 10 s only stops a test whose server never closes.
func Unfinished(t *testing.T, addr, request string) int {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	_, err = io.WriteString(conn, request)
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

package webhook_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/secret"
)

// A sender with a wrong bearer token that starts a chunked body and never
// ends it gets its 401, and then the server closes the connection instead
// of waiting for the rest of the body (net/http drains a body the handler
// left unread before it reuses a connection). The server here has no read
// timeout, so without the close the connection stays open until the
// client's own bound.
func TestEarly401ClosesTheConnectionOfAnUnfinishedBody(t *testing.T) {
	t.Parallel()
	bearer := source("bearer", "/bearer")
	bearer.Auth = &config.SourceAuth{Kind: config.AuthBearer, Token: secret.New("tok")}
	ev := newEnv(t, nil, nil, bearer)
	srv := httptest.NewServer(ev.e)
	t.Cleanup(srv.Close)

	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	_, err = io.WriteString(conn, "POST /inbox/bearer HTTP/1.1\r\nHost: qb\r\nAuthorization: Bearer nope\r\n"+
		"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n{\"id\":\r\n")
	require.NoError(t, err)

	// A generous bound: it only stops the test if the server never closes.
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	r := bufio.NewReader(conn)
	res, err := http.ReadResponse(r, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
	require.True(t, res.Close, "the answer announces the close")
	_, err = io.Copy(io.Discard, res.Body)
	require.NoError(t, err)

	// The server closes: the read ends with EOF or a reset, not the deadline.
	_, err = r.ReadByte()
	require.Error(t, err)
	require.False(t, errors.Is(err, os.ErrDeadlineExceeded), "the server kept the connection open: %v", err)
}

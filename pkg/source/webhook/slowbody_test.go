package webhook_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/httpbody/httpbodytest"
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
	bearer.Auth = &auth.Options{Kind: auth.KindBearer, Token: secret.New("tok")}
	ev := newEnv(t, nil, nil, bearer)
	srv := httptest.NewServer(ev.e)
	t.Cleanup(srv.Close)

	addr := srv.Listener.Addr().String()
	require.Equal(t, http.StatusUnauthorized,
		httpbodytest.Unfinished(t, addr, httpbodytest.Chunked("/inbox/bearer", `{"id":`, "Authorization: Bearer nope")))
	// A body past inbox.maxBodyBytes gets its 413 and the close too, chunked
	// (the handler's bounded read) or declared (the data port's check).
	require.Equal(t, http.StatusRequestEntityTooLarge, httpbodytest.Unfinished(t, addr,
		httpbodytest.Chunked("/inbox/bearer", strings.Repeat(" ", maxBody+1), "Authorization: Bearer tok")))
	require.Equal(t, http.StatusRequestEntityTooLarge, httpbodytest.Unfinished(t, addr,
		httpbodytest.Declared("/inbox/bearer", maxBody+1, `{"id":`, "Authorization: Bearer tok")))
}

package webhook_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
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
	bearer.Auth = &config.SourceAuth{Kind: config.AuthBearer, Token: secret.New("tok")}
	ev := newEnv(t, nil, nil, bearer)
	srv := httptest.NewServer(ev.e)
	t.Cleanup(srv.Close)

	code := httpbodytest.Unfinished(t, srv.Listener.Addr().String(), "/inbox/bearer", "Authorization: Bearer nope")
	require.Equal(t, http.StatusUnauthorized, code)
}

package admin_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/admin"
	"github.com/alternayte/queuebox/pkg/httpbody/httpbodytest"
	"github.com/alternayte/queuebox/pkg/transform"
)

// unreadable is a body that fails the test when it is read.
type unreadable struct{}

func (unreadable) Read([]byte) (int, error) {
	panic("the body of an unauthenticated admin request was read")
}
func (unreadable) Close() error { return nil }

// Bearer credentials are checked before the body is read: a caller
// without them costs no body read.
func TestAdminChecksBearerBeforeTheBody(t *testing.T) {
	t.Parallel()
	cfg := enabled()
	h, err := admin.NewTransformTest(cfg, transform.JSONata)
	require.NoError(t, err)
	e := echo.New()
	admin.Mount(e, cfg, admin.Routes{TransformTest: h}, quiet())
	req := httptest.NewRequest(http.MethodPost, "/admin/transform/test", nil)
	req.Body, req.ContentLength = unreadable{}, -1
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	require.Equal(t, http.StatusUnauthorized, rec.Code)
	require.Equal(t, `{"success":false,"error":"Missing Authorization header"}`, strings.TrimSpace(rec.Body.String()))
}

// A caller without valid credentials that starts a chunked body and never
// ends it gets its 401 on either route (and a caller past the size bound
// its 413), and then the server closes the
// connection instead of waiting for the rest of the body, as an inbox
// source does. The test server has no read timeout, so without the close
// the connection stays open until the helper's own bound.
func TestEarly401ClosesTheConnectionOfAnUnfinishedBody(t *testing.T) {
	t.Parallel()
	cfg := enabled()
	replay, err := admin.NewReplay(cfg, &memReplayer{}, func(string) []string { return nil }, quiet())
	require.NoError(t, err)
	test, err := admin.NewTransformTest(cfg, transform.JSONata)
	require.NoError(t, err)
	e := echo.New()
	admin.Mount(e, cfg, admin.Routes{Replay: replay, TransformTest: test}, quiet())
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()

	require.Equal(t, http.StatusUnauthorized,
		httpbodytest.Unfinished(t, addr, httpbodytest.Chunked("/admin/replay", `{"ids":`, "Authorization: Bearer nope")))
	require.Equal(t, http.StatusUnauthorized, httpbodytest.Unfinished(t, addr, httpbodytest.Chunked("/admin/transform/test", `{"id":`)))
	// An authenticated caller past admin.maxPayloadBytes (256) gets 413 as
	// soon as the bound is crossed, chunked or declared.
	require.Equal(t, http.StatusRequestEntityTooLarge, httpbodytest.Unfinished(t, addr,
		httpbodytest.Chunked("/admin/replay", strings.Repeat(" ", 300), "Authorization: Bearer s3cret")))
	require.Equal(t, http.StatusRequestEntityTooLarge, httpbodytest.Unfinished(t, addr,
		httpbodytest.Declared("/admin/replay", 100_000, `{"ids":`, "Authorization: Bearer s3cret")))
}

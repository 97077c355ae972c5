package httpbody_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/httpbody"
)

// Bodies in flight past the budget are refused at once with 503 and
// Retry-After; the budget frees as the handlers end.
func TestBudget(t *testing.T) {
	t.Parallel()
	const limit = 100
	e := echo.New()
	e.Use(httpbody.Budget(2*limit, limit))
	entered, release := make(chan struct{}), make(chan struct{})
	e.POST("/hold", func(c echo.Context) error {
		entered <- struct{}{}
		<-release
		return c.NoContent(http.StatusNoContent)
	})
	e.POST("/quick", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })
	post := func(path string, length int64) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(strings.Repeat("x", limit)))
		req.ContentLength = length
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec
	}
	var wg sync.WaitGroup
	for _, length := range []int64{limit, -1} { // a declared and a chunked body
		wg.Add(1)
		go func() { defer wg.Done(); post("/hold", length) }()
		<-entered
	}
	rec := post("/quick", 1)
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	require.Equal(t, "1", rec.Header().Get("Retry-After"))
	require.JSONEq(t, `{"error":"Too many request bodies in flight; retry later"}`, rec.Body.String())
	require.Equal(t, http.StatusNoContent, post("/quick", 0).Code, "a request without a body reserves nothing")

	close(release)
	wg.Wait()
	require.Equal(t, http.StatusNoContent, post("/quick", limit).Code)
}

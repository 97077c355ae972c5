package admin_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/admin"
	"github.com/alternayte/queuebox/pkg/admin/ui"
)

// The UI is served beside the admin routes, without credentials (its
// files hold none), and only when the admin routes are enabled.
func TestMountServesTheUI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		enabled       bool
		target        string
		code          int
		typ, location string
	}{
		{true, "/admin/ui/", http.StatusOK, "text/html; charset=utf-8", ""},
		{true, "/admin/ui/app.js", http.StatusOK, "text/javascript; charset=utf-8", ""},
		{true, "/admin/ui", http.StatusFound, "", "ui/"},
		{false, "/admin/ui/", http.StatusNotFound, "", ""},
	} {
		e := echo.New()
		admin.Mount(e, admin.Options{Enabled: tc.enabled, Auth: enabled().Auth}, admin.Routes{}, quiet())
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.target, nil))
		require.Equal(t, tc.code, rec.Code, tc.target)
		require.Equal(t, tc.location, rec.Header().Get("Location"), tc.target)
		if tc.code == http.StatusOK {
			require.Equal(t, tc.typ, rec.Header().Get("Content-Type"), tc.target)
			require.Equal(t, ui.CSP, rec.Header().Get("Content-Security-Policy"), tc.target)
		}
	}
}

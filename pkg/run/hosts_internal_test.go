package run

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"
)

// A request whose Host is not in server.allowedHosts gets 421 before any
// route runs (a DNS-rebinding page names its own host); the port and the
// letter case do not matter, and the health probes always answer.
func TestAllowHosts(t *testing.T) {
	t.Parallel()
	e := echo.New()
	e.Pre(allowHosts([]string{"localhost", "127.0.0.1", "::1", "Queue.Example.com"}))
	e.GET("/admin/whoami", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	e.GET("/health/ready", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	tests := []struct {
		host, path string
		want       int
	}{
		{"localhost:8080", "/admin/whoami", http.StatusOK},
		{"LOCALHOST", "/admin/whoami", http.StatusOK},
		{"127.0.0.1:8080", "/admin/whoami", http.StatusOK},
		{"[::1]:8080", "/admin/whoami", http.StatusOK},
		{"queue.example.com.", "/admin/whoami", http.StatusOK},
		{"rebind.attacker.example:8080", "/admin/whoami", http.StatusMisdirectedRequest},
		{"127.0.0.2", "/admin/whoami", http.StatusMisdirectedRequest},
		{"", "/admin/whoami", http.StatusMisdirectedRequest},
		{"rebind.attacker.example", "/nothing", http.StatusMisdirectedRequest},
		{"10.0.0.7:8080", "/health/ready", http.StatusOK},
	}
	for _, tt := range tests {
		req := httptest.NewRequest(http.MethodGet, tt.path, nil)
		req.Host = tt.host
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		require.Equal(t, tt.want, rec.Code, "%s %s", tt.host, tt.path)
	}

	open := echo.New()
	open.Pre(allowHosts(nil))
	open.GET("/admin/whoami", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	req := httptest.NewRequest(http.MethodGet, "/admin/whoami", nil)
	req.Host = "anything.example"
	rec := httptest.NewRecorder()
	open.ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code, "no list allows every host")
}

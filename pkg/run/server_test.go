package run_test

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/httpbody"
	"github.com/alternayte/queuebox/pkg/run"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

const (
	wait = 10 * time.Second
	tick = 5 * time.Millisecond
)

// listening starts a server on a free local port and returns its base URL
// and a channel with Serve's result.
func listening(t *testing.T, routes func(e *echo.Echo)) (*run.Server, string, <-chan error) {
	t.Helper()
	s := run.NewServer("data", "127.0.0.1:0", quiet())
	routes(s.Echo)
	require.NoError(t, s.Listen())
	served := make(chan error, 1)
	go func() { served <- s.Serve() }()
	var once sync.Once
	t.Cleanup(func() { once.Do(s.Shutdown) })
	return s, "http://" + s.Addr(), served
}

// client opens a fresh connection per request, so no request rides on a
// connection of another.
func client(t *testing.T) *http.Client {
	t.Helper()
	tr := &http.Transport{DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

type answer struct {
	code        int
	contentType string
	body        string
	err         error
}

func do(c *http.Client, method, url string, body io.Reader) answer {
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		return answer{err: err}
	}
	resp, err := c.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{code: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: strings.TrimSuffix(string(b), "\n"), err: err}
}

func TestServerAnswersAndRendersJSONErrors(t *testing.T) {
	t.Parallel()
	_, url, _ := listening(t, func(e *echo.Echo) {
		e.GET("/", func(c echo.Context) error { return c.String(http.StatusOK, "QueueBox is running!") })
		e.POST("/bad", func(echo.Context) error { return echo.NewHTTPError(http.StatusBadRequest, "Invalid JSON") })
		e.POST("/broken", func(echo.Context) error { return errors.New("pq: secret detail") })
	})
	c := client(t)
	for _, tc := range []struct {
		method, path string
		code         int
		body         string
	}{
		{http.MethodGet, "/", http.StatusOK, "QueueBox is running!"},
		{http.MethodGet, "/no/such/path", http.StatusNotFound, ""}, // 404 has no body
		{http.MethodPost, "/bad", http.StatusBadRequest, `{"error":"Invalid JSON"}`},
		// An internal error shows no detail.
		{http.MethodPost, "/broken", http.StatusInternalServerError, `{"error":"Internal Server Error"}`},
		{http.MethodHead, "/no/such/path", http.StatusNotFound, ""},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			t.Parallel()
			got := do(c, tc.method, url+tc.path, nil)
			require.NoError(t, got.err)
			require.Equal(t, tc.code, got.code)
			require.Equal(t, tc.body, got.body)
			if tc.code >= 400 && tc.body != "" {
				require.Contains(t, got.contentType, "application/json")
			}
		})
	}
}

// A chunked body over the limit, sent over the wire, is refused by a
// handler that reads through httpbody.Read.
func TestServerChunkedBodyOverTheLimit(t *testing.T) {
	t.Parallel()
	_, url, _ := listening(t, func(e *echo.Echo) {
		e.Use(httpbody.Limit(10))
		e.POST("/inbox/orders", func(c echo.Context) error {
			body, err := httpbody.Read(c.Request(), 10)
			var tooLarge *httpbody.TooLargeError
			if errors.As(err, &tooLarge) {
				return c.JSON(http.StatusRequestEntityTooLarge, map[string]string{"error": tooLarge.Error()})
			}
			if err != nil {
				return err
			}
			return c.String(http.StatusAccepted, string(body))
		})
	})
	c := client(t)
	for _, tc := range []struct {
		body string
		code int
		want string
	}{
		{"0123456789", http.StatusAccepted, "0123456789"},
		{"0123456789A", http.StatusRequestEntityTooLarge, `{"error":"Request body exceeds 10 bytes"}`},
	} {
		pr, pw := io.Pipe()
		go func() {
			for _, b := range []byte(tc.body) { // one chunk per byte
				if _, err := pw.Write([]byte{b}); err != nil {
					return
				}
			}
			_ = pw.Close()
		}()
		got := do(c, http.MethodPost, url+"/inbox/orders", pr)
		require.NoError(t, got.err)
		require.Equal(t, tc.code, got.code)
		require.Equal(t, tc.want, got.body)
	}
}

// During Shutdown the request in flight completes while every new request
// gets 503; then the server closes and Serve returns nil.
func TestServerShutdownDrainsAndRefusesNewRequests(t *testing.T) {
	t.Parallel()
	entered := make(chan struct{})
	release := make(chan struct{})
	var releaseOnce sync.Once
	open := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(open)
	s, url, served := listening(t, func(e *echo.Echo) {
		e.GET("/slow", func(c echo.Context) error {
			close(entered)
			<-release
			return c.String(http.StatusOK, "done")
		})
		e.GET("/fast", func(c echo.Context) error { return c.String(http.StatusOK, "fast") })
	})
	c := client(t)
	require.Equal(t, "fast", do(c, http.MethodGet, url+"/fast", nil).body)

	slow := make(chan answer, 1)
	go func() { slow <- do(c, http.MethodGet, url+"/slow", nil) }()
	<-entered

	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		s.Shutdown()
	}()

	var refused answer
	require.Eventually(t, func() bool {
		refused = do(c, http.MethodGet, url+"/fast", nil)
		return refused.code == http.StatusServiceUnavailable
	}, wait, tick, "no 503 during the drain: %+v", refused)
	require.Equal(t, `{"error":"QueueBox is shutting down"}`, refused.body)
	require.Contains(t, refused.contentType, "application/json")
	// Any route, known or not, gets the same answer.
	other := do(c, http.MethodPost, url+"/inbox/orders", strings.NewReader("{}"))
	require.Equal(t, http.StatusServiceUnavailable, other.code)
	require.Equal(t, `{"error":"QueueBox is shutting down"}`, other.body)

	select {
	case <-stopped:
		t.Fatal("Shutdown returned while a request was in flight")
	default:
	}

	open()
	got := <-slow
	require.NoError(t, got.err)
	require.Equal(t, http.StatusOK, got.code)
	require.Equal(t, "done", got.body)

	select {
	case <-stopped:
	case <-time.After(wait):
		t.Fatal("Shutdown did not return after the drain")
	}
	require.NoError(t, <-served)
	require.Error(t, do(c, http.MethodGet, url+"/fast", nil).err, "the port still answers after Shutdown")
}

func TestServerListenFailsOnATakenPort(t *testing.T) {
	t.Parallel()
	s, _, _ := listening(t, func(*echo.Echo) {})
	other := run.NewServer("management", s.Addr(), quiet())
	err := other.Listen()
	require.ErrorContains(t, err, "management")
	require.ErrorContains(t, err, s.Addr())
}

func TestServerAddrBeforeListen(t *testing.T) {
	t.Parallel()
	s := run.NewServer("data", ":8080", quiet())
	require.Equal(t, ":8080", s.Addr())
}

// Routes lists what the router serves, sorted by path then method, in
// the router's own syntax; Name is the name the server was built with.
func TestServerRoutes(t *testing.T) {
	t.Parallel()
	s := run.NewServer("management", "127.0.0.1:0", quiet())
	ok := func(c echo.Context) error { return c.NoContent(http.StatusOK) }
	s.Echo.POST("/b", ok)
	s.Echo.GET("/b", ok)
	s.Echo.GET("/a/:id", ok)
	require.Equal(t, "management", s.Name())
	require.Equal(t, []run.Route{{Method: "GET", Path: "/a/:id"}, {Method: "GET", Path: "/b"}, {Method: "POST", Path: "/b"}}, s.Routes())
}

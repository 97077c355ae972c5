package httpbody_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/httpbody"
)

// countingReader counts the bytes handed out, to show how much of a body
// a reader consumed.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func TestRead(t *testing.T) {
	t.Parallel()
	const limit = 10
	for _, tc := range []struct {
		name    string
		size    int
		chunked bool // no Content-Length: the length shows only as it is read
		tooBig  bool
	}{
		{"empty", 0, false, false},
		{"exactly the limit", limit, false, false},
		{"one over the limit", limit + 1, false, true},
		{"far over the limit", 1 << 20, false, true},
		{"chunked, empty", 0, true, false},
		{"chunked, exactly the limit", limit, true, false},
		{"chunked, one over the limit", limit + 1, true, true},
		{"chunked, far over the limit", 1 << 20, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			payload := bytes.Repeat([]byte("x"), tc.size)
			body := &countingReader{r: bytes.NewReader(payload)}
			req := httptest.NewRequest(http.MethodPost, "/inbox/orders", body)
			req.ContentLength = int64(tc.size)
			if tc.chunked {
				req.ContentLength = -1
			}

			got, err := httpbody.Read(req, limit)
			if !tc.tooBig {
				require.NoError(t, err)
				require.Equal(t, payload, got)
				return
			}
			var tooLarge *httpbody.TooLargeError
			require.ErrorAs(t, err, &tooLarge)
			require.Equal(t, int64(limit), tooLarge.Limit)
			require.EqualError(t, err, "Request body exceeds 10 bytes")
			require.Nil(t, got)
			// The cap bounds what is read, whatever the sender sends.
			require.LessOrEqual(t, body.n.Load(), int64(limit+1))
			if !tc.chunked {
				require.Zero(t, body.n.Load(), "a declared oversize body was read")
			}
		})
	}
}

// A body that arrives in pieces through a pipe (unknown length) is held
// to the limit as it streams.
func TestReadStreamedThroughAPipe(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	go func() {
		for range 100 {
			if _, err := pw.Write([]byte("0123456789")); err != nil {
				return // the reader stopped
			}
		}
		_ = pw.Close()
	}()
	req := httptest.NewRequest(http.MethodPost, "/inbox/orders", pr)
	require.Equal(t, int64(-1), req.ContentLength)
	_, err := httpbody.Read(req, 25)
	var tooLarge *httpbody.TooLargeError
	require.ErrorAs(t, err, &tooLarge)
	_ = pr.CloseWithError(errors.New("done"))
}

func TestReadPassesReadErrors(t *testing.T) {
	t.Parallel()
	broken := errors.New("connection reset")
	req := httptest.NewRequest(http.MethodPost, "/", io.MultiReader(strings.NewReader("abc"), errReader{broken}))
	_, err := httpbody.Read(req, 100)
	require.ErrorIs(t, err, broken)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func TestLimit(t *testing.T) {
	t.Parallel()
	const limit = 10
	for _, tc := range []struct {
		name          string
		size          int
		contentLength int64
		code          int
		body          string
		handled       bool
	}{
		{"under", 5, 5, http.StatusOK, "ok", true},
		{"exactly the limit", limit, limit, http.StatusOK, "ok", true},
		{"declared over the limit", limit + 1, limit + 1, http.StatusRequestEntityTooLarge, `{"error":"Request body exceeds 10 bytes"}`, false},
		{"far over the limit", 5000, 5000, http.StatusRequestEntityTooLarge, `{"error":"Request body exceeds 10 bytes"}`, false},
		// Without Content-Length the handler's Read enforces the limit.
		{"chunked", limit + 1, -1, http.StatusOK, "ok", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := echo.New()
			e.Use(httpbody.Limit(limit))
			var handled atomic.Bool
			e.POST("/inbox/orders", func(c echo.Context) error {
				handled.Store(true)
				return c.String(http.StatusOK, "ok")
			})
			req := httptest.NewRequest(http.MethodPost, "/inbox/orders", bytes.NewReader(bytes.Repeat([]byte("x"), tc.size)))
			req.ContentLength = tc.contentLength
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)

			require.Equal(t, tc.code, rec.Code)
			require.Equal(t, tc.body, strings.TrimSuffix(rec.Body.String(), "\n"))
			require.Equal(t, tc.handled, handled.Load())
			if tc.code == http.StatusRequestEntityTooLarge {
				require.Contains(t, rec.Header().Get("Content-Type"), "application/json")
			}
		})
	}
}

package webhook_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// bodyOf returns a JSON document of exactly n bytes with the key id.
func bodyOf(id string, n int) string {
	head := `{"id":"` + id + `","pad":"`
	return head + strings.Repeat("x", n-len(head)-2) + `"}`
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	ev := newEnv(t, nil, nil, source("s", "/s"))
	at, over := bodyOf("at", maxBody), bodyOf("over", maxBody+1)
	require.Len(t, at, maxBody)
	require.Len(t, over, maxBody+1)

	require.Equal(t, http.StatusAccepted, ev.post("/inbox/s", at).Code, "a body exactly at the cap passes")
	requireAnswer(t, ev.post("/inbox/s", over), 413, `{"error":"Request body exceeds 2048 bytes"}`)
	require.Len(t, ev.mem.Rows(), 1)
}

// A chunked body has no Content-Length, so only the counting read can
// stop it. The request goes over a real connection to keep the chunking.
func TestChunkedBodyLimit(t *testing.T) {
	t.Parallel()
	ev := newEnv(t, nil, nil, source("s", "/s"))
	var (
		mu sync.Mutex
		te []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		te = append(te, strings.Join(r.TransferEncoding, ","))
		mu.Unlock()
		ev.e.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	send := func(body string) (int, string) {
		// A reader of unknown length makes the client send chunks.
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/inbox/s", io.MultiReader(strings.NewReader(body)))
		require.NoError(t, err)
		req.ContentLength = -1
		res, err := srv.Client().Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res.StatusCode, strings.TrimSpace(string(b))
	}
	status, body := send(bodyOf("chunked-over", maxBody+1))
	require.Equal(t, http.StatusRequestEntityTooLarge, status)
	require.Equal(t, `{"error":"Request body exceeds 2048 bytes"}`, body)

	status, _ = send(bodyOf("chunked-at", maxBody))
	require.Equal(t, http.StatusAccepted, status)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"chunked", "chunked"}, te, "both bodies arrived chunked")
	require.Len(t, ev.mem.Rows(), 1)
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rpm        int
		retryAfter string
	}{
		{rpm: 1, retryAfter: "60"},
		{rpm: 3, retryAfter: "20"},
		{rpm: 120, retryAfter: "1"},
		{rpm: 600, retryAfter: "1"},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.rpm), func(t *testing.T) {
			t.Parallel()
			src := source("s", "/s")
			src.RequestsPerMinute = tt.rpm
			ev := newEnv(t, nil, nil, src)
			for i := range tt.rpm {
				require.Equal(t, http.StatusAccepted, ev.post("/inbox/s", `{"id":"`+strconv.Itoa(i)+`"}`).Code,
					"request %d of %d within the minute passes", i+1, tt.rpm)
			}
			rec := ev.post("/inbox/s", `{"id":"over"}`)
			require.Equal(t, http.StatusTooManyRequests, rec.Code)
			require.Empty(t, rec.Body.String())
			require.Equal(t, tt.retryAfter, rec.Header().Get("Retry-After"))
			require.Empty(t, rec.Header().Get("X-Correlation-Id"))
			require.Len(t, ev.mem.Rows(), tt.rpm, "a refused request stores nothing")

			ev.clock.Advance(time.Minute / time.Duration(tt.rpm))
			require.Equal(t, http.StatusAccepted, ev.post("/inbox/s", `{"id":"later"}`).Code,
				"one token is back after 60/rpm seconds")
		})
	}
}

func TestRateLimitIsPerSource(t *testing.T) {
	t.Parallel()
	limited := source("limited", "/limited")
	limited.RequestsPerMinute = 1
	ev := newEnv(t, nil, nil, limited, source("free", "/free"))
	require.Equal(t, http.StatusAccepted, ev.post("/inbox/limited", `{"id":"1"}`).Code)
	require.Equal(t, http.StatusTooManyRequests, ev.post("/inbox/limited", `{"id":"2"}`).Code)
	for i := range 5 {
		require.Equal(t, http.StatusAccepted, ev.post("/inbox/free", `{"id":"`+strconv.Itoa(i)+`"}`).Code)
	}
}

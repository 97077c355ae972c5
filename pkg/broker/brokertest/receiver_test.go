package brokertest_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

func post(t *testing.T, ctx context.Context, url, body string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("X-Test", body)
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		t.Cleanup(func() { _ = resp.Body.Close() })
	}
	return resp, err
}

func TestHTTPReceiverRecordsInArrivalOrder(t *testing.T) {
	t.Parallel()
	rc := brokertest.NewHTTPReceiver(t, brokertest.Statuses(500, 202))
	for _, body := range []string{"a", "b", "c"} {
		_, err := post(t, t.Context(), rc.URL+"/p/q?x=1", body)
		require.NoError(t, err)
	}
	got := rc.Requests()
	require.Len(t, got, 3)
	require.Equal(t, 3, rc.Len())
	for i, r := range got {
		require.Equal(t, i, r.Seq)
		require.Equal(t, http.MethodPost, r.Method)
		require.Equal(t, "/p/q", r.Path)
		require.Equal(t, "x=1", r.Query)
		require.Equal(t, string(rune('a'+i)), r.Body)
		require.Equal(t, r.Body, r.Header.Get("X-Test"))
	}
	require.Equal(t, []int{500, 202, 202}, []int{got[0].Status, got[1].Status, got[2].Status})
}

func TestHTTPReceiverAnswer(t *testing.T) {
	t.Parallel()
	rc := brokertest.NewHTTPReceiver(t, brokertest.Static(brokertest.Answer{
		Status: http.StatusFound, Header: http.Header{"Location": {"/elsewhere"}}, Body: "moved", Delay: time.Millisecond,
	}))
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Post(rc.URL, "text/plain", nil)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusFound, resp.StatusCode)
	require.Equal(t, "/elsewhere", resp.Header.Get("Location"))
	require.Equal(t, "moved", string(body))

	rc.SetAnswer(brokertest.StatusBy(func(r brokertest.HTTPRequest) int {
		if _, _, ok := r.BasicAuth(); ok {
			return http.StatusNoContent
		}
		return http.StatusUnauthorized
	}))
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, rc.URL, nil)
	req.SetBasicAuth("u", "p")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
}

func TestHTTPReceiverHoldAndRelease(t *testing.T) {
	t.Parallel()
	rc := brokertest.NewHTTPReceiver(t, nil)
	rc.Hold()
	done := make(chan int, 1)
	go func() {
		resp, err := post(t, t.Context(), rc.URL, "held")
		if err != nil {
			done <- 0
			return
		}
		done <- resp.StatusCode
	}()
	require.Eventually(t, func() bool { return rc.Len() == 1 }, 10*time.Second, 5*time.Millisecond)
	require.Zero(t, rc.Requests()[0].Status, "held, not answered")
	rc.Release()
	require.Equal(t, http.StatusOK, <-done)
	require.Equal(t, http.StatusOK, rc.Requests()[0].Status)
}

func TestHTTPReceiverHeldClientGivesUp(t *testing.T) {
	t.Parallel()
	rc := brokertest.NewHTTPReceiver(t, nil)
	rc.Hold()
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := post(t, ctx, rc.URL, "x")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Equal(t, 1, rc.Len())
	require.Zero(t, rc.Requests()[0].Status)
	// The receiver stays held: its cleanup must still end the test.
	rc.Hold()
	go func() {
		if resp, err := http.Post(rc.URL, "text/plain", nil); err == nil {
			_ = resp.Body.Close()
		}
	}()
	require.Eventually(t, func() bool { return rc.Len() == 2 }, 10*time.Second, 5*time.Millisecond)
}

package integration

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// receiver is an HTTP destination in the test process.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []received
	answer func(r received) int
}

type received struct {
	Header http.Header
	Body   string
	Path   string
	Method string
}

func newReceiver(t *testing.T, answer func(received) int) *receiver {
	t.Helper()
	rc := &receiver{answer: answer}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got := received{Header: r.Header.Clone(), Body: string(body), Path: r.URL.Path, Method: r.Method}
		rc.mu.Lock()
		rc.got = append(rc.got, got)
		rc.mu.Unlock()
		w.WriteHeader(rc.answer(got))
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) requests() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// destinationEnv routes every topic to the receiver.
func destinationEnv(env map[string]string, baseURL string) map[string]string {
	return with(env,
		"QUEUEBOX_DESTINATIONS_WEBHOOK_TYPE", "http",
		"QUEUEBOX_DESTINATIONS_WEBHOOK_BASEURL", baseURL,
		"QUEUEBOX_DESTINATIONS_WEBHOOK_PATH", "/webhook",
		"QUEUEBOX_ROUTES_0_TOPICPATTERN", "**",
		"QUEUEBOX_ROUTES_0_DESTINATION", "webhook",
		"QUEUEBOX_OUTBOX_POLLINTERVALMS", "20",
	)
}

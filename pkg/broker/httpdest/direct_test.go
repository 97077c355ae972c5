package httpdest_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/httpdest"
)

// oneAnswerServer accepts connections and answers exactly one request on
// each with 200 and answer (a keep-alive one, or a body that ends with
// the connection), then closes the connection: the next request on that
// connection, from a pool, finds it closed. It counts the requests it
// read.
func oneAnswerServer(t *testing.T, answer string) (string, *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	var requests atomic.Int64
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				requests.Add(1)
				_, _ = io.WriteString(conn, answer)
			}()
		}
	}()
	return "http://" + l.Addr().String(), &requests
}

// TestPublishSurvivesAPooledConnectionTheReceiverClosed sends twice: the
// second publish takes the connection the receiver closed after the first
// and must go out again on a new one, once, without an error.
func TestPublishSurvivesAPooledConnectionTheReceiverClosed(t *testing.T) {
	t.Parallel()
	for name, answer := range map[string]string{
		"keep-alive answer":        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"body ended by the close":  "HTTP/1.1 200 OK\r\n\r\nok",
		"Connection: close answer": "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
		"no body":                  "HTTP/1.1 204 No Content\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			url, requests := oneAnswerServer(t, answer)
			p := newPublisher(t, httpdest.Options{Name: "orders", BaseURL: url, Path: "/events"})
			for i := range 5 {
				require.NoError(t, p.Publish(context.Background(), delivery("", 1)), "publish %d", i)
			}
			require.EqualValues(t, 5, requests.Load(), "each publish reached the receiver once")
		})
	}
}

// TestConcurrentPublishesEachGetTheirOwnAnswer runs publishes from many
// goroutines over the pooled connections. The receiver fails every row
// whose attempt is odd, so an answer read on the wrong request shows as a
// publish with the wrong outcome.
func TestConcurrentPublishesEachGetTheirOwnAnswer(t *testing.T) {
	t.Parallel()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		attempt, _ := strconv.Atoi(r.Header.Get("X-Attempt"))
		if attempt%2 == 1 {
			http.Error(w, "odd attempt "+strconv.Itoa(attempt), http.StatusInternalServerError)
			return
		}
		_, _ = fmt.Fprintf(w, "even %d", attempt)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	p := newPublisher(t, httpdest.Options{Name: "orders", BaseURL: srv.URL, Path: "/events"})

	const workers, each = 16, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				attempt := w*each + i + 1
				err := p.Publish(context.Background(), delivery("", attempt))
				switch {
				case attempt%2 == 0 && err != nil:
					errs <- fmt.Errorf("attempt %d: %w", attempt, err)
				case attempt%2 == 1 && (err == nil || !strings.Contains(err.Error(), "odd attempt "+strconv.Itoa(attempt))):
					errs <- fmt.Errorf("attempt %d: got %v", attempt, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	require.LessOrEqual(t, conns.Load(), int64(workers), "connections are reused, one per concurrent publish at most")
}

// TestAnswerNotReadToTheEndClosesItsConnection: a 500 with a body longer
// than what the publisher reads of it must not leave the rest in a pooled
// connection for the next publish to read as its answer.
func TestAnswerNotReadToTheEndClosesItsConnection(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = 'x'
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write(big)
			return
		}
		_, _ = io.WriteString(w, "fine")
	}))
	t.Cleanup(srv.Close)
	p := newPublisher(t, httpdest.Options{Name: "orders", BaseURL: srv.URL, Path: "/events"})
	require.Error(t, p.Publish(context.Background(), delivery("", 1)))
	require.NoError(t, p.Publish(context.Background(), delivery("", 2)))
}

// TestInformationalAnswerIsSkipped: a 103 Early Hints before the real
// answer is not the answer.
func TestInformationalAnswerIsSkipped(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Link", "</style.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	p := newPublisher(t, httpdest.Options{Name: "orders", BaseURL: srv.URL, Path: "/events"})
	err := p.Publish(context.Background(), delivery("", 1))
	var e *httpdest.Error
	require.True(t, errors.As(err, &e), "%v", err)
	require.Equal(t, http.StatusServiceUnavailable, e.StatusCode)
}

// TestCancelInterruptsAPublishWaitingForItsAnswer: ending the caller's
// context interrupts the read of an answer that never comes, and the
// error says so.
func TestCancelInterruptsAPublishWaitingForItsAnswer(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	p := newPublisher(t, httpdest.Options{Name: "orders", BaseURL: srv.URL, Path: "/events", Timeout: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Publish(ctx, delivery("", 1)) }()
	cancel()
	err := <-done
	require.ErrorIs(t, err, context.Canceled)
}

// TestNoHTTP1FastPathUsesTheTransport: a plain http:// destination goes
// through the publisher's own HTTP/1.1 client, which sends no
// Accept-Encoding, unless NoHTTP1FastPath sends it through net/http's
// Transport, which asks for gzip.
func TestNoHTTP1FastPathUsesTheTransport(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Accept-Encoding"))
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	for _, off := range []bool{false, true} {
		p := newPublisher(t, httpdest.Options{BaseURL: srv.URL, NoHTTP1FastPath: off})
		require.NoError(t, p.Publish(t.Context(), delivery("", 0)))
	}
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"", "gzip"}, seen, "fast path first, then the Transport")
}

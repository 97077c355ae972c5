package main

import (
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// receiver is the loopback HTTP destination: it reads each request body,
// answers 200 at once and counts. It does as little as a server can, so
// it is not the limit of a delivery benchmark.
type receiver struct {
	srv   *http.Server
	URL   string
	count atomic.Int64
	first atomic.Int64 // UnixNano of the first request since reset; 0 before
}

func newReceiver() (*receiver, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rc := &receiver{URL: "http://" + l.Addr().String()}
	rc.srv = &http.Server{Handler: rc, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = rc.srv.Serve(l) }()
	return rc, nil
}

// ServeHTTP implements http.Handler.
func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	rc.first.CompareAndSwap(0, time.Now().UnixNano())
	rc.count.Add(1)
	w.WriteHeader(http.StatusOK)
}

// reset zeroes the counters between runs.
func (rc *receiver) reset() {
	rc.count.Store(0)
	rc.first.Store(0)
}

// started reports whether a request arrived since the last reset.
func (rc *receiver) started() bool { return rc.first.Load() != 0 }

func (rc *receiver) close() { _ = rc.srv.Close() }

// destinationEnv routes every topic to the receiver over HTTP and gives
// the poller the benchmark settings.
func (rc *receiver) destinationEnv(o opts) map[string]string {
	return map[string]string{
		"QUEUEBOX_DESTINATIONS_WEBHOOK_TYPE":    "http",
		"QUEUEBOX_DESTINATIONS_WEBHOOK_BASEURL": rc.URL,
		"QUEUEBOX_DESTINATIONS_WEBHOOK_PATH":    "/webhook",
		"QUEUEBOX_ROUTES_0_TOPICPATTERN":        "**",
		"QUEUEBOX_ROUTES_0_DESTINATION":         "webhook",
		"QUEUEBOX_OUTBOX_CONCURRENCY":           itoa(o.concurrency),
		"QUEUEBOX_OUTBOX_BATCHSIZE":             itoa(o.batchSize),
		"QUEUEBOX_OUTBOX_POLLINTERVALMS":        itoa(o.pollMs),
	}
}

package main

import (
	"io"
	"net"
	"net/http"
	"time"
)

// serveStdlib serves rc on l with net/http (-http-stdlib), the receiver
// the benchmark used before the lean one; it returns the stop function.
func serveStdlib(l net.Listener, rc *receiver) func() error {
	srv := &http.Server{Handler: stdHandler{rc}, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return srv.Close
}

// stdHandler reads the body, counts and answers 200 after the delay.
type stdHandler struct{ rc *receiver }

// ServeHTTP implements http.Handler.
func (h stdHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	h.rc.hit()
	h.rc.answerDelay()
	w.WriteHeader(http.StatusOK)
}

package brokertest

import (
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// HTTPRequest is one request that an HTTPReceiver saw.
type HTTPRequest struct {
	// Seq is the arrival order, from 0.
	Seq int
	// Arrived is the time the request was recorded, after its body was
	// read.
	Arrived time.Time
	Method  string
	// Path is the URL path; Query the raw query, without '?'.
	Path, Query string
	Header      http.Header
	Body        string
	// Status is the status the receiver answered with, or 0 when it gave
	// no answer (yet): the request is held or delayed, or the client or
	// the test left first.
	Status int
}

// BasicAuth returns the user name and password of the request's
// Authorization header, as (*http.Request).BasicAuth does.
func (r HTTPRequest) BasicAuth() (user, password string, ok bool) {
	return (&http.Request{Header: r.Header}).BasicAuth()
}

// Answer is the reply to one request. The zero Answer is 200 OK with no
// body.
type Answer struct {
	// Status defaults to 200.
	Status int
	// Header is added to the response.
	Header http.Header
	Body   string
	// Delay postpones the answer. When the client goes away or the test
	// ends first, the connection is dropped without an answer.
	Delay time.Duration
}

// AnswerFunc decides the answer to one request. The receiver calls it
// after it recorded the request and after a Hold ended, on the request's
// own goroutine, so calls run concurrently and may block; a blocking func
// must return when the test ends, or the receiver's cleanup waits for it.
type AnswerFunc func(HTTPRequest) Answer

// Status answers every request with code.
func Status(code int) AnswerFunc {
	return func(HTTPRequest) Answer { return Answer{Status: code} }
}

// Statuses answers the n-th request (by arrival order) with codes[n], and
// every request after the last code with the last code.
func Statuses(codes ...int) AnswerFunc {
	if len(codes) == 0 {
		panic("brokertest.Statuses: no codes")
	}
	return func(r HTTPRequest) Answer {
		return Answer{Status: codes[min(r.Seq, len(codes)-1)]}
	}
}

// StatusBy answers each request with the status that f returns.
func StatusBy(f func(HTTPRequest) int) AnswerFunc {
	return func(r HTTPRequest) Answer { return Answer{Status: f(r)} }
}

// Static answers every request with a.
func Static(a Answer) AnswerFunc {
	return func(HTTPRequest) Answer { return a }
}

// HTTPReceiver is an HTTP destination in the test process: an
// httptest.Server that records every request, method, path, headers and
// body, in arrival order, before it answers. Its methods are safe for
// concurrent use. The server closes when the test ends; requests still
// held or delayed then lose their connection without an answer first.
type HTTPReceiver struct {
	*httptest.Server

	mu     sync.Mutex
	reqs   []HTTPRequest
	answer AnswerFunc
	// gate, when not nil, holds requests until it is closed.
	gate chan struct{}
	// done is closed when the test ends, before the server closes.
	done chan struct{}
}

// NewHTTPReceiver starts a receiver that answers with answer, or 200 OK
// when answer is nil, and closes it when t ends.
func NewHTTPReceiver(t testing.TB, answer AnswerFunc) *HTTPReceiver {
	t.Helper()
	rc := &HTTPReceiver{answer: answer, done: make(chan struct{})}
	rc.Server = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(func() {
		close(rc.done)
		rc.Close()
	})
	return rc
}

// SetAnswer replaces the answer of the requests that arrive from now on;
// nil answers 200 OK.
func (rc *HTTPReceiver) SetAnswer(answer AnswerFunc) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.answer = answer
}

// Hold makes every request that arrives from now on wait, recorded but
// unanswered, until Release, until its client goes away or until the test
// ends. A receiver that is held never answers: the destination that
// accepts a connection and then stalls.
func (rc *HTTPReceiver) Hold() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.gate == nil {
		rc.gate = make(chan struct{})
	}
}

// Release answers the held requests and stops holding new ones. It does
// nothing when the receiver is not held.
func (rc *HTTPReceiver) Release() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.gate != nil {
		close(rc.gate)
		rc.gate = nil
	}
}

// Requests returns a copy of the requests seen so far, in arrival order.
func (rc *HTTPReceiver) Requests() []HTTPRequest {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := make([]HTTPRequest, len(rc.reqs))
	for i, r := range rc.reqs {
		r.Header = r.Header.Clone()
		out[i] = r
	}
	return out
}

// Len returns the number of requests seen so far, answered or not.
func (rc *HTTPReceiver) Len() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.reqs)
}

func (rc *HTTPReceiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := HTTPRequest{Arrived: time.Now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		Header: r.Header.Clone(), Body: string(body)}
	rc.mu.Lock()
	req.Seq = len(rc.reqs)
	rc.reqs = append(rc.reqs, req)
	gate := rc.gate
	rc.mu.Unlock()
	if gate != nil && !wait(r.Context(), rc.done, gate) {
		abort()
	}
	rc.mu.Lock()
	answer := rc.answer
	rc.mu.Unlock()
	a := Answer{}
	if answer != nil {
		a = answer(req)
	}
	if a.Delay > 0 {
		timer := time.NewTimer(a.Delay)
		defer timer.Stop()
		if !wait(r.Context(), rc.done, timer.C) {
			abort()
		}
	}
	if a.Status == 0 {
		a.Status = http.StatusOK
	}
	// The status is recorded before the client can read it, so a caller
	// that saw the answer also sees it in Requests.
	rc.mu.Lock()
	rc.reqs[req.Seq].Status = a.Status
	rc.mu.Unlock()
	maps.Copy(w.Header(), a.Header)
	w.WriteHeader(a.Status)
	_, _ = io.WriteString(w, a.Body)
}

// abort drops the connection without an answer. Returning from the
// handler instead would send the client an implicit 200.
func abort() { panic(http.ErrAbortHandler) }

// wait returns true when ready fires first, false when the client went
// away (ctx) or the test ended (done).
func wait[T any](ctx context.Context, done <-chan struct{}, ready <-chan T) bool {
	select {
	case <-ready:
		return true
	case <-ctx.Done():
	case <-done:
	}
	return false
}

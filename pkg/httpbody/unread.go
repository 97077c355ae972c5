package httpbody

import (
	"net/http"
	"time"
)

// CloseUnread prepares w for an answer given before the request body was
// read to its end (an early 401, 413, 429 or 431). It sets Connection:
// close, which keeps net/http from draining the body before it writes the
// answer, and returns stop, to call once the answer is written: stop ends
// every read of the connection, so the drain that closing the request
// body still does returns at once and the connection closes, instead of
// waiting for a slow sender or ReadTimeout. A writer without deadlines (a
// test recorder) is left alone by stop. Not safe for concurrent use with
// other writes to w.
func CloseUnread(w http.ResponseWriter) (stop func()) {
	w.Header().Set("Connection", "close")
	return func() { _ = http.NewResponseController(w).SetReadDeadline(time.Now()) }
}

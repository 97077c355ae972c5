package httpbody

import (
	"net/http"
	"time"
)

// DrainWindow is how long a connection answered early may still read the
// rest of its request body before it closes. A caller that sends its body
// in one go (every HTTP client does) finishes within it, so the server
// reads to the end, closes with a FIN, and the caller reads the answer; a
// connection closed with unread bytes instead sends a TCP reset, which
// on Linux also discards the answer waiting in the caller's socket, and
// the caller sees "connection reset by peer" instead of its 413. A caller
// that never finishes its body holds the connection no longer than this.
const DrainWindow = 2 * time.Second

// CloseUnread prepares w for an answer given before the request body was
// read to its end (an early 401, 413, 429 or 431). It sets Connection:
// close, which keeps net/http from draining the body before it writes the
// answer, and returns stop, to call once the answer is written: stop
// bounds every further read of the connection to DrainWindow, so the
// drain that closing the request body still does (net/http reads up to
// 256 KiB of it) ends at the body's end or at the window, whichever
// comes first, instead of waiting for a slow sender or ReadTimeout. A
// writer without deadlines (a test recorder) is left alone by stop. Not
// safe for concurrent use with other writes to w.
func CloseUnread(w http.ResponseWriter) (stop func()) {
	w.Header().Set("Connection", "close")
	return func() { _ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(DrainWindow)) }
}

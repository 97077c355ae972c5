package brokertest

import (
	"net"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// HTTPDestination is the Destination of a publisher that POSTs to an HTTP
// endpoint, over an HTTPReceiver whose URL the publisher targets. It reads
// a message's identity from the standard headers of an HTTP delivery
// (X-Message-Id, X-Topic, X-Attempt). Reject answers 500; Stall holds
// requests unanswered (HTTPReceiver.Hold).
type HTTPDestination struct {
	*HTTPReceiver
}

var _ Destination = (*HTTPDestination)(nil)

// NewHTTPDestination starts a healthy HTTP destination that closes when t
// ends.
func NewHTTPDestination(t testing.TB) *HTTPDestination {
	t.Helper()
	return &HTTPDestination{HTTPReceiver: NewHTTPReceiver(t, nil)}
}

// Received returns the requests that got a 2xx answer, as messages.
func (d *HTTPDestination) Received(t *testing.T) []Message {
	t.Helper()
	var out []Message
	for _, r := range d.Requests() {
		if r.Status < 200 || r.Status > 299 {
			continue
		}
		attempt, err := strconv.Atoi(r.Header.Get("X-Attempt"))
		require.NoError(t, err, "X-Attempt of request %d", r.Seq)
		out = append(out, Message{ID: r.Header.Get("X-Message-Id"), Topic: r.Header.Get("X-Topic"),
			Attempt: attempt, Body: []byte(r.Body), Headers: r.Header})
	}
	return out
}

// Arrivals returns the number of requests seen, answered or not.
func (d *HTTPDestination) Arrivals(*testing.T) int { return d.Len() }

// SetFault sets the answer of the requests that arrive from now on.
func (d *HTTPDestination) SetFault(t *testing.T, f Fault) {
	t.Helper()
	switch f {
	case Healthy:
		d.SetAnswer(nil)
		d.Release()
	case Reject:
		d.SetAnswer(Status(http.StatusInternalServerError))
		d.Release()
	case Stall:
		d.Hold()
	default:
		t.Fatalf("brokertest: unknown fault %d", f)
	}
}

// UnreachableURL returns the http URL of a loopback port that nothing
// listens on: a connection to it is refused.
func UnreachableURL(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return "http://" + addr
}

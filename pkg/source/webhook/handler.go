package webhook

import (
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/alternayte/queuebox/pkg/httpbody"
	"github.com/alternayte/queuebox/pkg/ingest"
)

// Serve is the echo handler of the source. It always answers itself and
// returns only the error of writing the answer.
func (h *Handler) Serve(c echo.Context) error {
	return h.process(c).write(c)
}

// beforeBody marks an answer given before the body was read: the
// connection closes after it (see reply.write), so a sender that never
// finishes its body cannot hold the connection while net/http drains it.
func beforeBody(req *http.Request, r reply) reply {
	r.closeConn = req.ContentLength != 0
	return r
}

// process runs steps 0 to 2 (see the package documentation), hands the
// message to the receiver for the others, and sets the correlation header
// (step 4) on every answer after the filter.
func (h *Handler) process(c echo.Context) reply {
	req, now := c.Request(), h.now()
	if retryAfter, ok := h.limiter.admit(now); !ok {
		return beforeBody(req, replyTooMany(retryAfter))
	}
	headers := receivedHeaders(req)
	if msg := ingest.HeadersTooLarge(h.recv.StoredHeaders(headers)); msg != "" {
		return beforeBody(req, errorReply(http.StatusRequestHeaderFieldsTooLarge, msg))
	}
	// A bearer token or an API key needs the headers only: a request
	// without valid credentials is refused before its body is read. HMAC
	// signs the body, so it is checked after the read.
	if !h.verifier.NeedsBody() {
		if r, failed := h.verify(req, nil, now); failed {
			return beforeBody(req, r)
		}
	}
	body, err := httpbody.Read(req, h.maxBody)
	if err != nil {
		return h.bodyError(err)
	}
	if h.verifier.NeedsBody() {
		if r, failed := h.verify(req, body, now); failed {
			return r
		}
	}
	if challenge, ok := h.verifier.Challenge(body); ok {
		// Slack's setup handshake: it wants the challenge back, and it is
		// no event to store.
		return reply{status: http.StatusOK, body: map[string]string{"challenge": challenge}}
	}
	d, err := h.recv.Receive(req.Context(), ingest.Message{
		Body: body, Headers: headers, CorrelationID: req.Header.Get(CorrelationHeader), ReceivedAt: now,
	})
	if d.Outcome != ingest.Filtered {
		c.Response().Header().Set(CorrelationHeader, d.CorrelationID)
	}
	if err != nil {
		// Receive logged it; the sender must try again.
		return replyStorageFailed
	}
	return replyFor(d)
}

// verify checks the credentials of the source; failed is true with the
// 401 answer.
func (h *Handler) verify(req *http.Request, body []byte, now time.Time) (reply, bool) {
	if err := h.verifier.Verify(req.Header, body, now); err != nil {
		h.log.DebugContext(req.Context(), "request failed the source auth", "reason", err.Error())
		return errorReply(http.StatusUnauthorized, err.Error()), true
	}
	return reply{}, false
}

func (h *Handler) bodyError(err error) reply {
	var tooLarge *httpbody.TooLargeError
	if errors.As(err, &tooLarge) {
		// The read stopped at the bound; the rest of the body stays unread.
		r := errorReply(http.StatusRequestEntityTooLarge, tooLarge.Error())
		r.closeConn = true
		return r
	}
	h.log.Debug("request body could not be read", "err", err)
	return replyUnreadable
}

// replyFor maps a decision to the documented answer. A rejection is 400,
// or 422 when the source transform failed; every rejection of Receive is
// a function of the request alone. Dead is not decided for HTTP (no
// dead-letter mode); were it, the row exists, so it answers like Stored.
func replyFor(d ingest.Decision) reply {
	switch d.Outcome {
	case ingest.Stored, ingest.Dead:
		return replyNew(d.ID)
	case ingest.Duplicate:
		return replyDuplicate
	case ingest.Filtered:
		return replyFiltered
	}
	if d.Reason == ingest.ReasonTransformFailed {
		return errorReply(http.StatusUnprocessableEntity, d.Message)
	}
	return errorReply(http.StatusBadRequest, d.Message)
}

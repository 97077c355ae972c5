package ingest

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/jsonpath"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/run"
)

// message is a request that passed the checks of steps 0 to 4.
type message struct {
	body        []byte
	headers     map[string]string // stored headers
	correlation string
	receivedAt  time.Time
}

// Serve is the echo handler of the source. It always answers itself and
// returns only the error of writing the answer.
func (h *Handler) Serve(c echo.Context) error {
	return h.process(c).write(c)
}

// process runs steps 0 to 4 (see the package documentation) and hands the
// message to accept.
func (h *Handler) process(c echo.Context) reply {
	req, now := c.Request(), h.now()
	if retryAfter, ok := h.limiter.admit(now); !ok {
		return replyTooMany(retryAfter)
	}
	body, err := run.ReadBody(req, h.maxBody)
	if err != nil {
		return h.bodyError(err)
	}
	if err := h.verifier.Verify(req.Header, body, now); err != nil {
		h.log.Debug("request failed the source auth", "reason", err.Error())
		return errorReply(http.StatusUnauthorized, err.Error())
	}
	received := receivedHeaders(req)
	if !h.filter.Pass(received) {
		h.metrics.dropped(h.name)
		return replyFiltered
	}
	corr := correlationID(req.Header.Get(CorrelationHeader))
	c.Response().Header().Set(CorrelationHeader, corr)
	return h.accept(req.Context(), message{
		body: body, headers: storedHeaders(received, h.omit), correlation: corr, receivedAt: now,
	})
}

func (h *Handler) bodyError(err error) reply {
	var tooLarge *run.ErrBodyTooLarge
	if errors.As(err, &tooLarge) {
		return errorReply(http.StatusRequestEntityTooLarge, tooLarge.Error())
	}
	h.log.Debug("request body could not be read", "err", err)
	return replyUnreadable
}

// accept runs steps 5 to 8: parse, extract, transform, store.
func (h *Handler) accept(ctx context.Context, m message) reply {
	doc, err := jsonpath.Decode(m.body)
	if err != nil {
		return h.reject(ReasonExtractionFailed, replyInvalidJSON, m, "body is not JSON")
	}
	if holdsNUL(doc) {
		// Valid JSON, but PostgreSQL's jsonb refuses it: a 500 would make
		// the sender retry for ever, so answer the 4xx that never changes.
		return h.reject(ReasonExtractionFailed, replyNUL, m, "body holds \u0000")
	}
	attrs, err := h.extractor.extract(doc)
	if err != nil {
		return h.reject(ReasonExtractionFailed, errorReply(http.StatusBadRequest, err.Error()), m, err.Error())
	}
	in := SourceInput{
		Payload: m.body, MessageID: uuid.NewString(), Timestamp: m.receivedAt, Source: h.name,
		Headers: m.headers, IdempotencyKey: attrs.key, EventType: attrs.eventType,
	}
	payload, err := h.runTransform(ctx, in)
	if err != nil {
		return h.reject(ReasonTransformFailed, errorReply(http.StatusUnprocessableEntity, "Transform failed: "+err.Error()), m, err.Error())
	}
	return h.store(ctx, in, attrs, m, payload)
}

func (h *Handler) reject(reason string, r reply, m message, detail string) reply {
	h.metrics.rejected(reason)
	h.log.Debug("message rejected", "reason", reason, "detail", detail, "correlationId", m.correlation)
	return r
}

// runTransform returns the payload to store: the transform result, or the
// original body without a transform or when Skip absorbs a failure.
func (h *Handler) runTransform(ctx context.Context, in SourceInput) ([]byte, error) {
	if h.transform == nil {
		return in.Payload, nil
	}
	out, err := h.transform.Apply(ctx, in)
	if err == nil {
		err = checkResult(out)
	}
	if err == nil {
		return out, nil
	}
	if h.onError == config.OnErrorSkip {
		h.log.Debug("source transform failed; storing the original body (onError Skip)", "err", err)
		return in.Payload, nil
	}
	return nil, err
}

// store writes the row. The unique constraint decides new or duplicate.
func (h *Handler) store(ctx context.Context, in SourceInput, attrs attributes, m message, payload []byte) reply {
	id, inserted, err := h.inbox.Insert(ctx, queuebox.ReceivedRow{
		ID: in.MessageID, Source: h.name, IdempotencyKey: attrs.key,
		AggregateID: attrs.aggregateID, EventType: attrs.eventType, Payload: payload,
		Headers: m.headers, CorrelationID: m.correlation, Consumption: h.consumption,
	})
	var refused *queuebox.RefusedValueError
	switch {
	case errors.As(err, &refused):
		// The same body fails on every try: a 500 would invite repeats.
		return h.reject(ReasonExtractionFailed, errorReply(http.StatusBadRequest,
			"The database cannot store this message: "+refused.Reason), m, refused.Reason)
	case err != nil:
		h.metrics.rejected(ReasonStorageFailed)
		h.log.Error("inbox write failed", "correlationId", m.correlation, "err", err)
		return replyStorageFailed
	case !inserted:
		h.metrics.message(StatusDuplicate)
		return replyDuplicate
	}
	h.metrics.message(StatusNew)
	return replyNew(id)
}

package ingest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/alternayte/queuebox/pkg/jsonpath"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/transform"
)

// The texts of the rejections that do not depend on the message.
const (
	msgInvalidJSON = "Invalid JSON"
	msgNUL         = `Invalid JSON: a string holds \u0000, which the database cannot store`
)

// Receive runs steps 3 and 5 to 8 of the package documentation on m: the
// header filter, the limits, parse, extract, transform, store. It counts the inbox
// metrics of its decision, logs a rejection at debug level and a storage
// failure at error level, so the caller need not log either again.
//
// The error is not nil only when the message may be stored on a later
// try, and then nothing was written: the store failed, or ctx ended
// (then the error wraps context.Cause(ctx)). The transport must have the
// message sent again (HTTP 500, a broker nak or requeue). Every Decision
// returned with a nil error is final; see Outcome.
//
// Cancelling ctx stops a running transform and the store write. A row
// whose insert committed stays, and a repeat of the message finds it as
// a duplicate. Receive is safe for concurrent use.
func (r *Receiver) Receive(ctx context.Context, m Message) (Decision, error) {
	p, d, err := r.prepare(ctx, m)
	if p == nil {
		return d, err
	}
	id, inserted, err := r.inbox.Insert(ctx, p.row)
	return r.settle(ctx, p, id, inserted, err)
}

// pending is a message that passed the steps before the store: its row
// waits for an insert, and settle decides from the insert's answer.
type pending struct {
	rc  receipt
	a   attributes
	row queuebox.ReceivedRow
	// dead is the failure whose dead row row is; nil for a stored row.
	dead *failure
}

// prepare runs the steps of Receive before the store. It returns the
// row to insert, or the final decision (or the error) of a message that
// stores no row.
func (r *Receiver) prepare(ctx context.Context, m Message) (*pending, Decision, error) {
	if !r.filter.Pass(m.Headers) {
		r.metrics.dropped(r.name)
		return nil, Decision{Outcome: Filtered}, nil
	}
	rc := r.begin(m)
	headersFailed := headersPastCap(&rc)
	if f := r.bodyPastCap(rc); f != nil {
		// The body is not parsed: the key comes from a header, the broker
		// or the digest of the body.
		attrs, _ := r.extract(nil, false, m)
		return r.refusal(ctx, rc, attrs, f)
	}
	doc, f := parseBody(m.Body)
	attrs, err := r.extract(doc, f == nil, m)
	if f == nil && err != nil {
		f = &failure{reason: ReasonExtractionFailed, message: err.Error(), stage: "extract", detail: err.Error(), permanent: true}
	}
	if headersFailed != nil {
		headersFailed.raw = f != nil && f.raw
		f = headersFailed
	}
	if f != nil {
		return r.refusal(ctx, rc, attrs, f)
	}
	payload, f, err := r.runTransform(ctx, rc.input(attrs))
	switch {
	case err != nil:
		return nil, Decision{CorrelationID: rc.row.CorrelationID}, err
	case f != nil:
		return r.refusal(ctx, rc, attrs, f)
	}
	return &pending{rc: rc, a: attrs, row: rc.rowFor(attrs, payload)}, Decision{}, nil
}

// receipt is a message that passed the filter, with the columns that do
// not depend on its body.
type receipt struct {
	row  queuebox.ReceivedRow
	at   time.Time
	body []byte
}

// newID returns a row id: a UUID version 7, time ordered and increasing
// within the process. The rows of one commit share created_at, and the
// relay orders an aggregate's rows by (created_at, id): ids made in the
// order of a batch keep that order among them.
func newID() string { return uuid.Must(uuid.NewV7()).String() }

func (r *Receiver) begin(m Message) receipt {
	at := m.ReceivedAt
	if at.IsZero() {
		at = r.now()
	}
	return receipt{at: at, body: m.Body, row: queuebox.ReceivedRow{
		ID: newID(), Source: r.name, Headers: r.StoredHeaders(m.Headers),
		CorrelationID: correlationID(m.CorrelationID), Consumption: r.consumption,
	}}
}

func (rc receipt) input(a attributes) SourceInput {
	return SourceInput{
		Payload: rc.body, MessageID: rc.row.ID, Timestamp: rc.at, Source: rc.row.Source,
		Headers: rc.row.Headers, IdempotencyKey: a.key, EventType: a.eventType,
	}
}

func (rc receipt) rowFor(a attributes, payload []byte) queuebox.ReceivedRow {
	row := rc.row
	row.IdempotencyKey, row.AggregateID, row.EventType, row.Payload = a.key, a.aggregateID, a.eventType, payload
	return row
}

func (rc receipt) decide(o Outcome, id string) Decision {
	return Decision{Outcome: o, ID: id, CorrelationID: rc.row.CorrelationID}
}

// parseBody decodes the body as JSON whatever its declared type. A body
// that is not JSON, or that holds a NUL that PostgreSQL's jsonb refuses,
// fails for good: retrying it would fail for ever.
func parseBody(body []byte) (any, *failure) {
	doc, err := jsonpath.Decode(body)
	if err != nil {
		return nil, &failure{reason: ReasonExtractionFailed, message: msgInvalidJSON,
			stage: "parse", detail: "body is not JSON", permanent: true, raw: true}
	}
	if holdsNUL(doc) {
		return nil, &failure{reason: ReasonExtractionFailed, message: msgNUL,
			stage: "parse", detail: `body holds \u0000`, permanent: true, raw: true}
	}
	return doc, nil
}

// extract reads the attributes in the order of the receiver. parsed is
// false when the body is no usable document: the body order then reads
// nothing, the broker order skips the paths.
func (r *Receiver) extract(doc any, parsed bool, m Message) (attributes, error) {
	if r.attrHeaders != nil {
		return r.extractor.brokerExtract(doc, parsed, m, *r.attrHeaders)
	}
	if !parsed {
		return attributes{}, nil
	}
	a, err := r.extractor.extract(doc, m.Headers)
	if err == nil && r.keyFromBody {
		a.key = bodyDigest(m.Body)
	}
	return a, err
}

// runTransform returns the payload to store: the transform result, or the
// original body without a transform or when Skip absorbs a failure. The
// error reports a ctx that ended, which is no failure of the message.
func (r *Receiver) runTransform(ctx context.Context, in SourceInput) ([]byte, *failure, error) {
	if r.transform == nil {
		return in.Payload, nil, nil
	}
	out, err := r.transform.Apply(ctx, in)
	if err == nil {
		err = checkResult(out)
	}
	switch {
	case err == nil:
		return out, nil, nil
	case ctx.Err() != nil:
		return nil, nil, fmt.Errorf("%s: %w", r.transformKey, context.Cause(ctx))
	case r.onError == OnErrorSkip:
		r.log.DebugContext(ctx, "source transform failed; storing the original body (onError Skip)", "err", err)
		return in.Payload, nil, nil
	}
	var timeout *transform.TimeoutError
	return nil, &failure{
		reason: ReasonTransformFailed, message: "Transform failed: " + err.Error(),
		stage: fmt.Sprintf("%s (onError %s)", r.transformKey, r.onError), detail: err.Error(),
		permanent: !errors.As(err, &timeout),
	}, nil
}

// refusal is the answer of prepare to a message that cannot be stored
// as it came: its dead row in dead-letter mode, else its rejection.
func (r *Receiver) refusal(ctx context.Context, rc receipt, a attributes, f *failure) (*pending, Decision, error) {
	if r.deadLetter {
		return r.deadRow(rc, a, f), Decision{}, nil
	}
	return nil, r.reject(ctx, rc, f), nil
}

// refuse rejects the message, or stores it dead in dead-letter mode, at
// once and alone.
func (r *Receiver) refuse(ctx context.Context, rc receipt, a attributes, f *failure) (Decision, error) {
	if r.deadLetter {
		return r.storeDead(ctx, rc, a, f)
	}
	return r.reject(ctx, rc, f), nil
}

func (r *Receiver) reject(ctx context.Context, rc receipt, f *failure) Decision {
	r.metrics.rejected(f.reason)
	r.log.DebugContext(ctx, "message rejected", "reason", f.reason, "detail", f.detail, "correlation_id", rc.row.CorrelationID)
	return f.rejected(rc.row.CorrelationID)
}

// settle decides a pending message from the answer of its insert. A
// refused value is decided alone: the rejection, or a dead row stored
// on its own.
func (r *Receiver) settle(ctx context.Context, p *pending, id string, inserted bool, err error) (Decision, error) {
	if p.dead != nil {
		return r.settleDead(ctx, p, id, inserted, err)
	}
	var refused *queuebox.RefusedValueError
	switch {
	case errors.As(err, &refused):
		// The same message fails on every try: asking for a repeat would
		// invite one for ever.
		return r.refuse(ctx, p.rc, p.a, &failure{reason: ReasonExtractionFailed,
			message: "The database cannot store this message: " + refused.Reason,
			stage:   "store", detail: refused.Reason, permanent: true, raw: true})
	case err != nil:
		return r.storageFailed(ctx, p.rc, err)
	case !inserted:
		r.metrics.message(StatusDuplicate)
		return p.rc.decide(Duplicate, ""), nil
	}
	r.metrics.message(StatusNew)
	return p.rc.decide(Stored, id), nil
}

func (r *Receiver) storageFailed(ctx context.Context, rc receipt, err error) (Decision, error) {
	r.metrics.rejected(ReasonStorageFailed)
	r.log.ErrorContext(ctx, "inbox write failed", "correlation_id", rc.row.CorrelationID, "err", err)
	return Decision{CorrelationID: rc.row.CorrelationID}, fmt.Errorf("store the inbox row: %w", err)
}

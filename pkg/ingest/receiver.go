package ingest

import (
	"cmp"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/alternayte/queuebox/pkg/jsonpath"
)

// Transport is what the receiving side of a source changes in Receive.
// The zero Transport is the HTTP behaviour.
type Transport struct {
	// DeadLetter stores a message that can never be stored as it came (a
	// body that is not JSON, a failed extraction, a source transform that
	// fails with onError Fail or Dead, a value the database refuses) as a
	// dead row, with the reason in last_error, and decides Dead. Without
	// it such a message is Rejected. A broker source sets it, because a
	// message that it never acknowledges blocks the queue or the
	// partition; an HTTP source answers the sender instead.
	DeadLetter bool
	// BrokerAttributes reads the idempotency key, the aggregate identifier
	// and the event type in the order of a broker source (26_Headers): the
	// attributeHeaders of the source, Message.Broker, and the SHA-256
	// digest of the body as the last idempotency key. Without it they come
	// from the body paths alone and the key is required, as on HTTP.
	BrokerAttributes bool
	// OmitHeaders are names of received headers that are never stored nor
	// bound to $headers, in any letter case, on top of Authorization,
	// Proxy-Authorization and Cookie. HTTP passes the header of its auth
	// block. The header filter still reads them.
	OmitHeaders []string
	// MaxBodyBytes bounds the body of a message (inbox.maxBodyBytes): a
	// longer one is not parsed, and is stored dead with its first
	// DeadBodyPrefix bytes as {"raw": text} and a reason that names the
	// limit (DeadLetter), or Rejected. Zero sets no bound. A broker
	// source sets it; an HTTP source reads its body to the same limit and
	// answers 413 before Receive.
	MaxBodyBytes int64
}

// Receiver runs the transport-neutral steps of one source: the header
// filter, parse, extract, transform and store. The HTTP handler and the
// broker consumers share it. A Receiver is immutable and safe for
// concurrent use.
type Receiver struct {
	name, consumption string
	deadLetter        bool
	maxBody           int64             // bytes; 0 sets no bound
	attrHeaders       *AttributeHeaders // lower case; nil reads the body only
	omit              map[string]bool   // lower-case header names never stored
	filter            *Filter
	extractor         extractor
	keyFromBody       bool // Source.KeyFromBodyDigest
	trustTrace        bool // Source.TrustTraceContext
	transform         SourceTransform
	transformKey      string // the key path that last_error names
	onError           string
	inbox             Store
	metrics           *Metrics
	log               *slog.Logger
	now               func() time.Time
}

// NewReceiver builds the receiver of the source src for transport t. It
// sets the defaults of src (ConsumptionPush, OnErrorFail) and compiles its
// paths, filter and transform; the error names the key of the source that
// cannot be used (sources.<name>.<key>). opts.Store and opts.Metrics are
// required.
func NewReceiver(src Source, t Transport, opts Options) (*Receiver, error) {
	if opts.Store == nil || opts.Metrics == nil {
		return nil, fmt.Errorf("ingest: Options.Store and Options.Metrics are required")
	}
	if src.Name == "" {
		return nil, fmt.Errorf("ingest: Source.Name is required")
	}
	r := &Receiver{
		name: src.Name, consumption: src.Consumption, deadLetter: t.DeadLetter, maxBody: t.MaxBodyBytes,
		inbox: opts.Store, metrics: opts.Metrics, log: opts.Log, now: opts.Now,
		omit: map[string]bool{}, trustTrace: src.TrustTraceContext,
	}
	if r.log == nil {
		r.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	r.log = r.log.With("source", src.Name)
	if r.now == nil {
		r.now = time.Now
	}
	for _, name := range append(append([]string(nil), t.OmitHeaders...), alwaysOmitted...) {
		r.omit[strings.ToLower(name)] = true
	}
	if !src.TrustTraceContext {
		for _, name := range untrustedTraceHeaders {
			r.omit[name] = true
		}
	}
	if t.BrokerAttributes {
		h := src.AttributeHeaders
		r.attrHeaders = &AttributeHeaders{IdempotencyKey: strings.ToLower(h.IdempotencyKey),
			AggregateID: strings.ToLower(h.AggregateID), EventType: strings.ToLower(h.EventType)}
	}
	for _, step := range []func(Source, Options) error{r.setConsumption, r.setFilter, r.setPaths, r.setTransform} {
		if err := step(src, opts); err != nil {
			return nil, fmt.Errorf("sources.%s.%w", src.Name, err)
		}
	}
	return r, nil
}

// Name is the source name.
func (r *Receiver) Name() string { return r.name }

// TrustsTraceContext reports Source.TrustTraceContext: whether the
// senders' trace context may be the parent of the receive span.
func (r *Receiver) TrustsTraceContext() bool { return r.trustTrace }

// StoredHeaders returns the headers of received (lower-case names) that
// a row of this source stores: all but Authorization,
// Proxy-Authorization, Cookie and Transport.OmitHeaders (and tracestate
// and baggage unless the source trusts the senders' trace context), with NUL and
// invalid UTF-8 cleaned from names and values as Receive cleans them. It
// does not change received. A transport that caps the stored headers
// before Receive (HeadersTooLarge) measures this map.
func (r *Receiver) StoredHeaders(received map[string]string) map[string]string {
	return storedHeaders(cleanHeaders(received), r.omit)
}

func (r *Receiver) setConsumption(src Source, _ Options) error {
	switch src.Consumption {
	case "":
		r.consumption = ConsumptionPush
	case ConsumptionPush, ConsumptionPull:
	default:
		return fmt.Errorf("consumption: %q is neither %s nor %s", src.Consumption, ConsumptionPush, ConsumptionPull)
	}
	return nil
}

func (r *Receiver) setFilter(src Source, _ Options) error {
	f, err := NewFilter(src.Filter)
	r.filter = f
	return err
}

func (r *Receiver) setPaths(src Source, _ Options) error {
	var err error
	r.keyFromBody = src.KeyFromBodyDigest
	for _, name := range src.IdempotencyKeyHeaders {
		r.extractor.keyHeaders = append(r.extractor.keyHeaders, strings.ToLower(name))
	}
	r.extractor.eventTypeHeader = strings.ToLower(src.EventTypeHeader)
	if strings.TrimSpace(src.IdempotencyKeyPath) == "" && len(r.extractor.keyHeaders) > 0 {
		r.extractor.keyFromHeader = true
	} else if r.extractor.key, err = jsonpath.Compile(src.IdempotencyKeyPath); err != nil {
		return fmt.Errorf("idempotencyKeyPath: %w", err)
	}
	if r.extractor.eventType, err = optionalPath(src.EventTypePath); err != nil {
		return fmt.Errorf("eventTypePath: %w", err)
	}
	if r.extractor.aggregateID, err = optionalPath(src.AggregateIDPath); err != nil {
		return fmt.Errorf("aggregateIdPath: %w", err)
	}
	return nil
}

func optionalPath(text string) (*jsonpath.Path, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	p, err := jsonpath.Compile(text)
	return &p, err
}

func (r *Receiver) setTransform(src Source, opts Options) error {
	if src.Transform == nil || strings.TrimSpace(src.Transform.Expression) == "" {
		return nil
	}
	switch r.onError = src.Transform.OnError; r.onError {
	case "":
		r.onError = OnErrorFail
	case OnErrorFail, OnErrorSkip, OnErrorDead:
	default:
		return fmt.Errorf("transform.onError: %q is not %s, %s or %s", r.onError, OnErrorFail, OnErrorSkip, OnErrorDead)
	}
	if opts.Transforms == nil {
		return fmt.Errorf("transform: source transforms are not available in this build")
	}
	spec := *src.Transform
	spec.MaxOutputBytes = cmp.Or(spec.MaxOutputBytes, opts.MaxTransformOutputBytes)
	t, err := opts.Transforms(src.Name, spec)
	if err != nil {
		return fmt.Errorf("transform.expression: %w", err)
	}
	r.transform = t
	r.transformKey = "sources." + src.Name + ".transform"
	return nil
}

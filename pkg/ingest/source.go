package ingest

// Source is what the receive step needs of one source: its name, the
// paths and headers of its attributes, its header filter and its
// transform. NewReceiver sets the defaults of the empty fields and
// refuses the values it cannot use.
type Source struct {
	// Name is the source name: the source column, $source, the source
	// label of queuebox_inbox_filtered_total, and the key that every error
	// of NewReceiver names (sources.<name>...). Required.
	Name string
	// Consumption is the consumption column of the rows:
	// ConsumptionPush (the default when empty) or ConsumptionPull.
	Consumption string
	// IdempotencyKeyPath is the definite JSONPath of the idempotency key.
	// Required.
	IdempotencyKeyPath string
	// EventTypePath and AggregateIDPath are the definite JSONPaths of the
	// event type and the aggregate identifier; empty reads none.
	EventTypePath, AggregateIDPath string
	// IdempotencyKeyHeaders and EventTypeHeader are where the body order
	// (the HTTP source) reads the idempotency key and the event type when
	// IdempotencyKeyPath or EventTypePath is empty: the first of the named
	// headers, in any letter case, that holds a value. An HTTP auth preset
	// sets them the way its provider sends them (GitHub's
	// X-GitHub-Delivery, for example). The broker order ignores them.
	IdempotencyKeyHeaders []string
	EventTypeHeader       string
	// KeyFromBodyDigest makes the idempotency key of the body order
	// "sha256:" and the hexadecimal SHA-256 digest of the raw body, once
	// the key has been read as usual: a provider that signs the body but
	// not the header it takes the key from (github, shopify) cannot then
	// have a captured delivery accepted again under a new id or event
	// type. The broker order ignores it.
	KeyFromBodyDigest bool
	// TrustTraceContext keeps the tracestate and baggage headers that a
	// sender sends, and lets the receive span continue its traceparent
	// (sources.<name>.trustTraceContext). Without it a row stores neither
	// header, so the relay passes none of them on.
	TrustTraceContext bool
	// AttributeHeaders name the headers of the broker order; they are read
	// only with Transport.BrokerAttributes, in any letter case. Empty
	// names read no header.
	AttributeHeaders AttributeHeaders
	// Filter is the header filter; nil passes every message.
	Filter *FilterSpec
	// Transform is the source transform; nil, or a blank expression, runs
	// none. Options.Transforms builds it.
	Transform *TransformSpec
}

// AttributeHeaders name the headers that a broker source reads its
// attributes from (26_Headers).
type AttributeHeaders struct {
	IdempotencyKey, AggregateID, EventType string
}

// FilterSpec is the header filter of a source: a message passes when it
// matches every Require rule and no Exclude rule. See Filter.
type FilterSpec struct {
	Require, Exclude []FilterRule
}

// FilterRule tests one header, named in any letter case. Exactly one of
// Equals, In, Matches (a glob) and Exists (true) must be set.
type FilterRule struct {
	Header  string
	Equals  *string
	In      []string
	Matches *string
	Exists  *bool
}

// TransformSpec is the transform block of a source.
type TransformSpec struct {
	// Expression is the JSONata text.
	Expression string
	// TimeoutMs bounds one evaluation; 0 sets no bound.
	TimeoutMs int
	// MaxDepth bounds the evaluation depth; the compiler reads it.
	MaxDepth int
	// MaxOutputBytes bounds the encoded result and every string, range or
	// array that one evaluation builds; a result past it is a transform
	// failure. 0 takes Options.MaxTransformOutputBytes, and then
	// DefaultTransformOutputBytes.
	MaxOutputBytes int
	// OnError is OnErrorFail (the default when empty), OnErrorSkip or
	// OnErrorDead.
	OnError string
}

// The consumption modes of a source: the consumption column of its rows.
const (
	ConsumptionPush = "push"
	ConsumptionPull = "pull"
)

// The onError strategies of a source transform, in their documented
// letter case.
const (
	OnErrorFail = "Fail"
	OnErrorSkip = "Skip"
	OnErrorDead = "Dead"
)

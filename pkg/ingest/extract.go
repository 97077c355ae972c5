package ingest

import (
	"fmt"
	"unicode/utf8"

	"github.com/alternayte/queuebox/pkg/jsonpath"
)

// maxAttributeLen is the width, in characters, of the idempotency_key,
// event_type and aggregate_id columns. A longer value is refused with 400
// instead of failing the insert with 500, which a sender would retry for
// ever.
const maxAttributeLen = 255

// attributes are the values that a source reads from the body.
type attributes struct {
	key         string
	eventType   *string
	aggregateID *string
}

// extractor holds the compiled paths of a source. eventType and
// aggregateID are nil when the source sets no path.
type extractor struct {
	key                    jsonpath.Path
	eventType, aggregateID *jsonpath.Path
}

// extract reads the attributes of doc. The idempotency key is required: a
// path that finds nothing, null, an object, an array or an empty string
// fails. The event type and the aggregate identifier are optional: a path
// that finds nothing, no scalar or an empty string leaves them NULL. A
// value longer than its column fails. Every error message names the path.
func (x extractor) extract(doc any) (attributes, error) {
	var a attributes
	v, found := x.key.Find(doc)
	if !found {
		return a, reasonf("Idempotency key not found at %s", x.key)
	}
	key, ok := jsonpath.ScalarString(v)
	switch {
	case !ok:
		return a, reasonf("Idempotency key at %s is not a string, number or boolean", x.key)
	case key == "":
		return a, reasonf("Idempotency key at %s is empty", x.key)
	case utf8.RuneCountInString(key) > maxAttributeLen:
		return a, reasonf("Idempotency key at %s is longer than %d characters", x.key, maxAttributeLen)
	}
	a.key = key
	var err error
	if a.eventType, err = optional("Event type", x.eventType, doc); err != nil {
		return a, err
	}
	a.aggregateID, err = optional("Aggregate id", x.aggregateID, doc)
	return a, err
}

// reason is an error whose message is the text of a 400 answer, which is
// why it starts with a capital letter.
type reason string

func (r reason) Error() string { return string(r) }

func reasonf(format string, args ...any) error { return reason(fmt.Sprintf(format, args...)) }

func optional(what string, p *jsonpath.Path, doc any) (*string, error) {
	if p == nil {
		return nil, nil
	}
	v, found := p.Find(doc)
	if !found {
		return nil, nil
	}
	s, ok := jsonpath.ScalarString(v)
	if !ok || s == "" {
		// An empty aggregate would serialize every such row as one
		// aggregate; the outbox treats an empty key as none, and so does
		// the inbox.
		return nil, nil
	}
	if utf8.RuneCountInString(s) > maxAttributeLen {
		return nil, reasonf("%s at %s is longer than %d characters", what, p, maxAttributeLen)
	}
	return &s, nil
}

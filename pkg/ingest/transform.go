package ingest

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/jsonata"
	"github.com/alternayte/queuebox/pkg/transform"
)

// SourceInput is what the source stage of a transform sees. Its fields are
// the variables that 32_Transforms_and_templates documents for the source
// stage; Vars binds them by name.
type SourceInput struct {
	// Payload is the received body, a JSON document: $ in the expression.
	Payload []byte
	// MessageID is the id that the new inbox row will carry: $messageId.
	MessageID string
	// Timestamp is the receipt time: $timestamp, as ISO-8601 text.
	Timestamp time.Time
	// Source is the source name: $source.
	Source string
	// Headers are the stored headers, one value per lower-case name and
	// without the credential headers: $headers.
	Headers map[string]string
	// IdempotencyKey is the extracted key: $idempotencyKey.
	IdempotencyKey string
	// EventType is the extracted event type or nil: $eventType, and $topic
	// as text ("" when nil).
	EventType *string
}

// Vars returns the variables of the source stage, without the $: messageId,
// topic, attempt (always 0), timestamp, source, headers (an object of
// strings), idempotencyKey and eventType (null when absent).
func (in SourceInput) Vars() map[string]any {
	headers := make(map[string]any, len(in.Headers))
	for k, v := range in.Headers {
		headers[k] = v
	}
	var eventType, key any
	topic := ""
	if in.EventType != nil {
		eventType, topic = *in.EventType, *in.EventType
	}
	if in.IdempotencyKey != "" {
		key = in.IdempotencyKey
	}
	return map[string]any{
		"messageId":      in.MessageID,
		"topic":          topic,
		"attempt":        0,
		"timestamp":      in.Timestamp.UTC().Format(time.RFC3339Nano),
		"source":         in.Source,
		"headers":        headers,
		"idempotencyKey": key,
		"eventType":      eventType,
	}
}

// SourceTransform reshapes the payload of a received message before it is
// stored. Apply returns the new payload, a JSON document, or an error that
// the onError strategy of the source handles. It must be safe for
// concurrent use and honour ctx.
type SourceTransform interface {
	Apply(ctx context.Context, in SourceInput) ([]byte, error)
}

// TransformFactory builds the transform of one source from its transform
// spec; source is the source name, for error messages.
type TransformFactory func(source string, spec TransformSpec) (SourceTransform, error)

// Expression and Compiler are the transform contract of package transform.
type (
	Expression = transform.Expression
	Compiler   = transform.Compiler
)

// DefaultTransformOutputBytes is the bound of a source transform's
// result when TransformSpec.MaxOutputBytes and
// Options.MaxTransformOutputBytes are 0: 1 MiB, the default of
// inbox.maxBodyBytes.
const DefaultTransformOutputBytes = 1 << 20

// Expressions returns a TransformFactory that compiles each expression with
// compile and bounds each evaluation by the timeoutMs of its block and by
// its MaxOutputBytes (DefaultTransformOutputBytes when 0): the encoded
// result, and each string, range or array built on the way, may not grow
// past it.
func Expressions(compile Compiler) TransformFactory {
	return func(_ string, cfg TransformSpec) (SourceTransform, error) {
		expr, err := compile(cfg.Expression, cfg.MaxDepth)
		if err != nil {
			return nil, err
		}
		maxBytes := cmp.Or(cfg.MaxOutputBytes, DefaultTransformOutputBytes)
		return expressionTransform{expr: expr, timeoutMs: cfg.TimeoutMs, maxBytes: maxBytes}, nil
	}
}

type expressionTransform struct {
	expr      Expression
	timeoutMs int
	maxBytes  int
}

// Apply evaluates the expression within its bounds; a run past timeoutMs
// or a result past the size bound fails with a reason that names the
// setting to raise.
func (t expressionTransform) Apply(ctx context.Context, in SourceInput) ([]byte, error) {
	out, err := transform.EvalBounded(ctx, t.expr, t.timeoutMs, t.maxBytes, in.Payload, in.Vars())
	if errors.Is(err, jsonata.ErrSizeLimit) {
		return nil, fmt.Errorf("%w (a source transform may build at most inbox.maxBodyBytes, %d bytes)", err, t.maxBytes)
	}
	return out, err
}

// errNotJSON reports a transform result that cannot be stored.
var errNotJSON = errors.New("the result is not a JSON document")

// checkResult refuses a result that the payload column cannot hold, so it
// fails through the onError strategy instead of the store.
func checkResult(out []byte) error {
	if len(out) == 0 || !json.Valid(out) {
		return errNotJSON
	}
	return nil
}

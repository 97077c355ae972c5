// Package transform adapts the JSONata engine to the transform stages of
// QueueBox: the source stage of queuebox-ingest and the route and
// destination stages of queuebox-deliver, and the admin test route.
package transform

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/jsonata"
)

// Expression is a compiled transform. Eval is safe for concurrent use,
// honours ctx (its deadline is the transform timeout) and binds vars per
// call ($name for key "name").
type Expression interface {
	Eval(ctx context.Context, input []byte, vars map[string]any) ([]byte, error)
}

// Compiler compiles one expression with its recursion limit.
type Compiler func(expression string, maxDepth int) (Expression, error)

// JSONata compiles a JSONata expression. It is the Compiler every binary
// uses.
func JSONata(expression string, maxDepth int) (Expression, error) {
	x, err := jsonata.Compile(expression, jsonata.WithMaxDepth(maxDepth))
	if err != nil {
		return nil, err
	}
	return expr{x}, nil
}

// Check compiles an expression and drops it: the start-time check of the
// configuration loader.
func Check(expression string, maxDepth int) error {
	_, err := JSONata(expression, maxDepth)
	return err
}

type expr struct{ x *jsonata.Expression }

// ErrNoResult reports an expression that produced nothing (undefined),
// which cannot become a message body.
var ErrNoResult = errors.New("the expression produced no value")

func (e expr) Eval(ctx context.Context, input []byte, vars map[string]any) ([]byte, error) {
	out, err := e.x.EvaluateJSON(ctx, input, vars)
	if errors.Is(err, jsonata.ErrUndefined) {
		return nil, ErrNoResult
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// TimeoutError reports an evaluation that ran past the timeoutMs of its
// block. The engine's own text names only the context error, which does
// not tell an operator which setting to raise.
type TimeoutError struct{ TimeoutMs int }

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("the evaluation ran past timeoutMs (%d ms)", e.TimeoutMs)
}

// limitedEval is an Expression that can bound the bytes of its encoded
// result; the JSONata expressions can.
type limitedEval interface {
	evalLimited(ctx context.Context, input []byte, vars map[string]any, maxBytes int) ([]byte, error)
}

func (e expr) evalLimited(ctx context.Context, input []byte, vars map[string]any, maxBytes int) ([]byte, error) {
	// A bound above the engine's own item cap must not loosen that cap:
	// a range of many millions of numbers costs far more than its bytes.
	items := min(maxBytes, jsonata.DefaultMaxSize)
	out, err := e.x.EvaluateJSON(ctx, input, vars, jsonata.WithMaxOutput(maxBytes), jsonata.WithMaxSize(items))
	if errors.Is(err, jsonata.ErrUndefined) {
		return nil, ErrNoResult
	}
	return out, err
}

// EvalBounded evaluates e within timeoutMs milliseconds and maxBytes: the
// encoding of the result runs under the same timeout, and a result,
// range, array or string larger than maxBytes fails with a
// *jsonata.SizeLimitError instead of growing. An Expression that is not a
// JSONata one is evaluated first and its result measured after. A
// timeoutMs of 0 or less sets no time bound (a block built in code rather
// than loaded); the size bound still holds.
func EvalBounded(ctx context.Context, e Expression, timeoutMs, maxBytes int, input []byte, vars map[string]any) ([]byte, error) {
	bounded := ctx
	if timeoutMs > 0 {
		var cancel context.CancelFunc
		bounded, cancel = context.WithTimeout(ctx, time.Duration(timeoutMs)*time.Millisecond)
		defer cancel()
	}
	var out []byte
	var err error
	if l, ok := e.(limitedEval); ok {
		out, err = l.evalLimited(bounded, input, vars, maxBytes)
	} else if out, err = e.Eval(bounded, input, vars); err == nil && len(out) > maxBytes {
		err = &jsonata.SizeLimitError{Limit: maxBytes, Size: len(out), What: "output", Position: -1}
	}
	// An end of ctx itself is returned as the engine reports it, since it
	// is no timeout of the expression.
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return nil, &TimeoutError{TimeoutMs: timeoutMs}
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

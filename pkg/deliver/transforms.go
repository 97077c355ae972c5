package deliver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/jsonata"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/transform"
)

// The transform error strategies, in the letter case of the onError key.
const (
	StrategyFail = "Fail"
	StrategySkip = "Skip"
	StrategyDead = "Dead"
)

// TransformSpec is one JSONata transform block of a route or destination.
type TransformSpec struct {
	Expression string
	TimeoutMs  int    // the time bound of one evaluation
	MaxDepth   int    // the recursion bound of one evaluation
	OnError    string // a Strategy; empty means StrategyFail
}

// Expression and Compiler are the transform contract of package transform.
type (
	Expression = transform.Expression
	Compiler   = transform.Compiler
)

type stage struct {
	// key is the configuration path of the block, so last_error says which
	// of the two stages failed.
	key       string
	expr      Expression
	timeoutMs int
	onError   string
}

// Transforms holds the compiled route and destination transforms.
type Transforms struct {
	routes map[int]*stage
	dests  map[string]*stage
}

// Failure is a transform error that was not skipped.
type Failure struct {
	Strategy string
	Err      error
	// Cancelled is set when the delivery itself was cancelled (shutdown
	// timeout or a lost claim) while a stage ran: that is no transform
	// failure, and no strategy applies.
	Cancelled bool
}

// NewTransforms compiles every route and destination transform; the
// routes are indexed as NewRouter indexes them. It returns nil when none
// is configured.
func NewTransforms(routes []RouteSpec, destinations map[string]DestinationSpec, compile Compiler) (*Transforms, error) {
	t := &Transforms{routes: map[int]*stage{}, dests: map[string]*stage{}}
	for i, r := range routes {
		s, err := newStage(fmt.Sprintf("routes[%d].transform", i), r.Transform, compile)
		if err != nil {
			return nil, err
		}
		if s != nil {
			t.routes[i] = s
		}
	}
	for name, d := range destinations {
		s, err := newStage("destinations."+name+".transform", d.Transform, compile)
		if err != nil {
			return nil, err
		}
		if s != nil {
			t.dests[name] = s
		}
	}
	if len(t.routes) == 0 && len(t.dests) == 0 {
		return nil, nil
	}
	return t, nil
}

func newStage(key string, tc *TransformSpec, compile Compiler) (*stage, error) {
	if tc == nil || tc.Expression == "" {
		return nil, nil
	}
	if compile == nil {
		return nil, fmt.Errorf("%s.expression: transforms are not available in this build", key)
	}
	expr, err := compile(tc.Expression, tc.MaxDepth)
	if err != nil {
		return nil, fmt.Errorf("%s.expression: %w", key, err)
	}
	onError := tc.OnError
	if onError == "" {
		// A block built in code rather than loaded gets the documented
		// default, never an unlabelled strategy.
		onError = StrategyFail
	}
	return &stage{key: key, expr: expr, timeoutMs: tc.TimeoutMs, onError: onError}, nil
}

// stageVars are the variables that a route or destination expression sees.
// The source-only variables ($source, $headers, $idempotencyKey,
// $eventType) stay unbound here.
func stageVars(m *queuebox.OutboxMessage) map[string]any {
	return map[string]any{
		"messageId": m.MessageID(),
		"topic":     m.Topic,
		"attempt":   m.Attempt,
		"timestamp": m.CreatedAt.UTC().Format(time.RFC3339Nano),
	}
}

// Apply runs the route stage on the payload, then the stage of dest (one
// of the route's destinations) on its output. A skipped destination stage passes the route output on; a
// skipped route stage delivers the outbox payload as it is, without the
// destination stage, which was written for the route's output. skipped
// counts the stages that failed with Skip.
func (t *Transforms) Apply(ctx context.Context, route Route, dest DestinationSpec, m *queuebox.OutboxMessage) (body []byte, skipped int, failure *Failure) {
	vars := stageVars(m)
	body = m.Payload
	for _, s := range []*stage{t.routes[route.Index], t.dests[dest.Name]} {
		if s == nil {
			continue
		}
		out, err := s.run(ctx, body, vars)
		switch {
		case err == nil:
			body = out
		case ctx.Err() != nil:
			return nil, skipped, &Failure{Err: context.Cause(ctx), Cancelled: true}
		case s.onError == StrategySkip:
			// The input of the failed stage goes out as it is, and no later
			// stage runs on it.
			return body, skipped + 1, nil
		default:
			return nil, skipped, &Failure{Strategy: s.onError, Err: fmt.Errorf("%s: %w", s.key, err)}
		}
	}
	return body, skipped, nil
}

// MinTransformOutputBytes is the least size bound of a route or
// destination stage; see outputBound.
const MinTransformOutputBytes = 1 << 20

// outputBound is the size bound of one stage run on input: four times the
// input, and never less than MinTransformOutputBytes. An outbox payload
// has no size limit of its own, so a fixed bound would refuse the
// reshaping of a large payload that it was written for, while a runaway
// expression on a common payload still stops at a megabyte instead of
// exhausting the memory of every worker.
func outputBound(input []byte) int {
	return max(MinTransformOutputBytes, 4*len(input))
}

// run evaluates the stage within its timeoutMs and outputBound: the
// encoded result, and each string, range or array built on the way.
func (s *stage) run(ctx context.Context, input []byte, vars map[string]any) ([]byte, error) {
	bound := outputBound(input)
	out, err := transform.EvalBounded(ctx, s.expr, s.timeoutMs, bound, input, vars)
	if errors.Is(err, jsonata.ErrSizeLimit) {
		return nil, fmt.Errorf("%w (a route or destination transform may build at most %d bytes: four times its input, at least 1 MiB)", err, bound)
	}
	return out, err
}

package deliver

import (
	"context"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/transform"
)

// The transform error strategies.
const (
	StrategyFail = config.OnErrorFail
	StrategySkip = config.OnErrorSkip
	StrategyDead = config.OnErrorDead
)

// Expression and Compiler are the transform contract of package transform.
type (
	Expression = transform.Expression
	Compiler   = transform.Compiler
)

type stage struct {
	expr    Expression
	timeout time.Duration
	onError string
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
}

// NewTransforms compiles every route and destination transform. It
// returns nil when none is configured.
func NewTransforms(cfg *config.Config, compile Compiler) (*Transforms, error) {
	t := &Transforms{routes: map[int]*stage{}, dests: map[string]*stage{}}
	for i, r := range cfg.Routes {
		s, err := newStage(r.Transform, compile)
		if err != nil {
			return nil, fmt.Errorf("routes[%d].transform.expression: %w", i, err)
		}
		if s != nil {
			t.routes[i] = s
		}
	}
	for name, d := range cfg.Destinations {
		s, err := newStage(d.Transform, compile)
		if err != nil {
			return nil, fmt.Errorf("destinations.%s.transform.expression: %w", name, err)
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

func newStage(tc *config.Transform, compile Compiler) (*stage, error) {
	if tc == nil || tc.Expression == "" {
		return nil, nil
	}
	if compile == nil {
		return nil, fmt.Errorf("transforms are not available in this build")
	}
	expr, err := compile(tc.Expression, tc.MaxDepth)
	if err != nil {
		return nil, err
	}
	return &stage{expr: expr, timeout: config.Ms(tc.TimeoutMs), onError: tc.OnError}, nil
}

// Apply runs the route stage on the payload, then the destination stage on
// its output. Skip passes a stage's input on unchanged; skipped counts the
// stages that failed that way.
func (t *Transforms) Apply(ctx context.Context, route Route, m *queuebox.OutboxMessage) (body []byte, skipped int, failure *Failure) {
	vars := map[string]any{
		"messageId": m.ID,
		"topic":     m.Topic,
		"attempt":   m.Attempt,
		"timestamp": m.CreatedAt.UTC().Format(time.RFC3339Nano),
	}
	body = m.Payload
	for _, s := range []*stage{t.routes[route.Index], t.dests[route.Destination.Name]} {
		if s == nil {
			continue
		}
		out, err := s.run(ctx, body, vars)
		if err == nil {
			body = out
			continue
		}
		if s.onError == StrategySkip {
			skipped++
			continue
		}
		return nil, skipped, &Failure{Strategy: s.onError, Err: err}
	}
	return body, skipped, nil
}

func (s *stage) run(ctx context.Context, input []byte, vars map[string]any) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	return s.expr.Eval(ctx, input, vars)
}

package ingesttest

import (
	"context"
	"encoding/json"
	"errors"
)

// fakeExpr evaluates one of the expressions of Compiler and records the
// variables it saw.
type fakeExpr struct {
	text string
	c    *Compiler
}

func (f fakeExpr) Eval(ctx context.Context, input []byte, vars map[string]any) ([]byte, error) {
	f.c.mu.Lock()
	f.c.seen = append(f.c.seen, vars)
	f.c.mu.Unlock()
	switch f.text {
	case "wrap":
		return json.Marshal(map[string]json.RawMessage{"data": input})
	case "fail":
		return nil, errors.New("boom at position 3")
	case "text":
		return []byte("not json"), nil
	case "slow":
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return nil, errors.New("unknown expression")
}

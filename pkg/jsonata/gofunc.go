package jsonata

import (
	"context"
	"fmt"
)

// Function is a Go function that an expression can call when it is passed
// in the bindings of an evaluation, for example bindings["greet"] = fn
// makes $greet(...) available. Its arguments are evaluator values (see
// Evaluate); it may return any value Evaluate accepts as input, or
// Undefined. The context is the one passed to Evaluate; a long-running
// function should honour its cancellation. Fn must be safe for concurrent
// use if the expression is evaluated concurrently.
type Function struct {
	sig   *signature
	nargs int
	fn    func(ctx context.Context, args []any) (any, error)
}

// NewFunction wraps fn. signature is optional ("" for none); when given,
// for example "<s-n?:s>", arguments are checked and completed as for the
// built-in functions (T0410 on mismatch).
func NewFunction(signature string, fn func(ctx context.Context, args []any) (any, error)) (*Function, error) {
	f := &Function{fn: fn, nargs: 1}
	if signature != "" {
		sig, err := parseSignature(signature)
		if err != nil {
			return nil, err
		}
		f.sig = sig
		f.nargs = 0
		for _, p := range sig.params {
			if !p.optional {
				f.nargs++
			}
		}
	}
	return f, nil
}

func (f *Function) arity() int { return f.nargs }

func (s *state) applyGo(f *Function, args []any, in any, pos int) (any, error) {
	if f.sig != nil {
		var err error
		if args, err = f.sig.validate(s, args, in, "function", pos); err != nil {
			return nil, err
		}
	}
	v, err := f.fn(s.ctx, args)
	if err != nil {
		return nil, err
	}
	if isUndef(v) {
		return undefined, nil
	}
	if !isCanonical(v, 0) {
		if v, err = normalizeValue(v, 0); err != nil {
			return nil, fmt.Errorf("jsonata: function result: %w", err)
		}
	}
	return v, nil
}

package jsonata

import (
	"bytes"
	"context"
	"fmt"
	"runtime/debug"
)

// Default limits.
const (
	// DefaultMaxDepth is the default maximum nesting of function calls
	// (the QueueBox transform setting maxDepth).
	DefaultMaxDepth = 100
	// DefaultMaxSize is the default cap on the number of items in a range
	// or an array and on the length in bytes of a string built during one
	// evaluation.
	DefaultMaxSize = 10_000_000
)

// Undefined is JSONata's "no value". Pass it as the input of Evaluate to
// evaluate without an input document, or as a binding value. A Function
// may return it to produce no value. It never appears in results.
var Undefined any = undefined

// Options holds the limits of an evaluation. The zero value means the
// defaults.
type Options struct {
	// MaxDepth is the maximum nesting of function invocations; a call in
	// tail position does not nest. Exceeding it returns a *DepthError.
	MaxDepth int
	// MaxSize caps ranges, arrays (items) and strings (bytes) built by the
	// expression. Exceeding it returns a *SizeLimitError.
	MaxSize int
	// MaxOutput, when above 0, caps the bytes of the JSON that
	// EvaluateJSON writes; past it (give or take the last value written)
	// it returns a *SizeLimitError with What "output". The encoding also
	// stops with a *TimeoutError when the context ends.
	MaxOutput int
}

// Option changes Options; pass options to Compile (defaults for every
// evaluation of the expression) or to Evaluate (this evaluation only).
type Option func(*Options)

// WithMaxDepth sets Options.MaxDepth.
func WithMaxDepth(n int) Option { return func(o *Options) { o.MaxDepth = n } }

// WithMaxSize sets Options.MaxSize.
func WithMaxSize(n int) Option { return func(o *Options) { o.MaxSize = n } }

// WithMaxOutput sets Options.MaxOutput.
func WithMaxOutput(n int) Option { return func(o *Options) { o.MaxOutput = n } }

func (o Options) with(opts []Option) Options {
	for _, f := range opts {
		f(&o)
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.MaxSize <= 0 {
		o.MaxSize = DefaultMaxSize
	}
	return o
}

// Expression is a compiled JSONata expression. It is immutable: one
// Expression can be evaluated by any number of goroutines at the same time,
// each with its own input, bindings and context.
type Expression struct {
	src  string
	root node
	opts Options
}

// Compile parses expr. A syntax error is returned as an *Error with a code
// such as S0201 and the position of the offending token; an expression
// nested too deeply (500 levels of brackets, or a syntax tree deeper than
// 5000, such as a chain of 5000 operators) returns a *DepthError. It is safe
// for concurrent use.
func Compile(expr string, opts ...Option) (x *Expression, err error) {
	defer recoverPanic(&err)
	root, err := compileTree(expr, nil)
	if err != nil {
		return nil, err
	}
	return &Expression{src: expr, root: root, opts: Options{}.with(opts)}, nil
}

// MustCompile is like Compile but panics on error. It is meant for
// expressions fixed at build time.
func MustCompile(expr string, opts ...Option) *Expression {
	x, err := Compile(expr, opts...)
	if err != nil {
		panic(err)
	}
	return x
}

// String returns the source of the expression.
func (x *Expression) String() string { return x.src }

// Evaluate evaluates the expression against input with the variables in
// bindings ($name for key "name"). input and binding values are JSON-like
// Go values: nil, bool, float64 (or any integer type, json.Number),
// string, []any, map[string]any, *Object, or a *Function binding. Maps
// are read in sorted key order; neither input nor bindings are ever
// modified, and the caller must not modify them during the call.
//
// The result uses nil, bool, float64, string, []any and *Object (and maps
// or values of the input returned as they are). A result of undefined (for
// example a path that matched nothing) is reported as ErrUndefined.
//
// Evaluation stops with a *TimeoutError when ctx is done, a *DepthError
// past Options.MaxDepth, a *SizeLimitError past Options.MaxSize, and an
// *Error for JSONata errors. A panic inside the evaluator (or inside a
// Function) is recovered and returned as an *Error with code U1000.
func (x *Expression) Evaluate(ctx context.Context, input any, bindings map[string]any, opts ...Option) (result any, err error) {
	defer recoverPanic(&err)
	in, err := normalizeInput(input)
	if err != nil {
		return nil, err
	}
	v, err := x.run(ctx, in, bindings, opts)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// EvaluateJSON decodes input as JSON (keeping key order), evaluates the
// expression as Evaluate does and encodes the result as compact JSON. An
// empty or all-space input evaluates without an input document. Invalid
// JSON input returns an *Error with code U1002.
func (x *Expression) EvaluateJSON(ctx context.Context, input []byte, bindings map[string]any, opts ...Option) (out []byte, err error) {
	defer recoverPanic(&err)
	var in any = undefined
	if len(bytes.TrimSpace(input)) > 0 {
		if in, err = DecodeJSON(input); err != nil {
			return nil, err
		}
	}
	v, err := x.run(ctx, in, bindings, opts)
	if err != nil {
		return nil, err
	}
	w := jsonWriter{buf: make([]byte, 0, len(input)+64), limit: x.opts.with(opts).MaxOutput}
	if ctx != nil {
		w.done, w.ctx = ctx.Done(), ctx
	}
	if err := w.value(v, 0); err != nil {
		return nil, err
	}
	if err := w.check(); err != nil {
		return nil, err
	}
	return w.buf, nil
}

func (x *Expression) run(ctx context.Context, in any, bindings map[string]any, opts []Option) (any, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	o := x.opts.with(opts)
	s := &state{ctx: ctx, done: ctx.Done(), root: in, maxDepth: o.MaxDepth, maxSize: o.MaxSize, src: x.src}
	if err := s.check(); err != nil {
		return nil, err
	}
	in = s.setTop(in)
	s.root = in
	if len(bindings) > 0 {
		var err error
		if s.bindings, err = normalizeBindings(bindings); err != nil {
			return nil, err
		}
	}
	v, err := s.eval(x.root, in, newEnv(nil))
	if err != nil {
		return nil, err
	}
	if _, ok := v.(*tailCall); ok {
		return nil, fmt.Errorf("jsonata: internal error: unresolved tail call")
	}
	if isUndef(v) {
		return nil, ErrUndefined
	}
	return v, nil
}

// normalizeInput converts input to evaluator values, copying only when it
// holds types other than the canonical JSON ones.
func normalizeInput(v any) (any, error) {
	if isCanonical(v, 0) || isUndef(v) {
		return v, nil
	}
	return normalizeValue(v, 0)
}

func normalizeBindings(b map[string]any) (map[string]any, error) {
	clean := true
	for _, v := range b {
		if !isCanonical(v, 0) && !isUndef(v) {
			clean = false
			break
		}
	}
	if clean {
		return b, nil
	}
	out := make(map[string]any, len(b))
	for k, v := range b {
		n, err := normalizeValue(v, 0)
		if err != nil {
			return nil, fmt.Errorf("jsonata: binding $%s: %w", k, err)
		}
		out[k] = n
	}
	return out, nil
}

// recoverPanic turns a panic into an error so that no expression or input
// can crash the caller.
func recoverPanic(err *error) {
	if r := recover(); r != nil {
		*err = &Error{Code: "U1000", Position: -1, Message: fmt.Sprintf("internal error: %v\n%s", r, debug.Stack())}
	}
}

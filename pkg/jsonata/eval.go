package jsonata

import (
	"context"
	"time"
)

// maxEvalNesting bounds the nesting of evaluator calls, independently of
// the call depth limit, so that no expression can exhaust the Go stack.
const maxEvalNesting = 20000

// state is the mutable state of one evaluation. It is owned by a single
// goroutine for the duration of Evaluate.
type state struct {
	ctx      context.Context
	done     <-chan struct{}
	root     any
	bindings map[string]any
	maxDepth int
	maxSize  int

	tail      tailCall // the pending tail call, see callNode.eval
	callerEnv *env     // scope of the call being applied, for $eval
	callDepth int
	nesting   int
	ticks     uint32
	pos       int // byte offset of the node being evaluated, for limit errors
	src       string

	// top is the input array of the evaluation: at the top level a JSONata
	// input array is one context value, not a sequence to map over.
	top    []any
	hasTop bool

	nowSet bool
	now    time.Time
}

// ancestor is one link of the chain of parent values used by %.
type ancestor struct {
	val any
	up  *ancestor
}

// env is a scope of variable bindings. Scopes are immutable once built
// except for := in the scope that owns them.
type env struct {
	parent *env
	names  []string
	vals   []any
}

// ancestryName is the reserved binding that holds the parent chain of the
// context value in scopes created for path steps of expressions using %.
// It cannot clash with a variable: names never contain a NUL byte.
const ancestryName = "\x00%"

func newEnv(parent *env) *env { return &env{parent: parent} }

func (e *env) bind(name string, v any) {
	for i := len(e.names) - 1; i >= 0; i-- {
		if e.names[i] == name {
			e.vals[i] = v
			return
		}
	}
	e.names = append(e.names, name)
	e.vals = append(e.vals, v)
}

func (e *env) lookup(name string) (any, bool) {
	for f := e; f != nil; f = f.parent {
		for i := len(f.names) - 1; i >= 0; i-- {
			if f.names[i] == name {
				return f.vals[i], true
			}
		}
	}
	return nil, false
}

// ancestry returns the parent chain of the context, if known.
func (e *env) ancestry() (*ancestor, bool) {
	v, ok := e.lookup(ancestryName)
	if !ok {
		return nil, false
	}
	anc, _ := v.(*ancestor)
	return anc, true
}

// withAncestry returns a child scope recording the parent chain anc.
func (e *env) withAncestry(anc *ancestor) *env {
	return e.withBinding(ancestryName, anc)
}

// withBinding returns a child scope holding one binding.
func (e *env) withBinding(name string, v any) *env {
	return &env{parent: e, names: []string{name}, vals: []any{v}}
}

// lookupVar resolves a variable: local scopes, then the per-call bindings,
// then the built-in functions.
func (s *state) lookupVar(e *env, name string) any {
	if v, ok := e.lookup(name); ok {
		return v
	}
	if v, ok := s.bindings[name]; ok {
		return v
	}
	if f, ok := builtins[name]; ok {
		return f
	}
	return undefined
}

// eval evaluates n, enforcing the context deadline and the nesting limit.
func (s *state) eval(n node, in any, e *env) (any, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	s.nesting++
	if s.nesting > maxEvalNesting {
		s.nesting--
		return nil, &DepthError{Limit: maxEvalNesting, What: "evaluation nesting", Position: runeOffset(s.src, n.position())}
	}
	s.pos = n.position()
	v, err := n.eval(s, in, e)
	s.nesting--
	return v, err
}

// check returns a *TimeoutError once the context is done.
func (s *state) check() error {
	if s.done == nil {
		return nil
	}
	select {
	case <-s.done:
		return &TimeoutError{Cause: s.ctx.Err()}
	default:
		return nil
	}
}

// tick is called inside loops; it checks the context every 256 calls.
func (s *state) tick() error {
	s.ticks++
	if s.ticks&255 != 0 {
		return nil
	}
	return s.check()
}

// checkSize fails when a range, string or array of size n exceeds the cap.
func (s *state) checkSize(n int, what string) error {
	if n > s.maxSize {
		return &SizeLimitError{Limit: s.maxSize, Size: n, What: what, Position: runeOffset(s.src, s.pos)}
	}
	return nil
}

// setTop records v as the top-level input when it is an array. An empty
// array gets a private backing array so that isTop can recognise it.
func (s *state) setTop(v any) any {
	arr, ok := v.([]any)
	if !ok {
		s.top, s.hasTop = nil, false
		return v
	}
	if cap(arr) == 0 {
		arr = make([]any, 0, 1)
	}
	s.top, s.hasTop = arr, true
	return arr
}

// isTop reports whether arr is the top-level input array.
func (s *state) isTop(arr []any) bool {
	return s.hasTop && cap(arr) == cap(s.top) && len(arr) == len(s.top) && cap(arr) > 0 && &arr[:1][0] == &s.top[:1][0]
}

// contextItems returns the items a path or a grouping maps over: the items
// of an array context, except for the top-level input array, which is one
// item.
func (s *state) contextItems(in any) []any {
	if arr, ok := in.([]any); ok && !s.isTop(arr) {
		return arr
	}
	return []any{in}
}

// currentTime returns the evaluation timestamp used by $now and $millis.
func (s *state) currentTime() time.Time {
	if !s.nowSet {
		s.now = time.Now()
		s.nowSet = true
	}
	return s.now
}

// errAt builds an *Error positioned at byte offset pos.
func (s *state) errAt(code string, pos int, token string, args ...any) *Error {
	return newError(code, runeOffset(s.src, pos), token, args...)
}

// seqResult turns an internal sequence into a value: nothing is undefined,
// one item is that item (unless keep is set), more items are an array.
func seqResult(seq []any, keep bool) any {
	switch {
	case len(seq) == 0:
		return undefined
	case len(seq) == 1 && !keep:
		return seq[0]
	}
	return seq
}

// appendFlat appends v to seq, flattening one level of array.
func appendFlat(seq []any, v any) []any {
	switch x := v.(type) {
	case undefinedType:
		return seq
	case []any:
		return append(seq, x...)
	}
	return append(seq, v)
}

package jsonata

// callable is implemented by every function value.
type callable interface {
	// arity is the number of arguments a higher-order function passes to
	// this function ($map passes value, index and array up to it).
	arity() int
}

func isFunction(v any) bool {
	_, ok := v.(callable)
	return ok
}

// lambdaFn is a closure created by function(...){...}.
type lambdaFn struct {
	node  *lambdaNode
	env   *env
	input any
}

func (f *lambdaFn) arity() int { return len(f.node.params) }

// builtinFn is a function of the standard library.
type builtinFn struct {
	name  string
	sig   *signature
	nargs int
	fn    func(c *call, args []any) (any, error)
}

func (f *builtinFn) arity() int { return f.nargs }

// partialFn is a partially applied function: args holds the supplied
// arguments and holes the positions of the ? placeholders.
type partialFn struct {
	fn    any
	args  []any
	holes []int
}

func (f *partialFn) arity() int { return len(f.holes) }

// composeFn is f ~> g where both sides are functions.
type composeFn struct{ first, second any }

func (f *composeFn) arity() int { return 1 }

// tailCall is returned by a call in tail position of a lambda body; the
// enclosing lambda invocation runs it in a loop instead of recursing.
type tailCall struct {
	fn   *lambdaFn
	args []any
	in   any
}

// call carries what a built-in function needs besides its arguments.
type call struct {
	s    *state
	in   any  // the context value at the call site
	env  *env // the scope at the call site (for $eval)
	pos  int
	name string
}

// applyHOF invokes a higher-order callback with the standard argument list
// (value, index, array) truncated to the callback's arity.
func (c *call) applyHOF(fn any, args ...any) (any, error) {
	f, ok := fn.(callable)
	if !ok {
		return nil, c.s.errAt("T1006", c.pos, c.name)
	}
	n := f.arity()
	if n < len(args) {
		args = args[:n]
	}
	return c.s.apply(fn, args, c.in, c.pos)
}

// apply invokes any function value. Applications count towards the
// evaluation nesting limit because built-in functions that call back into
// expressions add Go stack frames of their own.
func (s *state) apply(fn any, args []any, in any, pos int) (any, error) {
	s.nesting++
	defer func() { s.nesting-- }()
	if s.nesting > maxEvalNesting {
		return nil, &DepthError{Limit: maxEvalNesting, What: "evaluation nesting", Position: runeOffset(s.src, pos)}
	}
	switch f := fn.(type) {
	case *lambdaFn:
		return s.callLambda(f, args, in, pos)
	case *builtinFn:
		if f.sig != nil {
			var err error
			if args, err = f.sig.validate(s, args, in, f.name, pos); err != nil {
				return nil, err
			}
		}
		return f.fn(&call{s: s, in: in, env: s.callerEnv, pos: pos, name: f.name}, args)
	case *partialFn:
		full := append([]any(nil), f.args...)
		for i, h := range f.holes {
			if i < len(args) {
				full[h] = args[i]
			} else {
				full[h] = undefined
			}
		}
		return s.apply(f.fn, full, in, pos)
	case *composeFn:
		v, err := s.apply(f.first, args, in, pos)
		if err != nil {
			return nil, err
		}
		return s.apply(f.second, []any{v}, in, pos)
	case *regexValue:
		return s.regexMatcher(f, args, pos)
	case *matchNext:
		return f.next(s)
	case *transformFn:
		return s.applyTransform(f, args)
	case *Function:
		return s.applyGo(f, args, in, pos)
	}
	return nil, s.errAt("T1006", pos, "")
}

// callLambda invokes a lambda, looping over tail calls so that tail
// recursion runs in constant Go stack. Each invocation counts towards the
// call depth limit; a tail call replaces its caller.
func (s *state) callLambda(f *lambdaFn, args []any, in any, pos int) (any, error) {
	s.callDepth++
	defer func() { s.callDepth-- }()
	if s.callDepth > s.maxDepth {
		return nil, &DepthError{Limit: s.maxDepth, What: "call depth", Position: runeOffset(s.src, pos)}
	}
	for {
		if f.node.sig != nil {
			var err error
			if args, err = f.node.sig.validate(s, args, in, "", pos); err != nil {
				return nil, err
			}
		}
		v, err := s.eval(f.node.body, f.input, f.scope(args))
		if err != nil {
			return nil, err
		}
		tc, ok := v.(*tailCall)
		if !ok {
			return v, nil
		}
		if err := s.check(); err != nil {
			return nil, err
		}
		f, args, in = tc.fn, tc.args, tc.in
	}
}

// scope binds the parameters of f to args. The argument slice belongs to
// this invocation, so it becomes the scope's value slice when long enough.
func (f *lambdaFn) scope(args []any) *env {
	params := f.node.params
	n := len(params)
	vals := args
	if len(args) >= n {
		vals = args[:n:n]
	} else {
		vals = make([]any, n)
		copy(vals, args)
		for i := len(args); i < n; i++ {
			vals[i] = undefined
		}
	}
	return &env{parent: f.env, names: params[:n:n], vals: vals}
}

func (n *lambdaNode) eval(s *state, in any, e *env) (any, error) {
	return &lambdaFn{node: n, env: e, input: in}, nil
}

func (n *callNode) eval(s *state, in any, e *env) (any, error) {
	if isParentRef(n.proc) {
		if anc, _ := e.ancestry(); anc == nil {
			return nil, s.notFunction(n, undefined)
		}
	}
	proc, err := s.eval(n.proc, in, e)
	if err != nil {
		return nil, err
	}
	if !isFunction(proc) {
		return nil, s.notFunction(n, proc)
	}
	args := make([]any, len(n.args))
	var holes []int
	for i, a := range n.args {
		if a == nil {
			holes = append(holes, i)
			continue
		}
		if args[i], err = s.eval(a, in, e); err != nil {
			return nil, err
		}
	}
	if n.partial {
		return &partialFn{fn: proc, args: args, holes: holes}, nil
	}
	if n.tail {
		if lf, ok := proc.(*lambdaFn); ok {
			// The trampoline in callLambda consumes the tail call before
			// anything else is evaluated, so one slot per state suffices.
			s.tail = tailCall{fn: lf, args: args, in: in}
			return &s.tail, nil
		}
	}
	s.callerEnv = e
	return s.apply(proc, args, in, n.pos)
}

// notFunction reports an attempt to call (or partially apply) a value that
// is not a function, suggesting the built-in when a bare name was used.
func (s *state) notFunction(n *callNode, proc any) error {
	name := ""
	if p, ok := n.proc.(*pathNode); ok && len(p.steps) == 1 {
		if nn, ok := p.steps[0].expr.(*nameNode); ok {
			name = nn.name
		}
	}
	if _, isBuiltin := builtins[name]; isBuiltin && name != "" {
		code := "T1005"
		if n.partial {
			code = "T1007"
		}
		return s.errAt(code, n.pos, name, name)
	}
	code := "T1006"
	if n.partial {
		code = "T1008"
	}
	if v, ok := n.proc.(*varNode); ok {
		name = v.name
	}
	return s.errAt(code, n.pos, name)
}

func (n *chainNode) eval(s *state, in any, e *env) (any, error) {
	l, err := s.eval(n.lhs, in, e)
	if err != nil {
		return nil, err
	}
	if p, ok := n.rhs.(*pathNode); ok && p.keepArray && len(p.steps) == 1 && p.group == nil && len(p.steps[0].stages) == 0 {
		if c, ok := p.steps[0].expr.(*callNode); ok && !c.partial {
			v, err := s.chainCall(n, c, l, in, e)
			if err != nil || isUndef(v) {
				return v, err
			}
			if _, isArr := v.([]any); !isArr {
				v = []any{v}
			}
			return v, nil
		}
	}
	if c, ok := n.rhs.(*callNode); ok && !c.partial {
		return s.chainCall(n, c, l, in, e)
	}
	f, err := s.eval(n.rhs, in, e)
	if err != nil {
		return nil, err
	}
	if !isFunction(f) {
		return nil, s.errAt("T2006", n.pos, "~>")
	}
	if isFunction(l) {
		return &composeFn{first: l, second: f}, nil
	}
	return s.apply(f, []any{l}, in, n.pos)
}

// chainCall evaluates lhs ~> f(args) as f(lhs, args).
func (s *state) chainCall(n *chainNode, c *callNode, l, in any, e *env) (any, error) {
	proc, err := s.eval(c.proc, in, e)
	if err != nil {
		return nil, err
	}
	if !isFunction(proc) {
		return nil, s.errAt("T2006", n.pos, "~>")
	}
	args := make([]any, 1, len(c.args)+1)
	args[0] = l
	for _, a := range c.args {
		v, err := s.eval(a, in, e)
		if err != nil {
			return nil, err
		}
		args = append(args, v)
	}
	s.callerEnv = e
	return s.apply(proc, args, in, c.pos)
}

// isParentRef reports whether n is a bare % reference.
func isParentRef(n node) bool {
	if p, ok := n.(*pathNode); ok && len(p.steps) == 1 {
		n = p.steps[0].expr
	}
	_, ok := n.(*parentNode)
	return ok
}

package jsonata

// tuple is one item of a path evaluated in tuple mode: the context value,
// the scope holding the variables bound by @ and # so far, and, when the
// expression uses %, the parent chains. anc is what % sees; ctxAnc is the
// parent chain of ctx itself (they differ after an @ step, whose context
// stays put while the bound item has its own parent).
type tuple struct {
	ctx         any
	env         *env
	anc, ctxAnc *ancestor
}

// evalTuplePath evaluates a path that binds variables or tracks parents.
func (s *state) evalTuplePath(n *pathNode, in any, e *env) (any, error) {
	anc, _ := e.ancestry()
	ts, err := s.pathTuples(n, tuple{ctx: in, env: e, anc: anc, ctxAnc: anc})
	if err != nil {
		return nil, err
	}
	if n.group != nil {
		items := make([]any, len(ts))
		envs := make([]*env, len(ts))
		for i, t := range ts {
			items[i] = t.ctx
			envs[i] = s.tupleEnv(t, n.ancestry)
		}
		return s.groupBy(items, envs, n.group, e, n.bound...)
	}
	vals := make([]any, len(ts))
	for i, t := range ts {
		vals[i] = t.ctx
	}
	return seqResult(vals, n.keepArray), nil
}

// pathTuples runs the steps of n from the start tuple.
func (s *state) pathTuples(n *pathNode, start tuple) ([]tuple, error) {
	items := s.startSequence(n, start.ctx)
	ts := make([]tuple, len(items))
	for i, item := range items {
		ts[i] = start
		ts[i].ctx = item
	}
	for i, st := range n.steps {
		var err error
		switch {
		case i == 0 && st.cons:
			// A leading array constructor is evaluated once, not per item.
			ts, err = s.tupleStep(st, []tuple{start}, n.ancestry)
		case st.sort != nil:
			ts, err = s.sortTuples(ts, st.sort, n.ancestry)
			if err == nil && st.index != "" {
				for j := range ts {
					ts[j].env = ts[j].env.withBinding(st.index, float64(j))
				}
			}
		case i == 0 && st.focus != "" && isVar(st.expr):
			// A focus on a leading variable binds each of its items, which
			// also become the context: there is no earlier context to keep.
			ts, err = s.tupleStep(st, ts, n.ancestry)
			for j := range ts {
				if v, ok := ts[j].env.lookup(st.focus); ok {
					ts[j].ctx = v
				}
			}
		default:
			ts, err = s.tupleStep(st, ts, n.ancestry)
		}
		if err == nil && st.sort != nil {
			ts, err = s.tupleStages(ts, st.stages, n.ancestry)
		}
		if err != nil {
			return nil, err
		}
		if len(ts) == 0 {
			break
		}
	}
	return ts, nil
}

// tupleEnv returns the scope in which predicates, sort keys and grouping
// keys see the bindings and the parent chain of t.
func (s *state) tupleEnv(t tuple, ancestry bool) *env {
	if !ancestry {
		return t.env
	}
	return t.env.withAncestry(t.anc)
}

// tupleStep maps a step over tuples, binding @ and # variables, and
// applies the step's predicates. As outside tuple mode, predicates bind
// tighter than the map: they filter the items of each input tuple. After
// an @ binding they filter the joined stream as a whole.
func (s *state) tupleStep(st *step, ts []tuple, ancestry bool) ([]tuple, error) {
	var out []tuple
	for _, t := range ts {
		mark := len(out)
		base := t.anc
		if st.focus != "" {
			base = t.ctxAnc
		}
		se := t.env
		if ancestry {
			se = t.env.withAncestry(base)
		}
		items, err := s.stepTuples(st.expr, t.ctx, base, se)
		if err != nil {
			return nil, err
		}
		for j, it := range items {
			nt := tuple{env: t.env}
			if st.focus != "" {
				nt.ctx, nt.ctxAnc, nt.anc = t.ctx, t.ctxAnc, it.anc
				nt.env = nt.env.withBinding(st.focus, it.ctx)
			} else {
				nt.ctx, nt.anc, nt.ctxAnc = it.ctx, it.anc, it.anc
			}
			if st.index != "" {
				nt.env = nt.env.withBinding(st.index, float64(j))
			}
			out = append(out, nt)
		}
		if st.focus == "" && len(st.stages) > 0 {
			local, err := s.tupleStages(out[mark:], st.stages, ancestry)
			if err != nil {
				return nil, err
			}
			out = append(out[:mark], local...)
		}
		if err := s.growCheck(len(out)); err != nil {
			return nil, err
		}
	}
	if st.focus != "" {
		return s.tupleStages(out, st.stages, ancestry)
	}
	return out, nil
}

// stepTuples evaluates a step expression for one context and returns the
// items it selects with their parent chains. Nested paths and blocks keep
// the parents of the values they select. Arrays are always flattened in
// tuple mode, including those of array constructors.
func (s *state) stepTuples(expr node, ctx any, base *ancestor, e *env) ([]tuple, error) {
	switch x := expr.(type) {
	case *pathNode:
		if x.tuples && x.group == nil {
			ts, err := s.pathTuples(x, tuple{ctx: ctx, env: e, anc: base, ctxAnc: base})
			if err != nil {
				return nil, err
			}
			for i := range ts {
				ts[i].env = nil
			}
			return ts, nil
		}
	case *blockNode:
		if len(x.exprs) > 0 {
			be := newEnv(e)
			for _, sub := range x.exprs[:len(x.exprs)-1] {
				if _, err := s.eval(sub, ctx, be); err != nil {
					return nil, err
				}
			}
			return s.stepTuples(x.exprs[len(x.exprs)-1], ctx, base, be)
		}
	case *parentNode:
		if base == nil {
			return nil, s.errAt("S0217", x.pos, "%")
		}
		return []tuple{{ctx: base.val, anc: base.up}}, nil
	}
	v, err := s.eval(expr, ctx, e)
	if err != nil {
		return nil, err
	}
	var parent *ancestor
	switch expr.(type) {
	case *nameNode, *wildcardNode, *descendantNode:
		parent = &ancestor{val: ctx, up: base}
	}
	if isUndef(v) {
		return nil, nil
	}
	if arr, ok := v.([]any); ok {
		out := make([]tuple, len(arr))
		for i, item := range arr {
			out[i] = tuple{ctx: item, anc: parent}
		}
		return out, nil
	}
	return []tuple{{ctx: v, anc: parent}}, nil
}

// tupleStages applies predicates and positional bindings to a tuple stream.
func (s *state) tupleStages(ts []tuple, stages []*stage, ancestry bool) ([]tuple, error) {
	for _, sg := range stages {
		if sg.pred == nil {
			for j := range ts {
				ts[j].env = ts[j].env.withBinding(sg.index, float64(j))
			}
			continue
		}
		var out []tuple
		for i, t := range ts {
			r, err := s.eval(sg.pred, t.ctx, s.tupleEnv(t, ancestry))
			if err != nil {
				return nil, err
			}
			if predicateKeeps(r, i, len(ts)) {
				out = append(out, t)
			}
		}
		ts = out
	}
	return ts, nil
}

// sortTuples orders a tuple stream by the sort terms.
func (s *state) sortTuples(ts []tuple, terms []sortTerm, ancestry bool) ([]tuple, error) {
	items := make([]any, len(ts))
	envs := make([]*env, len(ts))
	for i, t := range ts {
		items[i] = t.ctx
		envs[i] = s.tupleEnv(t, ancestry)
	}
	order, err := s.sortOrder(items, envs, terms, nil)
	if err != nil {
		return nil, err
	}
	out := make([]tuple, len(ts))
	for i, j := range order {
		out[i] = ts[j]
	}
	return out, nil
}

func isVar(n node) bool {
	_, ok := n.(*varNode)
	return ok
}

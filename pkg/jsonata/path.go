package jsonata

import "math"

// eval evaluates a location path: each step is mapped over the sequence
// produced by the previous one and the results are flattened.
func (n *pathNode) eval(s *state, in any, e *env) (any, error) {
	if n.tuples {
		return s.evalTuplePath(n, in, e)
	}
	seq := s.startSequence(n, in)
	plain := false
	for i, st := range n.steps {
		var err error
		if i == 0 && st.cons {
			// A leading array constructor is evaluated once, not per item.
			v, err := s.eval(st.expr, in, e)
			if err != nil {
				return nil, err
			}
			if seq, err = s.applyStages(asArray(v), st.stages, e); err != nil {
				return nil, err
			}
			continue
		}
		if st.sort != nil {
			seq, err = s.sortSeq(seq, st.sort, e)
			if err == nil {
				seq, err = s.applyStages(seq, st.stages, e)
			}
			plain = false
		} else {
			seq, plain, err = s.step(st, seq, e, i == len(n.steps)-1)
		}
		if err != nil {
			return nil, err
		}
		if len(seq) == 0 {
			break
		}
	}
	if n.group != nil {
		return s.groupBy(seq, nil, n.group, e)
	}
	if plain {
		return seq, nil
	}
	return seqResult(seq, n.keepArray), nil
}

// startSequence returns the input sequence of a path: the context itself
// when the path starts with a variable, otherwise the items of an array
// context.
func (s *state) startSequence(n *pathNode, in any) []any {
	if _, isVar := n.steps[0].expr.(*varNode); !isVar {
		return s.contextItems(in)
	}
	return []any{in}
}

// step maps st over seq. When this is the last step and exactly one input
// produced a value that is an array (not a sequence), that array is the
// result and plain is true, so that it is not unwrapped later.
func (s *state) step(st *step, seq []any, e *env, last bool) (out []any, plain bool, err error) {
	var lastArr []any
	produced := 0
	lastPlain := false
	for _, item := range seq {
		v, err := s.eval(st.expr, item, e)
		if err != nil {
			return nil, false, err
		}
		isSeq := false
		if len(st.stages) > 0 {
			filtered, err := s.applyStages(asArray(v), st.stages, e)
			if err != nil {
				return nil, false, err
			}
			v, isSeq = seqResult(filtered, false), true
		}
		if isUndef(v) {
			continue
		}
		produced++
		if st.cons {
			out = append(out, v)
			continue
		}
		arr, isArr := v.([]any)
		lastPlain = isArr && !isSeq
		if lastPlain {
			lastArr = arr
		}
		out = appendFlat(out, v)
		if err := s.growCheck(len(out)); err != nil {
			return nil, false, err
		}
	}
	if last && produced == 1 && lastPlain {
		return lastArr, true, nil
	}
	return out, false, nil
}

// growCheck enforces the size cap on sequences being built and checks the
// deadline as they grow.
func (s *state) growCheck(n int) error {
	if n&1023 == 0 {
		if err := s.check(); err != nil {
			return err
		}
	}
	return s.checkSize(n, "array")
}

// applyStages runs predicates (and positional bindings outside tuple
// mode, which have no effect) over seq.
func (s *state) applyStages(seq []any, stages []*stage, e *env) ([]any, error) {
	for _, sg := range stages {
		if sg.pred == nil {
			continue
		}
		var err error
		if seq, err = s.filterSeq(seq, sg.pred, e); err != nil {
			return nil, err
		}
	}
	return seq, nil
}

// filterSeq keeps the items of seq selected by pred: by position when pred
// gives numbers, by truth value otherwise.
func (s *state) filterSeq(seq []any, pred node, e *env) ([]any, error) {
	if lit, ok := pred.(*literalNode); ok {
		if f, ok := lit.val.(float64); ok {
			if i, ok := seqIndex(f, len(seq)); ok {
				if arr, isArr := seq[i].([]any); isArr {
					return arr, nil
				}
				return []any{seq[i]}, nil
			}
			return nil, nil
		}
	}
	var out []any
	for i, item := range seq {
		r, err := s.eval(pred, item, e)
		if err != nil {
			return nil, err
		}
		if predicateKeeps(r, i, len(seq)) {
			out = append(out, item)
		}
	}
	return out, nil
}

// predicateKeeps decides whether item i of n is kept for predicate value r.
func predicateKeeps(r any, i, n int) bool {
	switch x := r.(type) {
	case float64:
		j, ok := seqIndex(x, n)
		return ok && j == i
	case []any:
		if len(x) > 0 && allNumbers(x) {
			for _, v := range x {
				if j, ok := seqIndex(v.(float64), n); ok && j == i {
					return true
				}
			}
			return false
		}
	}
	return truthy(r)
}

func allNumbers(a []any) bool {
	for _, v := range a {
		if _, ok := v.(float64); !ok {
			return false
		}
	}
	return true
}

// seqIndex converts a (possibly negative, possibly fractional) index into a
// position in a sequence of length n.
func seqIndex(f float64, n int) (int, bool) {
	f = math.Floor(f)
	if f < 0 {
		f += float64(n)
	}
	if f < 0 || f >= float64(n) {
		return 0, false
	}
	return int(f), true
}

// eval of a filter applies predicates to the value of a non-path expression.
func (n *filterNode) eval(s *state, in any, e *env) (any, error) {
	v, err := s.eval(n.expr, in, e)
	if err != nil {
		return nil, err
	}
	seq, err := s.applyStages(asArray(v), n.stages, e)
	if err != nil {
		return nil, err
	}
	return seqResult(seq, false), nil
}

// lookupField selects key from an object, or from each object in an array.
func lookupField(v any, key string) any {
	switch x := v.(type) {
	case *Object:
		if r, ok := x.Get(key); ok {
			return r
		}
	case map[string]any:
		if r, ok := x[key]; ok {
			return r
		}
	case []any:
		var seq []any
		for _, item := range x {
			seq = appendFlat(seq, lookupField(item, key))
		}
		return seqResult(seq, false)
	}
	return undefined
}

func (n *nameNode) eval(s *state, in any, e *env) (any, error) {
	return lookupField(in, n.name), nil
}

func (n *wildcardNode) eval(s *state, in any, e *env) (any, error) {
	var seq []any
	if arr, ok := in.([]any); ok {
		seq = flattenDeep(nil, arr)
	} else if isObject(in) {
		_ = objectEach(in, func(_ string, val any) error {
			if arr, ok := val.([]any); ok {
				seq = flattenDeep(seq, arr)
			} else {
				seq = append(seq, val)
			}
			return nil
		})
	}
	if err := s.checkSize(len(seq), "array"); err != nil {
		return nil, err
	}
	return seqResult(seq, false), nil
}

// flattenDeep appends the leaves of nested arrays to out.
func flattenDeep(out []any, arr []any) []any { return flattenDeepAt(out, arr, 0) }

func flattenDeepAt(out []any, arr []any, depth int) []any {
	for _, v := range arr {
		if inner, ok := v.([]any); ok && depth < maxValueNesting {
			out = flattenDeepAt(out, inner, depth+1)
		} else {
			out = append(out, v)
		}
	}
	return out
}

func (n *descendantNode) eval(s *state, in any, e *env) (any, error) {
	var seq []any
	if err := s.descend(in, &seq, 0); err != nil {
		return nil, err
	}
	return seqResult(seq, false), nil
}

// descend appends v and all the values nested in it, depth first.
func (s *state) descend(v any, seq *[]any, depth int) error {
	if err := s.tick(); err != nil {
		return err
	}
	if depth > maxValueNesting {
		return &DepthError{Limit: maxValueNesting, What: "value nesting", Position: runeOffset(s.src, s.pos)}
	}
	switch x := v.(type) {
	case undefinedType:
		return nil
	case []any:
		for _, item := range x {
			if err := s.descend(item, seq, depth+1); err != nil {
				return err
			}
		}
		return nil
	case *Object, map[string]any:
		*seq = append(*seq, v)
		return objectEach(x, func(_ string, val any) error { return s.descend(val, seq, depth+1) })
	}
	*seq = append(*seq, v)
	return s.checkSize(len(*seq), "array")
}

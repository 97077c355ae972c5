package jsonata

// eval of an object constructor groups the context value(s) by the key
// expressions.
func (n *objectNode) eval(s *state, in any, e *env) (any, error) {
	if arr, ok := in.([]any); ok && !s.isTop(arr) {
		return s.groupBy(arr, nil, n, e)
	}
	return s.singleObject(in, n, e)
}

// eval of expr{...} groups the values of expr.
func (n *groupNode) eval(s *state, in any, e *env) (any, error) {
	v, err := s.eval(n.expr, in, e)
	if err != nil {
		return nil, err
	}
	return s.groupBy(asArray(v), nil, n.obj, e)
}

// singleObject builds an object over one context value: every group has
// exactly that value, so keys and values are evaluated pair by pair.
func (s *state) singleObject(in any, n *objectNode, e *env) (any, error) {
	obj := NewObject(len(n.keys))
	var pairBuf [16]int
	pairOf := pairBuf[:0]
	for p, kn := range n.keys {
		key, ok, err := s.groupKey(kn, in, e)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if i := obj.find(key); i >= 0 {
			if pairOf[i] != p {
				return nil, s.errAt("D1009", kn.position(), key, key)
			}
			continue
		}
		v, err := s.eval(n.vals[p], in, e)
		if err != nil {
			return nil, err
		}
		if isUndef(v) {
			// The key still claims its name for the duplicate check.
			v = undefined
		}
		obj.keys = append(obj.keys, key)
		obj.vals = append(obj.vals, v)
		pairOf = append(pairOf, p)
	}
	return dropUndefined(obj), nil
}

// dropUndefined removes keys whose value is undefined and rebuilds the
// index if needed.
func dropUndefined(obj *Object) *Object {
	clean := true
	for _, v := range obj.vals {
		if isUndef(v) {
			clean = false
			break
		}
	}
	if clean {
		if len(obj.keys) > indexThreshold {
			obj.index = make(map[string]int, len(obj.keys))
			for i, k := range obj.keys {
				obj.index[k] = i
			}
		}
		return obj
	}
	out := NewObject(len(obj.keys))
	for i, k := range obj.keys {
		if !isUndef(obj.vals[i]) {
			out.Set(k, obj.vals[i])
		}
	}
	return out
}

// groupKey evaluates a key expression: nil for undefined, T1003 for a
// non-string.
func (s *state) groupKey(kn node, in any, e *env) (string, bool, error) {
	if lit, ok := kn.(*literalNode); ok {
		if str, ok := lit.val.(string); ok {
			return str, true, nil
		}
	}
	k, err := s.eval(kn, in, e)
	if err != nil {
		return "", false, err
	}
	switch x := k.(type) {
	case undefinedType:
		return "", false, nil
	case string:
		return x, true, nil
	}
	return "", false, s.errAt("T1003", kn.position(), "", describeValue(k))
}

type groupEntry struct {
	key   string
	pair  int
	items []any
	envs  []*env
}

// groupBy builds an object from items: each key expression is evaluated
// per item, items with the same key are grouped, then each value
// expression is evaluated once per group with the group as context. envs,
// when given, holds the scope of each item (tuple paths); bound lists the
// variables whose values are merged across the items of a group.
func (s *state) groupBy(items []any, envs []*env, obj *objectNode, e *env, bound ...string) (any, error) {
	groups, err := s.collectGroups(items, envs, obj, e)
	if err != nil {
		return nil, err
	}
	out := NewObject(len(groups))
	for _, g := range groups {
		ctx := g.items[0]
		if len(g.items) > 1 {
			var seq []any
			for _, it := range g.items {
				seq = appendFlat(seq, it)
			}
			ctx = seq
		}
		ge := e
		if envs != nil {
			ge = mergeEnvs(g.envs, e, bound)
		}
		v, err := s.eval(obj.vals[g.pair], ctx, ge)
		if err != nil {
			return nil, err
		}
		if !isUndef(v) {
			out.Set(g.key, v)
		}
	}
	return out, nil
}

// collectGroups evaluates the key expressions for every item and groups
// the items by key, in order of first appearance. Two different key
// expressions giving the same key is error D1009.
func (s *state) collectGroups(items []any, envs []*env, obj *objectNode, e *env) ([]*groupEntry, error) {
	var groups []*groupEntry
	index := map[string]int{}
	for i, item := range items {
		ie := e
		if envs != nil {
			ie = envs[i]
		}
		for p, kn := range obj.keys {
			key, ok, err := s.groupKey(kn, item, ie)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			gi, seen := index[key]
			if !seen {
				index[key] = len(groups)
				groups = append(groups, &groupEntry{key: key, pair: p})
				gi = len(groups) - 1
			} else if groups[gi].pair != p {
				return nil, s.errAt("D1009", kn.position(), key, key)
			}
			g := groups[gi]
			g.items = append(g.items, item)
			if envs != nil {
				g.envs = append(g.envs, ie)
			}
		}
	}
	return groups, nil
}

// mergeEnvs returns the scope for the value expression of a group of
// tuples: each bound variable holds the values it had in the tuples.
func mergeEnvs(envs []*env, outer *env, bound []string) *env {
	if len(envs) == 1 {
		return envs[0]
	}
	merged := &env{parent: outer}
	for _, name := range bound {
		var seq []any
		for _, te := range envs {
			if v, ok := te.lookup(name); ok {
				seq = appendFlat(seq, v)
			}
		}
		merged.bind(name, seqResult(seq, false))
	}
	return merged
}

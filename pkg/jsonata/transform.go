package jsonata

// transformFn is the function produced by | location | update, delete |.
type transformFn struct {
	node *transformNode
	env  *env
}

func (f *transformFn) arity() int { return 1 }

func (n *transformNode) eval(s *state, in any, e *env) (any, error) {
	return &transformFn{node: n, env: e}, nil
}

// applyTransform copies its argument and applies the update and delete
// clauses to every object the location expression selects in the copy.
func (s *state) applyTransform(f *transformFn, args []any) (any, error) {
	v := arg(args, 0)
	if isUndef(v) {
		return undefined, nil
	}
	clone, err := deepCopy(v, 0)
	if err != nil {
		return nil, err
	}
	matches, err := s.eval(f.node.pattern, clone, f.env)
	if err != nil {
		return nil, err
	}
	for _, m := range asArray(matches) {
		obj, ok := m.(*Object)
		if !ok {
			continue
		}
		if err := s.transformOne(f, obj); err != nil {
			return nil, err
		}
	}
	return clone, nil
}

func (s *state) transformOne(f *transformFn, obj *Object) error {
	upd, err := s.eval(f.node.update, obj, f.env)
	if err != nil {
		return err
	}
	if !isUndef(upd) {
		if !isObject(upd) {
			return s.errAt("T2011", f.node.update.position(), "", describeValue(upd))
		}
		_ = objectEach(upd, func(k string, val any) error {
			obj.Set(k, val)
			return nil
		})
	}
	if f.node.del == nil {
		return nil
	}
	del, err := s.eval(f.node.del, obj, f.env)
	if err != nil {
		return err
	}
	if isUndef(del) {
		return nil
	}
	for _, k := range asArray(del) {
		key, ok := k.(string)
		if !ok {
			return s.errAt("T2012", f.node.del.position(), "", describeValue(del))
		}
		obj.Delete(key)
	}
	return nil
}

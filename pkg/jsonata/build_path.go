package jsonata

// path builds a location path from a pathish raw node.
func (b *builder) path(p *pnode) (node, error) {
	steps, keep, err := b.steps(p)
	if err != nil {
		return nil, err
	}
	path := &pathNode{base: base{p.pos}, steps: steps, keepArray: keep, tuples: b.ancestry, ancestry: b.ancestry}
	for _, st := range steps {
		if st.focus != "" {
			path.bound = append(path.bound, st.focus)
		}
		if st.index != "" {
			path.bound = append(path.bound, st.index)
		}
		for _, sg := range st.stages {
			if sg.pred == nil {
				path.bound = append(path.bound, sg.index)
			}
		}
	}
	for _, st := range steps {
		if st.focus != "" || st.index != "" || len(path.bound) > 0 {
			path.tuples = true
		}
	}
	return path, nil
}

// steps flattens a chain of path operators into steps. The boolean result
// reports a [] (keep array) marker anywhere in the chain.
func (b *builder) steps(p *pnode) ([]*step, bool, error) {
	switch p.kind {
	case pPath:
		return b.pathSteps(p)
	case pFilter:
		return b.filterSteps(p)
	case pKeep:
		ss, _, err := b.steps(p.lhs)
		return ss, true, err
	case pFocus, pIndex:
		return b.bindingStep(p)
	case pSort:
		return b.sortSteps(p)
	case pStr:
		p = &pnode{kind: pName, pos: p.pos, str: p.str}
	}
	n, err := b.stepExpr(p)
	if err != nil {
		return nil, false, err
	}
	return []*step{{pos: p.pos, expr: n, cons: p.kind == pArray}}, false, nil
}

// pathSteps joins the steps on both sides of a dot. Number and boolean
// literals cannot be steps; string literals are field names.
func (b *builder) pathSteps(p *pnode) ([]*step, bool, error) {
	ls, lk, err := b.steps(p.lhs)
	if err != nil {
		return nil, false, err
	}
	if p.rhs.kind == pNum || p.rhs.kind == pValue {
		return nil, false, b.errAt("S0213", p.rhs.pos, p.rhs.describe(), p.rhs.describe())
	}
	rs, rk, err := b.steps(p.rhs)
	if err != nil {
		return nil, false, err
	}
	return append(ls, rs...), lk || rk, nil
}

// filterSteps attaches a predicate to the last step.
func (b *builder) filterSteps(p *pnode) ([]*step, bool, error) {
	if p.lhs.kind == pGroup {
		return nil, false, b.errAt("S0209", p.pos, "[")
	}
	ss, k, err := b.steps(p.lhs)
	if err != nil {
		return nil, false, err
	}
	pred, err := b.build(p.rhs)
	if err != nil {
		return nil, false, err
	}
	last := ss[len(ss)-1]
	last.stages = append(last.stages, &stage{pos: p.pos, pred: pred})
	return ss, k, nil
}

// sortSteps appends an order-by step.
func (b *builder) sortSteps(p *pnode) ([]*step, bool, error) {
	ss, k, err := b.steps(p.lhs)
	if err != nil {
		return nil, false, err
	}
	st := &step{pos: p.pos}
	for i, t := range p.list {
		tn, err := b.build(t)
		if err != nil {
			return nil, false, err
		}
		st.sort = append(st.sort, sortTerm{expr: tn, desc: p.desc[i]})
	}
	return append(ss, st), k, nil
}

// stepExpr builds the expression of a single step.
func (b *builder) stepExpr(p *pnode) (node, error) {
	bs := base{p.pos}
	switch p.kind {
	case pName:
		return &nameNode{bs, p.str}, nil
	case pWildcard:
		return &wildcardNode{bs}, nil
	case pDescendant:
		return &descendantNode{bs}, nil
	case pParent:
		return &parentNode{bs}, nil
	}
	return b.build(p)
}

func (b *builder) bindingStep(p *pnode) ([]*step, bool, error) {
	ss, k, err := b.steps(p.lhs)
	if err != nil {
		return nil, false, err
	}
	last := ss[len(ss)-1]
	if p.kind == pFocus {
		if last.sort != nil {
			return nil, false, b.errAt("S0216", p.pos, "@")
		}
		if len(last.stages) > 0 {
			return nil, false, b.errAt("S0215", p.pos, "@")
		}
		last.focus = p.str
		return ss, k, nil
	}
	if len(last.stages) > 0 || last.index != "" {
		last.stages = append(last.stages, &stage{pos: p.pos, index: p.str})
	} else {
		last.index = p.str
	}
	return ss, k, nil
}

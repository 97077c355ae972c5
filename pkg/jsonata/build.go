package jsonata

// builder turns the raw syntax tree into the executable tree: it assembles
// location paths with their predicates and bindings, checks the static
// rules (S02xx), compiles regular expressions and signatures and marks tail
// calls.
type builder struct {
	src string
	// ancestry is set when the expression uses %, in which case every
	// path tracks the parents of the values it selects.
	ancestry bool
}

// compileTree parses and builds src; interrupt may be nil.
func compileTree(src string, interrupt func() error) (node, error) {
	p, err := parse(src, interrupt)
	if err != nil {
		return nil, err
	}
	if err := checkTreeDepth(p); err != nil {
		return nil, err
	}
	b := &builder{src: src, ancestry: containsParent(p)}
	return b.build(p)
}

// maxTreeDepth bounds the depth of the syntax tree. Operator chains such as
// a & b & c are parsed iteratively but form deep trees, and the build pass
// and the evaluator recurse over trees.
const maxTreeDepth = 5000

// checkTreeDepth measures the tree without recursion and rejects trees
// deeper than maxTreeDepth with a *DepthError.
func checkTreeDepth(root *pnode) error {
	type item struct {
		n     *pnode
		depth int
	}
	stack := []item{{root, 1}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.depth > maxTreeDepth {
			return &DepthError{Limit: maxTreeDepth, What: "expression nesting", Position: -1}
		}
		for _, c := range [...]*pnode{it.n.lhs, it.n.rhs, it.n.third} {
			if c != nil {
				stack = append(stack, item{c, it.depth + 1})
			}
		}
		for _, c := range it.n.list {
			stack = append(stack, item{c, it.depth + 1})
		}
	}
	return nil
}

func containsParent(p *pnode) bool {
	if p == nil {
		return false
	}
	if p.kind == pParent {
		return true
	}
	if containsParent(p.lhs) || containsParent(p.rhs) || containsParent(p.third) {
		return true
	}
	for _, c := range p.list {
		if containsParent(c) {
			return true
		}
	}
	return false
}

func (b *builder) errAt(code string, pos int, token string, args ...any) *Error {
	return newError(code, runeOffset(b.src, pos), token, args...)
}

// pathish reports whether p is built as a location path.
func pathish(p *pnode) bool {
	switch p.kind {
	case pName, pWildcard, pDescendant, pParent, pPath, pKeep, pFocus, pIndex, pSort:
		return true
	case pFilter:
		return pathish(p.lhs)
	}
	return false
}

func (b *builder) build(p *pnode) (node, error) {
	if pathish(p) {
		return b.path(p)
	}
	if f, ok := buildFuncs[p.kind]; ok {
		return f(b, p)
	}
	return nil, b.errAt("S0206", p.pos, p.op, p.op)
}

// buildFuncs builds each kind of raw node that is not a location path.
var buildFuncs map[pkind]func(*builder, *pnode) (node, error)

func init() {
	buildFuncs = map[pkind]func(*builder, *pnode) (node, error){
		pNum: buildLiteral, pStr: buildLiteral, pValue: buildLiteral,
		pRegex: (*builder).regex, pVar: buildVar, pPlaceholder: buildPlaceholder,
		pUnaryMinus: (*builder).negation, pArray: (*builder).arrayNode,
		pObject: func(b *builder, p *pnode) (node, error) { return b.objectNode(p) },
		pBlock:  (*builder).block, pBinary: (*builder).binary, pGroup: (*builder).group,
		pBind: (*builder).bind, pChain: (*builder).chain, pCond: (*builder).conditional,
		pCall: (*builder).call, pLambda: (*builder).lambda, pTransform: (*builder).transform,
		pFilter: (*builder).filter,
	}
}

func buildLiteral(b *builder, p *pnode) (node, error) { return &literalNode{base{p.pos}, p.val}, nil }

func buildVar(b *builder, p *pnode) (node, error) { return &varNode{base{p.pos}, p.str}, nil }

func buildPlaceholder(b *builder, p *pnode) (node, error) {
	return nil, b.errAt("S0211", p.pos, "?", "?")
}

func (b *builder) regex(p *pnode) (node, error) {
	re, err := compileRegex(p.str, p.flags)
	if err != nil {
		return nil, b.errAt("S0303", p.pos, p.str, err.Error())
	}
	return &regexNode{base{p.pos}, re}, nil
}

// negation folds the negation of a number literal.
func (b *builder) negation(p *pnode) (node, error) {
	operand, err := b.build(p.lhs)
	if err != nil {
		return nil, err
	}
	if lit, ok := operand.(*literalNode); ok {
		if f, ok := lit.val.(float64); ok {
			return &literalNode{base{p.pos}, -f}, nil
		}
	}
	return &negNode{base{p.pos}, operand}, nil
}

func (b *builder) block(p *pnode) (node, error) {
	exprs, err := b.buildList(p.list)
	if err != nil {
		return nil, err
	}
	return &blockNode{base{p.pos}, exprs}, nil
}

func (b *builder) bind(p *pnode) (node, error) {
	v, err := b.build(p.rhs)
	if err != nil {
		return nil, err
	}
	return &bindNode{base{p.pos}, p.str, v}, nil
}

func (b *builder) chain(p *pnode) (node, error) {
	l, r, err := b.pair(p.lhs, p.rhs)
	if err != nil {
		return nil, err
	}
	return &chainNode{base{p.pos}, l, r}, nil
}

func (b *builder) buildList(list []*pnode) ([]node, error) {
	out := make([]node, len(list))
	for i, c := range list {
		n, err := b.build(c)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

func (b *builder) pair(l, r *pnode) (node, node, error) {
	ln, err := b.build(l)
	if err != nil {
		return nil, nil, err
	}
	rn, err := b.build(r)
	if err != nil {
		return nil, nil, err
	}
	return ln, rn, nil
}

func (b *builder) binary(p *pnode) (node, error) {
	l, r, err := b.pair(p.lhs, p.rhs)
	if err != nil {
		return nil, err
	}
	if p.op == ".." {
		return &rangeNode{base{p.pos}, l, r}, nil
	}
	return &binaryNode{base{p.pos}, p.op, l, r}, nil
}

func (b *builder) arrayNode(p *pnode) (node, error) {
	n := &arrayNode{base: base{p.pos}}
	for _, item := range p.list {
		in, err := b.build(item)
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, in)
		n.nested = append(n.nested, item.kind == pArray)
	}
	return n, nil
}

func (b *builder) objectNode(p *pnode) (*objectNode, error) {
	n := &objectNode{base: base{p.pos}}
	for i := 0; i+1 < len(p.list); i += 2 {
		k, v, err := b.pair(p.list[i], p.list[i+1])
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, k)
		n.vals = append(n.vals, v)
	}
	return n, nil
}

func (b *builder) group(p *pnode) (node, error) {
	if p.lhs.kind == pGroup {
		return nil, b.errAt("S0210", p.pos, "{")
	}
	obj, err := b.objectNode(p)
	if err != nil {
		return nil, err
	}
	if pathish(p.lhs) {
		n, err := b.path(p.lhs)
		if err != nil {
			return nil, err
		}
		path := n.(*pathNode)
		path.group = obj
		return path, nil
	}
	expr, err := b.build(p.lhs)
	if err != nil {
		return nil, err
	}
	return &groupNode{base{p.pos}, expr, obj}, nil
}

func (b *builder) conditional(p *pnode) (node, error) {
	c, t, err := b.pair(p.lhs, p.rhs)
	if err != nil {
		return nil, err
	}
	n := &condNode{base: base{p.pos}, cond: c, then: t}
	if p.third != nil {
		if n.els, err = b.build(p.third); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func (b *builder) call(p *pnode) (node, error) {
	proc, err := b.build(p.lhs)
	if err != nil {
		return nil, err
	}
	n := &callNode{base: base{p.pos}, proc: proc}
	for _, a := range p.list {
		if a.kind == pPlaceholder {
			n.partial = true
			n.args = append(n.args, nil)
			continue
		}
		an, err := b.build(a)
		if err != nil {
			return nil, err
		}
		n.args = append(n.args, an)
	}
	return n, nil
}

func (b *builder) lambda(p *pnode) (node, error) {
	body, err := b.build(p.lhs)
	if err != nil {
		return nil, err
	}
	markTail(body)
	n := &lambdaNode{base: base{p.pos}, params: p.params, body: body}
	if p.str != "" {
		if n.sig, err = parseSignature(p.str); err != nil {
			if je, ok := err.(*Error); ok {
				je.Position = runeOffset(b.src, p.pos)
			}
			return nil, err
		}
	}
	return n, nil
}

// markTail flags the calls in tail position of a lambda body so that the
// evaluator can run tail recursion in constant stack.
func markTail(n node) {
	switch x := n.(type) {
	case *callNode:
		if !x.partial {
			x.tail = true
		}
	case *condNode:
		markTail(x.then)
		if x.els != nil {
			markTail(x.els)
		}
	case *blockNode:
		if len(x.exprs) > 0 {
			markTail(x.exprs[len(x.exprs)-1])
		}
	}
}

func (b *builder) transform(p *pnode) (node, error) {
	pat, upd, err := b.pair(p.lhs, p.rhs)
	if err != nil {
		return nil, err
	}
	n := &transformNode{base: base{p.pos}, pattern: pat, update: upd}
	if p.third != nil {
		if n.del, err = b.build(p.third); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// filter builds predicates applied to a non-path expression.
func (b *builder) filter(p *pnode) (node, error) {
	var preds []*pnode
	for p.kind == pFilter {
		preds = append(preds, p.rhs)
		p = p.lhs
	}
	if p.kind == pGroup {
		return nil, b.errAt("S0209", p.pos, "[")
	}
	expr, err := b.build(p)
	if err != nil {
		return nil, err
	}
	f := &filterNode{base: base{p.pos}, expr: expr}
	for i := len(preds) - 1; i >= 0; i-- {
		pn, err := b.build(preds[i])
		if err != nil {
			return nil, err
		}
		f.stages = append(f.stages, &stage{pos: preds[i].pos, pred: pn})
	}
	return f, nil
}

package jsonata

// pkind is the kind of a raw syntax tree node produced by the parser.
type pkind uint8

const (
	pNum pkind = iota
	pStr
	pValue // true, false, null
	pRegex
	pName
	pVar
	pWildcard
	pDescendant
	pParent
	pPlaceholder // ? in a partial application
	pUnaryMinus
	pArray  // [a, b]
	pObject // {k: v}
	pBlock  // (a; b)
	pBinary // arithmetic, comparison, boolean, &, in, ??, ?:, ..
	pPath   // a.b
	pFilter // a[b]
	pKeep   // a[]
	pGroup  // a{k: v}
	pSort   // a^(b)
	pFocus  // a@$v
	pIndex  // a#$v
	pBind   // $v := a
	pChain  // a ~> b
	pCond   // a ? b : c
	pCall   // f(a, b)
	pLambda // function($a){...}
	pTransform
)

// pnode is a raw syntax tree node. The builder (build.go) turns it into the
// executable tree.
type pnode struct {
	kind   pkind
	op     string
	pos    int // byte offset
	val    any
	str    string // name, variable, regex source, signature
	flags  string // regex flags
	lhs    *pnode
	rhs    *pnode
	third  *pnode   // else branch, transform delete clause
	list   []*pnode // items, arguments, block expressions, object keys/values interleaved
	desc   []bool   // sort directions
	params []string // lambda parameter names
	paren  bool     // wrapped in parentheses (for blocks only)
}

// maxParseDepth bounds the nesting of the expression so that parsing, the
// build pass and evaluation cannot exhaust the Go stack.
const maxParseDepth = 500

// parser is a Pratt (top-down operator precedence) parser.
type parser struct {
	src   string
	lx    lexer
	tok   *token
	depth int
	// interrupt, when set, is polled while parsing so that $eval of a
	// huge string honours the evaluation deadline.
	interrupt func() error
	tokens    int
}

// infix binding powers.
var bindingPower = map[string]int{
	".": 75, "[": 80, "{": 70, "(": 80, "@": 80, "#": 80,
	"?": 20, "+": 50, "-": 50, "*": 60, "/": 60, "%": 60,
	"=": 40, "<": 40, ">": 40, "^": 40, "!=": 40, "<=": 40, ">=": 40,
	"**": 60, "..": 20, ":=": 10, "~>": 40, "?:": 40, "??": 40,
	"&": 50, "and": 30, "or": 25, "in": 40,
}

// parse parses src into a raw syntax tree.
func parse(src string, interrupt func() error) (*pnode, error) {
	p := &parser{src: src, lx: lexer{src: src}, interrupt: interrupt}
	if err := p.advance(); err != nil {
		return nil, err
	}
	n, err := p.expression(0)
	if err != nil {
		return nil, err
	}
	if p.tok.typ != tEnd {
		return nil, p.errAt("S0201", p.tok, p.tokText(p.tok))
	}
	return n, nil
}

func (p *parser) advance() error {
	p.tokens++
	if p.interrupt != nil && p.tokens&255 == 0 {
		if err := p.interrupt(); err != nil {
			return err
		}
	}
	t, err := p.lx.next()
	if err != nil {
		return err
	}
	if t.typ == tOp && (t.val == "!" || t.val == "~") {
		return newError("S0204", runeOffset(p.src, t.pos), t.val, t.val)
	}
	p.tok = t
	return nil
}

func (p *parser) errAt(code string, t *token, args ...any) *Error {
	return newError(code, runeOffset(p.src, t.pos), p.tokText(t), args...)
}

// tokText renders a token for error messages.
func (p *parser) tokText(t *token) string {
	switch t.typ {
	case tEnd:
		return "(end)"
	case tVar:
		return "$" + t.val
	case tRegex:
		return "/" + t.val + "/" + t.flags
	}
	return t.val
}

func (p *parser) isOp(op string) bool { return p.tok.typ == tOp && p.tok.val == op }

// expect consumes the operator op or fails with S0202/S0203.
func (p *parser) expect(op string) error {
	if !p.isOp(op) {
		if p.tok.typ == tEnd {
			return p.errAt("S0203", p.tok, op)
		}
		return p.errAt("S0202", p.tok, op, p.tokText(p.tok))
	}
	return p.advance()
}

// lbp returns the left binding power of the current token.
func (p *parser) lbp() int {
	switch p.tok.typ {
	case tOp:
		return bindingPower[p.tok.val]
	case tName:
		switch p.tok.val {
		case "and", "or", "in":
			if !p.tok.quoted {
				return bindingPower[p.tok.val]
			}
		}
	}
	return 0
}

func (p *parser) expression(rbp int) (*pnode, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxParseDepth {
		return nil, &DepthError{Limit: maxParseDepth, What: "expression nesting", Position: runeOffset(p.src, p.tok.pos)}
	}
	t := p.tok
	if t.typ == tEnd {
		return nil, p.errAt("S0207", t)
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	left, err := p.nud(t)
	if err != nil {
		return nil, err
	}
	for rbp < p.lbp() {
		t = p.tok
		if err := p.advance(); err != nil {
			return nil, err
		}
		if left, err = p.led(t, left); err != nil {
			return nil, err
		}
	}
	return left, nil
}

func (p *parser) nud(t *token) (*pnode, error) {
	switch t.typ {
	case tNumber:
		return &pnode{kind: pNum, pos: t.pos, val: t.num}, nil
	case tString:
		return &pnode{kind: pStr, pos: t.pos, val: t.val, str: t.val}, nil
	case tValue:
		return &pnode{kind: pValue, pos: t.pos, val: t.lit, str: t.val}, nil
	case tRegex:
		return &pnode{kind: pRegex, pos: t.pos, str: t.val, flags: t.flags}, nil
	case tVar:
		return &pnode{kind: pVar, pos: t.pos, str: t.val}, nil
	case tName:
		if !t.quoted && (t.val == "function" || t.val == "λ") && p.isOp("(") {
			return p.lambda(t)
		}
		return &pnode{kind: pName, pos: t.pos, str: t.val}, nil
	}
	switch t.val {
	case "-":
		operand, err := p.expression(70)
		if err != nil {
			return nil, err
		}
		return &pnode{kind: pUnaryMinus, pos: t.pos, lhs: operand}, nil
	case "*":
		return &pnode{kind: pWildcard, pos: t.pos}, nil
	case "**":
		return &pnode{kind: pDescendant, pos: t.pos}, nil
	case "%":
		return &pnode{kind: pParent, pos: t.pos}, nil
	case "[":
		return p.arrayCtor(t)
	case "{":
		pairs, err := p.pairs()
		if err != nil {
			return nil, err
		}
		return &pnode{kind: pObject, pos: t.pos, list: pairs}, nil
	case "(":
		return p.block(t)
	case "|":
		return p.transform(t)
	}
	return nil, p.errAt("S0211", t, t.val)
}

func (p *parser) led(t *token, left *pnode) (*pnode, error) {
	op := t.val
	switch op {
	case "[":
		return p.predicate(t, left)
	case "{":
		pairs, err := p.pairs()
		if err != nil {
			return nil, err
		}
		return &pnode{kind: pGroup, pos: t.pos, lhs: left, list: pairs}, nil
	case "(":
		return p.call(t, left)
	case "^":
		return p.sort(t, left)
	case "?":
		return p.conditional(t, left)
	case "@", "#":
		return p.binding(t, left)
	case ":=":
		return p.assignment(t, left)
	}
	rhs, err := p.expression(bindingPower[op])
	if err != nil {
		return nil, err
	}
	switch op {
	case ".":
		return &pnode{kind: pPath, pos: t.pos, lhs: left, rhs: rhs}, nil
	case "~>":
		return &pnode{kind: pChain, pos: t.pos, lhs: left, rhs: rhs}, nil
	}
	return &pnode{kind: pBinary, op: op, pos: t.pos, lhs: left, rhs: rhs}, nil
}

// predicate parses [expr] or the keep-array marker [].
func (p *parser) predicate(t *token, left *pnode) (*pnode, error) {
	if p.isOp("]") {
		return &pnode{kind: pKeep, pos: t.pos, lhs: left}, p.advance()
	}
	pred, err := p.expression(0)
	if err != nil {
		return nil, err
	}
	if err := p.expect("]"); err != nil {
		return nil, err
	}
	return &pnode{kind: pFilter, pos: t.pos, lhs: left, rhs: pred}, nil
}

// binding parses the @$var and #$var step bindings.
func (p *parser) binding(t *token, left *pnode) (*pnode, error) {
	rhs, err := p.expression(bindingPower[t.val])
	if err != nil {
		return nil, err
	}
	if rhs.kind != pVar {
		return nil, newError("S0214", runeOffset(p.src, t.pos), t.val, t.val)
	}
	kind := pFocus
	if t.val == "#" {
		kind = pIndex
	}
	return &pnode{kind: kind, pos: t.pos, lhs: left, str: rhs.str}, nil
}

// assignment parses $var := value (right associative).
func (p *parser) assignment(t *token, left *pnode) (*pnode, error) {
	if left.kind != pVar {
		return nil, newError("S0212", runeOffset(p.src, t.pos), t.val)
	}
	rhs, err := p.expression(bindingPower[t.val] - 1)
	if err != nil {
		return nil, err
	}
	return &pnode{kind: pBind, pos: t.pos, str: left.str, lhs: left, rhs: rhs}, nil
}

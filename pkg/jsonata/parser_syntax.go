package jsonata

import "strings"

func (p *parser) arrayCtor(t *token) (*pnode, error) {
	n := &pnode{kind: pArray, pos: t.pos}
	if p.isOp("]") {
		return n, p.advance()
	}
	for {
		item, err := p.expression(0)
		if err != nil {
			return nil, err
		}
		n.list = append(n.list, item)
		if !p.isOp(",") {
			break
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	return n, p.expect("]")
}

// pairs parses the key/value pairs of an object constructor or a grouping
// clause; the opening brace has been consumed.
func (p *parser) pairs() ([]*pnode, error) {
	var list []*pnode
	if p.isOp("}") {
		return list, p.advance()
	}
	for {
		k, err := p.expression(0)
		if err != nil {
			return nil, err
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		v, err := p.expression(0)
		if err != nil {
			return nil, err
		}
		list = append(list, k, v)
		if !p.isOp(",") {
			break
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	return list, p.expect("}")
}

func (p *parser) block(t *token) (*pnode, error) {
	n := &pnode{kind: pBlock, pos: t.pos, paren: true}
	for !p.isOp(")") {
		e, err := p.expression(0)
		if err != nil {
			return nil, err
		}
		n.list = append(n.list, e)
		if !p.isOp(";") {
			break
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	return n, p.expect(")")
}

func (p *parser) transform(t *token) (*pnode, error) {
	pattern, err := p.expression(0)
	if err != nil {
		return nil, err
	}
	if err := p.expect("|"); err != nil {
		return nil, err
	}
	update, err := p.expression(0)
	if err != nil {
		return nil, err
	}
	n := &pnode{kind: pTransform, pos: t.pos, lhs: pattern, rhs: update}
	if p.isOp(",") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		if n.third, err = p.expression(0); err != nil {
			return nil, err
		}
	}
	return n, p.expect("|")
}

func (p *parser) call(t *token, proc *pnode) (*pnode, error) {
	n := &pnode{kind: pCall, pos: t.pos, lhs: proc}
	if p.isOp(")") {
		return n, p.advance()
	}
	for {
		var arg *pnode
		if p.isOp("?") {
			arg = &pnode{kind: pPlaceholder, pos: p.tok.pos}
			if err := p.advance(); err != nil {
				return nil, err
			}
		} else {
			var err error
			if arg, err = p.expression(0); err != nil {
				return nil, err
			}
		}
		n.list = append(n.list, arg)
		if !p.isOp(",") {
			break
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	return n, p.expect(")")
}

func (p *parser) sort(t *token, left *pnode) (*pnode, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	n := &pnode{kind: pSort, pos: t.pos, lhs: left}
	for {
		desc := false
		if p.isOp("<") || p.isOp(">") {
			desc = p.tok.val == ">"
			if err := p.advance(); err != nil {
				return nil, err
			}
		}
		term, err := p.expression(0)
		if err != nil {
			return nil, err
		}
		n.list = append(n.list, term)
		n.desc = append(n.desc, desc)
		if !p.isOp(",") {
			break
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	return n, p.expect(")")
}

func (p *parser) conditional(t *token, cond *pnode) (*pnode, error) {
	then, err := p.expression(0)
	if err != nil {
		return nil, err
	}
	n := &pnode{kind: pCond, pos: t.pos, lhs: cond, rhs: then}
	if p.isOp(":") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		if n.third, err = p.expression(0); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// lambda parses function($a, $b)<signature>{ body }; the keyword has been
// consumed and the current token is '('.
func (p *parser) lambda(t *token) (*pnode, error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	n := &pnode{kind: pLambda, pos: t.pos}
	for !p.isOp(")") {
		if p.tok.typ != tVar {
			return nil, p.errAt("S0208", p.tok, p.tokText(p.tok))
		}
		n.params = append(n.params, p.tok.val)
		if err := p.advance(); err != nil {
			return nil, err
		}
		if !p.isOp(",") {
			break
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	if p.isOp("<") {
		if err := p.signatureText(n); err != nil {
			return nil, err
		}
	}
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	body, err := p.expression(0)
	if err != nil {
		return nil, err
	}
	n.lhs = body
	return n, p.expect("}")
}

// signatureText captures the raw <...> signature text that starts at the
// current '<' token and moves the lexer past it.
func (p *parser) signatureText(n *pnode) error {
	start := p.tok.pos
	depth := 0
	for i := start; i < len(p.src); i++ {
		switch p.src[i] {
		case '<':
			depth++
		case '>':
			depth--
			if depth == 0 {
				n.str = p.src[start : i+1]
				if _, err := parseSignature(n.str); err != nil {
					if je, ok := err.(*Error); ok {
						je.Position = runeOffset(p.src, start)
					}
					return err
				}
				p.lx.pos = i + 1
				p.lx.prev = &token{typ: tOp, val: ">"}
				return p.advance()
			}
		}
	}
	return newError("S0203", runeOffset(p.src, start), "<", ">")
}

// describe renders a raw node for messages.
func (n *pnode) describe() string {
	switch n.kind {
	case pStr:
		return `"` + strings.ReplaceAll(n.str, `"`, `\"`) + `"`
	case pNum:
		return formatNumber(n.val.(float64))
	case pValue:
		return n.str
	}
	return n.op
}

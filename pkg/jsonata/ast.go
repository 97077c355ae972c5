package jsonata

// node is an executable expression tree node. A compiled tree is never
// modified after Compile returns, so one tree can be evaluated by many
// goroutines at once; all per-evaluation state lives in *state and *env.
type node interface {
	// eval evaluates the node with context value in and variables e. Use
	// state.eval rather than calling this directly: it enforces the limits.
	eval(s *state, in any, e *env) (any, error)
	// position returns the byte offset of the node's token.
	position() int
}

type base struct{ pos int }

func (b base) position() int { return b.pos }

// literalNode is a number, string, boolean or null literal.
type literalNode struct {
	base
	val any
}

// nameNode selects a field of the context object (mapping over arrays).
type nameNode struct {
	base
	name string
}

// varNode reads a variable; "" is the context ($) and "$" the root ($$).
type varNode struct {
	base
	name string
}

type wildcardNode struct{ base }

type descendantNode struct{ base }

// parentNode is %, the object that holds the context value.
type parentNode struct{ base }

type negNode struct {
	base
	operand node
}

// arrayNode is an array constructor. nested[i] marks items that are array
// constructors themselves and are kept as one element instead of being
// flattened into the result.
type arrayNode struct {
	base
	items  []node
	nested []bool
}

type rangeNode struct {
	base
	lo, hi node
}

// objectNode is an object constructor, evaluated as a grouping over the
// context.
type objectNode struct {
	base
	keys, vals []node
}

// groupNode is expr{k: v}, a grouping over the result of a non-path expr.
type groupNode struct {
	base
	expr node
	obj  *objectNode
}

type blockNode struct {
	base
	exprs []node
}

// binaryNode covers the arithmetic, comparison, boolean, string
// concatenation, inclusion and defaulting operators.
type binaryNode struct {
	base
	op       string
	lhs, rhs node
}

type condNode struct {
	base
	cond, then, els node
}

type bindNode struct {
	base
	name  string
	value node
}

type lambdaNode struct {
	base
	params []string
	body   node
	sig    *signature
}

// callNode is a function invocation. tail marks a call in tail position of
// a lambda body, which is returned as a tailCall for the trampoline.
type callNode struct {
	base
	proc    node
	args    []node // nil entries are ? placeholders
	partial bool
	tail    bool
}

type chainNode struct {
	base
	lhs, rhs node
}

type transformNode struct {
	base
	pattern, update, del node
}

type regexNode struct {
	base
	re *regexValue
}

// filterNode applies predicates to the value of a non-path expression.
type filterNode struct {
	base
	expr   node
	stages []*stage
}

// stage is a predicate [expr] or, when index is set, a positional variable
// binding #$index that follows a predicate.
type stage struct {
	pos   int
	pred  node
	index string
}

// sortTerm is one key of an order-by clause.
type sortTerm struct {
	expr node
	desc bool
}

// step is one stage of a path: an expression mapped over the input
// sequence, with its predicates and variable bindings, or a sort.
type step struct {
	pos    int
	expr   node
	stages []*stage
	focus  string // @$focus
	index  string // #$index directly on the step
	cons   bool   // an array constructor: its result is one item
	sort   []sortTerm
}

// pathNode is a location path a.b.c.
type pathNode struct {
	base
	steps     []*step
	keepArray bool
	group     *objectNode
	tuples    bool     // evaluate with tuple bindings (@, #, %)
	ancestry  bool     // track parents for %
	bound     []string // variables bound by @ and # in this path
}

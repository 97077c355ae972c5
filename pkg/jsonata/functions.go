package jsonata

// builtins is the function library. It is built once at package
// initialisation and only read afterwards, so evaluations share it safely.
var builtins = map[string]*builtinFn{}

type builtinDef struct {
	name  string
	sig   string
	arity int
	fn    func(c *call, args []any) (any, error)
}

func register(defs []builtinDef) {
	for _, d := range defs {
		f := &builtinFn{name: d.name, nargs: d.arity, fn: d.fn}
		if d.sig != "" {
			sig, err := parseSignature(d.sig)
			if err != nil {
				panic("jsonata: bad signature for $" + d.name + ": " + err.Error())
			}
			f.sig = sig
		}
		builtins[d.name] = f
	}
}

func init() {
	register(stringFunctions)
	register(textFunctions)
	register(numericFunctions)
	register(aggregateFunctions)
	register(arrayFunctions)
	register(objectFunctions)
	register(higherOrderFunctions)
	register(dateFunctions)
	register(formatFunctions)
	register(miscFunctions)
}

// arg returns args[i], or undefined when absent.
func arg(args []any, i int) any {
	if i < len(args) {
		return args[i]
	}
	return undefined
}

// optString returns args[i] as a string, or def when it is absent.
func optString(args []any, i int, def string) string {
	if s, ok := arg(args, i).(string); ok {
		return s
	}
	return def
}

// checkString enforces the size cap on a string about to be returned.
func (c *call) checkString(str string) (any, error) {
	if err := c.s.checkSize(len(str), "string"); err != nil {
		return nil, err
	}
	return str, nil
}

// errorf builds an error positioned at the call.
func (c *call) errorf(code string, args ...any) error {
	return c.s.errAt(code, c.pos, c.name, args...)
}

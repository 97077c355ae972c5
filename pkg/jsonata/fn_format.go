package jsonata

import "math"

var formatFunctions = []builtinDef{
	{"formatNumber", "<n-so?:s>", 2, fnFormatNumber},
	{"formatInteger", "<n-s:s>", 2, fnFormatInteger},
	{"parseInteger", "<s-s:n>", 2, fnParseInteger},
}

// positioned sets the position of a picture error to the call site.
func (c *call) positioned(err error) error {
	if je, ok := err.(*Error); ok {
		je.Position = runeOffset(c.s.src, c.pos)
		je.Token = c.name
	}
	return err
}

func fnFormatNumber(c *call, args []any) (any, error) {
	v, ok := arg(args, 0).(float64)
	if !ok {
		return undefined, nil
	}
	picture, _ := arg(args, 1).(string)
	f := defaultDecimalFormat()
	if opts := arg(args, 2); isObject(opts) {
		f.applyOptions(opts)
	}
	subs, err := f.parseNumberPicture(picture)
	if err != nil {
		return nil, c.positioned(err)
	}
	return c.checkString(f.format(v, subs))
}

func fnFormatInteger(c *call, args []any) (any, error) {
	v, ok := arg(args, 0).(float64)
	if !ok {
		return undefined, nil
	}
	picture, _ := arg(args, 1).(string)
	p, err := parseIntPicture(picture)
	if err != nil {
		return nil, c.positioned(err)
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil, c.errorf("D1001", formatNumber(v))
	}
	return c.checkString(p.format(math.Trunc(v)))
}

func fnParseInteger(c *call, args []any) (any, error) {
	str, ok := arg(args, 0).(string)
	if !ok {
		return undefined, nil
	}
	picture, _ := arg(args, 1).(string)
	p, err := parseIntPicture(picture)
	if err != nil {
		return nil, c.positioned(err)
	}
	if str == "" && (p.style == styleRomanUpper || p.style == styleRomanLower) {
		return 0.0, nil
	}
	v, ok := p.parse(str)
	if !ok {
		return undefined, nil
	}
	return v, nil
}

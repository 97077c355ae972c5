package jsonata

import "math"

var dateFunctions = []builtinDef{
	{"now", "<s?s?:s>", 0, fnNow},
	{"millis", "<:n>", 0, fnMillis},
	{"fromMillis", "<n-s?s?:s>", 1, fnFromMillis},
	{"toMillis", "<s-s?:n>", 1, fnToMillis},
}

func fnNow(c *call, args []any) (any, error) {
	ms := float64(c.s.currentTime().UnixMilli())
	return formatMillis(c, ms, arg(args, 0), arg(args, 1))
}

func fnMillis(c *call, args []any) (any, error) {
	return float64(c.s.currentTime().UnixMilli()), nil
}

func fnFromMillis(c *call, args []any) (any, error) {
	ms, ok := arg(args, 0).(float64)
	if !ok {
		return undefined, nil
	}
	return formatMillis(c, ms, arg(args, 1), arg(args, 2))
}

// formatMillis formats ms with an optional picture and time zone.
func formatMillis(c *call, ms float64, picture, tz any) (any, error) {
	pic, ok := picture.(string)
	if !ok {
		pic = isoPicture
	}
	offset := 0
	if z, ok := tz.(string); ok {
		o, valid := parseOffset(z)
		if !valid {
			return nil, c.errorf("D3110", describeValue(z))
		}
		offset = o
	}
	if math.IsNaN(ms) || math.IsInf(ms, 0) || math.Abs(ms) > 8.64e15 {
		return nil, c.errorf("D1001", formatNumber(ms))
	}
	markers, err := parseDatePicture(pic)
	if err != nil {
		return nil, c.positioned(err)
	}
	return c.checkString(formatDateTime(ms, markers, offset))
}

func fnToMillis(c *call, args []any) (any, error) {
	str, ok := arg(args, 0).(string)
	if !ok {
		return undefined, nil
	}
	pic, ok := arg(args, 1).(string)
	if !ok {
		ms, valid := parseISO(str)
		if !valid {
			return nil, c.errorf("D3110", describeValue(str))
		}
		return ms, nil
	}
	markers, err := parseDatePicture(pic)
	if err != nil {
		return nil, c.positioned(err)
	}
	ms, matched, err := parseDateTime(str, markers, c.s.currentTime().UTC())
	if err != nil {
		return nil, c.positioned(err)
	}
	if !matched {
		return undefined, nil
	}
	return ms, nil
}

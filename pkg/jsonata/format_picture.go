package jsonata

import "strings"

// subPicture is one analysed half of a format-number picture.
type subPicture struct {
	prefix, suffix       string
	intPart, fracPart    []rune
	expPart              []rune
	hasExp, hasDecimal   bool
	percent, perMille    bool
	minInt, scale        int
	minFrac, maxFrac     int
	minExp               int
	intHasDigit          bool
	intGroups, fracGroup []int
	regular              int
}

// parseNumberPicture splits and analyses a picture, returning the error
// codes D3080-D3093 for invalid pictures.
func (f *decimalFormat) parseNumberPicture(picture string) ([]*subPicture, error) {
	parts := strings.Split(picture, string(f.patternSep))
	if len(parts) > 2 {
		return nil, newError("D3080", -1, "")
	}
	var subs []*subPicture
	for _, p := range parts {
		sp, err := f.analyse([]rune(p))
		if err != nil {
			return nil, err
		}
		subs = append(subs, sp)
	}
	return subs, nil
}

func (f *decimalFormat) analyse(pic []rune) (*subPicture, error) {
	sp := &subPicture{}
	start := -1
	for i, r := range pic {
		if f.isMantissa(r) {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, newError("D3086", -1, "")
	}
	end := start
	for end < len(pic) && f.isMantissa(pic[end]) {
		end++
	}
	mantissa := pic[start:end]
	rest := pic[end:]
	if len(rest) > 1 && rest[0] == f.expSep && f.isDigit(rest[1]) {
		sp.hasExp = true
		j := 1
		for j < len(rest) && f.isMantissa(rest[j]) {
			j++
		}
		sp.expPart = rest[1:j]
		rest = rest[j:]
	}
	sp.prefix, sp.suffix = string(pic[:start]), string(rest)
	if strings.Count(string(mantissa), string(f.decimalSep)) > 1 {
		return nil, newError("D3081", -1, "")
	}
	if err := f.checkMarkers(sp); err != nil {
		return nil, err
	}
	if err := f.splitMantissa(sp, mantissa); err != nil {
		return nil, err
	}
	for _, r := range sp.suffix {
		if f.isMantissa(r) {
			return nil, newError("D3086", -1, "")
		}
	}
	return sp, f.checkParts(sp)
}

// checkMarkers counts percent and per-mille signs in the prefix and suffix.
func (f *decimalFormat) checkMarkers(sp *subPicture) error {
	passive := sp.prefix + sp.suffix
	pc := strings.Count(passive, f.percent)
	pm := strings.Count(passive, f.perMille)
	switch {
	case pc > 1:
		return newError("D3082", -1, "")
	case pm > 1:
		return newError("D3083", -1, "")
	case pc > 0 && pm > 0:
		return newError("D3084", -1, "")
	}
	sp.percent, sp.perMille = pc == 1, pm == 1
	return nil
}

func (f *decimalFormat) splitMantissa(sp *subPicture, mantissa []rune) error {
	sp.intPart = mantissa
	for i, r := range mantissa {
		if r == f.decimalSep {
			sp.hasDecimal = true
			sp.intPart, sp.fracPart = mantissa[:i], mantissa[i+1:]
			break
		}
	}
	digits := 0
	for _, r := range mantissa {
		if f.isDigit(r) {
			digits++
		}
	}
	if digits == 0 {
		return newError("D3085", -1, "")
	}
	return nil
}

// checkParts applies the remaining picture rules and computes the sizes.
func (f *decimalFormat) checkParts(sp *subPicture) error {
	ip, fp := sp.intPart, sp.fracPart
	if sp.hasDecimal && ((len(ip) > 0 && ip[len(ip)-1] == f.groupSep) || (len(fp) > 0 && fp[0] == f.groupSep)) {
		return newError("D3087", -1, "")
	}
	if !sp.hasDecimal && len(ip) > 0 && ip[len(ip)-1] == f.groupSep {
		return newError("D3088", -1, "")
	}
	all := append(append([]rune{}, ip...), fp...)
	for i := 1; i < len(all); i++ {
		if all[i] == f.groupSep && all[i-1] == f.groupSep {
			return newError("D3089", -1, "")
		}
	}
	seenMandatory := false
	for _, r := range ip {
		if f.isMandatory(r) {
			seenMandatory = true
		} else if r == f.digit && seenMandatory {
			return newError("D3090", -1, "")
		}
	}
	seenOptional := false
	for _, r := range fp {
		if r == f.digit {
			seenOptional = true
		} else if f.isMandatory(r) && seenOptional {
			return newError("D3091", -1, "")
		}
	}
	if sp.hasExp && (sp.percent || sp.perMille) {
		return newError("D3092", -1, "")
	}
	for _, r := range sp.expPart {
		if !f.isMandatory(r) {
			return newError("D3093", -1, "")
		}
	}
	f.computeSizes(sp)
	return nil
}

func (f *decimalFormat) computeSizes(sp *subPicture) {
	count := 0
	for i := len(sp.intPart) - 1; i >= 0; i-- {
		r := sp.intPart[i]
		switch {
		case f.isDigit(r):
			count++
			sp.intHasDigit = true
			if f.isMandatory(r) {
				sp.minInt++
			}
		case r == f.groupSep:
			sp.intGroups = append(sp.intGroups, count)
		}
	}
	count = 0
	for _, r := range sp.fracPart {
		switch {
		case f.isDigit(r):
			count++
			sp.maxFrac++
			if f.isMandatory(r) {
				sp.minFrac++
			}
		case r == f.groupSep:
			sp.fracGroup = append(sp.fracGroup, count)
		}
	}
	sp.minExp = len(sp.expPart)
	sp.scale = sp.minInt
	if sp.minInt == 0 && sp.maxFrac == 0 {
		if sp.hasExp {
			sp.minFrac, sp.maxFrac = 1, 1
		} else {
			sp.minInt = 1
		}
	}
	seps := make([]groupSep, len(sp.intGroups))
	for i, p := range sp.intGroups {
		seps[i] = groupSep{pos: p, sep: f.groupSep}
	}
	sp.regular = regularGrouping(seps)
}

package jsonata

// sortSeq orders seq by the terms of an order-by clause.
func (s *state) sortSeq(seq []any, terms []sortTerm, e *env) ([]any, error) {
	order, err := s.sortOrder(seq, nil, terms, e)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(seq))
	for i, j := range order {
		out[i] = seq[j]
	}
	return out, nil
}

// sortOrder computes the stable order of items under the sort terms. Each
// item is evaluated in envs[i] when envs is given, otherwise in e.
func (s *state) sortOrder(items []any, envs []*env, terms []sortTerm, e *env) ([]int, error) {
	keys := make([][]any, len(items))
	for i, item := range items {
		ie := e
		if envs != nil {
			ie = envs[i]
		}
		keys[i] = make([]any, len(terms))
		for t, term := range terms {
			k, err := s.eval(term.expr, item, ie)
			if err != nil {
				return nil, err
			}
			switch k.(type) {
			case undefinedType, float64, string:
			default:
				return nil, s.errAt("T2008", term.expr.position(), "")
			}
			keys[i][t] = k
		}
	}
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	err := s.mergeSort(order, func(a, b int) (bool, error) {
		for t, term := range terms {
			c, err := s.compareKeys(keys[a][t], keys[b][t], term.expr.position())
			if err != nil {
				return false, err
			}
			if c == 0 {
				continue
			}
			if term.desc {
				c = -c
			}
			return c > 0, nil
		}
		return false, nil
	})
	return order, err
}

// compareKeys compares two sort keys; undefined sorts last.
func (s *state) compareKeys(a, b any, pos int) (int, error) {
	_, ua := a.(undefinedType)
	_, ub := b.(undefinedType)
	switch {
	case ua && ub:
		return 0, nil
	case ua:
		return 1, nil
	case ub:
		return -1, nil
	}
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		if !ok {
			return 0, s.errAt("T2007", pos, "", describeValue(a), describeValue(b))
		}
		return cmpOrdered(x, y), nil
	case string:
		y, ok := b.(string)
		if !ok {
			return 0, s.errAt("T2007", pos, "", describeValue(a), describeValue(b))
		}
		return compareStrings(x, y), nil
	}
	return 0, nil
}

func cmpOrdered[T float64 | int](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// mergeSort sorts idx stably; swap(a, b) reports whether a must come after
// b. It stops at the first error, including a context timeout.
func (s *state) mergeSort(idx []int, swap func(a, b int) (bool, error)) error {
	if len(idx) < 2 {
		return nil
	}
	tmp := make([]int, len(idx))
	return s.mergeSortRec(idx, tmp, swap)
}

func (s *state) mergeSortRec(idx, tmp []int, swap func(a, b int) (bool, error)) error {
	n := len(idx)
	if n < 2 {
		return nil
	}
	mid := n / 2
	if err := s.mergeSortRec(idx[:mid], tmp[:mid], swap); err != nil {
		return err
	}
	if err := s.mergeSortRec(idx[mid:], tmp[mid:], swap); err != nil {
		return err
	}
	copy(tmp, idx)
	i, j, k := 0, mid, 0
	for i < mid && j < n {
		if err := s.tick(); err != nil {
			return err
		}
		after, err := swap(tmp[i], tmp[j])
		if err != nil {
			return err
		}
		if after {
			idx[k] = tmp[j]
			j++
		} else {
			idx[k] = tmp[i]
			i++
		}
		k++
	}
	k += copy(idx[k:], tmp[i:mid])
	copy(idx[k:], tmp[j:n])
	return nil
}

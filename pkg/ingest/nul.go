package ingest

import "strings"

// holdsNUL reports whether a decoded document has a key or a string value
// with a NUL character.
func holdsNUL(v any) bool {
	switch t := v.(type) {
	case string:
		return strings.IndexByte(t, 0) >= 0
	case []any:
		for _, e := range t {
			if holdsNUL(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range t {
			if strings.IndexByte(k, 0) >= 0 || holdsNUL(e) {
				return true
			}
		}
	}
	return false
}

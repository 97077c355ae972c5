package jsonpath

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"
)

// ErrInvalidJSON reports a body that is not exactly one JSON document.
var ErrInvalidJSON = errors.New("invalid JSON")

// Decode reads data as exactly one JSON document in UTF-8. Numbers decode
// to json.Number, so a key such as 12345678901234567890 or 1.50 keeps the
// text of the body. Empty input, trailing data after the document and bytes
// that are not valid UTF-8 (RFC 8259 requires UTF-8) return an error that
// wraps ErrInvalidJSON.
func Decode(data []byte) (any, error) {
	if !utf8.Valid(data) {
		return nil, ErrInvalidJSON
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, errors.Join(ErrInvalidJSON, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.Join(ErrInvalidJSON, errors.New("data after the JSON document"))
	}
	return doc, nil
}

// ScalarString returns the text of a scalar value, the form in which an
// extracted idempotency key, event type or aggregate identifier is stored:
//
//   - a string is itself;
//   - a json.Number is its text as written in the document ("1.50" stays
//     "1.50", "1e3" stays "1e3");
//   - a float64 (from a decoder without UseNumber) is its shortest decimal
//     form;
//   - a boolean is "true" or "false".
//
// null, objects and arrays are not scalars and report false, so a key path
// that names one counts as finding no key.
func ScalarString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

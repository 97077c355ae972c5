package rabbitmq

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	amqp "github.com/rabbitmq/amqp091-go"
)

// HeaderStrings converts the AMQP headers of a received message to the
// one string value per name of the inbox headers column (28_Inbox_table):
// a string stays as it is; a number, a boolean or a timestamp becomes its
// string form (a timestamp as RFC 3339 in UTC, a decimal with its scale);
// a nested table or an array becomes JSON text; a byte array becomes its
// UTF-8 text, or "base64:" and its Base64 text when it is not valid UTF-8;
// a void value becomes "". Names keep their letter case.
func HeaderStrings(t amqp.Table) map[string]string {
	out := make(map[string]string, len(t))
	for name, v := range t {
		out[name] = headerString(v)
	}
	return out
}

// receivedHeaders is HeaderStrings under lower-case names, as a source
// hands them on. Two names that differ only in letter case keep the value
// of the last name in sorted order, so the choice is stable.
func receivedHeaders(t amqp.Table) map[string]string {
	names := make([]string, 0, len(t))
	for name := range t {
		names = append(names, name)
	}
	slices.Sort(names)
	out := make(map[string]string, len(t))
	for _, name := range names {
		out[strings.ToLower(name)] = headerString(t[name])
	}
	return out
}

func headerString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return bytesText(x)
	case bool:
		return strconv.FormatBool(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case amqp.Decimal:
		return decimalText(x)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case amqp.Table, []any:
		b, err := json.Marshal(jsonValue(x))
		if err != nil {
			return ""
		}
		return string(b)
	}
	if n, ok := integer(v); ok {
		return n
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// integer formats the integer types the client decodes.
func integer(v any) (string, bool) {
	switch x := v.(type) {
	case int8:
		return strconv.FormatInt(int64(x), 10), true
	case int16:
		return strconv.FormatInt(int64(x), 10), true
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case int:
		return strconv.Itoa(x), true
	case uint8:
		return strconv.FormatUint(uint64(x), 10), true
	case uint16:
		return strconv.FormatUint(uint64(x), 10), true
	case uint32:
		return strconv.FormatUint(uint64(x), 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	}
	return "", false
}

func bytesText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return "base64:" + base64.StdEncoding.EncodeToString(b)
}

// decimalText renders value × 10^-scale exactly: 12345 with scale 2 is
// "123.45".
func decimalText(d amqp.Decimal) string {
	if d.Scale == 0 {
		return strconv.FormatInt(int64(d.Value), 10)
	}
	r := new(big.Rat).SetFrac(big.NewInt(int64(d.Value)), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale)), nil))
	return r.FloatString(int(d.Scale))
}

// jsonValue maps a nested header value to what encoding/json writes as
// the JSON of page 28: numbers and booleans as themselves, text and bytes
// (as bytesText) as strings, a timestamp as RFC 3339 text, a decimal as a
// number, tables as objects and arrays as arrays.
func jsonValue(v any) any {
	switch x := v.(type) {
	case nil, string, bool:
		return x
	case []byte:
		return bytesText(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case amqp.Decimal:
		return json.Number(decimalText(x))
	case float32:
		return finite(float64(x), strconv.FormatFloat(float64(x), 'g', -1, 32))
	case float64:
		return finite(x, strconv.FormatFloat(x, 'g', -1, 64))
	case amqp.Table:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	}
	if n, ok := integer(v); ok {
		return json.Number(n)
	}
	return v
}

// finite returns a float as a JSON number, or as text when JSON has no
// number for it (NaN, ±Inf).
func finite(f float64, text string) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return text
	}
	return json.Number(text)
}

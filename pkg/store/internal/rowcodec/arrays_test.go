package rowcodec

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// headersJSON writes what encoding/json writes for the same map, so the
// stored headers do not depend on which encoder ran.
func TestHeadersJSONMatchesEncodingJSON(t *testing.T) {
	for _, h := range []map[string]string{
		nil,
		{},
		{"content-type": "application/json"},
		{"b": "2", "a": "1", "c": ""},
		{`q"uote`: `back\slash`, "ctl": "\x00\x01\b\f\n\r\t\x1f\x7f"},
		{"html": "<a href='x'>&amp;</a>", "sep": "line\u2028para\u2029end"},
		{"bad utf-8": "a\xffb\xc3", "\xfe": "é€𝄞"},
	} {
		want, err := json.Marshal(h)
		require.NoError(t, err)
		if h == nil {
			want = []byte("{}")
		}
		require.Equal(t, string(want), headersJSON(h))
	}
}

func FuzzHeadersJSONMatchesEncodingJSON(f *testing.F) {
	f.Add("k", "v")
	f.Add("\xff\u2028<", "\x00\"\\")
	f.Fuzz(func(t *testing.T, k, v string) {
		h := map[string]string{k: v, "z" + v: k}
		want, err := json.Marshal(h)
		require.NoError(t, err)
		require.Equal(t, string(want), headersJSON(h))
	})
}

// Every element of a column literal is quoted with " and \ escaped, NULL
// stands for an absent value, and the rows keep their order.
func TestInsertArrays(t *testing.T) {
	agg := `a"1`
	cols := InsertArrays([]queuebox.ReceivedRow{
		{ID: "id-1", Source: `s\1`, IdempotencyKey: "NULL", AggregateID: &agg, Payload: []byte(`{"x":"y"}`)},
		{ID: "id-2", Source: "s,2", IdempotencyKey: "{k}", CorrelationID: "c", Consumption: queuebox.ConsumptionPull,
			State: queuebox.StateDead, Headers: map[string]string{"h": "v"}},
	})
	require.Equal(t, []any{
		`{"id-1","id-2"}`, `{"s\\1","s,2"}`, `{"NULL","{k}"}`, `{"a\"1",NULL}`, `{NULL,NULL}`,
		`{"{\"x\":\"y\"}",""}`, `{"{}","{\"h\":\"v\"}"}`, `{NULL,"c"}`, `{"push","pull"}`, `{"pending","dead"}`, `{NULL,NULL}`,
	}, cols)
}

func BenchmarkInsertArrays(b *testing.B) {
	rows := make([]queuebox.ReceivedRow, 8)
	for i := range rows {
		rows[i] = queuebox.ReceivedRow{ID: "0190d1c6-7a1b-7c3d-8e4f-5a6b7c8d9e0f", Source: "orders", IdempotencyKey: "evt_1234567890",
			Payload: []byte(`{"id":"evt_1234567890","type":"order.created","amount":42}`),
			Headers: map[string]string{"content-type": "application/json", "user-agent": "bench/1.0"}}
	}
	b.ReportAllocs()
	for b.Loop() {
		InsertArrays(rows)
	}
}

func TestArrayLiterals(t *testing.T) {
	require.Nil(t, ArrayLiteral(nil))
	require.Equal(t, "{}", ArrayLiteral([]string{}))
	require.Equal(t, `{"a","b\"c","d\\e","NULL",""}`, ArrayLiteral([]string{"a", `b"c`, `d\e`, "NULL", ""}))
	require.Nil(t, IntArrayLiteral(nil))
	require.Equal(t, "{0,-5,9223372036854775807}", IntArrayLiteral([]int64{0, -5, 9223372036854775807}))
}

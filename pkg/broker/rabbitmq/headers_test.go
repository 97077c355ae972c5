package rabbitmq_test

import (
	"math"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/rabbitmq"
)

func TestHeaderStrings(t *testing.T) {
	t.Parallel()
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.FixedZone("CEST", 7200))
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"string", "acme", "acme"},
		{"empty string", "", ""},
		{"void", nil, ""},
		{"true", true, "true"},
		{"false", false, "false"},
		{"int8", int8(-8), "-8"},
		{"int16", int16(300), "300"},
		{"int32", int32(-70000), "-70000"},
		{"int64 above 32 bits", int64(1) << 40, "1099511627776"},
		{"uint8", uint8(255), "255"},
		{"uint16", uint16(65535), "65535"},
		{"uint32", uint32(4000000000), "4000000000"},
		{"float32", float32(1.5), "1.5"},
		{"float64", 0.1, "0.1"},
		{"float64 large", 1e21, "1e+21"},
		{"NaN", math.NaN(), "NaN"},
		{"decimal", amqp.Decimal{Scale: 2, Value: 12345}, "123.45"},
		{"negative decimal", amqp.Decimal{Scale: 3, Value: -5}, "-0.005"},
		{"decimal without scale", amqp.Decimal{Value: 7}, "7"},
		{"timestamp in UTC", at, "2024-05-06T05:08:09Z"},
		{"UTF-8 bytes", []byte("héllo"), "héllo"},
		{"binary bytes", []byte{0xff, 0x00, 0xfe}, "base64:/wD+"},
		{"empty bytes", []byte{}, ""},
		{"array", []any{"a", int32(1), true, nil}, `["a",1,true,null]`},
		{"table", amqp.Table{"b": int64(2), "a": "x"}, `{"a":"x","b":2}`},
		{"nested", amqp.Table{"t": amqp.Table{"at": at, "bin": []byte{0xff}, "d": amqp.Decimal{Scale: 1, Value: 15}},
			"l": []any{amqp.Table{"f": 2.5}, math.Inf(1)}},
			`{"l":[{"f":2.5},"+Inf"],"t":{"at":"2024-05-06T05:08:09Z","bin":"base64:/w==","d":1.5}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := rabbitmq.HeaderStrings(amqp.Table{"h": tt.in})
			require.Equal(t, map[string]string{"h": tt.want}, got)
		})
	}
}

func TestHeaderStringsKeepTheLetterCase(t *testing.T) {
	t.Parallel()
	require.Equal(t, map[string]string{"X-Tenant": "acme", "x-n": "1"},
		rabbitmq.HeaderStrings(amqp.Table{"X-Tenant": "acme", "x-n": int32(1)}))
}

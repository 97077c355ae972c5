package rowcodec

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

func TestCompactJSON(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"amount": 42, "orderId": "1001"}`:    `{"amount":42,"orderId":"1001"}`,
		`{"note": "two  spaces", "n": [1, 2]}`: `{"note":"two  spaces","n":[1,2]}`,
		`"a string"`:                           `"a string"`,
		`not json, left as it is`:              `not json, left as it is`,
	} {
		require.Equal(t, want, string(CompactJSON(in)), in)
	}
}

func TestDecodeHeaders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    map[string]string
		wantErr bool
	}{
		{`{}`, map[string]string{}, false},
		{`null`, map[string]string{}, false},
		{` {} `, map[string]string{}, false},
		{`{"X-Tenant": "t-1", "n": 3}`, map[string]string{"X-Tenant": "t-1", "n": "3"}, false},
		{`[]`, nil, true},
	}
	for _, tc := range tests {
		got, err := DecodeHeaders(tc.in)
		if tc.wantErr {
			require.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
		got["written"] = "a caller may add to the map" // it is the caller's own
	}
}

// The claim decodes the headers column of every row; most rows have none.
func BenchmarkDecodeHeaders(b *testing.B) {
	for _, in := range []string{`{}`, `{"X-Tenant": "t-1"}`} {
		b.Run(in, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeHeaders(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestFoldGroupsSumsOneNameAndDestination(t *testing.T) {
	t.Parallel()
	got := FoldGroups([]queuebox.Group{
		{Name: "a", Count: 2, OldestAge: time.Second},
		{Name: "b", Count: 1, OldestAge: time.Minute},
		{Name: "a", Count: 3, OldestAge: time.Hour},
		{Name: "a", Destination: "x", Count: 4, OldestAge: time.Second},
		{Name: "a", Destination: "x", Count: 1, OldestAge: time.Minute},
	})
	require.Equal(t, []queuebox.Group{
		{Name: "a", Count: 5, OldestAge: time.Hour},
		{Name: "b", Count: 1, OldestAge: time.Minute},
		{Name: "a", Destination: "x", Count: 5, OldestAge: time.Minute},
	}, got)
}

package sqlserver

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/capture"
)

func lsn(b byte) LSN { return LSN{0, 0, 0, 0, 0, 0, 0, 0, 0, b} }

func TestLSNRoundTrip(t *testing.T) {
	t.Parallel()
	l := LSN{0, 0, 0, 0x2a, 0, 0, 0x01, 0xf0, 0, 3}
	require.Equal(t, "0x0000002A000001F00003", l.String())
	back, err := ParseLSN(l.String())
	require.NoError(t, err)
	require.Equal(t, l, back)
	for _, bad := range []string{"", "0x12", "2A000001F00003000000", "0xZZ00002A000001F00003", "0/16B3748"} {
		_, err := ParseLSN(bad)
		require.Error(t, err, bad)
	}
	require.True(t, lsn(1).Before(lsn(2)))
	require.False(t, lsn(2).Before(lsn(2)))
}

func TestCheckStored(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		stored    string
		low, high LSN
		want      LSN
		detail    string
	}{
		{"inside the range", lsn(5).String(), lsn(2), lsn(9), lsn(5), ""},
		{"at the highest", lsn(9).String(), lsn(2), lsn(9), lsn(9), ""},
		{"at the lowest", lsn(2).String(), lsn(2), lsn(9), lsn(2), ""},
		{"no changes held yet", lsn(0).String(), nil, nil, lsn(0), ""},
		{"unset, changes held now", lsn(0).String(), lsn(2), lsn(9), lsn(0), ""},
		{"not an LSN", "0/16B3748", lsn(2), lsn(9), nil, `holds "0/16B3748", which is not an LSN`},
		{"ahead of the server", lsn(10).String(), lsn(2), lsn(9), nil, "ahead of the highest LSN of the database 0x00000000000000000009"},
		{"cleaned up: read on from the lowest", lsn(1).String(), lsn(2), lsn(9), lsn(1), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, fault := checkStored("/state/offsets.dat", tc.stored, tc.low, tc.high)
			if tc.detail == "" {
				require.Nil(t, fault)
				require.Equal(t, tc.want, got)
				return
			}
			require.NotNil(t, fault)
			require.Equal(t, capture.FaultStateCorrupt, fault.Kind)
			require.Contains(t, fault.Detail, "/state/offsets.dat")
			require.Contains(t, fault.Detail, tc.detail)
		})
	}
}

package deliver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRetryDelay(t *testing.T) {
	t.Parallel()
	cases := []struct {
		base    time.Duration
		attempt int
		jitter  float64
		want    time.Duration
	}{
		{time.Second, 0, 0, time.Second},
		{time.Second, 1, 0, 2 * time.Second},
		{time.Second, 3, 0, 8 * time.Second},
		{time.Second, 0, 0.999999, 1249999 * time.Microsecond},
		{time.Second, 2, 0.5, 4500 * time.Millisecond},
		{time.Second, 6, 0, 60 * time.Second},
		{time.Second, 5, 0.9, 39200 * time.Millisecond},
		{time.Second, 5, 0.9999, 39999200 * time.Microsecond},
		{time.Second, 1000, 0.3, 60 * time.Second},
		{100 * time.Millisecond, 2, 0, 400 * time.Millisecond},
		{0, 3, 0.5, 0},
	}
	for _, tc := range cases {
		got := RetryDelay(tc.base, tc.attempt, tc.jitter)
		require.InDelta(t, tc.want, got, float64(time.Microsecond), "base %v attempt %d jitter %v", tc.base, tc.attempt, tc.jitter)
	}
}

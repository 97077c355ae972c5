package claim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// After a failed renewal the next comes after a fifteenth of the lease,
// not a third: a database back from a restart gets the renewal while
// most leases still run.
func TestNextRenewalComesSoonerAfterAFailure(t *testing.T) {
	t.Parallel()
	cases := []struct {
		lease    time.Duration
		answered bool
		want     time.Duration
	}{
		{lease: 3 * time.Second, answered: true, want: time.Second},
		{lease: 3 * time.Second, answered: false, want: 200 * time.Millisecond},
		{lease: 30 * time.Second, answered: false, want: 2 * time.Second},
		{lease: 3 * time.Millisecond, answered: false, want: time.Millisecond},
	}
	for _, tc := range cases {
		l := New[idleItem](Config{LeaseDuration: tc.lease}, nil, nil)
		require.Equal(t, tc.want, l.nextRenewal(tc.answered), "lease %v, answered %v", tc.lease, tc.answered)
	}
}

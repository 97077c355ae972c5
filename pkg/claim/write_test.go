package claim_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
)

func TestRetryWrite(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection reset")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name      string
		ctx       context.Context
		failFirst int
		tries     int
		err       error
	}{
		{"first try", context.Background(), 0, 1, nil},
		{"third try", context.Background(), 2, 3, nil},
		{"every try fails", context.Background(), 99, 5, boom},
		{"ctx done stops after the second", cancelled, 99, 2, boom},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tries, failures := 0, 0
			kept, err := claim.RetryWrite(tc.ctx, func(ctx context.Context) (map[string]bool, error) {
				tries++
				require.NoError(t, ctx.Err(), "each try has a live context")
				if tries <= tc.failFirst {
					return nil, boom
				}
				return map[string]bool{"a": true}, nil
			}, func(int, error) { failures++ })
			require.Equal(t, tc.tries, tries)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.Nil(t, kept)
				require.Equal(t, tries, failures)
				return
			}
			require.NoError(t, err)
			require.Equal(t, map[string]bool{"a": true}, kept)
			require.Equal(t, tc.failFirst, failures)
		})
	}
}

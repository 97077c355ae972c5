package admin

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestOptionsDefaultsAndChecks(t *testing.T) {
	t.Parallel()
	got, err := Options{Insecure: true}.withDefaults()
	require.NoError(t, err)
	require.Equal(t, Options{Insecure: true, MaxPayloadBytes: DefaultMaxPayloadBytes,
		MaxTransformTimeout: DefaultMaxTransformTimeout}, got)

	_, err = Options{Insecure: true, MaxPayloadBytes: -1}.withDefaults()
	require.Error(t, err)
	_, err = Options{Insecure: true, MaxTransformTimeout: -time.Second}.withDefaults()
	require.Error(t, err)
	_, err = Options{AuthKind: "bearer"}.withDefaults()
	require.ErrorContains(t, err, "admin.auth", "a kind without its verifier checks nothing")
}

package pgtest

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLoadEnv sets process variables with t.Setenv, which Go forbids in a
// parallel test. Only the QUEUEBOX_TEST_ name counts: envconfig fell back
// to a bare POSTGRES_URL, which another program's setting could fill.
func TestLoadEnv(t *testing.T) {
	t.Setenv("QUEUEBOX_TEST_POSTGRES_URL", "")
	require.NoError(t, os.Unsetenv("QUEUEBOX_TEST_POSTGRES_URL"))
	t.Setenv("POSTGRES_URL", "postgres://elsewhere:5432/other")
	require.Equal(t, DefaultPostgresURL, LoadEnv(t).PostgresURL)

	t.Setenv("QUEUEBOX_TEST_POSTGRES_URL", "postgres://db:5433/qb")
	require.Equal(t, "postgres://db:5433/qb", LoadEnv(t).PostgresURL)
}

package sqlserver

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/schema/schematest"
)

// TestDiagnosticsWithoutEquivalent: the two readings SQL Server has no
// counterpart for say so through ErrNotSupported, which the doctor shows
// as skipped, and touch no connection (the DB here is nil).
func TestDiagnosticsWithoutEquivalent(t *testing.T) {
	t.Parallel()
	d, err := NewDiagnostics(nil, schematest.DefaultLayout(schema.SQLServer))
	require.NoError(t, err)
	require.Equal(t, "sqlserver", d.Dialect())
	_, err = d.Tables(context.Background())
	require.ErrorIs(t, err, queuebox.ErrNotSupported)
	require.ErrorContains(t, err, "ghost cleanup")
	_, err = d.Capture(context.Background(), "slot")
	require.ErrorIs(t, err, queuebox.ErrNotSupported)
}

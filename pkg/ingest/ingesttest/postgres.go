package ingesttest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// PostgresInbox returns the real inbox store on a fresh, migrated schema
// of the test database, and the schema to query it with.
func PostgresInbox(t *testing.T) (*postgres.Inbox, pgtest.Schema) {
	t.Helper()
	s, db := pgtest.Migrated(t, 8)
	in, err := postgres.NewInbox(db, schema.New(schema.Postgres, config.Default().Database))
	require.NoError(t, err)
	return in, s
}

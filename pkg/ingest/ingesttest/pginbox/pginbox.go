// Package pginbox gives a test the real PostgreSQL inbox store. It lives
// apart from ingesttest so that the in-memory fakes, which the broker
// contracts use, do not reach the PostgreSQL store.
package pginbox

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// New returns the real inbox store on a fresh, migrated schema
// of the test database, and the schema to query it with.
func New(t testing.TB) (*postgres.Inbox, pgtest.Schema) {
	t.Helper()
	s, db := pgtest.Migrated(t, 8)
	in, err := postgres.NewInbox(db, schema.New(schema.Postgres, schema.DefaultNames()))
	require.NoError(t, err)
	return in, s
}

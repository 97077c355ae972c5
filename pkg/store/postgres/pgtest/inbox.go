package pgtest

import (
	"testing"

	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// Inbox returns the real inbox store on a fresh, migrated schema with the
// bundled names, and the schema to query it with. It is the PostgreSQL
// counterpart of the in-memory fake of package ingesttest, kept here so
// that ingesttest reaches no dialect.
func Inbox(t testing.TB) (*postgres.Inbox, Schema) {
	t.Helper()
	s, db := Migrated(t, 8)
	in, err := postgres.NewInbox(db, schema.New(schema.Postgres, schema.DefaultNames()))
	if err != nil {
		t.Fatalf("the inbox store of %s: %v", s.Name, err)
	}
	return in, s
}

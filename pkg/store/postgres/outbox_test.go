package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// The claim, fence, reclaim, lock-order, gauge and next-due cases of the
// outbox run in the shared suite (storetest_test.go); this file keeps
// what only PostgreSQL shows.

func outboxStore(t *testing.T, db *postgres.DB, lease time.Duration) *postgres.Outbox {
	t.Helper()
	o, err := postgres.NewOutbox(db, schema.New(schema.Postgres, schema.DefaultNames()), lease)
	require.NoError(t, err)
	return o
}

// A claim returns the payload as the application wrote it: jsonb's text
// form puts blanks after colons and commas, which the store drops.
func TestClaimReturnsCompactPayload(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	ctx := context.Background()
	_, err := s.Connect(t).Exec(ctx, `INSERT INTO outbox (topic, payload) VALUES ('t', '{"n": 1, "a": [1, 2]}')`)
	require.NoError(t, err)
	got, err := outboxStore(t, db, time.Minute).Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, `{"a":[1,2],"n":1}`, string(got[0].Payload))
}

package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

func newInbox(t *testing.T, db *postgres.DB) *postgres.Inbox {
	t.Helper()
	in, err := postgres.NewInbox(db, schema.New(schema.Postgres, schema.DefaultNames()))
	require.NoError(t, err)
	return in
}

func ptr(s string) *string { return &s }

func TestInboxInsertStoresEveryColumn(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	in := newInbox(t, db)
	ctx := context.Background()
	id, inserted, err := in.Insert(ctx, queuebox.ReceivedRow{
		Source: "stripe", IdempotencyKey: "evt_1", AggregateID: ptr("cus_1"), EventType: ptr("payment.completed"),
		Payload: []byte(`{"id":"evt_1","n":1.50}`), Headers: map[string]string{"x-tenant": "acme"},
		CorrelationID: "corr-1", Consumption: "pull",
	})
	require.NoError(t, err)
	require.True(t, inserted)
	require.NoError(t, uuid.Validate(id))

	var (
		source, key, payload, headers, consumption, state string
		agg, event, corr, lastErr                         *string
	)
	require.NoError(t, s.Connect(t).QueryRow(ctx, `SELECT source, idempotency_key, aggregate_id, event_type, payload::text,
		headers::text, correlation_id, consumption, state, last_error FROM inbox WHERE id = $1`, id).
		Scan(&source, &key, &agg, &event, &payload, &headers, &corr, &consumption, &state, &lastErr))
	require.Equal(t, "stripe", source)
	require.Equal(t, "evt_1", key)
	require.Equal(t, ptr("cus_1"), agg)
	require.Equal(t, ptr("payment.completed"), event)
	require.JSONEq(t, `{"id":"evt_1","n":1.50}`, payload)
	require.JSONEq(t, `{"x-tenant":"acme"}`, headers)
	require.Equal(t, ptr("corr-1"), corr)
	require.Equal(t, "pull", consumption)
	require.Equal(t, "pending", state)
	require.Nil(t, lastErr)
}

func TestInboxInsertDefaults(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	in := newInbox(t, db)
	ctx := context.Background()
	want := uuid.NewString()
	id, inserted, err := in.Insert(ctx, queuebox.ReceivedRow{
		ID: want, Source: "amqp", IdempotencyKey: "k", Payload: []byte(`{"raw":"x"}`),
		State: queuebox.StateDead, LastError: ptr("body is not JSON"),
	})
	require.NoError(t, err)
	require.True(t, inserted)
	require.Equal(t, want, id, "a given id is kept")

	var headers, consumption, state string
	var agg, event, corr, lastErr *string
	require.NoError(t, s.Connect(t).QueryRow(ctx, `SELECT headers::text, consumption, state, aggregate_id, event_type,
		correlation_id, last_error FROM inbox WHERE id = $1`, id).
		Scan(&headers, &consumption, &state, &agg, &event, &corr, &lastErr))
	require.Equal(t, "{}", headers)
	require.Equal(t, "push", consumption)
	require.Equal(t, "dead", state)
	require.Nil(t, agg)
	require.Nil(t, event)
	require.Nil(t, corr)
	require.Equal(t, ptr("body is not JSON"), lastErr)
}

func TestInboxInsertFailures(t *testing.T) {
	t.Parallel()
	_, db := migrated(t)
	in := newInbox(t, db)
	ctx := context.Background()
	_, _, err := in.Insert(ctx, queuebox.ReceivedRow{Source: "s", IdempotencyKey: "k", Payload: []byte(`not json`)})
	require.ErrorContains(t, err, "insert inbox row of source s")
	_, _, err = in.Insert(ctx, queuebox.ReceivedRow{Source: "s", IdempotencyKey: "k", Payload: []byte(`{}`), Consumption: "poll"})
	require.Error(t, err, "the check constraint refuses another consumption")
}

func TestInboxUsesTheColumnMapping(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	ctx := context.Background()
	conn := s.Connect(t)
	_, err := conn.Exec(ctx, `CREATE TABLE qb_inbox (LIKE inbox INCLUDING ALL)`)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `ALTER TABLE qb_inbox RENAME COLUMN idempotency_key TO dedup_key`)
	require.NoError(t, err)
	names := schema.DefaultNames()
	names.InboxTable = "qb_inbox"
	names.Inbox.IdempotencyKey = "dedup_key"
	in, err := postgres.NewInbox(db, schema.New(schema.Postgres, names))
	require.NoError(t, err)
	row := queuebox.ReceivedRow{Source: "s", IdempotencyKey: "k", Payload: []byte(`{}`)}
	_, inserted, err := in.Insert(ctx, row)
	require.NoError(t, err)
	require.True(t, inserted)
	_, inserted, err = in.Insert(ctx, row)
	require.NoError(t, err)
	require.False(t, inserted)
}

// A value that the database refuses for what it is comes back as a
// *RefusedValueError; a constraint failure does not.
func TestInboxInsertRefusedValue(t *testing.T) {
	t.Parallel()
	_, db := migrated(t)
	in := newInbox(t, db)
	ctx := context.Background()
	var refused *queuebox.RefusedValueError
	for _, payload := range []string{`{"n":1e999999}`, `{"s":"\udc00"}`, `not json`} {
		_, _, err := in.Insert(ctx, queuebox.ReceivedRow{Source: "s", IdempotencyKey: "k", Payload: []byte(payload)})
		require.ErrorAs(t, err, &refused, payload)
		require.NotEmpty(t, refused.Reason)
	}
	_, _, err := in.Insert(ctx, queuebox.ReceivedRow{Source: "s", IdempotencyKey: "k", Payload: []byte(`{}`), Consumption: "poll"})
	require.Error(t, err)
	require.False(t, errors.As(err, &refused), "a check constraint is no data exception")
}

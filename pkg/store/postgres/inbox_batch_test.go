package postgres_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

func batchRows(keys ...string) []queuebox.ReceivedRow {
	rows := make([]queuebox.ReceivedRow, len(keys))
	for i, k := range keys {
		rows[i] = queuebox.ReceivedRow{ID: uuid.Must(uuid.NewV7()).String(), Source: "stripe", IdempotencyKey: k, Payload: []byte(`{}`)}
	}
	return rows
}

// TestInboxInsertBatchRefusedValueFailsItsRowAlone: a payload that jsonb
// refuses fails the statement; the rows then go one by one, so only that
// row fails and its neighbours, a repeat among them, are told the truth.
func TestInboxInsertBatchRefusedValueFailsItsRowAlone(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	in := newInbox(t, db)
	rows := batchRows("a", "b", "a", "c")
	rows[1].Payload = []byte(`{"n":1e999999}`)
	got, err := in.InsertBatch(context.Background(), rows)
	require.NoError(t, err)
	require.Len(t, got, 4)
	require.True(t, got[0].Inserted)
	var refused *queuebox.RefusedValueError
	require.ErrorAs(t, got[1].Err, &refused)
	require.False(t, got[2].Inserted, "the second row of a key is a duplicate")
	require.NoError(t, got[2].Err)
	require.Equal(t, rows[3].ID, got[3].ID)
	var n int
	require.NoError(t, s.Connect(t).QueryRow(context.Background(), `SELECT count(*) FROM inbox`).Scan(&n))
	require.Equal(t, 2, n)
}

// TestInboxInsertBatchAfterTheServerEndedAPooledSession: the batch is
// stored on a new connection, each row told new.
func TestInboxInsertBatchAfterTheServerEndedAPooledSession(t *testing.T) {
	t.Parallel()
	s, db := pgtest.Migrated(t, 1)
	in := newInbox(t, db)
	endPooledSession(t, s, db)
	rows := batchRows("a", "b")
	got, err := in.InsertBatch(context.Background(), rows)
	require.NoError(t, err)
	require.Equal(t, []queuebox.InsertResult{{ID: rows[0].ID, Inserted: true}, {ID: rows[1].ID, Inserted: true}}, got)
}

// TestInboxInsertBatchRetryKnowsItsOwnRows: after a retried try, a row
// that the retry met as a conflict is the message's own when it carries
// its id (the broken try committed it), and a duplicate otherwise.
func TestInboxInsertBatchRetryKnowsItsOwnRows(t *testing.T) {
	t.Parallel()
	_, db := migrated(t)
	in := newInbox(t, db)
	ctx := context.Background()
	rows := batchRows("a", "b")
	_, err := in.InsertBatch(ctx, rows[:1])
	require.NoError(t, err)
	own, err := in.OwnIDs(ctx, rows)
	require.NoError(t, err)
	require.Equal(t, map[string]bool{rows[0].ID: true}, own)
}

// TestInboxInsertBatchGivesARowWithoutAnIDOne: the store can tell such a
// row from the others only by an id of its own.
func TestInboxInsertBatchGivesARowWithoutAnIDOne(t *testing.T) {
	t.Parallel()
	_, db := migrated(t)
	in := newInbox(t, db)
	rows := batchRows("a", "b")
	rows[1].ID = ""
	got, err := in.InsertBatch(context.Background(), rows)
	require.NoError(t, err)
	require.True(t, got[1].Inserted)
	require.NoError(t, uuid.Validate(got[1].ID))
}

// TestInboxInsertBatchKeepsEveryText: the batch's array literals carry
// any text as it is: quotes, backslashes, braces, commas, blanks, the
// word NULL, an empty text and non-ASCII letters reach their columns
// unchanged, a nil aggregate id and last error stay NULL, and the
// headers arrive as the object they were.
func TestInboxInsertBatchKeepsEveryText(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	in := newInbox(t, db)
	texts := []string{`a"b`, `c\d`, `{x,y}`, `NULL`, `null`, ` spaced `, ``, `\"`, "é€𝄞", `,`, `}`}
	rows := make([]queuebox.ReceivedRow, len(texts))
	for i, text := range texts {
		rows[i] = queuebox.ReceivedRow{ID: uuid.Must(uuid.NewV7()).String(), Source: "s" + text, IdempotencyKey: "k" + text,
			EventType: &texts[i], Payload: []byte(`{"t":` + strconv.Quote(text) + `}`),
			Headers: map[string]string{"x-" + text: text + "<&>"}, CorrelationID: "c" + text}
	}
	rows[0].AggregateID = &texts[1]
	got, err := in.InsertBatch(context.Background(), rows)
	require.NoError(t, err)
	for i, res := range got {
		require.True(t, res.Inserted, "row %d (%q)", i, texts[i])
		var source, key, eventType, payload, headers, correlation string
		var aggregate, lastError *string
		require.NoError(t, s.Connect(t).QueryRow(context.Background(), `SELECT source, idempotency_key, event_type,
			payload->>'t', headers::text, correlation_id, aggregate_id, last_error FROM inbox WHERE id = $1`, res.ID).
			Scan(&source, &key, &eventType, &payload, &headers, &correlation, &aggregate, &lastError))
		require.Equal(t, []string{"s" + texts[i], "k" + texts[i], texts[i], texts[i], "c" + texts[i]},
			[]string{source, key, eventType, payload, correlation}, "row %d", i)
		var h map[string]string
		require.NoError(t, json.Unmarshal([]byte(headers), &h))
		require.Equal(t, rows[i].Headers, h, "row %d", i)
		require.Nil(t, lastError)
		if i == 0 {
			require.Equal(t, &texts[1], aggregate)
		} else {
			require.Nil(t, aggregate)
		}
	}
}

// TestInboxInsertBatchRefusedTextFailsItsRowAlone: a text column that the
// server cannot hold (a byte sequence that is not UTF-8, a NUL) fails the
// batch's literal; the rows then go one by one and only that row fails.
func TestInboxInsertBatchRefusedTextFailsItsRowAlone(t *testing.T) {
	t.Parallel()
	for name, key := range map[string]string{"not UTF-8": "k\xff", "NUL": "k\x00"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, db := migrated(t)
			in := newInbox(t, db)
			rows := batchRows("a", key, "b")
			got, err := in.InsertBatch(context.Background(), rows)
			require.NoError(t, err)
			require.True(t, got[0].Inserted)
			var refused *queuebox.RefusedValueError
			require.ErrorAs(t, got[1].Err, &refused)
			require.True(t, got[2].Inserted)
		})
	}
}

package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

func batchStore(t *testing.T, db Database) queuebox.InboxBatchStore {
	t.Helper()
	in, ok := inboxStore(t, db).(queuebox.InboxBatchStore)
	require.True(t, ok, "the inbox store of every dialect stores batches")
	return in
}

// batchRow is a push row of aggregate A with a time-ordered id, as ingest
// makes it.
func batchRow(source, idempotencyKey string) queuebox.ReceivedRow {
	return queuebox.ReceivedRow{ID: uuid.Must(uuid.NewV7()).String(), Source: source, IdempotencyKey: idempotencyKey,
		AggregateID: key("A"), Payload: []byte(fmt.Sprintf(`{"event":%q}`, idempotencyKey))}
}

// A batch tells each row new or duplicate in the order given (the first
// of two rows of one key wins, a key stored before is a duplicate), and
// the relay hands the new rows of one aggregate over in the batch's
// order, although they share one commit.
func inboxBatchTellsEachRowInOrder(t *testing.T, db Database) {
	ctx := context.Background()
	in := batchStore(t, db)
	before := receive(t, in, "orders", "k0", nil)
	rows := []queuebox.ReceivedRow{
		batchRow("orders", "k3"), batchRow("orders", "k1"), batchRow("orders", "k3"),
		batchRow("orders", "k0"), batchRow("payments", "k1"), batchRow("orders", "k2"),
	}
	got, err := in.InsertBatch(ctx, rows)
	require.NoError(t, err)
	require.Len(t, got, len(rows))
	for i, want := range []bool{true, true, false, false, true, true} {
		require.Equal(t, want, got[i].Inserted, "row %d (%s %s)", i, rows[i].Source, rows[i].IdempotencyKey)
		require.NoError(t, got[i].Err)
		if want {
			require.Equal(t, rows[i].ID, got[i].ID)
		} else {
			require.Empty(t, got[i].ID)
		}
	}
	require.Len(t, db.InboxRows(t), 5)
	require.NotEqual(t, before, got[3].ID)

	r := relayStore(t, db, NewClock())
	for _, want := range []queuebox.ReceivedRow{rows[0], rows[1], rows[4], rows[5]} {
		claimed, err := r.Claim(ctx, 10)
		require.NoError(t, err)
		var head *queuebox.InboxRow
		for i := range claimed {
			if claimed[i].AggregateID != nil {
				head = &claimed[i]
			}
		}
		require.NotNil(t, head, "the head of A after the rows before %s", want.IdempotencyKey)
		require.Equal(t, want.ID, head.ID, "aggregate A goes in the order of the batch")
		_, err = r.Forward(ctx, forwards(head.Lease()))
		require.NoError(t, err)
	}
}

// Concurrent batches of overlapping keys, from several replicas, store
// one row per key, and exactly one caller learns that its row of a key
// was stored, under the id it gave: every other caller hears duplicate.
func inboxConcurrentBatchesOfOverlappingKeys(t *testing.T, db Database) {
	const batchers, keys = 8, 40
	replicas := []queuebox.InboxBatchStore{batchStore(t, db), batchStore(t, db)}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		winner = map[string][]string{} // key -> ids told new
	)
	for b := range batchers {
		wg.Go(func() {
			var rows []queuebox.ReceivedRow
			for _, k := range rand.Perm(keys)[:keys/2+b] {
				rows = append(rows, batchRow("orders", fmt.Sprintf("k%d", k)))
			}
			rows = append(rows, rows[0]) // a repeat inside the batch
			rows[len(rows)-1].ID = uuid.Must(uuid.NewV7()).String()
			got, err := replicas[b%2].InsertBatch(context.Background(), rows)
			if err != nil || len(got) != len(rows) {
				t.Errorf("batch %d: %d results for %d rows, %v", b, len(got), len(rows), err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for i, res := range got {
				if res.Inserted {
					winner[rows[i].IdempotencyKey] = append(winner[rows[i].IdempotencyKey], res.ID)
				}
			}
		})
	}
	wg.Wait()
	stored := db.InboxRows(t)
	require.Len(t, stored, len(winner), "one row per key")
	ids := map[string]bool{}
	for _, s := range stored {
		ids[s.ID] = true
	}
	for k, w := range winner {
		require.Len(t, w, 1, "key %s told new to one caller", k)
		require.True(t, ids[w[0]], "key %s stored under the id its caller was told", k)
	}
}

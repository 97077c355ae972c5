package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

func outboxStore(t *testing.T, db *postgres.DB, lease time.Duration) *postgres.Outbox {
	t.Helper()
	o, err := postgres.NewOutbox(db, schema.New(schema.Postgres, config.Default().Database), lease)
	require.NoError(t, err)
	return o
}

func insertRows(t *testing.T, conn *pgx.Conn, keys []string, perKey int) {
	t.Helper()
	// One transaction per key keeps the insert order equal to the sequence
	// order within the key, as one writer per key would.
	for _, k := range keys {
		var key any
		if k != "<null>" {
			key = k
		}
		_, err := conn.Exec(context.Background(), `INSERT INTO outbox (topic, key, payload)
			SELECT 'order.created', $1, jsonb_build_object('n', g) FROM generate_series(1, $2) g ORDER BY g`, key, perKey)
		require.NoError(t, err)
	}
}

func sent(lease claim.Lease) queuebox.Outcome {
	return queuebox.Outcome{Lease: lease, Kind: queuebox.OutcomeSent}
}

func TestClaimTakesOnlyTheHeadOfEachKey(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	conn := s.Connect(t)
	ctx := context.Background()
	insertRows(t, conn, []string{"k1", "k2"}, 3)
	insertRows(t, conn, []string{"<null>", ""}, 2)
	o := outboxStore(t, db, time.Minute)

	got, err := o.Claim(ctx, 100)
	require.NoError(t, err)
	byKey := map[string]int{}
	for _, m := range got {
		byKey[m.Key]++
	}
	require.Equal(t, map[string]int{"k1": 1, "k2": 1, "": 4}, byKey, "heads of k1 and k2, every unkeyed row")

	again, err := o.Claim(ctx, 100)
	require.NoError(t, err)
	require.Empty(t, again, "the next rows of a key wait while the head is processing")

	var k1 queuebox.ClaimedMessage
	for _, m := range got {
		if m.Key == "k1" {
			k1 = m
		}
	}
	require.Equal(t, `{"n":1}`, string(k1.Payload), "the payload without the blanks of the jsonb text")
	kept, err := o.Finish(ctx, []queuebox.Outcome{{Lease: k1.Lease(), Kind: queuebox.OutcomeRetry, Delay: time.Hour, Error: "boom"}})
	require.NoError(t, err)
	require.True(t, kept[k1.ID])
	again, err = o.Claim(ctx, 100)
	require.NoError(t, err)
	require.Empty(t, again, "a retrying head holds back its key")

	_, err = conn.Exec(ctx, `UPDATE outbox SET scheduled_at = now() WHERE id = $1`, k1.ID)
	require.NoError(t, err)
	retried, err := o.Claim(ctx, 100)
	require.NoError(t, err)
	require.Len(t, retried, 1)
	require.Equal(t, k1.ID, retried[0].ID)
	require.Equal(t, 1, retried[0].Attempt)
	kept2, err := o.Finish(ctx, []queuebox.Outcome{{Lease: retried[0].Lease(), Kind: queuebox.OutcomeDead, Error: "poison"}})
	require.NoError(t, err)
	require.True(t, kept2[k1.ID])
	next, err := o.Claim(ctx, 100)
	require.NoError(t, err)
	require.Len(t, next, 1, "a dead row releases its key")
	require.Equal(t, `{"n":2}`, string(next[0].Payload))
}

func TestFenceRejectsAStaleOwner(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	conn := s.Connect(t)
	ctx := context.Background()
	insertRows(t, conn, []string{"k"}, 1)
	o := outboxStore(t, db, 50*time.Millisecond)
	first, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, first, 1)
	require.Eventually(t, func() bool {
		n, err := o.ReapExpired(ctx)
		return err == nil && n == 1
	}, 10*time.Second, 20*time.Millisecond)
	long := outboxStore(t, db, time.Minute)
	second, err := long.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, second, 1)
	require.NotEqual(t, first[0].ClaimToken, second[0].ClaimToken)

	renewed, err := long.Renew(ctx, []claim.Lease{first[0].Lease(), second[0].Lease()})
	require.NoError(t, err)
	require.Equal(t, map[string]bool{second[0].ID: true}, renewed, "the old token renews nothing")
	kept, err := o.Finish(ctx, []queuebox.Outcome{{Lease: first[0].Lease(), Kind: queuebox.OutcomeDead, Error: "stale"}})
	require.NoError(t, err)
	require.False(t, kept[first[0].ID], "the stale owner's write changes nothing")
	kept, err = long.Finish(ctx, []queuebox.Outcome{sent(second[0].Lease())})
	require.NoError(t, err)
	require.True(t, kept[second[0].ID])
	var state string
	require.NoError(t, conn.QueryRow(ctx, `SELECT state FROM outbox`).Scan(&state))
	require.Equal(t, "sent", state)
}

// TestConcurrentClaimersKeepTheInvariants runs several claimers that each
// claim, hold and finish rows, and checks that no row is claimed twice,
// no key has two rows in flight, and each key's rows finish in sequence
// order.
func TestConcurrentClaimersKeepTheInvariants(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	conn := s.Connect(t)
	ctx := context.Background()
	keys := make([]string, 12)
	for i := range keys {
		keys[i] = fmt.Sprintf("key-%02d", i)
	}
	const perKey = 25
	insertRows(t, conn, keys, perKey)
	insertRows(t, conn, []string{"<null>"}, 60)
	total := len(keys)*perKey + 60

	var (
		mu      sync.Mutex
		claimed = map[string]int{} // id -> times
		order   = map[string][]int64{}
	)
	// The monitor reads the table while the claimers run: no key may ever
	// have two rows in processing.
	stop := make(chan struct{})
	monitorDone := make(chan int)
	go func() {
		mon := s.Connect(t)
		checks := 0
		for {
			select {
			case <-stop:
				monitorDone <- checks
				return
			default:
			}
			var dup string
			err := mon.QueryRow(ctx, `SELECT key FROM outbox WHERE state = 'processing' AND key <> ''
				GROUP BY key HAVING count(*) > 1 LIMIT 1`).Scan(&dup)
			if err == nil {
				t.Errorf("key %s has two rows in processing", dup)
			} else if err != pgx.ErrNoRows {
				t.Error(err)
			}
			checks++
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		o := outboxStore(t, db, time.Minute)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for idle := 0; idle < 20; {
				batch, err := o.Claim(ctx, 7)
				if err != nil {
					t.Error(err)
					return
				}
				if len(batch) == 0 {
					idle++
					continue
				}
				idle = 0
				var outcomes []queuebox.Outcome
				mu.Lock()
				for _, m := range batch {
					claimed[m.ID]++
					if m.Key != "" {
						order[m.Key] = append(order[m.Key], m.Sequence)
					}
					outcomes = append(outcomes, sent(m.Lease()))
				}
				mu.Unlock()
				kept, err := o.Finish(ctx, outcomes)
				if err != nil {
					t.Error(err)
					return
				}
				if len(kept) != len(outcomes) {
					t.Errorf("lost %d claims without a competing owner", len(outcomes)-len(kept))
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	require.Positive(t, <-monitorDone)
	require.Len(t, claimed, total, "every row claimed")
	for id, n := range claimed {
		require.Equal(t, 1, n, "row %s claimed once", id)
	}
	for k, seqs := range order {
		require.IsIncreasing(t, seqs, "key %s in sequence order", k)
	}
	var notSent int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE state <> 'sent'`).Scan(&notSent))
	require.Zero(t, notSent)
}

func TestPendingStats(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	conn := s.Connect(t)
	ctx := context.Background()
	o := outboxStore(t, db, time.Minute)
	st, err := o.Pending(ctx)
	require.NoError(t, err)
	require.Empty(t, st.ByTopic)
	require.Zero(t, st.OldestAge)
	_, err = conn.Exec(ctx, `INSERT INTO outbox (topic, payload, created_at) VALUES
		('a', '{}', now() - interval '1 hour'), ('a', '{}', now()), ('b', '{}', now())`)
	require.NoError(t, err)
	st, err = o.Pending(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]int64{"a": 2, "b": 1}, st.ByTopic)
	require.InDelta(t, time.Hour.Seconds(), st.OldestAge.Seconds(), 60, "the database clock measures the age")
}

// A claim of another replica that is still running holds row locks on the
// first unkeyed rows. A concurrent claim must take the rows after them,
// not compute the same candidates and come back empty.
func TestClaimSkipsUnkeyedRowsLockedByAnotherClaim(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	conn := s.Connect(t)
	ctx := context.Background()
	insertRows(t, conn, []string{"<null>"}, 20)
	insertRows(t, conn, []string{""}, 20)
	o := outboxStore(t, db, time.Minute)

	other := s.Connect(t)
	tx, err := other.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, `SELECT id FROM outbox WHERE key IS NULL ORDER BY sequence LIMIT 10 FOR UPDATE`)
	require.NoError(t, err)

	got, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, got, 10, "the claim skips the locked rows and takes the next ones")
	var lockedAfter int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE state = 'processing'`).Scan(&lockedAfter))
	require.Equal(t, 10, lockedAfter)
}

// A try of an outcome write can commit and lose its answer (the session
// ends after the commit). The next try's fence then fails on those rows;
// FinishAgain recognises them by their token and outcome, and still
// reports a row that another owner holds as lost.
func TestFinishAgainCountsWhatAnEarlierTryCommitted(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	conn := s.Connect(t)
	ctx := context.Background()
	insertRows(t, conn, []string{"<null>"}, 4)
	o := outboxStore(t, db, time.Minute)
	got, err := o.Claim(ctx, 4)
	require.NoError(t, err)
	require.Len(t, got, 4)
	outcomes := []queuebox.Outcome{
		sent(got[0].Lease()),
		{Lease: got[1].Lease(), Kind: queuebox.OutcomeDead, Error: "HTTP 410"},
		{Lease: got[2].Lease(), Kind: queuebox.OutcomeRetry, Delay: time.Hour, Error: "HTTP 503"},
	}
	kept, err := o.Finish(ctx, outcomes)
	require.NoError(t, err)
	require.Len(t, kept, 3)

	again, err := o.Finish(ctx, outcomes)
	require.NoError(t, err)
	require.Empty(t, again, "the fence fails on rows already finished")

	stolen := claim.Lease{ID: got[3].ID, Token: "00000000-0000-0000-0000-000000000000"}
	confirmed, err := o.FinishAgain(ctx, append(outcomes, sent(stolen)))
	require.NoError(t, err)
	require.Equal(t, map[string]bool{got[0].ID: true, got[1].ID: true, got[2].ID: true}, confirmed,
		"the three written rows count as written; the row under another token stays lost")
	states := make([]string, len(got))
	for i, m := range got {
		require.NoError(t, conn.QueryRow(ctx, `SELECT state || ':' || attempt FROM outbox WHERE id = $1`, m.ID).Scan(&states[i]))
	}
	require.Equal(t, []string{"sent:0", "dead:0", "pending:1", "processing:0"}, states, "written once, not twice")
}

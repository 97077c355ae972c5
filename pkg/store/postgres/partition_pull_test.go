package postgres_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// pullAt adds pull rows of the source 's', created at created (a
// millisecond apart) and due a day before, as insertAt's rows are, over
// aggs aggregates (none when aggs is 0), in state.
func pullAt(t *testing.T, db *postgres.DB, rows, aggs int, state string, created time.Time) {
	t.Helper()
	exec(t, db, `INSERT INTO inbox (source, idempotency_key, aggregate_id, payload, consumption, state, created_at, scheduled_at)
		SELECT 's', md5(random()::text), CASE WHEN $2::int > 0 THEN 'a-' || (g % $2::int) END, '{}', 'pull', $3,
		       $4::timestamptz + g * interval '1 ms', $4::timestamptz - interval '1 day' + g * interval '1 ms'
		FROM generate_series(1, $1::int) g`, rows, aggs, state, created)
}

// pullClaim reads the pull clients' claim (examples/pull/sql/claim.sql,
// the contract the Go and TypeScript clients embed) with its named
// parameters as $1 to $4: source, batch, lease_ms, cand_limit.
func pullClaim(t *testing.T) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "pull", "sql", "claim.sql"))
	require.NoError(t, err)
	return strings.NewReplacer(":source", "$1", ":batch", "$2", ":lease_ms", "$3", ":cand_limit", "$4").Replace(string(text))
}

// The pull claim on a partitioned inbox whose current partition was
// analyzed while nearly all of its rows were finished, run as the clients
// run it (in a transaction begun with sorting off, postgres.ClaimBegin):
// its lock probe and its ordered read of due rows stay bounded by its
// candidates, as the relay's claim does
// (TestPartitionedClaimsStayBoundedOnStatisticsOfFinishedRows). In a
// transaction begun without the setting, the same claim read all 10,000
// due rows through the partition's state index here: that is why the SQL
// contract asks for it, and the clients' own tests check they send it.
func TestPullClaimOnAPartitionedInboxStaysBoundedOnStatisticsOfFinishedRows(t *testing.T) {
	t.Parallel()
	_, db := partitioned(t)
	today := time.Now().UTC().Truncate(24 * time.Hour)
	exec(t, db, "ALTER TABLE inbox_p"+today.Format("20060102_1504")+" SET (autovacuum_enabled = false)")
	pullAt(t, db, 20_000, 50, "processed", today.Add(time.Minute))
	exec(t, db, "ANALYZE inbox")
	pullAt(t, db, 5_000, 0, "pending", today.Add(2*time.Minute))
	pullAt(t, db, 5_000, 50, "pending", today.Add(3*time.Minute))
	candidates := 3 * boundBatch // the clients' cand_limit for the batch
	touched, claimed, scans := explainCost(t, db, pullClaim(t), "s", boundBatch, 60_000, candidates)
	require.Equal(t, float64(boundBatch), claimed, "a whole batch is claimable")
	require.LessOrEqual(t, touched, float64(claimBound), "rows the claim's scans touched: %v", scans)
}

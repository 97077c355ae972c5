package integration

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

const (
	chaosKeys        = 30
	chaosRowsPerKey  = 120
	chaosUnkeyedRows = 600
	chaosLease       = 3 * time.Second
	// chaosPace spaces the kills; it paces the test, it waits for nothing.
	chaosPace = 600 * time.Millisecond
)

// TestChaosReplicasKeepOrderAndLoseNothing drains a keyed and unkeyed
// backlog with three replicas while replicas are killed with SIGKILL and
// replaced, or stopped with SIGTERM and replaced (chaosEvents). Every row
// must end sent and reach the receiver; the rows of one key must arrive in
// sequence order, one at a time; only the claims of killed replicas may
// be reclaimed; and no live replica may lose a claim.
func TestChaosReplicasKeepOrderAndLoseNothing(t *testing.T) {
	db := newDatabase(t)
	rc := newChaosReceiver(t, 30*time.Millisecond, 0.1)
	env := with(destinationEnv(db.env(), rc.URL),
		"QUEUEBOX_OUTBOX_CLAIMTIMEOUTMS", fmt.Sprint(chaosLease.Milliseconds()),
		"QUEUEBOX_OUTBOX_CONCURRENCY", "8",
		"QUEUEBOX_OUTBOX_RETRYBASEDELAYMS", "100",
		// One answer in ten is a 500, so five in a row happen in some runs
		// and would open the breaker for 30 s, past the drain's deadline;
		// the in-flight cap and its deferrals stay on.
		"QUEUEBOX_DESTINATIONS_WEBHOOK_FLOWCONTROL_CIRCUITBREAKER_FAILURETHRESHOLD", "1000")
	fleet := newChaosFleet(t, db, env)
	for range 3 {
		fleet.start()
	}
	conn := db.connect(t)
	_, err := conn.Exec(context.Background(), chaosAuditSQL)
	require.NoError(t, err)
	insertChaosBacklog(t, db)

	unsentAt := runChaos(t, fleet, conn)
	t.Logf("unsent rows at each event: %v", unsentAt)
	require.Eventually(t, func() bool { n, err := countUnsent(conn); return err == nil && n == 0 },
		45*time.Second, 50*time.Millisecond, "every row leaves pending and processing")

	warnings := fleet.logSummary()
	t.Logf("warnings and errors of the replicas: %v", warnings)
	for msg := range warnings {
		// A failed outcome write or renewal on a healthy database means
		// that the replicas' statements got in each other's way.
		require.Contains(t, chaosExpectedWarnings, msg)
	}
	requireStates(t, db, map[string]int{"sent": chaosKeys*chaosRowsPerKey + chaosUnkeyedRows})
	checkChaosReceiver(t, db, rc, fleet)
	checkChaosAudit(t, db, rc, fleet)
}

// insertChaosBacklog writes the keyed rows (the expected order of a key is
// read back from the sequence column) and the unkeyed rows, half with a
// null key and half with an empty one. max_attempts is high: the
// receiver's random failures must not send a row dead.
func insertChaosBacklog(t *testing.T, db database) {
	t.Helper()
	_, err := db.connect(t).Exec(context.Background(), `
		INSERT INTO outbox (topic, key, payload, max_attempts)
		SELECT 'chaos.keyed', 'key-' || lpad(k::text, 2, '0'),
		       jsonb_build_object('k', 'key-' || lpad(k::text, 2, '0'), 'n', n), 100
		FROM generate_series(1, $1::int) n, generate_series(1, $2::int) k
		ORDER BY n, k`, chaosRowsPerKey, chaosKeys)
	require.NoError(t, err)
	_, err = db.connect(t).Exec(context.Background(), `
		INSERT INTO outbox (topic, key, payload, max_attempts)
		SELECT 'chaos.unkeyed', CASE WHEN i % 2 = 0 THEN NULL ELSE '' END, jsonb_build_object('i', i), 100
		FROM generate_series(1, $1::int) i`, chaosUnkeyedRows)
	require.NoError(t, err)
}

// chaosExpectedWarnings are the warnings a replica logs in this test.
var chaosExpectedWarnings = []string{
	"WARN configuration", // the harness names a configuration file that does not exist
	"WARN delivery failed; retry scheduled",
	"WARN returned expired claims to pending",
}

// chaosEvents is the script: kill is SIGKILL, term is SIGTERM; each is
// followed by the start of a new replica.
var chaosEvents = []string{"kill", "kill", "term", "kill", "kill", "term", "kill", "kill"}

// runChaos plays chaosEvents on random replicas. It returns the unsent
// rows at each event.
func runChaos(t *testing.T, fleet *chaosFleet, conn *pgx.Conn) []int {
	t.Helper()
	var unsent []int
	for _, event := range chaosEvents {
		time.Sleep(chaosPace)
		n, err := countUnsent(conn)
		require.NoError(t, err)
		unsent = append(unsent, n)
		victim := fleet.pick()
		if event == "term" {
			fleet.terminate(victim)
		} else {
			fleet.kill(victim)
		}
		t.Logf("%s %s with %d rows unsent", event, victim, n)
		fleet.start()
	}
	return unsent
}

func countUnsent(conn *pgx.Conn) (int, error) {
	var n int
	err := conn.QueryRow(context.Background(),
		`SELECT count(*) FROM outbox WHERE state IN ('pending', 'processing')`).Scan(&n)
	return n, err
}

// keyOrder reads the row ids of every key in sequence order.
func keyOrder(t *testing.T, db database) map[string][]string {
	t.Helper()
	rows, err := db.connect(t).Query(context.Background(),
		`SELECT key, id::text FROM outbox WHERE key <> '' ORDER BY key, sequence`)
	require.NoError(t, err)
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var key, id string
		require.NoError(t, rows.Scan(&key, &id))
		out[key] = append(out[key], id)
	}
	require.NoError(t, rows.Err())
	return out
}

func allIDs(t *testing.T, db database) []string {
	t.Helper()
	rows, err := db.connect(t).Query(context.Background(), `SELECT id::text FROM outbox`)
	require.NoError(t, err)
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		require.NoError(t, rows.Scan(&id))
		ids = append(ids, id)
	}
	require.NoError(t, rows.Err())
	sort.Strings(ids)
	return ids
}

package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/alternayte/queuebox/pkg/broker/kafka/kafkatest"
)

// kafkaRecords produces the records evt-<from> … evt-<to-1> and returns
// where each one landed, by id.
func kafkaRecords(t *testing.T, cl *kgo.Client, topic string, from, to int) map[string]kgo.Record {
	t.Helper()
	recs := make([]*kgo.Record, 0, to-from)
	for i := from; i < to; i++ {
		recs = append(recs, &kgo.Record{Topic: topic, Value: fmt.Appendf(nil, `{"id":"evt-%d","type":"t"}`, i)})
	}
	kafkatest.Produce(t, cl, recs...)
	out := map[string]kgo.Record{}
	for i, r := range recs {
		out[fmt.Sprintf("evt-%d", from+i)] = *r
	}
	return out
}

// storedKafkaKeys returns the idempotency keys of the inbox rows of the
// source kaf, with how often each is stored.
func storedKafkaKeys(t *testing.T, conn *pgx.Conn) map[string]int {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT idempotency_key FROM inbox WHERE source = 'kaf'`)
	require.NoError(t, err)
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var k string
		require.NoError(t, rows.Scan(&k))
		out[k]++
	}
	require.NoError(t, rows.Err())
	return out
}

// requireNoCommitPastAGap reads the group's commits, then the stored keys
// (which only grow), and fails if a partition's commit lies past a record
// that is not stored. It returns the sum of the commits.
func requireNoCommitPastAGap(t *testing.T, conn *pgx.Conn, adm *kadm.Client, topic string, produced map[string]kgo.Record) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	offs, err := adm.FetchOffsets(ctx, "queuebox-kaf")
	require.NoError(t, err)
	committed := map[int32]int64{}
	offs.Each(func(o kadm.OffsetResponse) {
		if o.Topic == topic && o.Err == nil && o.At >= 0 {
			committed[o.Partition] = o.At
		}
	})
	stored := storedKafkaKeys(t, conn)
	var sum int64
	for _, c := range committed {
		sum += c
	}
	for id, r := range produced {
		if c, ok := committed[r.Partition]; ok && r.Offset < c {
			require.Equal(t, 1, stored[id], "partition %d committed at %d, but record %s at offset %d is stored %d times",
				r.Partition, c, id, r.Offset, stored[id])
		}
	}
	return sum
}

// requireEachStoredOnce checks that the inbox of kaf holds exactly the
// produced ids, each once.
func requireEachStoredOnce(t *testing.T, conn *pgx.Conn, produced map[string]kgo.Record) {
	t.Helper()
	stored := storedKafkaKeys(t, conn)
	require.Len(t, stored, len(produced), "every record stored")
	for id := range produced {
		require.Equal(t, 1, stored[id], "record %s stored once", id)
	}
}

// TestKafkaDeliverKilledMidStream: kill -9 of queuebox-deliver while it
// produces a backlog to Kafka; a new process takes the claims over once
// they expire, every row ends sent and every row id reaches the topic at
// least once.
func TestKafkaDeliverKilledMidStream(t *testing.T) {
	t.Parallel()
	const rows = 600
	db := newDatabase(t)
	addr, topic := kafkaCluster(t, 3)
	env := with(db.env(),
		"QUEUEBOX_DESTINATIONS_EVENTS_TYPE", "kafka",
		"QUEUEBOX_DESTINATIONS_EVENTS_BOOTSTRAPSERVERS", addr,
		"QUEUEBOX_DESTINATIONS_EVENTS_TOPIC", topic,
		"QUEUEBOX_ROUTES_0_TOPICPATTERN", "**",
		"QUEUEBOX_ROUTES_0_DESTINATION", "events",
		"QUEUEBOX_OUTBOX_POLLINTERVALMS", "20",
		"QUEUEBOX_OUTBOX_BATCHSIZE", "10",
		"QUEUEBOX_OUTBOX_CONCURRENCY", "4",
		"QUEUEBOX_OUTBOX_CLAIMTIMEOUTMS", "3000")
	// The first process migrates the schema; the backlog goes in after.
	first := startServing(t, "deliver", env)
	conn := db.connect(t)
	_, err := conn.Exec(context.Background(), `INSERT INTO outbox (topic, key, payload)
		SELECT 'order.created', CASE WHEN g % 3 = 0 THEN NULL ELSE 'k' || (g % 5) END, jsonb_build_object('n', g)
		FROM generate_series(1, $1::int) g ORDER BY g`, rows)
	require.NoError(t, err)
	sent := func() int {
		var n int
		if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE state = 'sent'`).Scan(&n); err != nil {
			return -1
		}
		return n
	}
	require.Eventually(t, func() bool { return sent() >= 30 }, 60*time.Second, 2*time.Millisecond)
	first.kill()
	atKill := sent()
	require.Less(t, atKill, rows, "the kill came mid-stream")
	t.Logf("killed queuebox-deliver with %d of %d rows sent", atKill, rows)

	startServing(t, "deliver", env)
	waitSent(t, db, rows)

	ids := map[string]bool{}
	rs, err := conn.Query(context.Background(), `SELECT id::text FROM outbox`)
	require.NoError(t, err)
	for rs.Next() {
		var id string
		require.NoError(t, rs.Scan(&id))
		ids[id] = true
	}
	require.NoError(t, rs.Err())
	seen := map[string]int{}
	recs := kafkatest.Records(t, addr, topic)
	for _, r := range recs {
		id := kafkatest.Header(r, "x-message-id")
		require.Len(t, id, 1)
		require.True(t, ids[id[0]], "the topic holds an unknown id %q", id[0])
		seen[id[0]]++
	}
	require.Len(t, seen, rows, "every row reached the topic")
	t.Logf("%d records for %d rows (%d repeats after the kill)", len(recs), rows, len(recs)-rows)
}

// TestKafkaIngestThroughADatabaseOutage cuts the database off from
// queuebox-ingest while it stores a topic, and produces more records
// during the block. Throughout, no partition's commit lies past a record
// that is not stored; after the block and a storm of terminated
// sessions, every record is stored exactly once and every offset
// committed.
func TestKafkaIngestThroughADatabaseOutage(t *testing.T) {
	t.Parallel()
	const total = 600
	db := newDatabase(t)
	addr, topic := kafkaCluster(t, 3)
	cl := kafkatest.Client(t, addr)
	adm := kadm.NewClient(kafkatest.Client(t, addr))
	env := kafkaSourceEnv(db.env(), addr, topic, "QUEUEBOX_SOURCES_KAF_MAXPOLLRECORDS", "20")
	produced := kafkaRecords(t, cl, topic, 0, total/2)
	conn, err := pgx.Connect(context.Background(), db.writerURL())
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close(context.Background()) })

	ingest := startServing(t, "ingest", env)
	require.Eventually(t, func() bool { n, _ := countKafkaInbox(conn); return n >= 30 }, 60*time.Second, 2*time.Millisecond)

	cut := newOutage(t, db)
	cut.block()
	atBlock, _ := countKafkaInbox(conn)
	for id, r := range kafkaRecords(t, cl, topic, total/2, total) {
		produced[id] = r
	}
	waitDown(t, ingest, "database")
	// While the database stays blocked the source keeps failing its store;
	// the commits must stay behind every unstored record.
	var duringBlock int64
	deadline := time.Now().Add(2 * time.Second) // the length of the outage
	for time.Now().Before(deadline) {
		duringBlock = requireNoCommitPastAGap(t, conn, adm, topic, produced)
	}
	cut.unblock()
	stop := cut.storm(100 * time.Millisecond)
	deadline = time.Now().Add(1500 * time.Millisecond) // the length of the storm
	for time.Now().Before(deadline) {
		requireNoCommitPastAGap(t, conn, adm, topic, produced)
	}
	stop()
	t.Logf("blocked the database with %d of %d rows stored; %d offsets committed at the end of the block", atBlock, total, duringBlock)

	require.Eventually(t, func() bool {
		return requireNoCommitPastAGap(t, conn, adm, topic, produced) == total
	}, 180*time.Second, 50*time.Millisecond, "every offset committed")
	requireEachStoredOnce(t, conn, produced)
	waitHealthy(t, ingest)
	requireRunning(t, ingest)
}

// kafkaAssignments returns, for each member of the group, how many
// partitions of topic it holds.
func kafkaAssignments(t *testing.T, adm *kadm.Client, group, topic string) []int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	gs, err := adm.DescribeGroups(ctx, group)
	require.NoError(t, err)
	var out []int
	for _, g := range gs {
		if g.Err != nil || g.State != "Stable" {
			return nil
		}
		for _, m := range g.Members {
			n := 0
			if c, ok := m.Assigned.AsConsumer(); ok {
				for _, tp := range c.Topics {
					if tp.Topic == topic {
						n += len(tp.Partitions)
					}
				}
			}
			out = append(out, n)
		}
	}
	return out
}

// TestKafkaIngestReplicasAcrossARebalance: two queuebox-ingest processes
// of one group. The first stores alone; the second joins and the group
// divides the partitions between them; the first stops (SIGTERM, so it
// leaves the group at once) and the second takes every partition. Every
// record produced along the way is stored exactly once and committed.
func TestKafkaIngestReplicasAcrossARebalance(t *testing.T) {
	t.Parallel()
	const step = 300
	db := newDatabase(t)
	addr, topic := kafkaCluster(t, 4)
	cl := kafkatest.Client(t, addr)
	adm := kadm.NewClient(kafkatest.Client(t, addr))
	env := kafkaSourceEnv(db.env(), addr, topic, "QUEUEBOX_SOURCES_KAF_MAXPOLLRECORDS", "20")
	conn := db.connect(t)
	stored := func() int { n, _ := countKafkaInbox(conn); return n }

	first := startServing(t, "ingest", env)
	first.waitHTTP(t, "/health/ready", 200)
	produced := kafkaRecords(t, cl, topic, 0, step)
	require.Eventually(t, func() bool { return stored() >= 50 }, 60*time.Second, 5*time.Millisecond)

	second := startServing(t, "ingest", env)
	joined := stored()
	var shares []int
	require.Eventually(t, func() bool {
		shares = kafkaAssignments(t, adm, "queuebox-kaf", topic)
		return len(shares) == 2 && shares[0] > 0 && shares[1] > 0
	}, 120*time.Second, 50*time.Millisecond, "both replicas hold partitions; last shares %v", &shares)
	for id, r := range kafkaRecords(t, cl, topic, step, 2*step) {
		produced[id] = r
	}
	t.Logf("second replica joined with %d of %d rows stored; partitions %v", joined, step, shares)

	require.Equal(t, 0, first.terminate(t, 60*time.Second), "the first replica stops cleanly")
	for id, r := range kafkaRecords(t, cl, topic, 2*step, 3*step) {
		produced[id] = r
	}
	require.Eventually(t, func() bool {
		shares = kafkaAssignments(t, adm, "queuebox-kaf", topic)
		return len(shares) == 1 && shares[0] == 4
	}, 120*time.Second, 50*time.Millisecond, "the second replica holds every partition; last shares %v", &shares)
	require.Eventually(t, func() bool {
		return requireNoCommitPastAGap(t, conn, adm, topic, produced) == 3*step
	}, 180*time.Second, 50*time.Millisecond, "every offset committed")
	requireEachStoredOnce(t, conn, produced)
	requireRunning(t, second)
}

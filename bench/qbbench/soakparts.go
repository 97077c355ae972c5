package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// The soak's partitioning, retention and idle-transaction settings
// (issue 39). Each is off at its zero value, so a soak without them runs
// as it always did: deliver and ingest, no retention, one plain table.
var (
	soakOutboxRate = flag.Int("soak-outbox-rate", 0,
		"soak: outbox rows inserted per second; 0 takes -soak-rate")
	soakInboxRate = flag.Int("soak-inbox-rate", 0,
		"soak: webhooks posted per second; 0 takes -soak-rate")
	soakPartitionInterval = flag.Duration("soak-partition-interval", 0,
		"soak: partition the outbox and inbox by created_at with this interval (database.partitioning, 5m to 7d); 0 leaves them plain")
	soakPremake = flag.Int("soak-premake", 3,
		"soak: partitions kept ready ahead of now, with -soak-partition-interval")
	soakRetentionAge = flag.Duration("soak-retention-age", 0,
		"soak: turn on retention with policy AGE and this maxAge for the outbox and the inbox; 0 leaves retention off")
	soakCleanupInterval = flag.Duration("soak-cleanup-interval", time.Minute,
		"soak: retention's cleanupInterval, with -soak-retention-age")
	soakIdleTx = flag.Duration("soak-idle-tx", 0,
		"soak: hold a transaction with a transaction id open, idle, for this long in the middle of the run, then roll it back; 0 holds none")
)

// outboxRate and inboxRate are the soak's two loads a second.
func outboxRate() int { return cmpOr(*soakOutboxRate, *soakRate) }
func inboxRate() int  { return cmpOr(*soakInboxRate, *soakRate) }

func cmpOr(v, fallback int) int {
	if v != 0 {
		return v
	}
	return fallback
}

// soakRelays says whether the soak runs queuebox-relay: with partitions
// or retention the inbox needs it, since relay owns the inbox's
// partitions and cleanup, and only relayed (processed) rows are final.
// The relay forwards each webhook into the outbox, so deliver then
// delivers both loads.
func soakRelays() bool { return *soakPartitionInterval > 0 || *soakRetentionAge > 0 }

// checkSoakFlags rejects settings the binaries would refuse, before any
// database is made.
func checkSoakFlags() error {
	switch {
	case outboxRate() < 1 || inboxRate() < 1:
		return fmt.Errorf("-soak-outbox-rate and -soak-inbox-rate (or -soak-rate) must be at least 1, got %d and %d", outboxRate(), inboxRate())
	case *soakPartitionInterval != 0 && (*soakPartitionInterval < 5*time.Minute || *soakPartitionInterval > 7*24*time.Hour):
		return fmt.Errorf("-soak-partition-interval must be 0 or from 5m to 7d, got %v", *soakPartitionInterval)
	case *soakPremake < 1:
		return fmt.Errorf("-soak-premake must be at least 1, got %d", *soakPremake)
	case *soakRetentionAge < 0 || *soakCleanupInterval < time.Second || *soakIdleTx < 0:
		return fmt.Errorf("-soak-retention-age and -soak-idle-tx must not be negative and -soak-cleanup-interval at least 1s")
	}
	return nil
}

// seconds writes d as the binaries' duration text: whole seconds.
func seconds(d time.Duration) string {
	return fmt.Sprintf("%ds", int64(d.Round(time.Second)/time.Second))
}

// soakSettingsEnv is the configuration of the binaries for the soak's
// partitioning and retention flags; empty when both are off.
func soakSettingsEnv() map[string]string {
	env := map[string]string{}
	if iv := *soakPartitionInterval; iv > 0 {
		env["QUEUEBOX_DATABASE_PARTITIONING_ENABLED"] = "true"
		env["QUEUEBOX_DATABASE_PARTITIONING_INTERVAL"] = seconds(iv)
		env["QUEUEBOX_DATABASE_PARTITIONING_PREMAKE"] = itoa(*soakPremake)
	}
	if age := *soakRetentionAge; age > 0 {
		env["QUEUEBOX_RETENTION_ENABLED"] = "true"
		for _, t := range []string{"OUTBOX", "INBOX"} {
			p := "QUEUEBOX_RETENTION_" + t + "_"
			env[p+"POLICY"] = "AGE"
			env[p+"MAXAGE"] = seconds(age)
			env[p+"CLEANUPINTERVAL"] = seconds(*soakCleanupInterval)
		}
	}
	return env
}

// partitionSoakDB makes db's outbox and inbox partitioned, as queuebox
// migrate does with partitioning on, when -soak-partition-interval asks.
func partitionSoakDB(ctx context.Context, db *benchDB) error {
	if *soakPartitionInterval == 0 {
		return nil
	}
	db.Layout = partitionedLayout()
	p := postgres.Partitioning{Enabled: true, Interval: *soakPartitionInterval, Premake: *soakPremake}
	if err := db.Store.Partition(ctx, db.Layout, p, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		return fmt.Errorf("partition %s: %w", db.Name, err)
	}
	return nil
}

// tablesSize is the on-disk size of the outbox and the inbox with their
// indexes and TOAST, partitions included (pg_partition_tree lists a
// plain table as itself). Sizing a partition takes a lock on it, which
// a retention drop (holding the parent, waiting for the partition) can
// meet in a deadlock; so the statement waits at most a moment for its
// locks, and ok is false when it gave way: the sample is skipped, and
// the drop, not the probe, goes ahead.
func tablesSize(ctx context.Context, db *benchDB) (size int64, ok bool, err error) {
	err = pgx.BeginFunc(ctx, db.Store.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '200ms'`); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `
			SELECT coalesce(sum(pg_total_relation_size(t.relid)), 0)
			FROM (SELECT relid FROM pg_partition_tree('outbox') UNION ALL SELECT relid FROM pg_partition_tree('inbox')) AS t`).Scan(&size)
	})
	if lockGaveWay(err) {
		return 0, false, nil
	}
	return size, err == nil, err
}

// lockGaveWay says whether err is a statement that lost a lock: a
// deadlock it was chosen to break, or a lock_timeout.
func lockGaveWay(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "40P01" || pg.Code == "55P03")
}

// partitionNames lists the partitions of the outbox and the inbox.
func partitionNames(ctx context.Context, db *benchDB) ([]string, error) {
	rows, err := db.Store.Pool.Query(ctx, `
		SELECT c.relname FROM pg_inherits i
		JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
		WHERE p.relname IN ('outbox', 'inbox')`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// partitionLog counts the partitions the soak saw appear and disappear.
// Sampled every few seconds, it misses none: a partition lives for at
// least an interval of five minutes.
type partitionLog struct {
	initial, seen map[string]bool
	current       int
}

// observe records one listing; the first is the set made before the run.
func (l *partitionLog) observe(names []string) {
	if l.seen == nil {
		l.initial, l.seen = map[string]bool{}, map[string]bool{}
		for _, n := range names {
			l.initial[n] = true
		}
	}
	for _, n := range names {
		l.seen[n] = true
	}
	l.current = len(names)
}

// made and dropped count the partitions created during the run and
// those no longer present at the last listing.
func (l *partitionLog) made() int    { return len(l.seen) - len(l.initial) }
func (l *partitionLog) dropped() int { return len(l.seen) - l.current }

// holdIdleTx opens a transaction on a connection of its own in the middle
// of the measured run, takes a transaction id (so its snapshot holds back
// vacuum's horizon, as a forgotten session would), waits -soak-idle-tx
// and rolls back. It returns when ctx ends or the hold is over.
func (st *soakState) holdIdleTx(ctx context.Context, db *benchDB, total time.Duration) {
	hold := *soakIdleTx
	if hold == 0 {
		return
	}
	at := st.measureAt.Add(max(total-hold, 0) / 2)
	if sleepCtx(ctx, time.Until(at)) != nil {
		return
	}
	c, err := pgx.Connect(ctx, db.URL+"&application_name="+benchAppName)
	if err != nil {
		st.fail(fmt.Errorf("idle transaction: %w", err))
		return
	}
	defer c.Close(context.WithoutCancel(ctx))
	tx, err := c.Begin(ctx)
	if err != nil {
		st.fail(fmt.Errorf("idle transaction: %w", err))
		return
	}
	var xid int64
	if err := tx.QueryRow(ctx, `SELECT txid_current()`).Scan(&xid); err != nil {
		st.fail(fmt.Errorf("idle transaction: %w", err))
		return
	}
	logf("soak %v: idle transaction %d open for %v", st.since(time.Now()).Round(time.Second), xid, hold)
	st.idleFrom = st.since(time.Now())
	_ = sleepCtx(ctx, hold)
	st.idleTo = st.since(time.Now())
	if err := tx.Rollback(context.WithoutCancel(ctx)); err != nil {
		st.fail(fmt.Errorf("idle transaction: roll back: %w", err))
	}
	logf("soak %v: idle transaction %d rolled back", st.idleTo.Round(time.Second), xid)
}

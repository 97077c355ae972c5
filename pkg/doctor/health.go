package doctor

import (
	"context"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// tableChecks judges the dead row versions and the autovacuum of each
// table.
func tableChecks(ctx context.Context, d queuebox.Diagnostics, opts Options) []Check {
	tables, err := d.Tables(ctx)
	if err != nil {
		return []Check{unread("vacuum", err)}
	}
	if len(tables) == 0 {
		return []Check{{Name: "vacuum", Status: Skip, Detail: "the statistics list neither table: they do not exist yet"}}
	}
	checks := make([]Check, 0, len(tables))
	for _, t := range tables {
		checks = append(checks, tableCheck(t, opts.DeadTuples))
	}
	return checks
}

func tableCheck(t queuebox.TableHealth, limit int64) Check {
	last := "never since the statistics were reset"
	if t.LastAutovacuum != nil {
		last = age(time.Since(*t.LastAutovacuum)) + " ago"
	}
	c := Check{Name: "vacuum " + t.Table, Status: OK,
		Detail: fmt.Sprintf("%d dead and %d live row versions, last autovacuum %s", t.DeadRows, t.LiveRows, last)}
	switch {
	case !t.AutovacuumOn:
		c.Status = Warn
		c.Detail += "; autovacuum is off for it"
		c.Fix = fmt.Sprintf("turn autovacuum on (the server's autovacuum setting, or ALTER TABLE %s RESET (autovacuum_enabled)); until then VACUUM it by hand", t.Table)
	case t.DeadRows > limit:
		c.Status = Warn
		c.Detail += fmt.Sprintf(" (over %d)", limit)
		c.Fix = fmt.Sprintf("look for an old open transaction (below); VACUUM %s; lower its autovacuum_vacuum_scale_factor", t.Table)
	}
	return c
}

// transactionCheck judges the oldest transaction that holds back
// cleanup.
func transactionCheck(ctx context.Context, d queuebox.Diagnostics, opts Options) Check {
	tx, open, err := d.OldestTransaction(ctx)
	if err != nil {
		return unread("open transactions", err)
	}
	if !open {
		return Check{Name: "open transactions", Status: OK, Detail: "none holds back cleanup"}
	}
	c := Check{Name: "open transactions", Status: OK,
		Detail: fmt.Sprintf("the oldest is %s old (session %d, %s)", age(tx.Age), tx.PID, tx.State)}
	if tx.Age > opts.TransactionAge {
		c.Status = Warn
		c.Detail += fmt.Sprintf(", over %s: cleanup keeps every row version that died since; last statement: %q", age(opts.TransactionAge), tx.Query)
		c.Fix = fmt.Sprintf("end it in its application, or terminate session %d (PostgreSQL: SELECT pg_terminate_backend(%d);)", tx.PID, tx.PID)
	}
	return c
}

// connectionCheck compares poolSize × replicas with the server's limit:
// over the limit fails, over 80 % of it warns.
func connectionCheck(ctx context.Context, d queuebox.Diagnostics, opts Options) Check {
	c, err := d.Connections(ctx)
	if err != nil {
		return unread("connections", err)
	}
	usable := c.Max - c.Reserved
	need := opts.PoolSize * opts.Replicas
	replicas := "replicas"
	if opts.Replicas == 1 {
		replicas = "replica"
	}
	detail := fmt.Sprintf("database.poolSize %d × %d %s (--replicas) = %d of %d usable connections (max_connections %d, %d reserved); %d open now",
		opts.PoolSize, opts.Replicas, replicas, need, usable, c.Max, c.Reserved, c.Open)
	fix := "lower database.poolSize, run fewer replicas, put a pooler in front, or raise max_connections"
	switch {
	case need > usable:
		return Check{Name: "connections", Status: Fail, Detail: detail, Fix: fix}
	case need*5 > usable*4:
		return Check{Name: "connections", Status: Warn, Detail: detail + " (over 80 %, leaving little for other clients)", Fix: fix}
	}
	return Check{Name: "connections", Status: OK, Detail: detail}
}

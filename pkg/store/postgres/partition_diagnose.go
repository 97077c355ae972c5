package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

var _ queuebox.PartitionDiagnostics = (*Diagnostics)(nil)

// defaultRowsCap bounds the count of the default partition: the doctor
// needs to know that it holds rows and roughly how many, not to read a
// large one whole.
const defaultRowsCap = 1_000_000

// Partitions implements queuebox.PartitionDiagnostics. It reads the
// catalog, counts the default partition up to defaultRowsCap rows, and
// probes each past partition for pending and processing rows through the
// partial indexes of those states.
func (d *Diagnostics) Partitions(ctx context.Context) ([]queuebox.PartitionReport, error) {
	var now time.Time
	if err := d.db.Pool.QueryRow(ctx, `SELECT now()`).Scan(&now); err != nil {
		return nil, fmt.Errorf("read the database clock: %w", err)
	}
	var out []queuebox.PartitionReport
	for i, t := range partitionedTables(d.l) {
		partitioned, err := d.db.isPartitioned(ctx, t)
		if err != nil {
			return nil, err
		}
		if !partitioned {
			continue
		}
		r, err := d.partitionReport(ctx, t, now)
		if err != nil {
			return nil, err
		}
		r.Table = []queuebox.Table{queuebox.TableOutbox, queuebox.TableInbox}[i]
		out = append(out, r)
	}
	return out, nil
}

func (d *Diagnostics) partitionReport(ctx context.Context, t partTable, now time.Time) (queuebox.PartitionReport, error) {
	var r queuebox.PartitionReport
	parts, err := listPartitions(ctx, d.db.Pool, t.quoted)
	if err != nil {
		return r, err
	}
	for _, p := range parts {
		if p.isDefault {
			err := d.db.Pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM `+quoteIdent(p.name)+` LIMIT $1) AS d`,
				defaultRowsCap).Scan(&r.DefaultRows)
			if err != nil {
				return r, fmt.Errorf("count the rows of %s: %w", p.name, err)
			}
			continue
		}
		r.Partitions++
		r.Ahead = max(r.Ahead, p.to.Sub(now))
		if p.to.After(now) {
			continue
		}
		var live int64
		if err := d.db.Pool.QueryRow(ctx, `SELECT count(*) FROM `+quoteIdent(p.name)+` WHERE `+t.state+` IN ('pending', 'processing')`).
			Scan(&live); err != nil {
			return r, fmt.Errorf("count the live rows of %s: %w", p.name, err)
		}
		if live > 0 {
			r.Live = append(r.Live, queuebox.LivePartition{Name: p.name, Ended: now.Sub(p.to), Rows: live})
		}
	}
	return r, nil
}

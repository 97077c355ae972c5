package doctor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// partitionChecks judges the partitions of each partitioned table: the
// default partition should be empty, partitions should reach past now,
// and a past partition that retention would drop but keeps for its
// pending or processing rows is named. A Diagnostics without partitions,
// or a database whose tables are not partitioned, has no such check.
func partitionChecks(ctx context.Context, d queuebox.Diagnostics, opts Options) []Check {
	pd, ok := d.(queuebox.PartitionDiagnostics)
	if !ok {
		return nil
	}
	reports, err := pd.Partitions(ctx)
	if err != nil {
		return []Check{unread("partitions", err)}
	}
	var checks []Check
	for _, r := range reports {
		checks = append(checks, partitionCheck(r, opts.RetentionAge[r.Table]))
	}
	return checks
}

func partitionCheck(r queuebox.PartitionReport, retention time.Duration) Check {
	c := Check{Name: "partitions " + string(r.Table), Status: OK,
		Detail: fmt.Sprintf("%s, reaching %s ahead; the default partition is empty", plural(int64(r.Partitions), "partition"), age(r.Ahead))}
	var problems, fixes []string
	if r.DefaultRows > 0 {
		problems = append(problems, fmt.Sprintf("the default partition %s_default holds %s whose created_at no partition covers", r.Table, plural(r.DefaultRows, "row")))
		fixes = append(fixes, fmt.Sprintf("check that the partition maintenance runs (health component partitions-%s); docs/partitions.md says how to move the rows out", r.Table))
	}
	if r.Ahead <= 0 {
		problems = append(problems, "no partition covers now: new rows go to the default partition")
	}
	var kept []string
	for _, p := range r.Live {
		if retention > 0 && p.Ended > retention {
			kept = append(kept, fmt.Sprintf("%s (%s, ended %s ago)", p.Name, plural(p.Rows, "pending or processing row"), age(p.Ended)))
		}
	}
	if len(kept) > 0 {
		problems = append(problems, "retention keeps "+strings.Join(kept, ", ")+" whole")
		fixes = append(fixes, "deliver or discard those rows (queuebox dead list, the workbench); the partition is dropped at the next cleanup after them")
	}
	if len(problems) > 0 {
		c.Status, c.Detail, c.Fix = Warn, strings.Join(problems, "; "), strings.Join(fixes, "; ")
	}
	return c
}

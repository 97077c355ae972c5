package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// soakAccount is the soak's count of the rows written against the rows
// delivered, taken once the load stopped and the processes finished
// what was left (or the drain timed out).
type soakAccount struct {
	// expected is every row deliver should deliver: the outbox rows
	// inserted, plus the webhooks stored when the relay forwards them.
	expected int64
	// delivered is the receiver's count of requests. It counts requests,
	// not ids: a redelivery after a lost lease shows as a surplus.
	delivered int64
	// unfinished are the rows still pending or processing (the inbox's
	// only when the relay runs); dead the rows that gave up, still in
	// the tables (retention may have dropped older ones with their
	// partition, but a dead row is never delivered, so the sum below
	// then falls short).
	unfinished, dead int64
	drainedIn        time.Duration
}

// ok is the verdict: nothing left behind, and every row written either
// delivered or dead.
func (a soakAccount) ok() bool { return a.unfinished == 0 && a.delivered+a.dead >= a.expected }

// row is the account's line of the summary table.
func (a soakAccount) row() row {
	return row{Scenario: "soak, nothing lost", Measured: fmt.Sprintf("%d delivered", a.delivered),
		Baseline: fmt.Sprintf("%d written", a.expected), Ratio: "-",
		Target: "every row delivered or dead, none left", Result: verdict(a.ok()),
		Notes: fmt.Sprintf("surplus (redeliveries) %d, dead %d, pending or processing %d, after a drain of %v",
			max(a.delivered+a.dead-a.expected, 0), a.dead, a.unfinished, a.drainedIn.Round(time.Second))}
}

// settle waits, after the load stopped, until the processes delivered
// every row written or timeout (-drain-timeout) passed, and returns the
// account.
// A process that exits is an error.
func (st *soakState) settle(ctx context.Context, db *benchDB, procs []*proc, delivered func() int64, timeout time.Duration) (soakAccount, error) {
	a := soakAccount{expected: st.inserted.Load()}
	states := `SELECT (SELECT count(*) FROM outbox WHERE state IN ('pending', 'processing')),
	                  (SELECT count(*) FROM outbox WHERE state = 'dead'), 0::bigint`
	if soakRelays() {
		a.expected += st.posted.Load()
		states = `SELECT (SELECT count(*) FROM outbox WHERE state IN ('pending', 'processing')) +
		                 (SELECT count(*) FROM inbox WHERE state IN ('pending', 'processing')),
		                 (SELECT count(*) FROM outbox WHERE state = 'dead'),
		                 (SELECT count(*) FROM inbox WHERE state = 'dead')`
	}
	start := time.Now()
	deadline := start.Add(timeout)
	for {
		for _, p := range procs {
			if err := p.exited(); err != nil {
				return a, err
			}
		}
		var deadOutbox, deadInbox int64
		if err := db.Store.Pool.QueryRow(ctx, states).Scan(&a.unfinished, &deadOutbox, &deadInbox); err != nil {
			return a, fmt.Errorf("count the rows left: %w", err)
		}
		// A dead inbox row never reaches the outbox; a dead outbox row
		// never reaches the receiver.
		a.dead = deadOutbox + deadInbox
		a.delivered = delivered()
		a.drainedIn = time.Since(start)
		if a.ok() || time.Now().After(deadline) {
			return a, nil
		}
		if err := sleepCtx(ctx, 500*time.Millisecond); err != nil {
			return a, err
		}
	}
}

// sizeRow reports the tables' size: the peak of each window of a sixth
// of the run, and, with retention on, whether the last window's peak
// stays within soakGrowth of the higher of the two middle windows. The
// middle, not the window just before, so that a table growing steadily
// fails (by half, over two windows) while one that retention holds level
// from the middle on passes. Without retention the table grows by design,
// so the row is information.
func sizeRow(pts []point, total time.Duration, judged bool) row {
	window := soakWindow(total)
	peaks := make([]float64, soakWindowShare)
	for _, p := range pts {
		i := min(int(p.at/window), soakWindowShare-1)
		peaks[i] = max(peaks[i], p.v)
	}
	mib := func(v float64) string { return fmt.Sprintf("%.1f MiB", v/(1<<20)) }
	var each []string
	for _, v := range peaks {
		each = append(each, mib(v))
	}
	before := peakOf(peaks[soakWindowShare/2-1 : soakWindowShare/2+1])
	last := peaks[soakWindowShare-1]
	x := row{Scenario: "soak, outbox and inbox size (partitions, indexes and TOAST)", Measured: mib(last), Baseline: mib(before),
		Ratio: "-", Target: "-", Result: resultInfo,
		Notes: fmt.Sprintf("peak of each %v window: %s; measured: the last window, baseline: the higher of the two middle ones", window, strings.Join(each, ", "))}
	if before > 0 {
		x.Ratio = fmt.Sprintf("%+.0f %%", 100*(last/before-1))
	}
	if judged {
		x.Target = fmt.Sprintf("≤ +%.0f %% of the middle windows", soakGrowth*100)
		x.Result = verdict(before > 0 && last <= before*(1+soakGrowth))
	}
	return x
}

// partitionRow reports the partitions made and dropped during the run.
func (st *soakState) partitionRow() row {
	l := st.partitions
	x := row{Scenario: "soak, partitions made and dropped", Measured: fmt.Sprintf("%d made, %d dropped", l.made(), l.dropped()),
		Baseline: fmt.Sprintf("%d before the run", len(l.initial)), Ratio: "-", Target: "-", Result: resultInfo,
		Notes: fmt.Sprintf("outbox and inbox together, %d at the end", l.current)}
	if *soakPartitionInterval == 0 {
		x.Measured, x.Baseline, x.Notes = "-", "-", "the tables are not partitioned (-soak-partition-interval)"
	}
	return x
}

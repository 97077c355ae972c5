package main

import (
	"context"
	"fmt"
	"time"
)

// ledgerShare is the share of the drain without the delivery ledger
// that the drain with it must reach (issue 40).
const ledgerShare = 0.95

// ledger measures what the delivery ledger costs deliver: the null-keys
// drain of the deliver scenario with outbox.ledger.enabled true, the
// default, beside the same drain with it false, alternated run by run on
// fresh databases. The ledger adds no statement, only an insert inside
// the outcome write, so what it costs shows as PostgreSQL's CPU per row
// (in the notes) more than as deliver's. The ledger also records the
// deferrals of flow control at its defaults (maxInFlight is half of
// outbox.concurrency), so it holds a few more rows than were delivered;
// the notes give the rows per delivered row. A run whose ledger does not
// hold one sent attempt per delivered row with the ledger on, or any row
// with it off, is an error: the A/B would compare nothing.
func (b *bench) ledger(ctx context.Context) error {
	off := map[string]string{"QUEUEBOX_OUTBOX_LEDGER_ENABLED": "false"}
	var on, without []drain
	for i := range b.o.runs {
		d, err := b.deliverDrain(ctx, b.o.deliverRows, 0, 1)
		if err != nil {
			return fmt.Errorf("ledger on: %w", err)
		}
		f, err := b.deliverDrain(ctx, b.o.deliverRows, 0, 1, off)
		if err != nil {
			return fmt.Errorf("ledger off: %w", err)
		}
		if d.LedgerSent != int64(b.o.deliverRows) || f.LedgerRows != 0 {
			return fmt.Errorf("the ledger held %d sent attempts with the ledger on and %d rows with it off, for %d delivered rows",
				d.LedgerSent, f.LedgerRows, b.o.deliverRows)
		}
		on, without = append(on, d), append(without, f)
		logf("ledger run %d: on %.0f rows/s (CPU %v/row, PostgreSQL %v/row), off %.0f rows/s (CPU %v/row, PostgreSQL %v/row)",
			i+1, d.Rate, d.CPUPerRow, d.DBCPUPerRow, f.Rate, f.CPUPerRow, f.DBCPUPerRow)
	}
	db := func(d drain) time.Duration { return d.DBCPUPerRow }
	perRow := make([]float64, len(on))
	for i, d := range on {
		perRow[i] = float64(d.LedgerRows) / float64(b.o.deliverRows)
	}
	b.rep.add(vsBaseline("deliver, null keys, ledger on vs off",
		median(drainRates(on)), median(drainRates(without)), "rows/s", "rows/s", ledgerShare,
		fmt.Sprintf("%s rows; runs %s vs %s; deliver CPU %s/row on, %s/row off; PostgreSQL %.0f µs/row on, %.0f off; %.2f ledger rows per row",
			group(int64(b.o.deliverRows)), rates(drainRates(on)), rates(drainRates(without)),
			medianCPU(on), medianCPU(without), medianUS(on, db), medianUS(without, db), median(perRow))))
	return nil
}

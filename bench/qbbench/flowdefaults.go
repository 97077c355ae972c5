package main

import (
	"context"
	"fmt"
)

// flowOffEnv turns the bench destination's flow control as far off as
// the configuration allows: every publish slot of outbox.concurrency
// open to it, no breaker, Retry-After ignored. (ratePerSecond is 0, no
// limit, at the defaults too.)
func flowOffEnv(o opts) map[string]string {
	return map[string]string{
		"QUEUEBOX_DESTINATIONS_WEBHOOK_FLOWCONTROL_MAXINFLIGHT":            itoa(o.concurrency),
		"QUEUEBOX_DESTINATIONS_WEBHOOK_FLOWCONTROL_CIRCUITBREAKER_ENABLED": "false",
		"QUEUEBOX_DESTINATIONS_WEBHOOK_FLOWCONTROL_HONORRETRYAFTER":        "false",
	}
}

// flowDefaults measures what flow control at its defaults costs the
// deliver rows: the drains of the deliver scenario (null keys and
// -deliver-keys keys, one HTTP destination that answers at once) with
// flowControl at its defaults beside the same drains with it off,
// alternated run by run on fresh databases. At the defaults maxInFlight
// is half of outbox.concurrency, so this row also shows what the halved
// slots cost a deployment with a single destination. The row passes
// within 10 %, about the run to run spread of the deliver rows here.
func (b *bench) flowDefaults(ctx context.Context) error {
	for _, keys := range []int{0, b.o.deliverKeys} {
		label := keyLabel(keys)
		var on, off []drain
		for i := range b.o.runs {
			d, err := b.deliverDrain(ctx, b.o.deliverRows, keys, 1)
			if err != nil {
				return fmt.Errorf("flow control at its defaults, %s: %w", label, err)
			}
			f, err := b.deliverDrain(ctx, b.o.deliverRows, keys, 1, flowOffEnv(b.o))
			if err != nil {
				return fmt.Errorf("flow control off, %s: %w", label, err)
			}
			on, off = append(on, d), append(off, f)
			logf("flowdefaults %s run %d: defaults %.0f rows/s (CPU %v/row), off %.0f rows/s (CPU %v/row)",
				label, i+1, d.Rate, d.CPUPerRow, f.Rate, f.CPUPerRow)
		}
		b.rep.add(vsBaseline(fmt.Sprintf("deliver, %s, %s rows, flowControl defaults vs off", label, group(int64(b.o.deliverRows))),
			median(drainRates(on)), median(drainRates(off)), "rows/s", "rows/s", 0.90,
			fmt.Sprintf("runs %s vs %s; defaults CPU %s/row, off %s/row", rates(drainRates(on)), rates(drainRates(off)),
				medianCPU(on), medianCPU(off))))
	}
	return nil
}

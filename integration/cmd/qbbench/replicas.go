package main

import (
	"context"
	"fmt"
)

// replicas compares two queuebox-deliver replicas with one, draining
// -replica-rows null-key rows to the loopback receiver (which answers at
// once, so it is not the limit). Each run measures both, on fresh
// databases, alternating which goes first. Both replicas start at once;
// the rate runs from the first claim of either to the last finish.
func (b *bench) replicas(ctx context.Context) error {
	var one, two []drain
	for i := range b.o.runs {
		order := []int{1, 2}
		if i%2 == 1 {
			order = []int{2, 1}
		}
		for _, n := range order {
			r, err := b.deliverDrain(ctx, b.o.replicaRows, 0, n)
			if err != nil {
				return fmt.Errorf("%d replica(s): %w", n, err)
			}
			logf("replicas run %d: %d replica(s) %.0f rows/s, CPU %v/row, %s receiver %v/row",
				i+1, n, r.Rate, r.CPUPerRow, b.loadSide(), r.LoadCPUPerRow)
			if n == 1 {
				one = append(one, r)
			} else {
				two = append(two, r)
			}
		}
	}
	m1, m2 := median(drainRates(one)), median(drainRates(two))
	ratio := 0.0
	if m1 > 0 {
		ratio = m2 / m1
	}
	b.rep.add(row{
		Scenario: fmt.Sprintf("deliver, 2 replicas vs 1, %s rows, null keys", group(int64(b.o.replicaRows))),
		Measured: rate(m2, "rows/s"),
		Baseline: rate(m1, "rows/s"),
		Ratio:    fmt.Sprintf("%.2f×", ratio),
		Target:   "≥ 1.5×",
		Result:   verdict(ratio >= 1.5),
		Notes: fmt.Sprintf("runs %s vs %s; %s, %s", rates(drainRates(two)), rates(drainRates(one)),
			b.cpuNote("2 replicas", two), b.cpuNote("1 replica", one)),
	})
	return nil
}

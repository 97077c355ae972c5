package main

import (
	"context"
	"fmt"
	"time"
)

// replicas compares 2 replicas of queuebox-deliver with 1 on the same
// backlog of null-key rows, twice: with the receiver answering at once,
// and with the receiver answering after -replica-delay.
//
// The first variant shows what the machine allows: on the 2-core build
// machine PostgreSQL, the binaries and the receiver leave little CPU idle
// with one replica already, so a second replica can only take what is
// left. The second is the scaling case the target is about: the receiver
// is not the limit (it answers any number of requests in parallel), a
// replica is, through its outbox.concurrency publishes in flight.
func (b *bench) replicas(ctx context.Context) error {
	for _, delay := range []time.Duration{0, b.o.replicaDelay} {
		if err := b.replicasWith(ctx, delay); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) replicasWith(ctx context.Context, delay time.Duration) error {
	b.rc.delay.Store(int64(delay))
	defer b.rc.delay.Store(0)
	var one, two []drain
	for i := range b.o.runs {
		order := []int{1, 2}
		if i%2 == 1 {
			order = []int{2, 1}
		}
		for _, n := range order {
			r, err := b.deliverDrain(ctx, b.o.replicaRows, 0, n)
			if err != nil {
				return fmt.Errorf("%d replica(s), receiver delay %v: %w", n, delay, err)
			}
			logf("replicas run %d, receiver delay %v: %d replica(s) %.0f rows/s, CPU %v/row, %s receiver %v/row, machine idle %.0f %%",
				i+1, delay, n, r.Rate, r.CPUPerRow, b.loadSide(), r.LoadCPUPerRow, 100*r.Idle)
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
	r := row{
		Measured: rate(m2, "rows/s"),
		Baseline: rate(m1, "rows/s"),
		Ratio:    fmt.Sprintf("%.2f×", ratio),
		Notes: fmt.Sprintf("runs %s vs %s; %s, %s; machine idle %.0f %% with 2, %.0f %% with 1",
			rates(drainRates(two)), rates(drainRates(one)),
			b.cpuNote("2 replicas", two), b.cpuNote("1 replica", one),
			100*medianIdle(two), 100*medianIdle(one)),
	}
	if delay == 0 {
		r.Scenario = fmt.Sprintf("deliver, 2 replicas vs 1, %s rows, null keys, receiver answers at once", group(int64(b.o.replicaRows)))
		r.Target, r.Result = "– (CPU of the machine)", "info"
	} else {
		r.Scenario = fmt.Sprintf("deliver, 2 replicas vs 1, %s rows, null keys, receiver answers after %v", group(int64(b.o.replicaRows)), delay)
		r.Target, r.Result = "≥ 1.5×", verdict(ratio >= 1.5)
	}
	b.rep.add(r)
	return nil
}

func medianIdle(ds []drain) float64 {
	idle := make([]float64, len(ds))
	for i, d := range ds {
		idle[i] = d.Idle
	}
	return median(idle)
}

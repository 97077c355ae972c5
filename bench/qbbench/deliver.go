package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// leaseForBench is the claim lease of the in-process loops, the default
// outbox.claimTimeoutMs.
const leaseForBench = 5 * time.Minute

// deliverShare is the share of the SQL claim+finish loop that deliver's
// rows at -concurrency had to reach (issue 28). Since issue 42 those rows
// are INFO (the loop pays no HTTP) and the hand-written relay is the bar
// (relayShare).
const deliverShare = 0.85

// deliverVariant is one row of the deliver scenario: the keys of the
// backlog and the outbox.concurrency of queuebox-deliver.
type deliverVariant struct{ keys, concurrency int }

// delivery compares the real queuebox-deliver with the SQL-only loop,
// for null keys and for -deliver-keys keys at -concurrency, and for null
// keys at -wide-concurrency. Runs alternate baseline and binary, each on
// a fresh database. The null-keys drains at -concurrency are kept as the
// HTTP reference of the brokers scenario's CPU rows.
func (b *bench) delivery(ctx context.Context) error {
	for _, v := range []deliverVariant{
		{0, b.o.concurrency}, {b.o.deliverKeys, b.o.concurrency}, {0, b.o.wideConcurrency},
	} {
		label := keyLabel(v.keys)
		if v.concurrency != b.o.concurrency {
			label += fmt.Sprintf(", outbox.concurrency %d", v.concurrency)
		}
		conc := map[string]string{"QUEUEBOX_OUTBOX_CONCURRENCY": itoa(v.concurrency)}
		var base []float64
		var real, loops []drain
		// The hand-written relay runs beside the rows at -concurrency
		// (relayhand.go); the wide row has none.
		handRelay := v.concurrency == b.o.concurrency
		var hr handRelayRuns
		for i := range b.o.runs {
			l, err := b.baselineDrain(ctx, b.o.deliverRows, v.keys)
			if err != nil {
				return fmt.Errorf("baseline, %s: %w", label, err)
			}
			base, loops = append(base, l.Rate), append(loops, l)
			logf("deliver %s run %d: baseline %.0f rows/s, PostgreSQL %v/row", label, i+1, l.Rate, l.DBCPUPerRow)
			d, err := b.deliverDrain(ctx, b.o.deliverRows, v.keys, 1, conc)
			if err != nil {
				return fmt.Errorf("queuebox-deliver, %s: %w", label, err)
			}
			real = append(real, d)
			logf("deliver %s run %d: queuebox-deliver %.0f rows/s, CPU %v/row, %s receiver %v/row, PostgreSQL %v/row, idle %.0f %%",
				label, i+1, d.Rate, d.CPUPerRow, b.loadSide(), d.LoadCPUPerRow, d.DBCPUPerRow, 100*d.Idle)
			if handRelay {
				if err := b.handRelayRound(ctx, v.keys, i, &hr); err != nil {
					return err
				}
			}
		}
		got := drainRates(real)
		x := vsBaseline(fmt.Sprintf("deliver, %s, %s rows", label, group(int64(b.o.deliverRows))),
			median(got), median(base), "rows/s", "rows/s", deliverShare,
			fmt.Sprintf("runs %s vs %s; %s; %s", rates(got), rates(base), b.cpuNote("deliver", real), dbNote(real, loops, median(base))))
		// The SQL loop pays no HTTP: since issue 42 the hand-written
		// relay is the bar, and this row is the database's limit, printed.
		b.rep.add(info(x))
		if handRelay {
			b.addRelayRows(v.keys, real, hr)
		}
	}
	return nil
}

func keyLabel(keys int) string {
	if keys == 0 {
		return "null keys"
	}
	return group(int64(keys)) + " keys"
}

// dbNote formats PostgreSQL's median CPU per row under deliver and under
// the SQL loop, and the most rows/s the machine's cores could give at the
// CPU per row that deliver, its receiver and PostgreSQL spent, every core
// fully busy: a rate well under that bound waited, one near it was held
// by the cores.
func dbNote(real, loops []drain, base float64) string {
	db := func(d drain) time.Duration { return d.DBCPUPerRow }
	note := fmt.Sprintf("PostgreSQL %.0f µs/row (SQL loop %.0f)", medianUS(real, db), medianUS(loops, db))
	total := medianUS(real, db) + medianUS(real, func(d drain) time.Duration { return d.CPUPerRow + d.LoadCPUPerRow })
	return note + coresBound("deliver, receiver and PostgreSQL", total, "rows/s", base)
}

// medianUS is the median of f over ds, in µs.
func medianUS(ds []drain, f func(drain) time.Duration) float64 {
	v := make([]float64, len(ds))
	for i, d := range ds {
		v[i] = float64(f(d)) / float64(time.Microsecond)
	}
	return median(v)
}

// coresBound formats the most units/s that every core of the machine,
// fully busy, could give at usPerUnit µs of CPU per unit (what, summed),
// beside base: a measure far under that bound waited on something, one
// near it was held by the cores, and a bound under the target share means
// no code with this CPU per unit can reach the target on this machine.
// Empty when either figure is missing.
func coresBound(what string, usPerUnit float64, unit string, base float64) string {
	if usPerUnit <= 0 || base <= 0 {
		return ""
	}
	bound := float64(runtime.NumCPU()) * 1e6 / usPerUnit
	return fmt.Sprintf("; %s %.0f µs together: %d fully busy cores would top out at %s %s = %.0f %% of the baseline",
		what, usPerUnit, runtime.NumCPU(), group(int64(bound+0.5)), unit, 100*bound/base)
}

// baselineDrain drains rows pending rows with the real store in-process:
// Claim(batch), then one Finish of every claimed row as sent, until none
// is left. Its keyed rows are written with their destination, since the
// loop has no routing step; deliver's rows are written without one and
// routed by deliver, a cost of the binary's side. It returns rows/s over the rows' own timestamps and the CPU
// every postgres process used per row (taken before the pool closes: a
// backend that exits takes its CPU time with it).
func (b *bench) baselineDrain(ctx context.Context, rows, keys int) (drain, error) {
	db, err := b.srv.create(ctx, "base", 4)
	if err != nil {
		return drain{}, err
	}
	defer db.drop()
	if err := db.insertOutboxTo(ctx, rows, keys, benchDestination); err != nil {
		return drain{}, err
	}
	ob, err := postgres.NewOutbox(db.Store, db.Layout, leaseForBench)
	if err != nil {
		return drain{}, err
	}
	db0 := commandsCPU("postgres")
	deadline := time.Now().Add(b.o.drainTimeout)
	for done := 0; done < rows; {
		if time.Now().After(deadline) {
			return drain{}, fmt.Errorf("baseline drained %d of %d rows within %v", done, rows, b.o.drainTimeout)
		}
		msgs, err := ob.Claim(ctx, b.o.batchSize)
		if err != nil {
			return drain{}, err
		}
		if len(msgs) == 0 {
			return drain{}, fmt.Errorf("claim returned no row with %d of %d rows left", rows-done, rows)
		}
		kept, err := ob.Finish(ctx, sentOutcomes(msgs))
		if err != nil {
			return drain{}, err
		}
		if len(kept) != len(msgs) {
			return drain{}, fmt.Errorf("finish kept %d of %d claimed rows", len(kept), len(msgs))
		}
		done += len(kept)
	}
	dbCPU := commandsCPU("postgres") - db0
	w, err := db.outboxWindow(ctx, time.Time{})
	if err != nil {
		return drain{}, err
	}
	return drain{Rate: w.rate(), DBCPUPerRow: dbCPU / time.Duration(rows)}, nil
}

func sentOutcomes(msgs []queuebox.ClaimedMessage) []queuebox.Outcome {
	out := make([]queuebox.Outcome, len(msgs))
	for i, m := range msgs {
		out[i] = queuebox.Outcome{Lease: m.Lease(), Kind: queuebox.OutcomeSent}
	}
	return out
}

// drain is the outcome of one run of a binary over a backlog.
type drain struct {
	Rate float64 // rows per second
	// CPUPerRow is the CPU time (user + system) the binaries used per
	// row, start-up included: it tells a CPU-bound process from one that
	// waits on the database.
	CPUPerRow time.Duration
	// LoadCPUPerRow is the CPU time this process used per row over the
	// same span, the receiver's in the main: the harness's share of the
	// machine. 0 where not measured (relay).
	LoadCPUPerRow time.Duration
	// Idle is the share of the machine's CPU that stayed idle during the
	// drain, start-up included.
	Idle float64
	// DBCPUPerRow is the CPU per row of every postgres process over the
	// same span (deliver drains and SQL loops; 0 elsewhere).
	// BrokerCPUPerRow is the broker process's (brokers scenario only).
	DBCPUPerRow, BrokerCPUPerRow time.Duration
	// LedgerRows is the rows the delivery ledger held after a deliver
	// drain, one per outcome written (deferrals too) with the ledger on,
	// none with it off; LedgerSent those whose outcome is sent.
	LedgerRows, LedgerSent int64
	// Work is PostgreSQL's count of commits and outbox row updates over
	// the drain (deliver drains and the hand-written relay's; pgwork.go).
	Work pgWork
}

// deliverDrain pre-inserts rows pending rows, starts replicas
// queuebox-deliver processes against the receiver and waits until every
// row is sent. The rate runs from the first claim to the last finish.
// extra adds variables to the processes' environment.
func (b *bench) deliverDrain(ctx context.Context, rows, keys, replicas int, extra ...map[string]string) (drain, error) {
	db, err := b.srv.create(ctx, "deliver", 4)
	if err != nil {
		return drain{}, err
	}
	defer db.drop()
	if err := db.insertOutbox(ctx, rows, keys); err != nil {
		return drain{}, err
	}
	cost, err := b.measureDrain(ctx, db, rows, func() ([]*proc, error) { return b.startDeliver(ctx, db, replicas, extra...) })
	if err != nil {
		return drain{}, err
	}
	w, err := db.outboxWindow(ctx, time.Time{})
	if err != nil {
		return drain{}, err
	}
	if w.Rows != int64(rows) {
		return drain{}, fmt.Errorf("%d of %d rows sent", w.Rows, rows)
	}
	if got := b.rc.count.Load(); got < int64(rows) {
		return drain{}, fmt.Errorf("the receiver got %d requests for %d sent rows", got, rows)
	}
	ledger, sent, err := db.ledgerRows(ctx)
	if err != nil {
		return drain{}, err
	}
	d := cost.drain(w.rate(), rows)
	d.LedgerRows, d.LedgerSent = ledger, sent
	return d, nil
}

// drainCost is what one drain cost: the CPU of the processes it started,
// of the bench itself and of PostgreSQL, the machine's idle share, and
// PostgreSQL's count of commits and row updates (pgwork.go).
type drainCost struct {
	cpu, self, dbCPU time.Duration
	idle             float64
	work             pgWork
}

// measureDrain resets the receiver, starts the processes of a drain of
// rows pending rows with start, waits until every row is sent, stops them
// and reads what the drain cost. The deliver drains and the hand-written
// relay's measure the same way.
func (b *bench) measureDrain(ctx context.Context, db *benchDB, rows int, start func() ([]*proc, error)) (drainCost, error) {
	work0, err := db.work(ctx)
	if err != nil {
		return drainCost{}, err
	}
	b.rc.reset()
	self0, ticks0, db0 := selfCPU(), readMachineTicks(), commandsCPU("postgres")
	procs, err := start()
	if err != nil {
		return drainCost{}, err
	}
	waitErr := b.waitDelivered(ctx, db, int64(rows), procs)
	c := drainCost{cpu: cpuTimes(procs), self: selfCPU() - self0, idle: idleShare(ticks0, readMachineTicks()),
		dbCPU: commandsCPU("postgres") - db0}
	if err := errors.Join(waitErr, stopAll(procs...)); err != nil {
		return drainCost{}, err
	}
	c.work, err = db.drainWork(ctx, work0)
	return c, err
}

// drain is the drain of rows rows at rate with this cost, per row.
func (c drainCost) drain(rate float64, rows int) drain {
	per := func(d time.Duration) time.Duration { return d / time.Duration(rows) }
	return drain{Rate: rate, CPUPerRow: per(c.cpu), LoadCPUPerRow: per(c.self), Idle: c.idle, DBCPUPerRow: per(c.dbCPU), Work: c.work}
}

// cpuNote formats the median CPU per row of some drains, and that of the
// receiver where it was measured.
func (b *bench) cpuNote(what string, ds []drain) string {
	var us, load []float64
	for _, d := range ds {
		us = append(us, float64(d.CPUPerRow)/float64(time.Microsecond))
		load = append(load, float64(d.LoadCPUPerRow)/float64(time.Microsecond))
	}
	note := fmt.Sprintf("%s CPU %.0f µs/row", what, median(us))
	if median(load) > 0 {
		note += fmt.Sprintf(" (%s receiver %.0f)", b.loadSide(), median(load))
	}
	return note
}

func drainRates(ds []drain) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = d.Rate
	}
	return out
}

// startDeliver starts replicas queuebox-deliver processes at once; extra
// adds variables to their environment.
func (b *bench) startDeliver(ctx context.Context, db *benchDB, replicas int, extra ...map[string]string) ([]*proc, error) {
	env := merge(append([]map[string]string{db.env(b.o.pool), b.rc.destinationEnv(b.o)}, extra...)...)
	procs := make([]*proc, replicas)
	errs := make([]error, replicas)
	done := make(chan int, replicas)
	for i := range replicas {
		go func() {
			procs[i], errs[i] = startBinary(ctx, b.o.binDir, "deliver", env)
			done <- i
		}()
	}
	for range replicas {
		<-done
	}
	if err := errors.Join(errs...); err != nil {
		return nil, errors.Join(err, stopAll(procs...))
	}
	return procs, nil
}

// waitDelivered waits until the receiver counted want requests and no
// outbox row is pending or processing. A process that exits, or rows left
// after -drain-timeout, are errors.
func (b *bench) waitDelivered(ctx context.Context, db *benchDB, want int64, procs []*proc) error {
	deadline := time.Now().Add(b.o.drainTimeout)
	for {
		for _, p := range procs {
			if err := p.exited(); err != nil {
				return err
			}
		}
		if b.rc.count.Load() >= want {
			n, err := db.unfinishedOutbox(ctx)
			if err != nil {
				return err
			}
			if n == 0 {
				return nil
			}
		}
		if time.Now().After(deadline) {
			n, _ := db.unfinishedOutbox(ctx)
			return fmt.Errorf("%d of %d rows still pending or processing after %v (receiver got %d requests)",
				n, want, b.o.drainTimeout, b.rc.count.Load())
		}
		if err := sleepCtx(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

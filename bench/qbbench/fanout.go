package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"
)

// The fanout scenario (issue 37) compares the two ways of sending one
// event to three destinations: one outbox row whose route names all three
// (`destinations: [fan0, fan1, fan2]`, and QueueBox adds a delivery row
// for fan1 and fan2), against three rows that the application writes, one
// per destination, each routed by its topic. Both drain the same events,
// on the bench's keys, to the lean receiver (one path per destination);
// the runs alternate, each on a fresh database.
//
// Two figures per variant. Deliveries/s runs from the start of
// queuebox-deliver to the last finish (the rows' updated_at). The deliver
// rows start at the first claim instead, but here that would leave out
// the routing that runs before it, and a fan-out route makes routing
// heavier (it adds two rows per event); so the start-up of the binary
// counts, in both variants alike. Bytes written per event is the WAL that PostgreSQL wrote
// (pg_current_wal_lsn before and after) for the application's insert and
// for the drain, divided by the events; the VACUUM ANALYZE between the two
// is left out. WAL is counted for the whole server, so the figure holds
// only on a server that nothing else writes to. The notes add the growth
// of the outbox table and its indexes per event, which is the database's
// own and no other writer's.
const fanoutDestinations = 3

var fanoutEvents = flag.Int("fanout-events", 10000,
	"fanout: events per drain, each to 3 destinations (one row with a destinations route, or three rows written)")

// fanDrain is one drain of the fanout scenario.
type fanDrain struct {
	drain
	// WALPerEvent and GrowthPerEvent are the bytes of WAL, and of outbox
	// table and index growth, per event.
	WALPerEvent, GrowthPerEvent float64
}

func (b *bench) fanout(ctx context.Context) error {
	if *fanoutEvents < 1 {
		return fmt.Errorf("-fanout-events must be at least 1, got %d", *fanoutEvents)
	}
	var route, app []fanDrain
	for i := range b.o.runs {
		r, err := b.fanoutDrain(ctx, true)
		if err != nil {
			return fmt.Errorf("one row, destinations route: %w", err)
		}
		a, err := b.fanoutDrain(ctx, false)
		if err != nil {
			return fmt.Errorf("three rows written: %w", err)
		}
		logf("fanout run %d: one row %.0f deliveries/s, %.0f B WAL and %.0f B table growth per event; three rows %.0f deliveries/s, %.0f B and %.0f B",
			i+1, r.Rate, r.WALPerEvent, r.GrowthPerEvent, a.Rate, a.WALPerEvent, a.GrowthPerEvent)
		route, app = append(route, r), append(app, a)
	}
	label := fmt.Sprintf("fan-out, one row to 3 destinations vs 3 rows written, %s, %s events", keyLabel(b.o.deliverKeys), group(int64(*fanoutEvents)))
	rate := func(d fanDrain) float64 { return d.Rate }
	wal := func(d fanDrain) float64 { return d.WALPerEvent }
	growth := func(d fanDrain) float64 { return d.GrowthPerEvent }
	x := vsBaseline(label+", deliveries/s", medianOf(route, rate), medianOf(app, rate), "deliveries/s", "deliveries/s", 0,
		fmt.Sprintf("runs %s vs %s; deliver CPU %.0f vs %.0f µs/delivery", rates(valuesOf(route, rate)), rates(valuesOf(app, rate)),
			medianOf(route, cpuUS), medianOf(app, cpuUS)))
	x.Target, x.Result = "-", resultInfo // issue 37 asks for the figures, not a target
	b.rep.add(x)
	y := vsBaseline(label+", WAL bytes per event", medianOf(route, wal), medianOf(app, wal), "B", "B", 0,
		fmt.Sprintf("runs %s vs %s; outbox table and index growth %s vs %s B per event; WAL of the whole server",
			rates(valuesOf(route, wal)), rates(valuesOf(app, wal)), rate0(medianOf(route, growth)), rate0(medianOf(app, growth))))
	y.Target, y.Result = "-", resultInfo
	b.rep.add(y)
	return nil
}

// fanoutDrain writes *fanoutEvents events (as one row each with the
// destinations route when viaRoute, else as three rows), starts one
// queuebox-deliver and waits until every delivery is sent.
func (b *bench) fanoutDrain(ctx context.Context, viaRoute bool) (fanDrain, error) {
	events := *fanoutEvents
	deliveries := int64(events * fanoutDestinations)
	db, err := b.srv.create(ctx, "fanout", 4)
	if err != nil {
		return fanDrain{}, err
	}
	defer db.drop()
	size0, err := db.outboxBytes(ctx)
	if err != nil {
		return fanDrain{}, err
	}
	lsn0, err := db.walLSN(ctx)
	if err != nil {
		return fanDrain{}, err
	}
	if err := db.insertFanout(ctx, events, b.o.deliverKeys, viaRoute); err != nil {
		return fanDrain{}, err
	}
	lsn1, err := db.walLSN(ctx)
	if err != nil {
		return fanDrain{}, err
	}
	if err := db.vacuumAnalyze(ctx, "outbox"); err != nil {
		return fanDrain{}, err
	}
	lsn2, err := db.walLSN(ctx)
	if err != nil {
		return fanDrain{}, err
	}
	start, err := db.now(ctx)
	if err != nil {
		return fanDrain{}, err
	}
	b.rc.reset()
	p, err := startBinary(ctx, b.o.binDir, "deliver", merge(db.env(b.o.pool), fanoutEnv(b.o, b.rc.URL, viaRoute)))
	if err != nil {
		return fanDrain{}, err
	}
	procs := []*proc{p}
	waitErr := b.waitDelivered(ctx, db, deliveries, procs)
	cpu := cpuTimes(procs)
	lsn3, lsnErr := db.walLSN(ctx)
	if err := errors.Join(waitErr, lsnErr, stopAll(procs...)); err != nil {
		return fanDrain{}, err
	}
	size1, err := db.outboxBytes(ctx)
	if err != nil {
		return fanDrain{}, err
	}
	w, err := db.outboxWindow(ctx, time.Time{})
	if err != nil {
		return fanDrain{}, err
	}
	if w.Rows != deliveries {
		return fanDrain{}, fmt.Errorf("%d of %d deliveries sent", w.Rows, deliveries)
	}
	w.First = start
	return fanDrain{
		drain:          drain{Rate: w.rate(), CPUPerRow: cpu / time.Duration(deliveries)},
		WALPerEvent:    float64((lsn1-lsn0)+(lsn3-lsn2)) / float64(events),
		GrowthPerEvent: float64(size1-size0) / float64(events),
	}, nil
}

// fanoutEnv configures fan0, fan1 and fan2 on the receiver and routes the
// events to them: topic fan.event to all three through one destinations
// route when viaRoute, else fan<i>.event to fan<i>. The poller settings
// are the deliver rows'; the receiver's one webhook destination is left
// out, since its catch-all route would come first.
func fanoutEnv(o opts, url string, viaRoute bool) map[string]string {
	env := map[string]string{
		"QUEUEBOX_OUTBOX_CONCURRENCY":    itoa(o.concurrency),
		"QUEUEBOX_OUTBOX_BATCHSIZE":      itoa(o.batchSize),
		"QUEUEBOX_OUTBOX_POLLINTERVALMS": itoa(o.pollMs),
	}
	names := ""
	for i := range fanoutDestinations {
		name := fmt.Sprintf("fan%d", i)
		prefix := fmt.Sprintf("QUEUEBOX_DESTINATIONS_FAN%d_", i)
		env[prefix+"TYPE"] = "http"
		env[prefix+"BASEURL"] = url
		env[prefix+"PATH"] = "/" + name
		if !viaRoute {
			env[fmt.Sprintf("QUEUEBOX_ROUTES_%d_TOPICPATTERN", i)] = name + ".event"
			env[fmt.Sprintf("QUEUEBOX_ROUTES_%d_DESTINATION", i)] = name
		}
		if i > 0 {
			names += ","
		}
		names += name
	}
	if viaRoute {
		env["QUEUEBOX_ROUTES_0_TOPICPATTERN"] = "fan.event"
		env["QUEUEBOX_ROUTES_0_DESTINATIONS"] = names
	}
	return env
}

// insertFanout writes events events on keys keys (event g on key g mod
// keys, as insertOutbox does), in one statement as an application's
// transaction would: one row each with topic fan.event when viaRoute,
// else three rows each, fan0.event, fan1.event and fan2.event, with the
// same key and payload.
func (d *benchDB) insertFanout(ctx context.Context, events, keys int, viaRoute bool) error {
	copies := fanoutDestinations
	topic := `'fan' || c || '.event'`
	if viaRoute {
		copies, topic = 1, `'fan.event'`
	}
	err := d.exec(ctx, `
		INSERT INTO outbox (topic, key, payload)
		SELECT `+topic+`, 'key-' || lpad((g % $2::int)::text, 5, '0'),
		       jsonb_build_object('n', g, 'kind', 'bench', 'amount', g % 1000)
		FROM generate_series(1, $1::int) AS g, generate_series(0, $3::int - 1) AS c
		ORDER BY g, c`, events, keys, copies)
	if err != nil {
		return fmt.Errorf("insert %d fan-out events: %w", events, err)
	}
	return nil
}

// walLSN is the server's current WAL position in bytes.
func (d *benchDB) walLSN(ctx context.Context) (int64, error) {
	var lsn int64
	err := d.Store.Pool.QueryRow(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint`).Scan(&lsn)
	return lsn, err
}

// outboxBytes is the size of the outbox table with its indexes and TOAST.
func (d *benchDB) outboxBytes(ctx context.Context) (int64, error) {
	var n int64
	err := d.Store.Pool.QueryRow(ctx, `SELECT pg_total_relation_size('outbox')`).Scan(&n)
	return n, err
}

func cpuUS(d fanDrain) float64 { return float64(d.CPUPerRow) / float64(time.Microsecond) }

// valuesOf and medianOf read one figure of each drain.
func valuesOf(ds []fanDrain, f func(fanDrain) float64) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = f(d)
	}
	return out
}

func medianOf(ds []fanDrain, f func(fanDrain) float64) float64 { return median(valuesOf(ds, f)) }

// rate0 formats a count with thousands separators.
func rate0(v float64) string { return group(int64(v + 0.5)) }

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Settings of the brokers scenario. They are registered here rather than
// in parseFlags so the scenario stays in its own files; flag.Parse in
// parseFlags reads them with the others.
var (
	brokerRabbitURL = flag.String("rabbitmq-url", envOr("QUEUEBOX_TEST_RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672/"),
		"brokers: the RabbitMQ the scenario declares its exchanges and queues on")
	brokerNATSURL = flag.String("nats-url", envOr("NATS_URL", "nats://127.0.0.1:4222"),
		"brokers: the NATS JetStream server the scenario creates its streams on")
	brokerMessages = flag.Int("broker-messages", 5000,
		"brokers: messages pre-published for each ingest drain (the deliver drains use -deliver-rows)")
	brokerOnly = flag.String("broker-only", "",
		"brokers: comma-separated labels to run (rabbitmq, jetstream, kafka); empty runs all three")
	rabbitPrefetch = flag.Int("rabbitmq-prefetch", 100,
		"brokers: prefetchCount of the judged RabbitMQ ingest row; the INFO row beside it keeps the source's default (10)")
)

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// sourceConcurrency is how many stores a broker source of
// queuebox-ingest runs at once: one, a group at a time. The RabbitMQ
// consumer stores the deliveries its prefetch window already holds
// in one ReceiveBatch and acknowledges them after it; the NATS consumer
// does the same with what its fetch (batchSize 100) has brought, and the
// Kafka consumer with each poll (maxPollRecords 100). The SQL baseline of
// the ingest rows runs one INSERT transaction at a time, at that
// concurrency.
const sourceConcurrency = 1

// broker is one of the bridged brokers, as the scenario drives it.
type broker struct {
	label  string // RabbitMQ, JetStream
	client string // the raw client of the comparison row
	ack    string // what a publish waits for: confirm, ack
	// durability says how the broker keeps a message; fetch how its
	// source reads and stores.
	durability string
	fetch      func() string
	// target makes a fresh exchange + bound queue (RabbitMQ) or stream
	// (JetStream) for one measurement; its close deletes them.
	target func(ctx context.Context, tag string) (target, error)
	// command is the broker's process name, whose CPU the notes show;
	// empty for a broker inside this process (kfake).
	command string
}

// target is one measurement's place on a broker. The deliver destination
// publishes into it, the raw client publishes into it, the ingest source
// reads it.
type target interface {
	// destinationEnv routes every topic of queuebox-deliver into the
	// target.
	destinationEnv() map[string]string
	// sourceEnv configures the ingest source "bench" on the target.
	sourceEnv() map[string]string
	// publish sends n messages, msg(i) for i in [0, n), from conc
	// goroutines on one connection, each waiting for its own
	// confirm/ack before it sends the next.
	publish(ctx context.Context, n, conc int, msg func(i int) rawMessage) error
	// stored counts the messages the target holds (RabbitMQ: ready in the
	// queue; JetStream: in the stream).
	stored(ctx context.Context) (int64, error)
	// firstBody returns the body of the first message the target holds.
	firstBody(ctx context.Context) ([]byte, error)
	// settled reports an error unless the ingest source acknowledged
	// every message it was given.
	settled(ctx context.Context) error
	close()
}

// rawMessage is one message of the raw client: its body, the id the
// message-id property or header carries, and the topic header.
type rawMessage struct {
	ID    string
	Body  []byte
	Topic string
}

// benchTopic is the topic of the outbox rows insertOutbox writes.
const benchTopic = "bench.event"

// deliverBody is the payload of outbox row n as queuebox-deliver sends
// it: insertOutbox's object as compact JSON, keys in jsonb order (by
// length). brokerDeliverDrain checks it against a delivered message.
func deliverBody(n int) []byte {
	return fmt.Appendf(nil, `{"n":%d,"kind":"bench","amount":%d}`, n, n%1000)
}

// rowID stands for the row id a delivery carries: a UUID-sized string.
func rowID(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

var brokers = []broker{
	{label: "RabbitMQ", client: "amqp091-go", ack: "confirm", target: newRabbitTarget, command: "beam.smp",
		durability: "durable (persistent messages)", fetch: func() string {
			return "the deliveries at hand stored as one group, then acked"
		}},
	{label: "JetStream", client: "nats.go jetstream", ack: "ack", target: newJetStreamTarget, command: "nats-server",
		durability: "durable (file storage)", fetch: fixed("fetch batch 100, the messages at hand stored as one group, then acked")},
	kafkaBroker,
}

// brokers measures the RabbitMQ and JetStream bridges: queuebox-deliver
// publishing to the broker beside the SQL claim+finish baseline and a raw
// client, and queuebox-ingest consuming pre-published messages beside
// the raw INSERT … ON CONFLICT DO NOTHING at the source's concurrency.
func (b *bench) brokers(ctx context.Context) error {
	if *brokerMessages < 1 {
		return fmt.Errorf("-broker-messages must be at least 1, got %d", *brokerMessages)
	}
	// The HTTP reference of the CPU rows comes first; its binaries' peaks
	// belong to no row of this scenario.
	http, err := b.httpReference(ctx)
	rssPeaks.take()
	if err != nil {
		b.rep.fail("brokers, HTTP reference", err)
	}
	// A failure of one part gets its ERROR row (and makes the exit code
	// 1) while the other parts still run.
	for _, br := range brokers {
		if !brokerSelected(br) {
			continue
		}
		if err := b.brokerDeliver(ctx, br, http); err != nil {
			b.rep.fail("brokers, deliver to "+br.label, err)
		}
		for _, v := range brokerIngestRows(br) {
			if err := b.brokerIngest(ctx, br, v); err != nil {
				b.rep.fail("brokers, "+v.name, err)
			}
		}
	}
	return nil
}

// fixed returns a func that returns s.
func fixed(s string) func() string { return func() string { return s } }

// brokerSelected says whether -broker-only names br (by the first word
// of its label, any case), or is empty.
func brokerSelected(br broker) bool {
	if *brokerOnly == "" {
		return true
	}
	first := strings.ToLower(strings.Fields(br.label)[0])
	for _, name := range strings.Split(*brokerOnly, ",") {
		if strings.TrimSpace(strings.ToLower(name)) == first {
			return true
		}
	}
	return false
}

// brokerDeliver runs -runs rounds of: the SQL baseline, queuebox-deliver
// into a fresh target, the raw client into another fresh target; http
// are the HTTP drains its CPU per row is compared with.
func (b *bench) brokerDeliver(ctx context.Context, br broker, http []drain) error {
	rows, conc := b.o.deliverRows, b.o.concurrency
	var base, raw []float64
	var real []drain
	for i := range b.o.runs {
		r, err := b.baselineDrain(ctx, rows, 0)
		if err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		base = append(base, r.Rate)
		d, err := b.brokerDeliverDrain(ctx, br, rows)
		if err != nil {
			return fmt.Errorf("queuebox-deliver: %w", err)
		}
		real = append(real, d)
		rr, err := b.rawPublishRate(ctx, br, rows, conc)
		if err != nil {
			return fmt.Errorf("raw %s client: %w", br.client, err)
		}
		raw = append(raw, rr)
		logf("brokers, deliver to %s run %d: baseline %.0f rows/s, queuebox-deliver %.0f rows/s (CPU %v/row), raw %s %.0f msg/s",
			br.label, i+1, r.Rate, d.Rate, d.CPUPerRow, br.client, rr)
	}
	got := drainRates(real)
	var serial []float64
	for i := range base {
		serial = append(serial, serialRate(base[i], raw[i]))
	}
	cond := fmt.Sprintf("concurrency %d, flowControl.maxInFlight %d (the raw client's in flight), batch %d, %d-byte JSON bodies, %s, each publish waits for its %s",
		conc, conc, b.o.batchSize, len(deliverBody(rows/2)), br.durability, br.ack)
	name := fmt.Sprintf("deliver to %s, null keys, %s rows", br.label, group(int64(rows)))
	x := vsBaseline(name, median(got), median(serial), "rows/s", "rows/s", 0.90,
		fmt.Sprintf("%s; baseline: the SQL loop and the raw client one after the other, 1/(1/SQL + 1/raw) per run; runs %s vs %s; %s; machine idle %.0f %%%s",
			cond, rates(got), rates(serial), b.cpuNote("deliver", real), 100*median(idles(real)), machineBound(br, real, median(serial))))
	x.Target = "≥ 90 % of SQL + raw in series"
	b.rep.add(x)
	b.rep.add(info(vsBaseline(fmt.Sprintf("deliver to %s vs the SQL loop", br.label), median(got), median(base), "rows/s", "rows/s", 0,
		fmt.Sprintf("Claim(%d)+Finish in-process, same rows; runs %s", b.o.batchSize, rates(base)))))
	b.rep.add(info(vsBaseline(fmt.Sprintf("deliver to %s vs raw %s", br.label, br.client), median(got), median(raw), "rows/s", "msg/s", 0,
		fmt.Sprintf("raw client: %d goroutines on one connection, each waits for its %s before the next; same count, bodies and headers; runs %s",
			conc, br.ack, rates(raw)))))
	b.rep.add(cpuVsHTTP(fmt.Sprintf("deliver to %s, CPU per row vs HTTP", br.label), real, http, brokerCPUShare))
	return nil
}

// brokerCPUShare is the most CPU per row a broker destination may cost
// queuebox-deliver, as a multiple of the HTTP destination's.
const brokerCPUShare = 1.5

// serialRate is the rate of the SQL claim+finish loop and the raw client
// run one after the other with no overlap, 1/(1/sql + 1/raw): what a
// deliver that added no cost of its own and overlapped nothing would
// reach. 0 when either is 0.
func serialRate(sql, raw float64) float64 {
	if sql <= 0 || raw <= 0 {
		return 0
	}
	return 1 / (1/sql + 1/raw)
}

// info turns a comparison into an unjudged row.
func info(x row) row {
	x.Target, x.Result = "-", resultInfo
	return x
}

// cpuVsHTTP compares the median CPU per row of queuebox-deliver to a
// broker with that of the HTTP row: PASS when at most maxShare times it.
func cpuVsHTTP(scenario string, broker, http []drain, maxShare float64) row {
	us := func(ds []drain) float64 {
		var v []float64
		for _, d := range ds {
			v = append(v, float64(d.CPUPerRow)/float64(time.Microsecond))
		}
		return median(v)
	}
	got, ref := us(broker), us(http)
	x := row{Scenario: scenario, Measured: fmt.Sprintf("%.0f µs/row", got), Baseline: fmt.Sprintf("%.0f µs/row", ref),
		Ratio: "-", Target: fmt.Sprintf("≤ %g× HTTP", maxShare), Result: resultMiss,
		Notes: "queuebox-deliver's user+system CPU over the drain (start-up included) per row; baseline: an HTTP drain, null keys, same concurrency, every slot open to the destination as here"}
	if ref <= 0 {
		x.Notes = "no HTTP reference was measured (see its ERROR row)"
	} else {
		x.Ratio = fmt.Sprintf("%.2f×", got/ref)
		x.Result = verdict(got <= maxShare*ref)
	}
	return x
}

// httpReference returns -runs HTTP drains with null keys at -concurrency
// and, like the broker drains, every publish slot open to the one
// destination (allSlotsEnv), measured once and kept for the next broker.
func (b *bench) httpReference(ctx context.Context) ([]drain, error) {
	if b.httpDrains != nil {
		return b.httpDrains, nil
	}
	var ds []drain
	for i := range b.o.runs {
		d, err := b.deliverDrain(ctx, b.o.deliverRows, 0, 1, allSlotsEnv("WEBHOOK", b.o.concurrency))
		if err != nil {
			return nil, err
		}
		logf("brokers, HTTP reference run %d: queuebox-deliver %.0f rows/s, CPU %v/row", i+1, d.Rate, d.CPUPerRow)
		ds = append(ds, d)
	}
	b.httpDrains = ds
	return ds, nil
}

// brokerDeliverDrain pre-inserts rows pending rows (null keys), starts
// queuebox-deliver with the target as the only destination and waits
// until every row is sent and the target holds rows messages.
func (b *bench) brokerDeliverDrain(ctx context.Context, br broker, rows int) (drain, error) {
	db, err := b.srv.create(ctx, "brkdeliver", 4)
	if err != nil {
		return drain{}, err
	}
	defer db.drop()
	if err := db.insertOutbox(ctx, rows, 0); err != nil {
		return drain{}, err
	}
	t, err := br.target(ctx, "deliver")
	if err != nil {
		return drain{}, err
	}
	defer t.close()
	env := merge(db.env(b.o.pool), t.destinationEnv(), map[string]string{
		"QUEUEBOX_ROUTES_0_TOPICPATTERN": "**",
		"QUEUEBOX_ROUTES_0_DESTINATION":  "broker",
		"QUEUEBOX_OUTBOX_CONCURRENCY":    itoa(b.o.concurrency),
		"QUEUEBOX_OUTBOX_BATCHSIZE":      itoa(b.o.batchSize),
		"QUEUEBOX_OUTBOX_POLLINTERVALMS": itoa(b.o.pollMs),
	}, allSlotsEnv("BROKER", b.o.concurrency))
	ticks0 := readMachineTicks()
	db0, broker0 := commandsCPU("postgres"), commandsCPU(br.command)
	p, err := startBinary(ctx, b.o.binDir, "deliver", env)
	if err != nil {
		return drain{}, err
	}
	waitErr := b.waitOutboxDrained(ctx, db, rows, p)
	cpu, idle := p.cpuTime(), idleShare(ticks0, readMachineTicks())
	dbCPU, brokerCPU := commandsCPU("postgres")-db0, commandsCPU(br.command)-broker0
	if err := errors.Join(waitErr, p.stop()); err != nil {
		return drain{}, err
	}
	w, err := db.outboxWindow(ctx, time.Time{})
	if err != nil {
		return drain{}, err
	}
	if w.Rows != int64(rows) {
		return drain{}, fmt.Errorf("%d of %d rows sent", w.Rows, rows)
	}
	n, err := t.stored(ctx)
	if err != nil {
		return drain{}, err
	}
	if n < int64(rows) {
		return drain{}, fmt.Errorf("%s holds %d messages for %d sent rows", br.label, n, rows)
	}
	// The raw client sends deliverBody; check that it is what
	// queuebox-deliver sent, so both sides move the same bytes.
	got, err := t.firstBody(ctx)
	if err != nil {
		return drain{}, err
	}
	var head struct{ N int }
	_ = json.Unmarshal(got, &head)
	if want := deliverBody(head.N); string(got) != string(want) {
		logf("warning: queuebox-deliver sent %q (%d bytes), the raw client sends %q (%d bytes) for that row",
			got, len(got), want, len(want))
	}
	return drain{Rate: w.rate(), CPUPerRow: cpu / time.Duration(rows), Idle: idle,
		DBCPUPerRow: dbCPU / time.Duration(rows), BrokerCPUPerRow: brokerCPU / time.Duration(rows)}, nil
}

// machineBound says where each row's CPU went during the drains and the
// most rows/s the machine's cores could give if queuebox-deliver cost
// nothing: PostgreSQL and the broker alone, on every core, fully busy.
// When that is below the target share of the baseline, no publisher can
// meet the target on this machine.
func machineBound(br broker, ds []drain, base float64) string {
	if br.command == "" {
		return ""
	}
	var dbUS, brokerUS []float64
	for _, d := range ds {
		dbUS = append(dbUS, float64(d.DBCPUPerRow)/float64(time.Microsecond))
		brokerUS = append(brokerUS, float64(d.BrokerCPUPerRow)/float64(time.Microsecond))
	}
	db, bk := median(dbUS), median(brokerUS)
	if db+bk <= 0 || base <= 0 {
		return ""
	}
	bound := float64(runtime.NumCPU()) * 1e6 / (db + bk)
	return fmt.Sprintf("; PostgreSQL %.0f µs/row, %s %.0f µs/row: with a deliver that cost nothing the %d cores would top out at %s rows/s = %.0f %% of the baseline",
		db, br.command, bk, runtime.NumCPU(), group(int64(bound+0.5)), 100*bound/base)
}

func idles(ds []drain) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = d.Idle
	}
	return out
}

// waitOutboxDrained polls until no outbox row is pending or processing.
func (b *bench) waitOutboxDrained(ctx context.Context, db *benchDB, rows int, p *proc) error {
	deadline := time.Now().Add(b.o.drainTimeout)
	for {
		if err := p.exited(); err != nil {
			return err
		}
		n, err := db.unfinishedOutbox(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d rows still pending or processing after %v; output:\n%s", n, rows, b.o.drainTimeout, p.out)
		}
		if err := sleepCtx(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

// rawPublishRate publishes n messages shaped like the deliver drain's
// into a fresh target with the raw client and returns messages per
// second from the first send to the last confirm/ack.
func (b *bench) rawPublishRate(ctx context.Context, br broker, n, conc int) (float64, error) {
	t, err := br.target(ctx, "raw")
	if err != nil {
		return 0, err
	}
	defer t.close()
	t0 := time.Now()
	err = t.publish(ctx, n, conc, func(i int) rawMessage {
		return rawMessage{ID: rowID(i + 1), Body: deliverBody(i + 1), Topic: benchTopic}
	})
	secs := time.Since(t0).Seconds()
	if err != nil {
		return 0, err
	}
	got, err := t.stored(ctx)
	if err != nil {
		return 0, err
	}
	if got != int64(n) {
		return 0, fmt.Errorf("%s holds %d of the %d messages the raw client published", br.label, got, n)
	}
	return float64(n) / secs, nil
}

// brokerIngest runs -runs rounds of: the SQL baseline at the source's
// concurrency, then queuebox-ingest consuming -broker-messages messages
// pre-published into a fresh target.
func (b *bench) brokerIngest(ctx context.Context, br broker, v brokerIngestRow) error {
	n := *brokerMessages
	var base []float64
	var real, loops []drain
	for i := range b.o.runs {
		l, err := b.ingestBaseline(ctx, n, sourceConcurrency)
		if err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		r := l.Rate
		base, loops = append(base, r), append(loops, l)
		d, err := b.brokerIngestDrain(ctx, br, n, i, v.env)
		if err != nil {
			return fmt.Errorf("queuebox-ingest: %w", err)
		}
		real = append(real, d)
		logf("brokers, ingest from %s run %d: baseline %.0f rows/s, queuebox-ingest %.0f msg/s (CPU %v/msg)",
			br.label, i+1, r, d.Rate, d.CPUPerRow)
	}
	got := drainRates(real)
	var us []float64
	for _, d := range real {
		us = append(us, float64(d.CPUPerRow)/float64(time.Microsecond))
	}
	fetch := br.fetch()
	if v.fetch != "" {
		fetch = v.fetch + ", " + fetch
	}
	x := vsBaseline(v.name, median(got), median(base), "msg/s", "rows/s", brokerIngestShare,
		fmt.Sprintf("%s messages; concurrency %d (%s), baseline INSERT … ON CONFLICT at %d; %d-byte JSON bodies, unique keys; runs %s vs SQL %s; ingest CPU %.0f µs/msg%s",
			group(int64(n)), sourceConcurrency, fetch, sourceConcurrency, len(body(ingestPrefix(0), int64(n/2))), rates(got), rates(base), median(us),
			ingestCPUNote(br, real, loops, median(base))))
	if v.info {
		x = info(x)
	}
	b.rep.add(x)
	return nil
}

// ingestCPUNote formats PostgreSQL's and the broker's median CPU per
// message while queuebox-ingest consumed, PostgreSQL's per row of the
// baseline, and what the cores could give at the CPU per message of
// ingest, PostgreSQL and the broker together (coresBound).
func ingestCPUNote(br broker, real, loops []drain, base float64) string {
	us := medianUS // shorter lines below
	db := us(real, func(d drain) time.Duration { return d.DBCPUPerRow })
	bk := us(real, func(d drain) time.Duration { return d.BrokerCPUPerRow })
	own := us(real, func(d drain) time.Duration { return d.CPUPerRow })
	note := fmt.Sprintf("; PostgreSQL %.0f µs/msg (SQL baseline %.0f µs/row)", db, us(loops, func(d drain) time.Duration { return d.DBCPUPerRow }))
	what := "ingest and PostgreSQL"
	if br.command != "" {
		note += fmt.Sprintf(", %s %.0f µs/msg", br.command, bk)
		what = "ingest, PostgreSQL and " + br.command
	}
	return note + coresBound(what, own+db+bk, "msg/s", base)
}

func ingestPrefix(run int) string { return "r" + strconv.Itoa(run) + "-brk-" }

// brokerIngestDrain pre-publishes n messages into a fresh target, starts
// queuebox-ingest with one source on it and waits until the inbox holds
// n rows. The rate runs from the first row's created_at to the last's.
func (b *bench) brokerIngestDrain(ctx context.Context, br broker, n, run int, extra map[string]string) (drain, error) {
	db, err := b.srv.create(ctx, "brkingest", 4)
	if err != nil {
		return drain{}, err
	}
	defer db.drop()
	t, err := br.target(ctx, "ingest")
	if err != nil {
		return drain{}, err
	}
	defer t.close()
	prefix := ingestPrefix(run)
	err = t.publish(ctx, n, b.o.concurrency, func(i int) rawMessage {
		return rawMessage{ID: prefix + strconv.Itoa(i), Body: body(prefix, int64(i)), Topic: "bench.created"}
	})
	if err != nil {
		return drain{}, fmt.Errorf("pre-publish %d messages: %w", n, err)
	}
	db0, broker0 := commandsCPU("postgres"), commandsCPU(br.command)
	p, err := startBinary(ctx, b.o.binDir, "ingest", merge(db.env(b.o.pool), t.sourceEnv(), extra))
	if err != nil {
		return drain{}, err
	}
	waitErr := b.waitInboxRows(ctx, db, n, p)
	cpu := p.cpuTime()
	dbCPU, brokerCPU := commandsCPU("postgres")-db0, commandsCPU(br.command)-broker0
	if err := errors.Join(waitErr, p.stop()); err != nil {
		return drain{}, err
	}
	if err := t.settled(ctx); err != nil {
		return drain{}, err
	}
	w, err := inboxWindow(ctx, db)
	if err != nil {
		return drain{}, err
	}
	if w.Rows != int64(n) {
		return drain{}, fmt.Errorf("%d inbox rows for %d messages", w.Rows, n)
	}
	per := func(d time.Duration) time.Duration { return d / time.Duration(n) }
	return drain{Rate: w.rate(), CPUPerRow: per(cpu), DBCPUPerRow: per(dbCPU), BrokerCPUPerRow: per(brokerCPU)}, nil
}

// waitInboxRows polls until the inbox holds n rows.
func (b *bench) waitInboxRows(ctx context.Context, db *benchDB, n int, p *proc) error {
	deadline := time.Now().Add(b.o.drainTimeout)
	for {
		if err := p.exited(); err != nil {
			return err
		}
		var got int64
		if err := db.Store.Pool.QueryRow(ctx, `SELECT count(*) FROM inbox`).Scan(&got); err != nil {
			return err
		}
		if got >= int64(n) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d inbox rows after %v; output:\n%s", got, n, b.o.drainTimeout, p.out)
		}
		if err := sleepCtx(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

// inboxWindow is the span of the inbox rows' created_at.
func inboxWindow(ctx context.Context, db *benchDB) (window, error) {
	var w window
	var first, last *time.Time
	err := db.Store.Pool.QueryRow(ctx, `SELECT count(*), min(created_at), max(created_at) FROM inbox`).
		Scan(&w.Rows, &first, &last)
	if err != nil || first == nil || last == nil {
		return w, err
	}
	w.First, w.Last = *first, *last
	return w, nil
}

// ingestBaseline inserts n unique rows with baselineInsert (autocommit,
// so created_at is each statement's own now()) from conc goroutines and
// returns rows per second over the created_at span, as for the binary,
// and the CPU of every postgres process per row.
func (b *bench) ingestBaseline(ctx context.Context, n, conc int) (drain, error) {
	db, err := b.srv.create(ctx, "brkbase", conc+2)
	if err != nil {
		return drain{}, err
	}
	defer db.drop()
	db0 := commandsCPU("postgres")
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, conc)
	for c := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := next.Add(1) - 1
				if k >= int64(n) || ctx.Err() != nil {
					return
				}
				if err := sqlInsert(ctx, db, "base-", k); err != nil {
					errs[c] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	dbCPU := commandsCPU("postgres") - db0
	if err := errors.Join(append(errs, ctx.Err())...); err != nil {
		return drain{}, err
	}
	w, err := inboxWindow(ctx, db)
	if err != nil {
		return drain{}, err
	}
	if w.Rows != int64(n) {
		return drain{}, fmt.Errorf("%d of %d baseline rows", w.Rows, n)
	}
	return drain{Rate: w.rate(), DBCPUPerRow: dbCPU / time.Duration(n)}, nil
}

// publishAll runs send for i in [0, n) from conc goroutines and returns
// the first error; the others stop at the next message.
func publishAll(ctx context.Context, n, conc int, send func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				if err := send(ctx, int(i)); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// allSlotsEnv opens every publish slot of outbox.concurrency to the
// destination: flowControl.maxInFlight defaults to half of them, while
// the raw clients the broker rows compare with keep -concurrency
// publishes in flight, and a broker's confirm latency makes the rate
// follow the publishes in flight (measured here: RabbitMQ 1,430–1,510
// rows/s at the default 8, 2,200–2,730 at 16). What the default costs
// is the flowdefaults scenario's row.
func allSlotsEnv(destination string, concurrency int) map[string]string {
	return map[string]string{"QUEUEBOX_DESTINATIONS_" + destination + "_FLOWCONTROL_MAXINFLIGHT": itoa(concurrency)}
}

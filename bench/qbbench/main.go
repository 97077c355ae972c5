// Command qbbench measures QueueBox against SQL baselines in one
// invocation and prints a table of the ratios (`make bench`).
//
// It starts the built binaries (bin/queuebox-*) against fresh databases
// on the local PostgreSQL, with a loopback HTTP receiver as destination,
// and compares them with in-process loops that run the same statements
// through the real store (pkg/store/postgres) or plain INSERTs:
//
//	deliver   queuebox-deliver vs the hand-written relay (bench/handrelay, with its partial
//	          index, the better of 1 and 2 processes; without it as INFO), null keys and
//	          1,000 keys (relayhand.go); the SQL-only Claim(100)+Finish loop beside it as
//	          INFO, and null keys at outbox.concurrency 64 (-wide-concurrency)
//	keys10    queuebox-deliver on 10 keys × 20,000 pending rows, rate over a window
//	claim     Claim(100) latency with 200,000 pending rows, null keys and 1,000 keys, and
//	          1,000 keys of which 150,000 rows are a failing lane's postponed backlog
//	          (-claim-only picks rows, claim.go)
//	replicas  2 vs 1 replica of queuebox-deliver, receiver answering at once
//	          and after -replica-delay
//	ingest    queuebox-ingest vs the hand-written inbox (bench/handinbox) from 16 clients,
//	          no auth and HMAC, unique keys and 50 % duplicates (inboxhand.go); plain
//	          INSERT … ON CONFLICT DO NOTHING from the same clients beside it as INFO
//	relay     queuebox-relay forwarding push rows spread over 1,000 aggregates
//	backlog   queuebox-relay on a 100,000-row backlog in runs (stale statistics),
//	          over 200 and 10,000 aggregates, and the relay Claim(100) p50/p99 there
//	capture   commit-to-delivery p50/p99 at 10, 100 and 1,000 rows/s with
//	          queuebox-capture (pollIntervalMs 60000) beside polling at 100 ms,
//	          and the slot lag after a 100,000-row burst
//	brokers   queuebox-deliver to RabbitMQ (confirms), JetStream (acks) and Kafka (kfake, acks=all)
//	          vs the SQL loop and a raw client run one after the other (≥ 90 %), with its
//	          CPU per row vs the HTTP row's (≤ 1.5×), and queuebox-ingest from each vs
//	          INSERTs at the source's concurrency (brokers.go)
//	signing   queuebox-deliver over HTTP with a Standard Webhooks signing block
//	          (current and previous key) vs the same drain unsigned (signing.go)
//	tracing   queuebox-deliver with tracing off vs every span exported to
//	          an OTLP sink in the bench at sampling 1.0 (tracing.go)
//	flow      9 HTTP destinations alone vs beside a 10th that hangs, and
//	          beside a 10th with an open breaker over 100,000 rows (flow.go;
//	          -flow-only picks one)
//	flowdefaults  the deliver drains (null keys and 1,000 keys) with
//	          flowControl at its defaults vs off (flowdefaults.go)
//	ledger    the null-keys deliver drain with the delivery ledger on (the
//	          default) vs off (ledger.go)
//	fanout    one row to 3 destinations through a destinations route vs 3 rows
//	          written by the application: deliveries/s and WAL bytes per event
//	          (fanout.go)
//
// Every scenario makes its own database (CREATE DATABASE, the bundled
// migrations, a set-based INSERT … SELECT generate_series, VACUUM
// ANALYZE) and drops it WITH (FORCE) after. The binaries get
// database.poolSize 20, outbox.concurrency 16 (the top of the 8–16 range
// a deployment on a small machine would pick; -concurrency changes it),
// batchSize 100 and pollIntervalMs 100, and are stopped with SIGTERM.
// Drain rates come from the rows' own timestamps (first claimed_at to the
// last updated_at or processed_at), so start-up and the benchmark's own
// polling do not count. Each figure is the median of -runs runs. The
// CPU per row or request of a binary (from /proc) is in the notes, with
// that of this process over the same phase (getrusage), which is the
// load side: the receiver or the ingest clients.
//
// The load side is lean by default: a raw-TCP HTTP/1.1 receiver and
// raw-TCP keep-alive ingest clients that allocate nothing per request
// (http1.go). The machine's CPU is shared by PostgreSQL, the binary under
// test and this process, so whatever the harness spends per request is
// taken from QueueBox: on the 2-core build machine the net/http receiver
// and clients cost about half as much CPU per request as the binary under
// test itself, the lean ones about a quarter, most of it the kernel's
// loopback TCP work. -http-stdlib brings back the net/http receiver and
// clients, to compare.
//
// The Peak RSS column gives the peak resident memory of each binary the
// row's measurement started (VmHWM just before it is stopped, memory.go).
//
// -soak runs the soak instead of the scenarios (make soak, soak.go):
// deliver and ingest under a steady load, failing (exit code 1) when
// their resident memory or the claim p99 grows by more than 20 % between
// the first and the last sixth of the run.
//
// A missed target prints MISS and keeps exit code 0; an error (a binary
// that does not start or stop, rows that do not finish within
// -drain-timeout) prints ERROR and makes the exit code 1. Progress goes
// to stderr; stdout carries the table, then the same table in Markdown.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// opts are the command-line settings.
type opts struct {
	binDir       string
	pgURL        string
	queriesDir   string
	sslmode      string
	scenarios    string
	runs         int
	drainTimeout time.Duration

	// Settings of the binaries.
	pool        int
	concurrency int
	// wideConcurrency is the outbox.concurrency of the extra deliver row.
	wideConcurrency int
	batchSize       int
	pollMs          int

	deliverRows  int
	deliverKeys  int
	keys10Rows   int
	keys10Window time.Duration
	claimRows    int
	claimCalls   int
	explain      bool
	replicaRows  int
	replicaDelay time.Duration
	ingestTime   time.Duration
	ingestWarmup time.Duration
	clients      int
	relayRows    int
	aggregates   int
	backlogRows  int

	// httpStdlib puts the load side (receiver, ingest clients) on net/http.
	httpStdlib bool
}

func parseFlags() opts {
	var o opts
	binDefault := os.Getenv("QUEUEBOX_BIN_DIR")
	if binDefault == "" {
		binDefault = "../bin"
	}
	pgDefault := os.Getenv("QUEUEBOX_TEST_POSTGRES_URL")
	if pgDefault == "" {
		pgDefault = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	flag.StringVar(&o.binDir, "bin", binDefault, "directory of the built queuebox-* binaries")
	flag.StringVar(&o.pgURL, "pg", pgDefault, "maintenance database URL; scenario databases are created beside it")
	flag.StringVar(&o.sslmode, "sslmode", "prefer", "sslmode of every scenario connection, the binaries' and the baselines' (prefer is the default of both pgx and QueueBox)")
	flag.StringVar(&o.queriesDir, "queries", "../pkg/store/postgres/queries", "statement templates, read by -explain only")
	flag.StringVar(&o.scenarios, "scenarios", "all", "comma-separated: "+strings.Join(scenarioNames(), ",")+" or all")
	flag.IntVar(&o.runs, "runs", 3, "runs per measurement; the table shows the median")
	flag.DurationVar(&o.drainTimeout, "drain-timeout", 3*time.Minute, "bound on one drain; rows left after it are an error")

	flag.IntVar(&o.pool, "pool", 20, "database.poolSize of the binaries")
	flag.IntVar(&o.concurrency, "concurrency", 16, "outbox.concurrency of queuebox-deliver")
	flag.IntVar(&o.wideConcurrency, "wide-concurrency", 64, "deliver: outbox.concurrency of the extra null-keys row")
	flag.IntVar(&o.batchSize, "batch", 100, "outbox.batchSize, inbox.relay.batchSize and the baseline claim size")
	flag.IntVar(&o.pollMs, "poll-ms", 100, "outbox.pollIntervalMs and inbox.relay.pollIntervalMs")

	flag.IntVar(&o.deliverRows, "deliver-rows", 10000, "deliver: rows per drain")
	flag.IntVar(&o.deliverKeys, "deliver-keys", 1000, "deliver: distinct keys of the keyed variant")
	flag.IntVar(&o.keys10Rows, "keys10-rows", 20000, "keys10: pending rows per key (10 keys)")
	flag.DurationVar(&o.keys10Window, "keys10-window", 10*time.Second, "keys10: measuring window per run")
	flag.IntVar(&o.claimRows, "claim-rows", 200000, "claim: pending rows")
	flag.IntVar(&o.claimCalls, "claim-calls", 100, "claim: timed Claim calls per key mode")
	flag.BoolVar(&o.explain, "explain", false, "claim: also print EXPLAIN (ANALYZE, BUFFERS) of both claim variants")
	flag.IntVar(&o.replicaRows, "replica-rows", 10000, "replicas: rows per drain")
	flag.DurationVar(&o.replicaDelay, "replica-delay", 5*time.Millisecond, "replicas: answer delay of the receiver in the second variant (the first answers at once)")
	flag.DurationVar(&o.ingestTime, "ingest-duration", 4*time.Second, "ingest: measured time per variant")
	flag.DurationVar(&o.ingestWarmup, "ingest-warmup", 500*time.Millisecond, "ingest: unmeasured load before each variant")
	flag.IntVar(&o.clients, "clients", 16, "ingest: concurrent clients")
	flag.IntVar(&o.relayRows, "relay-rows", 30000, "relay: push rows per drain")
	flag.IntVar(&o.aggregates, "aggregates", 1000, "relay: distinct aggregate ids")
	flag.IntVar(&o.backlogRows, "backlog-rows", 100000, "backlog: push rows of the relay backlog")
	flag.BoolVar(&o.httpStdlib, "http-stdlib", false, "run the load side (the deliver receiver, the ingest clients) on net/http instead of the lean raw-TCP HTTP/1.1 code, to compare")
	flag.Parse()
	return o
}

// check refuses settings that cannot produce a measurement.
func (o opts) check() error {
	for name, v := range map[string]int{
		"-runs": o.runs, "-pool": o.pool, "-concurrency": o.concurrency, "-wide-concurrency": o.wideConcurrency, "-batch": o.batchSize,
		"-poll-ms": o.pollMs, "-deliver-rows": o.deliverRows, "-deliver-keys": o.deliverKeys,
		"-keys10-rows": o.keys10Rows, "-claim-rows": o.claimRows, "-claim-calls": o.claimCalls,
		"-replica-rows": o.replicaRows, "-clients": o.clients, "-relay-rows": o.relayRows,
		"-aggregates": o.aggregates, "-backlog-rows": o.backlogRows,
	} {
		if v < 1 {
			return fmt.Errorf("%s must be at least 1, got %d", name, v)
		}
	}
	if o.ingestTime <= 0 || o.keys10Window <= 0 || o.drainTimeout <= 0 || o.replicaDelay <= 0 {
		return fmt.Errorf("-ingest-duration, -keys10-window, -drain-timeout and -replica-delay must be positive")
	}
	return nil
}

// bench is the shared state of one invocation.
type bench struct {
	o     opts
	srv   *server
	rc    *receiver
	rep   *report
	start time.Time
	// httpDrains are the HTTP drains with null keys at -concurrency and
	// every publish slot open to the destination, the reference of the
	// broker rows' CPU per row; the brokers scenario measures them once.
	httpDrains []drain
	// leftovers counts the rows the deliver binary left processing after
	// SIGTERM in the keys10 runs.
	leftovers int64
}

// scenario is one selectable measurement.
type scenario struct {
	name string
	run  func(*bench, context.Context) error
}

var scenarios = []scenario{
	{"deliver", (*bench).delivery},
	{"keys10", (*bench).tenKeys},
	{"claim", (*bench).claimLatency},
	{"replicas", (*bench).replicas},
	{"ingest", (*bench).ingest},
	{"relay", (*bench).relay},
	{"backlog", (*bench).relayBacklog},
	{"capture", (*bench).capture},
	{"brokers", (*bench).brokers},
	{"signing", (*bench).signing},
	{"tracing", (*bench).tracing},
	{"flow", (*bench).flow},
	{"flowdefaults", (*bench).flowDefaults},
	{"ledger", (*bench).ledger},
	{"fanout", (*bench).fanout},
	{"single", (*bench).single},
	{"workbench", (*bench).workbench},
}

// namedOnly are the scenarios that run only when -scenarios names them,
// not with all: partitions loads 13 million rows at its default sizes.
var namedOnly = []scenario{
	{"partitions", (*bench).partitionsScenario},
}

func scenarioNames() []string {
	var names []string
	for _, s := range append(slices.Clone(scenarios), namedOnly...) {
		names = append(names, s.name)
	}
	return names
}

func main() { os.Exit(run()) }

func run() int {
	o := parseFlags()
	selected, err := selectScenarios(o.scenarios)
	if err != nil {
		fmt.Fprintln(os.Stderr, "qbbench:", err)
		return 2
	}
	if err := o.check(); err != nil {
		fmt.Fprintln(os.Stderr, "qbbench:", err)
		return 2
	}
	for _, bin := range []string{"queuebox-deliver", "queuebox-ingest", "queuebox-relay", "queuebox-capture", "queuebox"} {
		if _, err := os.Stat(fmt.Sprintf("%s/%s", o.binDir, bin)); err != nil {
			fmt.Fprintf(os.Stderr, "qbbench: %v (run make build or pass -bin)\n", err)
			return 1
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *soakFor > 0 && !*soakSharedPG {
		url, stopPG, err := startPrivatePG(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, "qbbench:", err)
			return 1
		}
		defer stopPG()
		logf("soak: on a private PostgreSQL server with %s (-soak-shared-pg measures on -pg)", privateSettingsDescribed())
		o.pgURL = url
	}
	srv, err := newServer(o.pgURL, o.sslmode)
	if err != nil {
		fmt.Fprintln(os.Stderr, "qbbench:", err)
		return 1
	}
	rc, err := newReceiver(o.httpStdlib)
	if err != nil {
		fmt.Fprintln(os.Stderr, "qbbench: receiver:", err)
		return 1
	}
	defer rc.close()
	defer removeHand()
	b := &bench{o: o, srv: srv, rc: rc, rep: &report{}, start: time.Now()}
	if *soakFor > 0 {
		selected = []scenario{{"soak", (*bench).soak}}
	}
	m := readMachine(ctx, srv)
	logf("start: %s", m.summary())

	for _, s := range selected {
		if ctx.Err() != nil {
			break
		}
		t0, ticks0 := time.Now(), readMachineTicks()
		logf("== %s", s.name)
		b.rep.newScenario()
		if err := s.run(b, ctx); err != nil {
			b.rep.fail(s.name, err)
			logf("%s failed: %v", s.name, err)
		}
		share := machineShare(ticks0, readMachineTicks())
		b.rep.scenarioShare(s.name, share)
		logf("== %s done in %s; %s", s.name, time.Since(t0).Round(time.Second), share)
	}
	if ctx.Err() != nil {
		b.rep.fail("interrupted", ctx.Err())
	}
	m.LoadAfter = loadAverage()
	m.Share = machineShare(m.TicksBefore, readMachineTicks())
	m.TotalDuration = time.Since(b.start)
	b.rep.text(os.Stdout, m)
	b.rep.markdown(os.Stdout, m)
	if len(b.rep.errs) > 0 {
		fmt.Fprintln(os.Stderr, "\nqbbench: errors:")
		for _, err := range b.rep.errs {
			fmt.Fprintln(os.Stderr, " -", err)
		}
		return 1
	}
	if *soakFor > 0 && b.rep.missed() {
		fmt.Fprintln(os.Stderr, "\nqbbench: the soak failed: a figure grew by more than the target allows")
		return 1
	}
	return 0
}

func selectScenarios(list string) ([]scenario, error) {
	if list == "" || list == "all" {
		return scenarios, nil
	}
	var out []scenario
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		known := append(slices.Clone(scenarios), namedOnly...)
		i := slices.IndexFunc(known, func(s scenario) bool { return s.name == name })
		if i < 0 {
			return nil, fmt.Errorf("unknown scenario %q; known: %s", name, strings.Join(scenarioNames(), ", "))
		}
		out = append(out, known[i])
	}
	return out, nil
}

// logf prints a progress line to stderr; stdout carries only the tables.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s qbbench: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func itoa(n int) string { return strconv.Itoa(n) }

// merge returns the union of the maps; later maps win.
func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

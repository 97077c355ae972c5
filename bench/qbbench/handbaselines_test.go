package main

import (
	"slices"
	"testing"
	"time"
)

// The rows of issue 42 are named exactly as the issue names them, the
// relay with its index is judged at the faster process count, and the
// relay without it prints as INFO.
func TestHandRelayRows(t *testing.T) {
	b := &bench{o: opts{deliverRows: 1000}, rep: &report{}}
	d := func(rate float64) drain { return drain{Rate: rate, CPUPerRow: 50 * time.Microsecond} }
	hr := handRelayRuns{
		withIndex: [2][]drain{{d(8000)}, {d(10000)}},
		noIndex:   [2][]drain{{d(3000)}, {d(2500)}},
	}
	b.addRelayRows(1000, []drain{d(8500)}, hr)
	got := b.rep.rows
	if len(got) != 2 {
		t.Fatalf("%d rows, want 2", len(got))
	}
	if got[0].Scenario != "deliver vs hand-written relay, 1,000 keys" || got[0].Baseline != "10,000 rows/s" ||
		got[0].Ratio != "85 %" || got[0].Result != resultPass {
		t.Errorf("judged row %+v", got[0])
	}
	if got[1].Scenario != "deliver vs hand-written relay without its index, 1,000 keys" || got[1].Baseline != "3,000 rows/s" ||
		got[1].Result != resultInfo {
		t.Errorf("INFO row %+v", got[1])
	}
}

func TestHandInboxRowNames(t *testing.T) {
	b := &bench{o: opts{clients: 16}, rep: &report{}}
	hand := []handInboxRun{{
		res: make([]loadResult, len(ingestVariants)), cpu: make([]time.Duration, len(ingestVariants)),
		loadCPU: make([]time.Duration, len(ingestVariants)), dbCPU: make([]time.Duration, len(ingestVariants)),
	}}
	for i := range ingestVariants {
		hand[0].res[i].Rate = 1000
		b.addHandInboxRow(i, []float64{1400}, []float64{100}, []float64{30}, []float64{70}, hand)
	}
	var names []string
	for _, x := range b.rep.rows {
		names = append(names, x.Scenario)
		if x.Result != resultMiss || x.Ratio != "140 %" {
			t.Errorf("row %q: %s at %s, want MISS at 140 %%", x.Scenario, x.Result, x.Ratio)
		}
	}
	for _, want := range []string{
		"ingest vs hand-written inbox, no auth, unique keys", "ingest vs hand-written inbox, HMAC, unique keys",
		"ingest vs hand-written inbox, no auth, 50 % duplicates", "ingest vs hand-written inbox, HMAC, 50 % duplicates",
	} {
		if !slices.Contains(names, want) {
			t.Errorf("no row %q in %q", want, names)
		}
	}
}

func TestRabbitMQIngestRows(t *testing.T) {
	rows := brokerIngestRows(brokers[0])
	if len(rows) != 2 || rows[0].name != "ingest from RabbitMQ, prefetch 10" || !rows[0].info ||
		rows[1].name != "ingest from RabbitMQ, prefetch 100" || rows[1].info ||
		rows[1].env["QUEUEBOX_SOURCES_BENCH_PREFETCHCOUNT"] != "100" {
		t.Errorf("RabbitMQ ingest rows %+v", rows)
	}
	if other := brokerIngestRows(brokers[1]); len(other) != 1 || other[0].info {
		t.Errorf("JetStream ingest rows %+v", other)
	}
}

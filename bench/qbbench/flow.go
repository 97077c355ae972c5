package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"
)

// The flow scenario measures flow control per destination (issue 25):
// nine healthy HTTP destinations drain their rows alone, then beside a
// tenth that hangs until its timeoutMs, and beside a tenth whose breaker
// is open over a deep backlog. The nine keep at least the share of their
// throughput alone that the targets name. The healthy destinations share
// the lean receiver (one destination name each); the bad one is a
// net/http server of its own that answers nothing, or 500.
const (
	flowHealthy      = 9
	flowRowsPer      = 2000
	flowHungRows     = 1000
	flowBacklogRows  = 100000
	flowHungTimeout  = "5000"
	flowHungShare    = 0.80
	flowBacklogShare = 0.90
)

var flowOnly = flag.String("flow-only", "", "flow: run one row only, hang or breaker; empty runs both")

func (b *bench) flow(ctx context.Context) error {
	if *flowOnly != "" && *flowOnly != "hang" && *flowOnly != "breaker" {
		return fmt.Errorf("-flow-only %q: want hang or breaker", *flowOnly)
	}
	stop := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	// Close waits for the handlers: the hanging ones end on stop, since a
	// request whose connection was cut does not always see its context
	// end (Close then waited for good and the table was never printed).
	defer func() { close(stop); hang.CloseClientConnections(); hang.Close() }()
	fail := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer fail.Close()
	cases := []struct {
		name    string
		label   string
		url     string
		badRows int
		share   float64
	}{
		{"hang", "flow, 9 destinations beside one that hangs (timeoutMs 5000)", hang.URL, flowHungRows, flowHungShare},
		{"breaker", "flow, 9 destinations beside an open breaker over 100,000 rows", fail.URL, flowBacklogRows, flowBacklogShare},
	}
	for _, c := range cases {
		if *flowOnly != "" && *flowOnly != c.name {
			continue
		}
		var alone, beside []float64
		for i := range b.o.runs {
			a, err := b.flowDrain(ctx, "", 0)
			if err != nil {
				return fmt.Errorf("%s, alone: %w", c.label, err)
			}
			w, err := b.flowDrain(ctx, c.url, c.badRows)
			if err != nil {
				return fmt.Errorf("%s: %w", c.label, err)
			}
			logf("%s run %d: %.0f rows/s beside it, %.0f alone", c.label, i+1, w, a)
			alone, beside = append(alone, a), append(beside, w)
		}
		b.rep.add(vsBaseline(c.label, median(beside), median(alone), "rows/s", "rows/s", c.share,
			fmt.Sprintf("the 9 healthy destinations' rows; runs %s beside vs %s alone", rates(beside), rates(alone))))
	}
	return nil
}

// flowDrain inserts flowRowsPer rows for each healthy destination (and
// badRows for the bad one at badURL, first, when badURL is set), starts
// one queuebox-deliver and returns the healthy rows' drain rate.
func (b *bench) flowDrain(ctx context.Context, badURL string, badRows int) (float64, error) {
	db, err := b.srv.create(ctx, "flow", 4)
	if err != nil {
		return 0, err
	}
	defer db.drop()
	if badURL != "" {
		if err := db.exec(ctx, `INSERT INTO outbox (topic, payload, max_attempts)
			SELECT 'bad.event', jsonb_build_object('n', g), 100 FROM generate_series(1, $1::int) g`, badRows); err != nil {
			return 0, err
		}
	}
	if err := db.exec(ctx, `INSERT INTO outbox (topic, payload)
		SELECT 'ok' || (g % $1::int) || '.event', jsonb_build_object('n', g) FROM generate_series(1, $2::int) g ORDER BY g`,
		flowHealthy, flowHealthy*flowRowsPer); err != nil {
		return 0, err
	}
	if err := db.vacuumAnalyze(ctx, "outbox"); err != nil {
		return 0, err
	}
	b.rc.reset()
	env := merge(db.env(b.o.pool), b.rc.destinationEnv(b.o), flowEnv(b.rc.URL, badURL))
	p, err := startBinary(ctx, b.o.binDir, "deliver", env)
	if err != nil {
		return 0, err
	}
	defer func() { _ = p.stop() }()
	deadline := time.Now().Add(b.o.drainTimeout)
	for {
		var left int64
		if err := db.Store.Pool.QueryRow(ctx, `SELECT count(*) FROM outbox
			WHERE state IN ('pending', 'processing') AND topic LIKE 'ok%'`).Scan(&left); err != nil {
			return 0, err
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%d healthy rows left after %v", left, b.o.drainTimeout)
		}
		if err := sleepCtx(ctx, 50*time.Millisecond); err != nil {
			return 0, err
		}
	}
	var secs float64
	err = db.Store.Pool.QueryRow(ctx, `SELECT extract(epoch FROM max(updated_at) - min(claimed_at))
		FROM outbox WHERE state = 'sent' AND topic LIKE 'ok%'`).Scan(&secs)
	if err != nil || secs <= 0 {
		return 0, fmt.Errorf("healthy drain window: %v (%.3f s)", err, secs)
	}
	return float64(flowHealthy*flowRowsPer) / secs, nil
}

// flowEnv routes ok<i>.event to destination ok<i> on the receiver and
// bad.event to the bad destination, every destination at the defaults of
// flowControl.
func flowEnv(okURL, badURL string) map[string]string {
	env := map[string]string{}
	route := 0
	add := func(name, url, pattern string) {
		up := strings.ToUpper(name)
		env["QUEUEBOX_DESTINATIONS_"+up+"_TYPE"] = "http"
		env["QUEUEBOX_DESTINATIONS_"+up+"_BASEURL"] = url
		env["QUEUEBOX_DESTINATIONS_"+up+"_PATH"] = "/webhook"
		env[fmt.Sprintf("QUEUEBOX_ROUTES_%d_TOPICPATTERN", route)] = pattern
		env[fmt.Sprintf("QUEUEBOX_ROUTES_%d_DESTINATION", route)] = name
		route++
	}
	for i := range flowHealthy {
		add(fmt.Sprintf("ok%d", i), okURL, fmt.Sprintf("ok%d.*", i))
	}
	if badURL != "" {
		add("bad", badURL, "bad.*")
		env["QUEUEBOX_DESTINATIONS_BAD_TIMEOUTMS"] = flowHungTimeout
	}
	return env
}

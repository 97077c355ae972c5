package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
)

// otlpSink is an OTLP/HTTP traces endpoint in the bench process: it reads
// and drops each export and answers an empty success, so a deliver run
// with tracing on pays for building, batching and sending its spans, and
// for nothing that a real collector would add.
type otlpSink struct {
	srv             *httptest.Server
	exports, octets atomic.Int64
}

func newOTLPSink() *otlpSink {
	s := &otlpSink{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		s.exports.Add(1)
		s.octets.Add(n)
		// An empty ExportTraceServiceResponse is zero bytes of protobuf.
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	return s
}

// env turns tracing on in a binary at sampling 1.0, exporting to the sink.
func (s *otlpSink) env() map[string]string {
	return map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": s.srv.URL,
		"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
		"OTEL_TRACES_SAMPLER":         "always_on",
	}
}

// tracing measures what tracing costs the deliver drain: -deliver-rows
// null-key rows with no OTEL_* variable (nothing exported, as the
// default), then with every span exported to the sink at sampling 1.0,
// alternated run by run on fresh databases. The row passes when the
// traced rate is within 10 % of the untraced one, about the run to run
// spread of the deliver rows here; the untraced figure is the one to
// compare with the deliver row of the table (tracing off stays within
// its noise).
func (b *bench) tracing(ctx context.Context) error {
	sink := newOTLPSink()
	defer sink.srv.Close()
	var off, on []drain
	for i := range b.o.runs {
		o, err := b.deliverDrain(ctx, b.o.deliverRows, 0, 1)
		if err != nil {
			return fmt.Errorf("tracing off: %w", err)
		}
		before := sink.octets.Load()
		t, err := b.deliverDrain(ctx, b.o.deliverRows, 0, 1, sink.env())
		if err != nil {
			return fmt.Errorf("tracing on: %w", err)
		}
		off, on = append(off, o), append(on, t)
		logf("tracing run %d: off %.0f rows/s (CPU %v/row), on %.0f rows/s (CPU %v/row), %d KiB of spans exported",
			i+1, o.Rate, o.CPUPerRow, t.Rate, t.CPUPerRow, (sink.octets.Load()-before)/1024)
	}
	if sink.exports.Load() == 0 {
		return fmt.Errorf("tracing on: the OTLP sink received no export")
	}
	b.rep.add(vsBaseline(fmt.Sprintf("deliver traced (OTLP, sampling 1.0) vs tracing off, %s rows", group(int64(b.o.deliverRows))),
		median(drainRates(on)), median(drainRates(off)), "rows/s", "rows/s", 0.90,
		fmt.Sprintf("runs %s vs %s; traced CPU %s/row, off %s/row; %d exports", rates(drainRates(on)), rates(drainRates(off)),
			medianCPU(on), medianCPU(off), sink.exports.Load())))
	return nil
}

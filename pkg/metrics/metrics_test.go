package metrics_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/metrics"
)

// scrape serves reg through Handler and returns the status, content type
// and body.
func scrape(t *testing.T, g prometheus.Gatherer, accept string) (int, string, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	rec := httptest.NewRecorder()
	metrics.Handler(g).ServeHTTP(rec, req)
	return rec.Code, rec.Header().Get("Content-Type"), rec.Body.String()
}

func lines(body string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(body, "\n") {
		out[l] = true
	}
	return out
}

func family(t *testing.T, g prometheus.Gatherer, name string) *dto.MetricFamily {
	t.Helper()
	families, err := g.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() == name {
			return f
		}
	}
	t.Fatalf("no family %s", name)
	return nil
}

func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func TestTimerExposesSummaryAndMax(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	timer := metrics.NewTimer(reg, "queuebox_outbox_publish_duration_seconds", "Publish time.", "destination_type")
	timer.Observe(2*time.Second, "http")
	timer.Observe(500*time.Millisecond, "http")
	timer.Observe(time.Second, "kafka")

	summary := family(t, reg, "queuebox_outbox_publish_duration_seconds")
	require.Equal(t, dto.MetricType_SUMMARY, summary.GetType())
	require.Len(t, summary.GetMetric(), 2)
	for _, m := range summary.GetMetric() {
		var quantiles []float64
		for _, q := range m.GetSummary().GetQuantile() {
			quantiles = append(quantiles, q.GetQuantile())
		}
		require.Equal(t, []float64{0.5, 0.95, 0.99}, quantiles)
		switch labelValue(m, "destination_type") {
		case "http":
			require.Equal(t, uint64(2), m.GetSummary().GetSampleCount())
			require.InDelta(t, 2.5, m.GetSummary().GetSampleSum(), 1e-9)
		case "kafka":
			require.Equal(t, uint64(1), m.GetSummary().GetSampleCount())
			require.InDelta(t, 1.0, m.GetSummary().GetSampleSum(), 1e-9)
		default:
			t.Fatalf("unexpected series %v", m.GetLabel())
		}
	}

	gauge := family(t, reg, "queuebox_outbox_publish_duration_seconds_max")
	require.Equal(t, dto.MetricType_GAUGE, gauge.GetType())
	maxes := map[string]float64{}
	for _, m := range gauge.GetMetric() {
		maxes[labelValue(m, "destination_type")] = m.GetGauge().GetValue()
	}
	require.Equal(t, map[string]float64{"http": 2, "kafka": 1}, maxes)

	code, _, body := scrape(t, reg, "")
	require.Equal(t, http.StatusOK, code)
	got := lines(body)
	for _, want := range []string{
		"# TYPE queuebox_outbox_publish_duration_seconds summary",
		"# TYPE queuebox_outbox_publish_duration_seconds_max gauge",
		`queuebox_outbox_publish_duration_seconds_sum{destination_type="http"} 2.5`,
		`queuebox_outbox_publish_duration_seconds_count{destination_type="http"} 2`,
		`queuebox_outbox_publish_duration_seconds_max{destination_type="http"} 2`,
		`queuebox_outbox_publish_duration_seconds_max{destination_type="kafka"} 1`,
	} {
		require.True(t, got[want], "missing line %q in\n%s", want, body)
	}
	for _, q := range []string{"0.5", "0.95", "0.99"} {
		require.Contains(t, body, `queuebox_outbox_publish_duration_seconds{destination_type="http",quantile="`+q+`"} `)
	}
}

func TestTimerWithoutLabels(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	timer := metrics.NewTimer(reg, "queuebox_outbox_processing_duration_seconds", "Processing time.")
	timer.Since(time.Now().Add(-1500 * time.Millisecond))

	_, _, body := scrape(t, reg, "")
	got := lines(body)
	require.True(t, got["queuebox_outbox_processing_duration_seconds_count 1"], body)
	require.Contains(t, body, "\nqueuebox_outbox_processing_duration_seconds_max ")
	gauge := family(t, reg, "queuebox_outbox_processing_duration_seconds_max")
	require.GreaterOrEqual(t, gauge.GetMetric()[0].GetGauge().GetValue(), 1.5)
}

func TestTimerIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	timer := metrics.NewTimer(reg, "x_seconds", "x", "table")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				timer.Observe(time.Duration(g*100+i)*time.Millisecond, []string{"outbox", "inbox"}[i%2])
				if i%10 == 0 {
					_, err := reg.Gather()
					require.NoError(t, err)
				}
			}
		})
	}
	wg.Wait()
	var count uint64
	for _, m := range family(t, reg, "x_seconds").GetMetric() {
		count += m.GetSummary().GetSampleCount()
	}
	require.Equal(t, uint64(800), count)
	maxes := map[string]float64{}
	for _, m := range family(t, reg, "x_seconds_max").GetMetric() {
		maxes[labelValue(m, "table")] = m.GetGauge().GetValue()
	}
	// The largest observations: 7*100+99 ms (odd i: inbox), 7*100+98 ms (outbox).
	require.InDelta(t, 0.799, maxes["inbox"], 1e-9)
	require.InDelta(t, 0.798, maxes["outbox"], 1e-9)
}

func TestNewRegistryCarriesBuildAndUptimeOnly(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry("1.2.3", time.Now().Add(-time.Hour))
	code, contentType, body := scrape(t, reg, "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "text/plain; version=0.0.4; charset=utf-8", contentType)

	got := lines(body)
	require.True(t, got[`queuebox{version="1.2.3"} 1`], body)
	require.True(t, got["# TYPE queuebox gauge"], body)
	require.True(t, got["# TYPE queuebox_uptime_seconds gauge"], body)

	uptime := family(t, reg, "queuebox_uptime_seconds").GetMetric()[0].GetGauge().GetValue()
	require.GreaterOrEqual(t, uptime, 3600.0)

	families, err := reg.Gather()
	require.NoError(t, err)
	var names []string
	for _, f := range families {
		names = append(names, f.GetName())
		require.False(t, strings.HasPrefix(f.GetName(), "go_"), f.GetName())
		require.False(t, strings.HasPrefix(f.GetName(), "process_"), f.GetName())
	}
	// queuebox_process_memory_bytes is an addition (docs/security.md).
	require.Equal(t, []string{"queuebox", "queuebox_process_memory_bytes", "queuebox_uptime_seconds"}, names)
}

func TestHandlerAlwaysAnswersTextFormat(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry("1.2.3", time.Now())
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "queuebox_outbox_messages_total", Help: "x"})
	reg.MustRegister(c)
	c.Inc()
	for _, accept := range []string{
		"",
		"application/openmetrics-text; version=1.0.0; charset=utf-8",
		"application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
		"application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited",
	} {
		t.Run(accept, func(t *testing.T) {
			t.Parallel()
			code, contentType, body := scrape(t, reg, accept)
			require.Equal(t, http.StatusOK, code)
			require.Equal(t, metrics.ContentType, contentType)
			require.Equal(t, "text/plain; version=0.0.4; charset=utf-8", contentType)
			require.NotContains(t, body, "# EOF", "an OpenMetrics body")
			// A counter keeps its _total suffix in TYPE and sample lines.
			got := lines(body)
			require.True(t, got["# TYPE queuebox_outbox_messages_total counter"], body)
			require.True(t, got["queuebox_outbox_messages_total 1"], body)
		})
	}
}

func TestHandlerGatherErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("collector failed")
	code, _, _ := scrape(t, prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) { return nil, boom }), "")
	require.Equal(t, http.StatusInternalServerError, code)

	// A partial failure still serves what was gathered.
	reg := metrics.NewRegistry("1.2.3", time.Now())
	partial := prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		families, err := reg.Gather()
		require.NoError(t, err)
		return families, boom
	})
	code, _, body := scrape(t, partial, "")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `queuebox{version="1.2.3"} 1`)
}

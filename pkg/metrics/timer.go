// Package metrics holds the Prometheus building blocks every QueueBox
// binary shares: the registry, the build and uptime gauges, and a timer
// that exposes a summary together with its window maximum, as the metrics
// reference documents (x_seconds plus the gauge x_seconds_max).
package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Objectives are the quantiles every timer summary exports.
var Objectives = map[float64]float64{0.5: 0.01, 0.95: 0.005, 0.99: 0.001}

// maxWindow is how long an observation stays in the _max gauge. It matches
// a two-minute decay window rotated in three steps.
const (
	maxWindow    = 2 * time.Minute
	maxRotations = 3
)

// Timer is a summary of durations in seconds and a gauge of the largest
// duration of the current window. It is safe for concurrent use.
type Timer struct {
	summary *prometheus.SummaryVec
	max     *maxCollector
}

// NewTimer registers name (a summary) and name_max (a gauge) on reg, or
// shares them when reg already holds a timer of that name and labels.
func NewTimer(reg prometheus.Registerer, name, help string, labels ...string) *Timer {
	t := &Timer{
		summary: prometheus.NewSummaryVec(prometheus.SummaryOpts{
			Name: name, Help: help, Objectives: Objectives, MaxAge: maxWindow, AgeBuckets: maxRotations,
		}, labels),
		max: newMaxCollector(name+"_max", "The largest value of "+name+" in the current window.", labels),
	}
	// A second timer of the same name on reg (the outbox and inbox
	// cleanup of one process) shares the registered collectors.
	t.summary = MustRegister(reg, t.summary)
	t.max = MustRegister(reg, t.max)
	return t
}

// Observe records one duration for the label values.
func (t *Timer) Observe(d time.Duration, labelValues ...string) {
	seconds := d.Seconds()
	t.summary.WithLabelValues(labelValues...).Observe(seconds)
	t.max.observe(seconds, labelValues, time.Now())
}

// Since records the time since start.
func (t *Timer) Since(start time.Time, labelValues ...string) {
	t.Observe(time.Since(start), labelValues...)
}

// maxCollector exposes, per label set, the largest observation of the last
// maxWindow. It computes the value at scrape time, so an old peak decays
// without a background goroutine.
type maxCollector struct {
	desc   *prometheus.Desc
	mu     sync.Mutex
	series map[string]*windowMax
}

func newMaxCollector(name, help string, labels []string) *maxCollector {
	return &maxCollector{
		desc:   prometheus.NewDesc(name, help, labels, nil),
		series: map[string]*windowMax{},
	}
}

func (c *maxCollector) observe(v float64, labelValues []string, now time.Time) {
	// The key is built on the stack and looked up without a conversion
	// that allocates: a timer runs once per row on the hot paths.
	var buf [128]byte
	key := appendSeriesKey(buf[:0], labelValues)
	c.mu.Lock()
	defer c.mu.Unlock()
	w, ok := c.series[string(key)]
	if !ok {
		w = &windowMax{labels: append([]string(nil), labelValues...)}
		c.series[string(key)] = w
	}
	w.observe(v, now)
}

// Describe implements prometheus.Collector.
func (c *maxCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector.
func (c *maxCollector) Collect(ch chan<- prometheus.Metric) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, w := range c.series {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, w.value(now), w.labels...)
	}
}

func appendSeriesKey(key []byte, values []string) []byte {
	for _, v := range values {
		key = append(key, v...)
		key = append(key, 0xff)
	}
	return key
}

// windowMax keeps the maximum of maxRotations slots of maxWindow/maxRotations
// each; the oldest slot is dropped when time moves past it.
type windowMax struct {
	labels []string
	slots  [maxRotations]float64
	starts [maxRotations]time.Time
}

func slotStart(now time.Time) time.Time {
	return now.Truncate(maxWindow / maxRotations)
}

func (w *windowMax) observe(v float64, now time.Time) {
	start := slotStart(now)
	i := int(start.UnixNano()/int64(maxWindow/maxRotations)) % maxRotations
	if !w.starts[i].Equal(start) {
		w.starts[i], w.slots[i] = start, 0
	}
	if v > w.slots[i] {
		w.slots[i] = v
	}
}

func (w *windowMax) value(now time.Time) float64 {
	oldest := slotStart(now).Add(-maxWindow + maxWindow/maxRotations)
	max := 0.0
	for i := range w.slots {
		if !w.starts[i].Before(oldest) && w.slots[i] > max {
			max = w.slots[i]
		}
	}
	return max
}

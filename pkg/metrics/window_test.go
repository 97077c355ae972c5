package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
)

const slot = maxWindow / maxRotations

func TestWindowMaxHoldsThePeakForTheWindowThenDecays(t *testing.T) {
	t.Parallel()
	// Aligned and unaligned starts: the window counts whole slots.
	for _, offset := range []time.Duration{0, slot / 2, slot - time.Nanosecond} {
		t.Run(offset.String(), func(t *testing.T) {
			t.Parallel()
			t0 := time.Unix(1_700_000_000, 0).Truncate(slot).Add(offset)
			var w windowMax
			w.observe(5, t0)
			w.observe(2, t0) // a smaller value does not lower the peak

			for _, tc := range []struct {
				at   time.Duration
				want float64
			}{
				{0, 5},
				{slot, 5},
				{2 * slot, 5},  // at least two whole slots after the observation
				{maxWindow, 0}, // gone once the window passed
				{maxWindow + slot, 0},
				{10 * maxWindow, 0},
			} {
				require.Equal(t, tc.want, w.value(t0.Add(tc.at)), "value at t0+%s", tc.at)
			}
		})
	}
}

func TestWindowMaxKeepsTheLargestOfTheLiveSlots(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1_700_000_000, 0).Truncate(slot)
	var w windowMax
	w.observe(1, t0)
	w.observe(9, t0.Add(slot))
	w.observe(4, t0.Add(2*slot))
	require.Equal(t, 9.0, w.value(t0.Add(2*slot)))

	// The slot of 1 leaves the window: 9 stays the peak.
	require.Equal(t, 9.0, w.value(t0.Add(3*slot)))
	// The slot of 9 leaves: 4 remains.
	require.Equal(t, 4.0, w.value(t0.Add(4*slot)))
	require.Equal(t, 0.0, w.value(t0.Add(5*slot)))
}

// A slot is reused once the ring turns: its old peak must not survive.
func TestWindowMaxResetsAReusedSlot(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1_700_000_000, 0).Truncate(slot)
	var w windowMax
	w.observe(50, t0)
	later := t0.Add(maxRotations * slot) // same ring position, a new slot
	w.observe(3, later)
	require.Equal(t, 3.0, w.value(later))
	w.observe(7, later.Add(slot/2))
	require.Equal(t, 7.0, w.value(later.Add(slot/2)))
}

func TestMaxCollectorKeepsOneSeriesPerLabelSet(t *testing.T) {
	t.Parallel()
	c := newMaxCollector("x_seconds_max", "help", []string{"destination_type"})
	now := time.Now()
	c.observe(2, []string{"http"}, now)
	c.observe(0.5, []string{"http"}, now)
	c.observe(1, []string{"kafka"}, now)
	require.Len(t, c.series, 2)
	require.Equal(t, 2.0, c.series[string(appendSeriesKey(nil, []string{"http"}))].value(now))
	require.Equal(t, 1.0, c.series[string(appendSeriesKey(nil, []string{"kafka"}))].value(now))
	require.NotEqual(t, string(appendSeriesKey(nil, []string{"a", "b"})), string(appendSeriesKey(nil, []string{"ab", ""})))
}

// A timer observes once per row on the hot paths: an observation of a
// label set seen before allocates nothing.
func BenchmarkTimerObserve(b *testing.B) {
	t := NewTimer(prometheus.NewRegistry(), "bench_seconds", "A benchmark.", "destination_type")
	t.Observe(time.Millisecond, "http")
	b.ReportAllocs()
	for b.Loop() {
		t.Observe(time.Millisecond, "http")
	}
}

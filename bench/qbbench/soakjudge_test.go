package main

import (
	"strings"
	"testing"
	"time"
)

// flat returns points every step over [0, total] with value v, then
// applies edit to each (at, value).
func flat(total, step time.Duration, v float64, edit func(at time.Duration, v float64) float64) []point {
	var ps []point
	for at := time.Duration(0); at <= total; at += step {
		x := v
		if edit != nil {
			x = edit(at, v)
		}
		ps = append(ps, point{at, x})
	}
	return ps
}

func TestJudgeComparesFirstAndLastSixth(t *testing.T) {
	const total = 30 * time.Minute
	const step = 10 * time.Second
	late := func(factor float64) func(time.Duration, float64) float64 {
		return func(at time.Duration, v float64) float64 {
			if at >= 25*time.Minute {
				return v * factor
			}
			return v
		}
	}
	for _, tc := range []struct {
		name        string
		points      []point
		agg         func([]float64) float64
		wantOK      bool
		first, last float64
		problem     string
	}{
		{name: "steady", points: flat(total, step, 100, nil), agg: peakOf, wantOK: true, first: 100, last: 100},
		{name: "19 % more in the last window", points: flat(total, step, 100, late(1.19)), agg: peakOf, wantOK: true, first: 100, last: 119},
		{name: "exactly 20 % more", points: flat(total, step, 100, late(1.20)), agg: peakOf, wantOK: true, first: 100, last: 120},
		{name: "25 % more", points: flat(total, step, 100, late(1.25)), agg: peakOf, wantOK: false, first: 100, last: 125},
		{name: "a drop", points: flat(total, step, 100, late(0.5)), agg: peakOf, wantOK: true, first: 100, last: 50},
		{
			name: "growth in the middle only does not count", agg: peakOf, wantOK: true, first: 100, last: 100,
			points: flat(total, step, 100, func(at time.Duration, v float64) float64 {
				if at > 10*time.Minute && at < 20*time.Minute {
					return 3 * v
				}
				return v
			}),
		},
		{
			name: "a steady leak fails", agg: peakOf, wantOK: false,
			// 100 at the start, +1 a minute: 105 at the end of the first
			// window, 130 at the end.
			points: flat(total, step, 100, func(at time.Duration, v float64) float64 {
				return v + float64(at/time.Minute)
			}),
			first: 104, last: 130,
		},
		{
			name: "two slow claims in the 301 of the last window stay above its p99", agg: p99Of, wantOK: true,
			first: float64(time.Millisecond), last: float64(time.Millisecond),
			points: flat(total, time.Second, float64(time.Millisecond), func(at time.Duration, v float64) float64 {
				if at >= 29*time.Minute+59*time.Second { // the last two of its 301 points
					return 10 * v
				}
				return v
			}),
		},
		{
			name: "p99 that doubles fails", agg: p99Of, wantOK: false,
			first: float64(time.Millisecond), last: float64(2 * time.Millisecond),
			points: flat(total, time.Second, float64(time.Millisecond), func(at time.Duration, v float64) float64 {
				if at >= 25*time.Minute && at%(20*time.Second) == 0 { // 5 % of the last window
					return 2 * v
				}
				return v
			}),
		},
		{name: "no point at all", agg: peakOf, problem: "no sample in the first 5m0s"},
		{
			name: "nothing in the last window", agg: peakOf, problem: "no sample in the last 5m0s",
			points: []point{{0, 100}, {time.Minute, 100}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judge(series{name: "x", points: tc.points, agg: tc.agg}, total, soakGrowth)
			if v.problem != tc.problem {
				t.Fatalf("problem = %q, want %q", v.problem, tc.problem)
			}
			if tc.problem != "" {
				if v.ok {
					t.Fatal("a series that cannot be judged passed")
				}
				return
			}
			if v.ok != tc.wantOK || v.first != tc.first || v.last != tc.last {
				t.Fatalf("ok %v, first %v, last %v; want %v, %v, %v", v.ok, v.first, v.last, tc.wantOK, tc.first, tc.last)
			}
		})
	}
}

func TestSoakWindowIsASixth(t *testing.T) {
	for _, tc := range []struct{ total, window, every time.Duration }{
		{30 * time.Minute, 5 * time.Minute, 10 * time.Second},
		{3 * time.Minute, 30 * time.Second, 3 * time.Second},
		{30 * time.Second, 5 * time.Second, time.Second},
	} {
		if got := soakWindow(tc.total); got != tc.window {
			t.Errorf("soakWindow(%v) = %v, want %v", tc.total, got, tc.window)
		}
		if got := soakSampleEvery(tc.total); got != tc.every {
			t.Errorf("soakSampleEvery(%v) = %v, want %v", tc.total, got, tc.every)
		}
	}
}

func TestSoakRow(t *testing.T) {
	s := series{name: "deliver memory", points: []point{{0, 1024}, {time.Minute, 2048}},
		format: func(v float64) string { return "v" + strings.Repeat("!", int(v/1024)) }}
	for _, tc := range []struct {
		v                              soakVerdict
		result, measured, base, growth string
	}{
		{soakVerdict{name: "m", first: 1024, last: 2048}, resultMiss, "v!!", "v!", "+100 %"},
		{soakVerdict{name: "m", first: 2048, last: 2048, ok: true}, resultPass, "v!!", "v!!", "+0 %"},
		{soakVerdict{name: "m", problem: "no sample in the last 10s"}, resultMiss, "-", "-", "-"},
	} {
		x := soakRow(s, tc.v, time.Minute)
		if x.Result != tc.result || x.Measured != tc.measured || x.Baseline != tc.base || x.Ratio != tc.growth {
			t.Errorf("soakRow(%+v) = %+v; want %s %s %s %s", tc.v, x, tc.result, tc.measured, tc.base, tc.growth)
		}
	}
}

func TestStatusKiB(t *testing.T) {
	const status = "Name:\tqueuebox-deliver\nVmPeak:\t 1300000 kB\nVmHWM:\t   41000 kB\nVmRSS:\t   39876 kB\nThreads:\t9\n"
	for _, tc := range []struct {
		text, field string
		want        int64
	}{
		{status, "VmRSS", 39876},
		{status, "VmHWM", 41000},
		{status, "Threads", 0}, // no unit
		{status, "VmSwap", 0},  // absent
		{"VmRSS:\tlots kB\n", "VmRSS", 0},
		{"", "VmRSS", 0},
	} {
		if got := statusKiB(tc.text, tc.field); got != tc.want {
			t.Errorf("statusKiB(%q, %s) = %d, want %d", tc.text, tc.field, got, tc.want)
		}
	}
}

func TestSampleValue(t *testing.T) {
	const text = `# TYPE queuebox_outbox_processing_duration_seconds summary
queuebox_outbox_processing_duration_seconds{quantile="0.5"} 0.002
queuebox_outbox_processing_duration_seconds{quantile="0.99"} 0.0125
queuebox_outbox_processing_duration_seconds_sum 12.5
queuebox_outbox_processing_duration_seconds_count 4000
`
	for _, tc := range []struct {
		series string
		want   float64
		ok     bool
	}{
		{`queuebox_outbox_processing_duration_seconds{quantile="0.99"}`, 0.0125, true},
		{`queuebox_outbox_processing_duration_seconds_count`, 4000, true},
		{`queuebox_outbox_processing_duration_seconds`, 0, false}, // a prefix of other series only
		{`queuebox_outbox_processing_duration_seconds{quantile="0.9"}`, 0, false},
	} {
		got, ok := sampleValue(text, tc.series)
		if got != tc.want || ok != tc.ok {
			t.Errorf("sampleValue(%s) = %v, %v; want %v, %v", tc.series, got, ok, tc.want, tc.ok)
		}
	}
}

func TestQuantileOf(t *testing.T) {
	var vs []float64
	for i := 100; i >= 1; i-- {
		vs = append(vs, float64(i))
	}
	for _, tc := range []struct{ p, want float64 }{{50, 50}, {99, 99}, {100, 100}} {
		if got := quantileOf(tc.p)(vs); got != tc.want {
			t.Errorf("quantileOf(%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
}

package main

import (
	"fmt"
	"time"
)

// soakGrowth is the most a soak figure may grow between the first and
// the last window: 20 %.
const soakGrowth = 0.20

// soakWindowShare is the share of the soak each compared window covers:
// the first and the last five minutes of thirty, a sixth of a shorter
// run.
const soakWindowShare = 6

// point is one sample of a soak series, at its offset from the start of
// the measured part.
type point struct {
	at time.Duration
	v  float64
}

// series is one figure the soak judges: its samples and how a window of
// them is summed up (the peak for memory, the p99 for claims).
type series struct {
	name   string
	points []point
	agg    func([]float64) float64
	// format prints an aggregated value with its unit.
	format func(float64) string
}

// soakVerdict is the comparison of a series' first and last windows.
type soakVerdict struct {
	name        string
	first, last float64
	ok          bool
	// problem says why the series could not be judged; "" when it was.
	problem string
}

// soakWindow is the length of each compared window of a soak of total.
func soakWindow(total time.Duration) time.Duration { return total / soakWindowShare }

// judge compares the aggregate of the points in [0, window) with that of
// the points in [total-window, total]: it passes when the last is at most
// (1+maxGrowth) times the first. A window without a point fails, since
// nothing can then be said.
func judge(s series, total time.Duration, maxGrowth float64) soakVerdict {
	window := soakWindow(total)
	var first, last []float64
	for _, p := range s.points {
		if p.at < window {
			first = append(first, p.v)
		}
		if p.at >= total-window && p.at <= total {
			last = append(last, p.v)
		}
	}
	v := soakVerdict{name: s.name}
	switch {
	case len(first) == 0:
		v.problem = fmt.Sprintf("no sample in the first %v", window)
		return v
	case len(last) == 0:
		v.problem = fmt.Sprintf("no sample in the last %v", window)
		return v
	}
	v.first, v.last = s.agg(first), s.agg(last)
	v.ok = v.last <= v.first*(1+maxGrowth)
	return v
}

// growth is last/first - 1, or 0 when first is 0.
func (v soakVerdict) growth() float64 {
	if v.first <= 0 {
		return 0
	}
	return v.last/v.first - 1
}

// peakOf is the largest value, the aggregate of a memory window.
func peakOf(vs []float64) float64 {
	top := 0.0
	for _, v := range vs {
		top = max(top, v)
	}
	return top
}

// quantileOf returns the aggregate of a latency window: the nearest-rank
// p-th percentile of values in nanoseconds.
func quantileOf(p float64) func([]float64) float64 {
	return func(vs []float64) float64 {
		ds := make([]time.Duration, len(vs))
		for i, v := range vs {
			ds[i] = time.Duration(v)
		}
		return float64(percentile(ds, p))
	}
}

// p99Of is the aggregate of a claim-latency window.
var p99Of = quantileOf(99)

// soakRow turns a verdict into a row of the summary table.
func soakRow(s series, v soakVerdict, total time.Duration) row {
	window := soakWindow(total)
	x := row{Scenario: "soak, " + v.name, Ratio: "-", Result: resultMiss,
		Target: fmt.Sprintf("≤ +%.0f %% of the first %v", soakGrowth*100, window),
		Notes:  fmt.Sprintf("%d samples over %v; measured: the last %v, baseline: the first", len(s.points), total, window)}
	if v.problem != "" {
		x.Measured, x.Baseline, x.Notes = "-", "-", v.problem
		return x
	}
	x.Measured, x.Baseline = s.format(v.last), s.format(v.first)
	x.Ratio = fmt.Sprintf("%+.0f %%", 100*v.growth())
	x.Result = verdict(v.ok)
	return x
}

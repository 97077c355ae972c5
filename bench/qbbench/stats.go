package main

import (
	"slices"
	"time"
)

// median returns the middle value of xs (the mean of the two middle values
// for an even count), or 0 for no value.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// percentile returns the p-th percentile (0 < p <= 100) of ds by the
// nearest-rank method: the smallest value that at least p % of the values
// do not exceed. It returns 0 for no value.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := int(float64(len(s))*p/100 + 0.999999999)
	rank = min(max(rank, 1), len(s))
	return s[rank-1]
}

// ms converts a duration to fractional milliseconds, the unit of every
// latency in the report.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

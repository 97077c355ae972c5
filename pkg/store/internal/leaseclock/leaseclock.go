// Package leaseclock is the clock option of the lease statements, shared
// by both dialects' stores: the nullable now parameter that a test sets
// to move time forward and production leaves to the database clock.
package leaseclock

import "time"

// Option configures a store at construction.
type Option func(*Options)

// Options are the settings an Option sets.
type Options struct {
	now func() time.Time
}

// WithClock makes the lease statements (claims, renewals, outcome and
// forward writes, reclaims) read the time from now instead of the
// database clock: a test moves it forward to see leases expire without
// waiting. nil, the default and the only production setting, keeps the
// database clock. now must be safe for concurrent use; the store calls it
// once per statement.
func WithClock(now func() time.Time) Option {
	return func(o *Options) { o.now = now }
}

// New applies opts.
func New(opts []Option) Options {
	var o Options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// Clock is the nullable clock parameter of a lease statement: nil, so
// the statement reads the database clock, unless a clock is set. The
// time goes in UTC: PostgreSQL's timestamptz keeps the instant either
// way, and SQL Server's statements cast it to DATETIME2, which keeps the
// wall time and drops the offset.
func (o Options) Clock() any {
	if o.now == nil {
		return nil
	}
	return o.now().UTC()
}

// Now is the store's time: the test clock of WithClock, or the local
// clock without one. The claims' scan floors (package scanfloor) run on
// it, so a test that holds the clock still also holds their schedule.
func (o Options) Now() time.Time {
	if o.now == nil {
		return time.Now()
	}
	return o.now()
}

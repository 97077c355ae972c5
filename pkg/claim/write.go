package claim

import (
	"context"
	"time"
)

// Fenced-write retry bounds: a short database fault should not leave rows
// processing until their lease expires, nor turn a delivered message into
// a redelivery.
const (
	writeTries        = 5
	writeFirstBackoff = 50 * time.Millisecond
	writeTimeout      = 30 * time.Second
)

// RetryWrite runs a fenced write (one that returns the ids it changed) up
// to five times with a doubling backoff, each try bounded by 30 s.
// failed hears of every failed try. Once ctx is done, it stops after the
// second try. It returns the last error when every try failed.
func RetryWrite(ctx context.Context, write func(context.Context) (map[string]bool, error),
	failed func(attempt int, err error)) (map[string]bool, error) {
	delay := writeFirstBackoff
	var err error
	for attempt := 1; attempt <= writeTries; attempt++ {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
		var kept map[string]bool
		kept, err = write(wctx)
		cancel()
		if err == nil {
			return kept, nil
		}
		failed(attempt, err)
		if attempt == writeTries || (ctx.Err() != nil && attempt > 1) {
			break
		}
		time.Sleep(delay)
		delay *= 2
	}
	return nil, err
}

package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// load is a closed-loop load: clients goroutines each send one request,
// wait for its answer and send the next, for warmup then measure.
type load struct {
	clients int
	warmup  time.Duration
	measure time.Duration
	// dup makes every second request repeat a key sent about 2×clients
	// requests earlier (already committed in the common case): 50 %
	// duplicates.
	dup bool
}

// loadResult holds what the measured part of a load saw.
type loadResult struct {
	OK, Failed int64
	Sent       int64 // requests sent, the warmup included
	Latencies  []time.Duration
	Rate       float64 // OK per second of the measured part
	FirstError error
}

// keyFor returns the key number of request n.
func (l load) keyFor(n int64) int64 {
	if !l.dup {
		return n
	}
	if n%2 == 0 {
		return n / 2
	}
	return max(n/2-int64(l.clients), 0)
}

// run drives send until warmup+measure passed. send gets the index of the
// client goroutine (0 to clients-1, so a client can own a connection) and
// the key number of its request; an error counts the request as failed. Requests that
// complete inside the measured part count, with their latencies.
func (l load) run(ctx context.Context, send func(ctx context.Context, client int, key int64) error) loadResult {
	var (
		next       atomic.Int64
		mu         sync.Mutex
		res        loadResult
		wg         sync.WaitGroup
		start      = time.Now()
		measureAt  = start.Add(l.warmup)
		end        = measureAt.Add(l.measure)
		sendCtx, c = context.WithDeadline(ctx, end.Add(5*time.Second))
	)
	defer c()
	for client := range l.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat []time.Duration
			var ok, failed int64
			var firstErr error
			for sendCtx.Err() == nil {
				t0 := time.Now()
				if !t0.Before(end) {
					break
				}
				err := send(sendCtx, client, l.keyFor(next.Add(1)-1))
				t1 := time.Now()
				if t0.Before(measureAt) || t1.After(end) {
					continue
				}
				if err != nil {
					failed++
					if firstErr == nil {
						firstErr = err
					}
					continue
				}
				ok++
				lat = append(lat, t1.Sub(t0))
			}
			mu.Lock()
			defer mu.Unlock()
			res.OK += ok
			res.Failed += failed
			res.Latencies = append(res.Latencies, lat...)
			if res.FirstError == nil {
				res.FirstError = firstErr
			}
		}()
	}
	wg.Wait()
	res.Sent = next.Load()
	res.Rate = float64(res.OK) / l.measure.Seconds()
	return res
}

// check turns a load without any success into an error.
func (r loadResult) check(what string) error {
	if r.OK == 0 {
		return fmt.Errorf("%s: no request succeeded (%d failed, first error: %v)", what, r.Failed, r.FirstError)
	}
	if r.Failed > 0 {
		logf("warning: %s: %d requests failed, first error: %v", what, r.Failed, r.FirstError)
	}
	return nil
}

package deliver

import (
	"context"
	"sync"
	"time"

	"github.com/alternayte/queuebox/pkg/backoff"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// gaugeRefresher reads the pending rows at most once per
// PendingGaugeInterval (less often while the read is slow) and sets the pending, age and queue depth
// gauges. A scrape never runs a query.
type gaugeRefresher struct {
	opts      Options
	seen      map[string]bool
	published *sync.Map
}

func newGaugeRefresher(opts Options, published *sync.Map) *gaugeRefresher {
	return &gaugeRefresher{opts: opts, seen: map[string]bool{}, published: published}
}

// run refreshes until ctx ends, every PendingGaugeInterval, or less often
// when the read turns slow (backoff.Paced): it counts every pending row,
// and under a backlog of a million rows that takes seconds of the
// database that has fallen behind.
func (g *gaugeRefresher) run(ctx context.Context) {
	for {
		start := time.Now()
		g.refresh(ctx)
		if !backoff.Sleep(ctx, backoff.Paced(g.opts.PendingGaugeInterval, time.Since(start))) {
			return
		}
	}
}

func (g *gaugeRefresher) refresh(ctx context.Context) {
	stats, err := g.opts.Store.Pending(ctx)
	if err != nil {
		if ctx.Err() == nil {
			g.opts.Logger.Warn("reading the pending gauges failed", "err", err)
		}
		return
	}
	var total int64
	for _, n := range stats.ByTopic {
		total += n
	}
	depth := queueDepth(stats, g.opts.Router.DestinationsOf)
	m := g.opts.Metrics
	m.Pending.Set(float64(total))
	m.OldestPendingAge.Set(stats.OldestAge.Seconds())
	g.published.Range(func(dest, _ any) bool {
		g.seen[dest.(string)] = true
		return true
	})
	for dest := range g.seen {
		if _, ok := depth[dest]; !ok {
			m.QueueDepth.WithLabelValues(dest).Set(0)
		}
	}
	for dest, n := range depth {
		g.seen[dest] = true
		m.QueueDepth.WithLabelValues(dest).Set(float64(n))
	}
}

// queueDepth counts the pending rows of each destination: a routed row
// under its destination column, a row not routed yet once under each
// destination its topic's route names now, since routing makes it one
// delivery per destination of a fan-out. A store that reports no
// destinations has every row counted through its topic.
func queueDepth(stats queuebox.PendingStats, destinationsOf func(topic string) []string) map[string]int64 {
	depth := map[string]int64{}
	for dest, n := range stats.ByDestination {
		depth[dest] += n
	}
	unrouted := stats.Unrouted
	if stats.ByDestination == nil && unrouted == nil {
		unrouted = stats.ByTopic
	}
	for topic, n := range unrouted {
		for _, dest := range destinationsOf(topic) {
			depth[dest] += n
		}
	}
	return depth
}

package deliver

import (
	"context"
	"sync"
	"time"
)

// gaugeRefresher reads the pending rows at most once per
// PendingGaugeInterval and sets the pending, age and queue depth
// gauges. A scrape never runs a query.
type gaugeRefresher struct {
	opts      Options
	seen      map[string]bool
	published *sync.Map
}

func newGaugeRefresher(opts Options, published *sync.Map) *gaugeRefresher {
	return &gaugeRefresher{opts: opts, seen: map[string]bool{}, published: published}
}

func (g *gaugeRefresher) run(ctx context.Context) {
	ticker := time.NewTicker(g.opts.PendingGaugeInterval)
	defer ticker.Stop()
	for {
		g.refresh(ctx)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
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
	depth := map[string]int64{}
	for topic, n := range stats.ByTopic {
		total += n
		if dest := g.opts.Router.DestinationOf(topic); dest != "" {
			depth[dest] += n
		}
	}
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

package tracing

import (
	"context"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// WrapOutbox returns o with a span per Claim, Finish and FinishAgain
// statement, keeping o's NextDuer when it has one; a nil b returns o.
func WrapOutbox(o queuebox.OutboxStore, b *Batch) queuebox.OutboxStore {
	if b == nil {
		return o
	}
	t := tracedOutbox{OutboxStore: o, batch: b}
	if nd, ok := o.(queuebox.NextDuer); ok {
		return tracedOutboxNextDue{tracedOutbox: t, NextDuer: nd}
	}
	return t
}

type tracedOutbox struct {
	queuebox.OutboxStore
	batch *Batch
}

type tracedOutboxNextDue struct {
	tracedOutbox
	queuebox.NextDuer
}

// Claim records its span only after a claim that found rows: an idle
// poller claims nothing every poll interval, and a trace per empty poll
// would bury the traces of the rows.
func (t tracedOutbox) Claim(ctx context.Context, limit int) ([]queuebox.ClaimedMessage, error) {
	began := time.Now()
	rows, err := t.OutboxStore.Claim(ctx, limit)
	if len(rows) > 0 || err != nil {
		_, end := t.batch.StartAt(ctx, "claim outbox", limit, began)
		end(len(rows), err)
	}
	return rows, err
}

func (t tracedOutbox) Finish(ctx context.Context, outcomes []queuebox.Outcome) (map[string]bool, error) {
	ctx, end := t.batch.Start(ctx, "finish outbox", len(outcomes), nil)
	kept, err := t.OutboxStore.Finish(ctx, outcomes)
	end(countKept(kept), err)
	return kept, err
}

func (t tracedOutbox) FinishAgain(ctx context.Context, outcomes []queuebox.Outcome) (map[string]bool, error) {
	ctx, end := t.batch.Start(ctx, "finish outbox", len(outcomes), nil)
	kept, err := t.OutboxStore.FinishAgain(ctx, outcomes)
	end(countKept(kept), err)
	return kept, err
}

func countKept(kept map[string]bool) int {
	n := 0
	for _, k := range kept {
		if k {
			n++
		}
	}
	return n
}

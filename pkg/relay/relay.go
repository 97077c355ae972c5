package relay

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/alternayte/queuebox/pkg/backoff"
	"github.com/alternayte/queuebox/pkg/claim"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/tracing"
)

// Store is the relay side of the inbox; see queuebox.RelayStore.
type Store = queuebox.RelayStore

// Relay forwards push rows of the inbox into the outbox. It implements the
// component contract of package run.
type Relay struct {
	opts   Options
	loop   *claim.Loop[queuebox.InboxRow]
	writes claim.WriteRetry
	health *claim.Health
	batch  *tracing.Batch // nil when tracing is off
}

// New builds the relay. It returns an error when a required option is
// missing or a setting is negative.
func New(opts Options) (*Relay, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	r := &Relay{opts: opts, writes: claim.WriteRetry{Patience: opts.ClaimTimeout},
		health: claim.NewHealth(opts.Logger, "relay fails", "claims succeed again; the inbox relay is up"),
		batch:  tracing.NewBatch()}
	r.loop = claim.NewBatch(claim.Config{
		Name:          "inbox-relay",
		BatchSize:     opts.BatchSize,
		PollInterval:  opts.PollInterval,
		LeaseDuration: opts.ClaimTimeout,
		LeaseSetting:  "inbox.relay.claimTimeoutMs",
		// Forwarding is one statement per batch; a short drain suffices.
		ShutdownTimeout: opts.ShutdownTimeout,
		Logger:          opts.Logger,
		Hooks: claim.Hooks{
			Lost:        func(claim.Lease) { opts.Metrics.ClaimsLost.Inc() },
			ClaimFailed: func(string, error) { opts.Metrics.Errors.Inc() },
		},
		Health: r.health,
	}, opts.Store, r.forwardBatch)
	return r, nil
}

// Name implements run.Component.
func (r *Relay) Name() string { return "inbox-relay" }

// Run forwards until ctx ends.
func (r *Relay) Run(ctx context.Context) error {
	done := make(chan struct{})
	go func() { defer close(done); r.refreshAge(ctx) }()
	err := r.loop.Run(ctx)
	<-done
	return err
}

// Check is the health check of the inbox-relay component: down from a
// failed claim or write ("relay fails: ...") until the next claim or
// write that the database answers, empty claims included. It is safe for
// concurrent use and never blocks.
func (r *Relay) Check(ctx context.Context) error { return r.health.Check(ctx) }

// forwardBatch renders each row's topic and headers, forwards the rows
// with a topic and marks the others dead, each in one fenced statement.
func (r *Relay) forwardBatch(ctx context.Context, rows []queuebox.InboxRow) {
	// One span for the batch, linked to each row's trace; the outbox rows
	// keep their inbox row's context, so each delivery continues the
	// request or message that brought it in.
	ctx, end := r.batch.Start(ctx, "relay forward", len(rows), r.rowHeaders(rows))
	defer end(-1, nil)
	var forwards []queuebox.Forward
	var dead []queuebox.DeadMark
	for _, row := range rows {
		f, reason := r.prepare(row)
		if reason != "" {
			dead = append(dead, queuebox.DeadMark{Lease: row.Lease(), Reason: reason})
			r.opts.Logger.WarnContext(r.rowContext(ctx, []byte(row.Headers)), "inbox row dead",
				"inbox_id", row.ID, "source", row.Source, "reason", reason)
			continue
		}
		forwards = append(forwards, f)
	}
	dead = append(dead, r.forward(ctx, forwards)...)
	if len(dead) > 0 {
		kept, _ := r.retry(ctx, "mark dead", func(ctx context.Context) (map[string]bool, error) {
			return r.opts.Store.Dead(ctx, dead)
		})
		if kept != nil {
			var lost []string
			for _, d := range dead {
				if !kept[d.Lease.ID] {
					lost = append(lost, d.Lease.ID)
				}
			}
			r.lost(lost, "mark dead")
		}
	}
}

// forward writes the forwards in one fenced statement. When the database
// refuses a value of one of the rows (a rendered topic wider than the
// outbox column, say), no try of that statement can succeed: the rows are
// then forwarded one at a time, and each row the database refuses on its
// own is returned to be marked dead with the reason, while the rest of
// the batch goes on. A poison row thus neither stalls its batch for a
// lease nor the rows of every other source behind it.
func (r *Relay) forward(ctx context.Context, forwards []queuebox.Forward) (dead []queuebox.DeadMark) {
	if len(forwards) == 0 {
		return nil
	}
	kept, err := r.retry(ctx, "forward", func(ctx context.Context) (map[string]bool, error) {
		return r.opts.Store.Forward(ctx, queuebox.ForwardParams{Rows: forwards, MaxAttempts: r.opts.MaxAttempts})
	})
	var refused *queuebox.RefusedValueError
	switch {
	case !errors.As(err, &refused):
		r.account(forwards, kept, "forward")
		return nil
	case len(forwards) == 1:
		reason := refusedReason(forwards[0], refused)
		r.opts.Logger.WarnContext(r.rowContext(ctx, forwards[0].Headers), "inbox row dead",
			"inbox_id", forwards[0].Lease.ID, "reason", reason)
		return []queuebox.DeadMark{{Lease: forwards[0].Lease, Reason: reason}}
	}
	for _, f := range forwards {
		dead = append(dead, r.forward(ctx, []queuebox.Forward{f})...)
	}
	return dead
}

// refusedReason names what the outbox could not hold: the rendered topic
// or the aggregate key when one is longer than the outbox columns are by
// default, and the database's own words in every case.
func refusedReason(f queuebox.Forward, refused *queuebox.RefusedValueError) string {
	field := "a value of the row"
	if n := utf8.RuneCountInString(f.Topic); n > outboxColumnWidth {
		field = fmt.Sprintf("the rendered topic (%d characters)", n)
	}
	return fmt.Sprintf("The outbox cannot hold %s, so the message can never be forwarded: %s", field, refused.Reason)
}

// outboxColumnWidth is the width of the outbox topic and key columns of
// the bundled schema, used only to name the field in a reason.
const outboxColumnWidth = 255

func (r *Relay) account(forwards []queuebox.Forward, kept map[string]bool, what string) {
	if kept == nil {
		return
	}
	var lost []string
	for _, f := range forwards {
		if kept[f.Lease.ID] {
			r.opts.Metrics.Messages.WithLabelValues("forwarded").Inc()
			continue
		}
		lost = append(lost, f.Lease.ID)
	}
	r.lost(lost, what)
}

// maxLostIDs bounds the ids that one lost-claim line lists.
const maxLostIDs = 10

// lost counts and logs the rows of one write whose claim was lost: one
// line per write, not one per row, since a whole batch is lost at once
// when its leases ran out (a claim slower than the lease says so itself).
func (r *Relay) lost(ids []string, what string) {
	if len(ids) == 0 {
		return
	}
	r.opts.Metrics.ClaimsLost.Add(float64(len(ids)))
	r.opts.Logger.Error("relay claims lost; the rows belong to another relay and no outbox row was written for them",
		"rows", len(ids), "inbox_ids", ids[:min(len(ids), maxLostIDs)], "write", what)
}

// prepare builds the forward of one row, or the reason it is dead. The
// claim takes only rows of configured sources, so the missing-source
// reason is a guard, not a path a row normally takes.
func (r *Relay) prepare(row queuebox.InboxRow) (queuebox.Forward, string) {
	tmpl, ok := r.opts.Topics[row.Source]
	if !ok {
		return queuebox.Forward{}, fmt.Sprintf("Source %s is not configured, so the relay cannot render its topic", row.Source)
	}
	eventType := ""
	if row.EventType != nil {
		eventType = *row.EventType
	}
	topic := RenderTopic(tmpl, row.Source, eventType)
	if topic == "" {
		return queuebox.Forward{}, fmt.Sprintf("The topic template %q of source %s rendered empty, so the message can reach no destination", tmpl, row.Source)
	}
	if LacksEventType(tmpl, eventType) {
		return queuebox.Forward{}, fmt.Sprintf("The topic template %q of source %s reads {{ eventType }}, but the message carries no event type, "+
			"so its topic would be %q; set the source's eventTypePath or leave {{ eventType }} out of the template", tmpl, row.Source, topic)
	}
	headers, err := OutboxHeaders(row.Headers, row.ID, row.Source, row.IdempotencyKey, row.CorrelationID)
	if err != nil {
		return queuebox.Forward{}, err.Error()
	}
	return queuebox.Forward{Lease: row.Lease(), Topic: topic, Headers: headers}, ""
}

// retry runs a fenced write, trying again while it fails for up to the
// lease, as claim.WriteRetry documents: while the database is away the
// claimed rows stay ours in the table, so a write that succeeds once it
// answers again forwards them at once instead of leaving them, and their
// aggregates, claimed until the lease expires. Once ctx ends (the shutdown
// timeout passed), one more try decides. Each failed try counts as a relay
// error and marks the component down. It returns nil when every try failed.
func (r *Relay) retry(ctx context.Context, what string, write claim.Write) (map[string]bool, error) {
	kept, err := r.writes.Do(ctx, write, write, func(attempt int, err error) {
		r.opts.Metrics.Errors.Inc()
		r.health.Down(err)
		if claim.LogAttempt(attempt) {
			r.opts.Logger.Error("relay write failed; trying again until the lease ends", "write", what,
				"attempt", attempt, "err", err)
		}
	})
	if errors.Is(err, queuebox.ErrRefusedValue) {
		// The database answered: the write failed on the rows, not on it.
		r.health.Up()
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	r.health.Up()
	return kept, nil
}

// refreshAge sets the oldest-pending gauge at most once per
// PendingGaugeInterval, and less often while the read is slow
// (backoff.Paced).
func (r *Relay) refreshAge(ctx context.Context) {
	for {
		start := time.Now()
		age, err := r.opts.Store.OldestPendingAge(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			r.opts.Logger.Warn("reading the oldest pending inbox row failed", "err", err)
		case err == nil:
			r.opts.Metrics.OldestPendingAge.Set(age.Seconds())
		}
		if !backoff.Sleep(ctx, backoff.Paced(r.opts.PendingGaugeInterval, time.Since(start))) {
			return
		}
	}
}

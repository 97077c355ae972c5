package ingest

import "context"

// ReceiveBatch receives the messages of one fetched group (a RabbitMQ
// prefetch window, a JetStream fetch, a Kafka poll) and returns one
// Decision per message, in the order of msgs.
//
// The rows of the group enter the inbox in the order of msgs, so the
// order of a queue, stream or partition is the order of its rows. A
// message that cannot be stored for good (rejected, or dead in
// dead-letter mode) is decided alone and never fails its neighbours.
//
// A non-nil error means the store of the group failed and nothing was
// decided: the transport must have the whole group sent again (a nak of
// every message, or an uncommitted offset). Rows of the group that did
// commit before the failure are then found as duplicates, so the repeat
// stores nothing twice. Cancelling ctx stops the group's store.
// ReceiveBatch is safe for concurrent use.
//
// This form stores the messages one after another through Receive; the
// group-commit form (one statement, one commit for the group) keeps the
// same contract.
func (r *Receiver) ReceiveBatch(ctx context.Context, msgs []Message) ([]Decision, error) {
	decisions := make([]Decision, 0, len(msgs))
	for _, m := range msgs {
		d, err := r.Receive(ctx, m)
		if err != nil {
			return nil, err
		}
		decisions = append(decisions, d)
	}
	return decisions, nil
}

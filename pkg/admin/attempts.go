package admin

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// MaxAttemptsShown bounds the attempts that the attempts of one message
// answer: the newest ones. A row retries up to its max_attempts and may
// be deferred and replayed many times, so the bound keeps an answer
// small; the delivery ledger keeps the rest until its retention.
const MaxAttemptsShown = 100

// MessageAttempts returns the newest attempts of the message that outbox
// row m belongs to, from the delivery ledger: the attempts of the row the
// application wrote and of every delivery of its fan-out (Deliveries),
// newest first, at most MaxAttemptsShown. more says that older attempts
// were left out.
func MessageAttempts(ctx context.Context, store queuebox.WorkbenchStore, m queuebox.Message) (attempts []queuebox.Attempt, more bool, err error) {
	rows, err := Deliveries(ctx, store, m)
	if err != nil {
		return nil, false, err
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	attempts, err = store.Attempts(ctx, ids, MaxAttemptsShown+1)
	if err != nil {
		return nil, false, fmt.Errorf("read the attempts of message %s: %w", m.MessageID(), err)
	}
	if len(attempts) > MaxAttemptsShown {
		return attempts[:MaxAttemptsShown], true, nil
	}
	return attempts, false, nil
}

// attempts answers GET /admin/messages/{id}/attempts: the attempts of the
// message that the outbox row belongs to, from the delivery ledger.
func (w *Workbench) attempts(c echo.Context, _ string) error {
	table, id, _, err := rowParams(c, false)
	if err == nil && table != queuebox.TableOutbox {
		err = invalidRequest("table: the delivery ledger records the attempts of outbox rows only")
	}
	if err != nil {
		return fail(c)(http.StatusBadRequest, err.Error())
	}
	ctx := c.Request().Context()
	m, err := w.store.Get(ctx, table, id)
	if errors.Is(err, queuebox.ErrNotFound) {
		return fail(c)(http.StatusNotFound, fmt.Sprintf("No outbox row has the id %s", id))
	}
	if err != nil {
		return w.storeFailed(c, "read attempts", err, "message_id", id)
	}
	list, more, err := MessageAttempts(ctx, w.store, m)
	if err != nil {
		return w.storeFailed(c, "read attempts", err, "message_id", id)
	}
	items := make([]map[string]any, len(list))
	for i, a := range list {
		items[i] = AttemptItem(a)
	}
	return c.JSON(http.StatusOK, map[string]any{"messageId": m.MessageID(), "items": items,
		"limit": MaxAttemptsShown, "truncated": more})
}

// AttemptItem is the shape of one attempt in the admin API and the CLI's
// JSON: what the ledger holds, camelCase, with null for what it has none
// of.
func AttemptItem(a queuebox.Attempt) map[string]any {
	return map[string]any{"id": a.ID, "outboxId": a.OutboxID, "messageId": a.MessageID,
		"destination": a.Destination, "attempt": a.Number, "startedAt": a.StartedAt,
		"durationMs": a.Duration.Milliseconds(), "outcome": a.Outcome, "failureClass": nullable(string(a.Class)),
		"status": nullable(a.Status), "answer": nullable(a.Answer), "recordedAt": a.RecordedAt}
}

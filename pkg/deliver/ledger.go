package deliver

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// The facts of one attempt for the delivery ledger. publish records when
// the publish started, how long it took and what the destination
// answered; the steps before it name their failure or deferral; facts
// completes them once the outcome is known. They travel on the outcome
// to the write, which records them with it in one statement (or ignores
// them with the ledger off). They decide nothing.

// facts completes the attempt's facts on outcome: the row's attempt
// number at its claim (X-Attempt), the start and duration of the row's
// handling when no publish measured its own, and the answer, by default
// the outcome's reason, cut to queuebox.MaxAnswerBytes and redacted and
// stripped of control characters as last_error is. A sent row keeps no
// answer.
func (p *Poller) facts(outcome *queuebox.Outcome, m *queuebox.OutboxMessage, begun time.Time) {
	a := &outcome.Attempt
	a.Number = m.Attempt
	if a.StartedAt.IsZero() {
		a.StartedAt, a.Duration = begun, time.Since(begun)
	}
	switch {
	case outcome.Kind == queuebox.OutcomeSent:
		a.Answer = ""
	case a.Answer == "":
		a.Answer = outcome.Error
	}
	if a.Answer != "" {
		a.Answer = p.clean(a.Answer, queuebox.MaxAnswerBytes)
	}
}

// failureClass names the failure of a publish for the ledger, from what
// the error says of itself: the same reading as the error.type of the
// publish span, in the ledger's fixed set of classes.
func failureClass(err error) queuebox.AttemptClass {
	var status interface{ HTTPStatusCode() int }
	var pause queuebox.PauseRequest
	switch {
	case errors.Is(err, queuebox.ErrUndeliverable):
		return queuebox.ClassUndeliverable
	case errors.Is(err, context.DeadlineExceeded):
		return queuebox.ClassTimeout
	case errors.As(err, &status):
		switch code := status.HTTPStatusCode(); {
		case code >= 500:
			return queuebox.ClassHTTP5xx
		case code >= 400:
			return queuebox.ClassHTTP4xx
		case code >= 300:
			return queuebox.ClassHTTP3xx
		}
		// An HTTP request that got no answer at all.
		return queuebox.ClassConnect
	case errors.As(err, &pause):
		if _, ok := pause.Pause(time.Now()); ok {
			return queuebox.ClassRefused
		}
	}
	return queuebox.ClassPublish
}

// answerStatus is the status the destination answered: the publisher's
// receipt, else the HTTP status that the error carries (a publisher
// wrapped by one that forgets the receipt, a token endpoint's refusal).
func answerStatus(r queuebox.Receipt, err error) string {
	if r.Status != "" {
		return r.Status
	}
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &status) && status.HTTPStatusCode() > 0 {
		return strconv.Itoa(status.HTTPStatusCode())
	}
	return ""
}

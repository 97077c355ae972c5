package rowcodec

import (
	"math"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// AttemptColumns turns the attempt facts of outcomes into the six column
// arrays that the PostgreSQL outcome write takes for the delivery ledger,
// in this order: attempt numbers, starts in microseconds since the Unix
// epoch (0 for a zero time: the statement takes its clock), durations in
// milliseconds, failure classes, statuses and answers ("" stores NULL).
func AttemptColumns(outcomes []queuebox.Outcome) []any {
	n := len(outcomes)
	numbers, starts, durations := make([]int64, n), make([]int64, n), make([]int64, n)
	classes, statuses, answers := make([]string, n), make([]string, n), make([]string, n)
	for i, oc := range outcomes {
		a := oc.Attempt
		numbers[i], starts[i], durations[i] = int64(a.Number), StartMicros(a.StartedAt), DurationMs(a.Duration)
		classes[i], statuses[i], answers[i] = string(a.Class), a.Status, a.Answer
	}
	return []any{numbers, starts, durations, classes, statuses, answers}
}

// StartMicros is t in microseconds since the Unix epoch, or 0 for the
// zero time.
func StartMicros(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

// DurationMs is d in whole milliseconds, within the INT column of the
// ledger: never below 0 nor above its largest value.
func DurationMs(d time.Duration) int64 {
	return min(max(d.Milliseconds(), 0), math.MaxInt32)
}

package rowcodec

import (
	"context"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Write is one fenced outcome statement of a dialect: it returns the ids
// whose rows it changed (Finish) or found written (the confirming read).
type Write func(ctx context.Context, outcomes []queuebox.Outcome) (map[string]bool, error)

// FinishAgain is the later try of outcomes after a try whose answer was
// lost, the same in both dialects: finish writes them again; a row whose
// fence fails now is then looked up with confirm, and one that already
// shows its outcome under its claim token (the lost try committed it)
// counts as written, not as a lost claim.
func FinishAgain(ctx context.Context, outcomes []queuebox.Outcome, finish, confirm Write) (map[string]bool, error) {
	kept, err := finish(ctx, outcomes)
	if err != nil || len(kept) == len(outcomes) {
		return kept, err
	}
	var rest []queuebox.Outcome
	for _, oc := range outcomes {
		if !kept[oc.Lease.ID] {
			rest = append(rest, oc)
		}
	}
	written, err := confirm(ctx, rest)
	if err != nil {
		return nil, err
	}
	for id := range written {
		kept[id] = true
	}
	return kept, nil
}

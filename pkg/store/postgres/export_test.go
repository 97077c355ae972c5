package postgres

import (
	"context"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Own exposes the lookup that Insert runs after a retried try.
func (in *Inbox) Own(ctx context.Context, row queuebox.ReceivedRow) (string, bool, error) {
	return in.own(ctx, row)
}

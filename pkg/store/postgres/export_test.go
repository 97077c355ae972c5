package postgres

import "context"

// Own exposes the lookup that Insert runs after a retried try.
func (in *Inbox) Own(ctx context.Context, row ReceivedRow) (string, bool, error) {
	return in.own(ctx, row)
}

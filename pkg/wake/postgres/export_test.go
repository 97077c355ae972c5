package postgres

import "context"

// SetListening makes l call f after each successful LISTEN.
func SetListening(l *Listener, f func()) { l.listening = f }

// RunningIn is Running against the snapshot snap (its text form) instead
// of a new one.
func RunningIn(ctx context.Context, q Querier, snap string, xids []uint32) ([]uint32, error) {
	return running(ctx, q, &snap, xids)
}

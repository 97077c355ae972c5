package postgres

import (
	"log/slog"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/wake"
)

var _ queuebox.WakeSource = (*wake.Listener)(nil)

// WakeSource implements queuebox.Stores: a LISTEN on wake.Channel on a
// dedicated connection to the database of the pool (a pooled connection
// would not keep the session's LISTEN). Every deliver replica listens,
// whichever replica owns capture.
func (s *Stores) WakeSource(wakeUp func(), log *slog.Logger) (queuebox.WakeSource, bool) {
	return wake.NewListener(wake.ListenerOptions{
		ConnString: s.DB.connString, DisplayURL: s.DB.display, Wake: wakeUp, Logger: log,
	}), true
}

package postgres

import (
	"log/slog"

	"github.com/alternayte/queuebox/pkg/queuebox"
	wakepg "github.com/alternayte/queuebox/pkg/wake/postgres"
)

var _ queuebox.WakeSource = (*wakepg.Listener)(nil)

// WakeSource implements queuebox.Stores: a LISTEN on wake.Channel on a
// dedicated connection to the database of the pool (a pooled connection
// would not keep the session's LISTEN). Every deliver replica listens,
// whichever replica owns capture.
func (s *Stores) WakeSource(wakeUp func(), log *slog.Logger) (queuebox.WakeSource, bool) {
	return wakepg.NewListener(wakepg.ListenerOptions{
		ConnString: s.DB.connString, DisplayURL: s.DB.display, Wake: wakeUp, Logger: log,
	}), true
}

package deliver_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAnOutcomeWaitsOutAShortDatabaseOutage: the database goes away
// right after the destination accepted a row and comes back well within
// the lease. The poller keeps its outcome until it can write it: the row
// ends sent without waiting for its lease to expire, and the destination
// receives it once.
func TestAnOutcomeWaitsOutAShortDatabaseOutage(t *testing.T) {
	t.Parallel()
	var e *env
	var once sync.Once
	restored := make(chan struct{})
	rc := newReceiver(t, func(request) int {
		once.Do(func() {
			// The table is away when the outcome is written, as during an
			// outage, for longer than a few quick retries last.
			if _, err := e.db.Pool.Exec(context.Background(), `ALTER TABLE outbox RENAME TO outbox_away`); err != nil {
				t.Errorf("start the outage: %v", err)
			}
			go func() {
				time.Sleep(2 * time.Second) // the length of the outage
				_, err := e.db.Pool.Exec(context.Background(), `ALTER TABLE outbox_away RENAME TO outbox`)
				if err != nil {
					t.Errorf("end the outage: %v", err)
				}
				close(restored)
			}()
		})
		return http.StatusOK
	})
	e = newEnv(t, rc.URL)
	e.settings.ClaimTimeout = time.Minute
	e.exec(t, `INSERT INTO outbox (topic, key, payload) VALUES ('order.created', 'k', '{}')`)
	p, _ := e.poller(t)
	start(t, p)
	select {
	case <-restored:
	case <-time.After(30 * time.Second):
		t.Fatal("the outage did not start and end")
	}
	e.waitStates(t, "sent")
	require.Len(t, rc.Requests(), 1, "delivered once")
}

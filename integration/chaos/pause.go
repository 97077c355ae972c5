package chaos

import (
	"context"
	"time"
)

// PausePastLease stops a replica of the step's role with SIGSTOP, waits
// until every lease that was held at that moment has expired by the
// database clock and the expired claims are back with the live replicas,
// then continues it. Whatever the paused replica writes after that must
// be fenced. The relay works on the inbox table, deliver on the outbox.
func PausePastLease(r *Run, s Step) {
	r.T.Helper()
	table := "outbox"
	if s.Role == "relay" {
		table = "inbox"
	}
	p := r.Fleet.Pick(s.Role, s.Pick)
	resume := r.Fleet.Pause(p)
	var until time.Time
	WaitFor(r.T, time.Minute, "the lease horizon at the pause", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return r.DB.Pool.QueryRow(ctx, `SELECT coalesce(max(lease_expires_at), now()) FROM `+table+
			` WHERE state = 'processing'`).Scan(&until) == nil
	})
	WaitFor(r.T, 2*time.Minute+r.Lease, "the leases held at the pause expired and were reclaimed", func() bool {
		n, err := r.DB.TryCount(`SELECT CASE WHEN now() <= $1 THEN 1 ELSE
			(SELECT count(*) FROM `+table+` WHERE state = 'processing' AND lease_expires_at < now()) END`, until)
		return err == nil && n == 0
	})
	resume()
}

package chaos

import (
	"testing"
	"time"
)

// TestOutboxPathSurvivesKill9 is scenario 1: three deliver replicas, each
// killed with SIGKILL at random points and replaced.
func TestOutboxPathSurvivesKill9(t *testing.T) {
	Execute(t, Scenario{
		Name: "1 outbox path, kill -9", Roles: []string{"deliver", "deliver", "deliver"},
		Choices:       []Step{{Kind: "kill", Role: "deliver"}},
		ShortMessages: 2000, ShortFaults: 4, Lease: 3 * time.Second,
	})
}

// TestInboxPathSurvivesKill9 is scenario 2: two replicas each of ingest,
// relay and deliver; any of them killed with SIGKILL and replaced while
// the poster sends webhooks.
func TestInboxPathSurvivesKill9(t *testing.T) {
	Execute(t, Scenario{
		Name: "2 inbox path, kill -9 of any role", Inbox: true,
		Roles: []string{"ingest", "ingest", "relay", "relay", "deliver", "deliver"},
		Choices: []Step{{Kind: "kill", Role: "ingest"}, {Kind: "kill", Role: "relay"},
			{Kind: "kill", Role: "deliver"}},
		ShortMessages: 1600, ShortFaults: 4, Lease: 3 * time.Second,
	})
}

// TestPausedReplicaIsFenced is scenario 6: a deliver or relay replica is
// stopped with SIGSTOP past its lease and continued; its late writes must
// be fenced: nothing lost, no second outbox row, every duplicate delivery
// after the pause.
func TestPausedReplicaIsFenced(t *testing.T) {
	Execute(t, Scenario{
		Name: "6 paused process (SIGSTOP past the lease)", Inbox: true,
		Roles:         []string{"ingest", "relay", "relay", "deliver", "deliver"},
		Choices:       []Step{{Kind: "pause", Role: "deliver"}, {Kind: "pause", Role: "relay"}},
		ShortMessages: 1600, ShortFaults: 3, Lease: 2 * time.Second,
		Inject: PausePastLease,
	})
}

// TestPostgresRestartUnderLoad is scenario 4: a private PostgreSQL server
// restarted with fast and with immediate shutdown while deliver replicas
// drain the outbox and the producer writes to it.
func TestPostgresRestartUnderLoad(t *testing.T) {
	pg := StartCluster(t)
	Execute(t, Scenario{
		Name:          "4 PostgreSQL restart (fast, immediate)",
		Database:      func(t testing.TB) *Database { return NewDatabase(t, pg.URL()) },
		Roles:         []string{"deliver", "deliver", "deliver"},
		Choices:       []Step{{Kind: "restart", Role: "fast"}, {Kind: "restart", Role: "immediate"}},
		ShortMessages: 2000, ShortFaults: 3, Lease: 3 * time.Second,
		Inject: pg.RestartUnderLoad,
	})
}

// TestFailoverToPromotedStandby is scenario 5: the replicas reach a
// primary and its synchronous standby through a multi-host URL with
// target_session_attrs=read-write; the primary is killed and the standby
// promoted, and every replica must write to the new primary or exit
// non-zero within 30 s.
func TestFailoverToPromotedStandby(t *testing.T) {
	pair := StartPair(t)
	Execute(t, Scenario{
		Name: "5 failover to a promoted standby", Inbox: true,
		Database:      pair.Database,
		Roles:         []string{"ingest", "relay", "relay", "deliver", "deliver"},
		Choices:       []Step{{Kind: "failover"}},
		ShortMessages: 1000, ShortFaults: 1, Lease: 3 * time.Second,
		Inject: pair.Failover,
	})
}

// TestCaptureSurvivesKill9 is scenario 7: capture wakes two deliver
// replicas that otherwise poll every 5 s; capture and the replicas are
// killed with SIGKILL and replaced. Every row must arrive within its
// reconciliation bound (see CaptureScenario).
func TestCaptureSurvivesKill9(t *testing.T) {
	sc := CaptureScenario(t, 5*time.Second)
	sc.ShortMessages, sc.ShortFaults = 1500, 3
	Execute(t, sc)
}

// TestBrokersSurviveRestartsAndCuts is scenario 3: every message crosses
// NATS JetStream and RabbitMQ as destination and as source while the
// suite's private nats-server and RabbitMQ node are restarted (stopped
// cleanly or killed), the connections to both brokers are cut at the
// suite's proxies, and ingest is killed. The short run draws each kind of
// fault once.
func TestBrokersSurviveRestartsAndCuts(t *testing.T) {
	sc := BrokerScenario(t)
	sc.ShortMessages, sc.ShortFaults = 1500, len(sc.Choices)
	Execute(t, sc)
}

// TestFanOutSurvivesKill9 is scenario 8 (issue 37): one `destinations:`
// route sends every row to three destinations, the receiver answers about
// half of the requests to the third with a 500, and three deliver
// replicas are killed with SIGKILL and replaced. Each destination must
// get every row with the id of the row the application wrote, each lane
// (key and destination) in order, a row repeated after a kill only
// directly after itself.
func TestFanOutSurvivesKill9(t *testing.T) {
	Execute(t, Scenario{
		Name:  "8 fan-out to three destinations, one failing half the time, kill -9",
		Roles: []string{"deliver", "deliver", "deliver"},
		// A row's lane waits out its retries, and the backoff doubles: a
		// run of 15 failures, which a 1-in-2 coin gives about once in
		// 30,000 rows, would hold its lane for minutes (the wait tops out
		// at 60 s per retry) and outlast the run's budget now and then.
		// So a row fails at most 4 times in a row, 48 % of flaky's
		// requests in all, and the retries start at 10 ms, not the
		// suite's 50: a lane waits well under a second for one row.
		Fanout: &Fanout{Destinations: []string{"ledger", "audit", "flaky"},
			FailRates: map[string]float64{"flaky": 0.5}, MaxFailuresInARow: 4},
		RepeatsInPlace: true,
		Choices:        []Step{{Kind: "kill", Role: "deliver"}},
		ShortMessages:  1000, ShortFaults: 3, Lease: 3 * time.Second,
		Env: func(string) map[string]string { return map[string]string{"QUEUEBOX_OUTBOX_RETRYBASEDELAYMS": "10"} },
	})
}
